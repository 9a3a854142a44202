"""The SMTP backend: one submission to any provider's SMTP server, through the standard library.

The message carries what SendGrid's payload carries (`sendgrid_api.payload`): the rendered text and
HTML parts, and our headers as they are (Message-ID and the game's thread, Reply-To for replies,
RFC 8058's List-Unsubscribe and List-Unsubscribe-Post, Auto-Submitted). The connection is protected
as PALAZZO_SMTP_SECURITY says: STARTTLS (port 587), implicit TLS (465) or none (a relay on
loopback); the server's certificate is checked against the system's CAs (SSL_CERT_FILE names
others). AUTH only when a user is set.

Failures are classified as SendGrid's are, never retried here (the job that delivers retries with
backoff): an SMTP 4xx and a server that cannot be reached or drops the line pass with time; a 5xx
(the address does not exist, the mail or our credentials are refused) will not, and the mail is
kept as undelivered. The error holds the server's code alone: its text may quote the mail.
"""
from __future__ import annotations

import smtplib
import ssl
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import formatdate, parseaddr

from service.mail.errors import PermanentMailError, RetryableMailError
from service.mail.message import Mail
from service.mail.settings import MailSettings


def message(mail: Mail, settings: MailSettings) -> EmailMessage:
    """The mail as an RFC 5322 message: our headers, a text part and, when there is one, an HTML
    alternative to it."""
    built = EmailMessage(policy=SMTP)
    built["From"] = settings.sender
    built["To"] = mail.to
    built["Subject"] = mail.subject
    built["Date"] = formatdate(localtime=False, usegmt=True)
    for name, value in mail.headers.items():
        built[name] = value
    built.set_content(mail.text)
    if mail.html:
        built.add_alternative(mail.html, subtype="html")
    return built


def send(mail: Mail, settings: MailSettings) -> str:
    """Hand the mail to the SMTP server; "" once it is accepted (the server's queue id is not kept:
    `sending` records the mail as sent by its Message-ID)."""
    sender = parseaddr(settings.sender)[1]
    try:
        with _connected(settings) as server:
            server.send_message(message(mail, settings), from_addr=sender, to_addrs=[mail.to])
    except smtplib.SMTPRecipientsRefused as error:
        raise classify(min(code for code, _ in error.recipients.values())) from None
    except smtplib.SMTPResponseException as error:  # the greeting, HELO, AUTH, MAIL, DATA refused
        raise classify(error.smtp_code) from None
    except smtplib.SMTPNotSupportedError as error:
        raise PermanentMailError(f"the SMTP server does not offer what PALAZZO_SMTP_SECURITY and "
                                 f"PALAZZO_SMTP_USER ask for ({error})") from None
    except (smtplib.SMTPException, OSError) as error:  # refused, timed out, TLS failed, line dropped
        raise RetryableMailError(f"SMTP server unreachable: {type(error).__name__}") from None
    return ""


def _connected(settings: MailSettings) -> smtplib.SMTP:
    """A session with the server, protected and authenticated as the settings say."""
    context = ssl.create_default_context()
    host, port, timeout = settings.smtp_host, settings.smtp_port, settings.timeout
    if settings.smtp_security == "tls":
        server: smtplib.SMTP = smtplib.SMTP_SSL(host, port, timeout=timeout, context=context)
    else:
        server = smtplib.SMTP(host, port, timeout=timeout)
    try:
        if settings.smtp_security == "starttls":
            server.starttls(context=context)
        if settings.smtp_user:
            server.login(settings.smtp_user, settings.smtp_password)
    except BaseException:
        server.close()
        raise
    return server


def classify(code: int) -> RetryableMailError | PermanentMailError:
    """5xx is the server's final no; a 4xx (or a code that is neither) may pass with time."""
    text = f"SMTP server answered {code}"
    if 500 <= code < 600:
        return PermanentMailError(text, code)
    return RetryableMailError(text, code if 400 <= code < 500 else None)
