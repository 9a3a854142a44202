"""The SendGrid backend: one call of the v3 mail/send endpoint through the official client.

The payload is built as the plain dict the v3 API documents rather than with the library's Mail
helper, whose content check refuses any text that merely starts like an API key ("SG.x.y").
Failures are classified, never retried here: the job that delivers retries with backoff.
"""
from __future__ import annotations

from email.utils import parseaddr
from http.client import HTTPException
from typing import Any

from python_http_client.exceptions import HTTPError
from sendgrid import SendGridAPIClient

from service.mail.errors import PermanentMailError, RetryableMailError
from service.mail.message import Mail
from service.mail.settings import MailSettings

CATEGORY = "palazzo"


def payload(mail: Mail, settings: MailSettings) -> dict[str, Any]:
    """The v3 request body: both parts (text first, as SendGrid requires), our headers, and the kind,
    game and seat as categories and custom args so that SendGrid's activity feed can be searched."""
    sender_name, sender_email = parseaddr(settings.sender)
    content = [{"type": "text/plain", "value": mail.text}]
    if mail.html:
        content.append({"type": "text/html", "value": mail.html})
    custom_args = {"kind": mail.kind}
    if mail.game is not None:
        custom_args["game"] = mail.game
    if mail.seat is not None:
        custom_args["seat"] = str(mail.seat)
    body: dict[str, Any] = {
        "personalizations": [{"to": [{"email": mail.to}]}],
        "from": {"email": sender_email, **({"name": sender_name} if sender_name else {})},
        "subject": mail.subject,
        "content": content,
        "categories": [CATEGORY, mail.kind],
        "custom_args": custom_args,
    }
    headers = dict(mail.headers)
    reply_to = headers.pop("Reply-To", None)  # a header SendGrid reserves: it has a field of its own
    if reply_to:
        body["reply_to"] = {"email": reply_to}
    if headers:
        body["headers"] = headers
    return body


def send(mail: Mail, settings: MailSettings) -> str:
    """Hand the mail to SendGrid; its X-Message-Id ("" if it gave none) once accepted."""
    client = SendGridAPIClient(api_key=settings.sendgrid_api_key, host=settings.sendgrid_host)
    client.client.timeout = settings.timeout
    body = payload(mail, settings)
    try:
        response = client.send(body)
    except HTTPError as error:
        raise classify(error.status_code) from error
    except (OSError, HTTPException) as error:
        raise RetryableMailError(f"SendGrid unreachable: {error}") from error
    return response.headers.get("X-Message-Id") or ""


def classify(status: int) -> RetryableMailError | PermanentMailError:
    """5xx and 429 pass with time; any other refusal is about the mail or the key and will not.

    The message holds the status alone: SendGrid's body may quote the mail, and the message reaches
    the workers' log and RQ's record of the failed job.
    """
    message = f"SendGrid answered {status}"
    if status == 429 or status >= 500:
        return RetryableMailError(message, status)
    return PermanentMailError(message, status)

