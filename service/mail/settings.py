"""How mail leaves Palazzo and how replies come in over IMAP: parts of `service.config.Config`, read
with it once, so that a worker and the app agree."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from service.links import LOCAL_BASE_URL

BACKENDS = ("outbox", "sendgrid", "smtp")
SECURITY = ("starttls", "tls", "none")  # how a connection to an SMTP or IMAP server is protected
SMTP_PORTS = {"starttls": 587, "tls": 465, "none": 25}
IMAP_PORTS = {"starttls": 143, "tls": 993, "none": 143}
SENDGRID_HOST = "https://api.sendgrid.com"
DEFAULT_SENDER = "Palazzo <palazzo@localhost>"


@dataclass(frozen=True)
class MailSettings:
    backend: str = "outbox"
    sendgrid_api_key: str | None = None
    sendgrid_host: str = SENDGRID_HOST
    sender: str = DEFAULT_SENDER
    base_url: str = LOCAL_BASE_URL
    timeout: float = 10.0  # seconds a SendGrid call may take, so a hung connection fails (and retries)
    replies: bool = False  # whether players may answer by replying (PALAZZO_INBOUND_SECRET or PALAZZO_IMAP_HOST set)
    mail_domain: str = ""  # the domain of reply addresses, whose MX is the provider's inbound parse (or the IMAP mailbox's)
    smtp_host: str = ""  # the submission server of PALAZZO_MAIL_BACKEND=smtp
    smtp_port: int = SMTP_PORTS["starttls"]
    smtp_user: str = ""  # AUTH only when set
    smtp_password: str = ""
    smtp_security: str = "starttls"

    def __post_init__(self) -> None:
        if self.backend not in BACKENDS:
            raise ValueError(f"PALAZZO_MAIL_BACKEND must be one of {', '.join(BACKENDS)}, not {self.backend!r}")
        if self.backend == "sendgrid" and not self.sendgrid_api_key:
            raise ValueError("PALAZZO_MAIL_BACKEND=sendgrid needs SENDGRID_API_KEY")
        if self.backend == "smtp" and not self.smtp_host:
            raise ValueError("PALAZZO_MAIL_BACKEND=smtp needs PALAZZO_SMTP_HOST")
        _check_security("PALAZZO_SMTP_SECURITY", self.smtp_security)

    @property
    def domain(self) -> str:
        return domain_of(self.base_url)

    @property
    def reply_domain(self) -> str:
        """Where replies go: PALAZZO_MAIL_DOMAIN, else the host players reach us at."""
        return self.mail_domain or self.domain

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> MailSettings:
        security = (environ.get("PALAZZO_SMTP_SECURITY") or "starttls").strip().lower()
        return cls(
            backend=environ.get("PALAZZO_MAIL_BACKEND") or "outbox",
            sendgrid_api_key=environ.get("SENDGRID_API_KEY") or None,
            sendgrid_host=environ.get("PALAZZO_SENDGRID_HOST") or SENDGRID_HOST,
            sender=environ.get("PALAZZO_MAIL_FROM") or DEFAULT_SENDER,
            base_url=environ.get("PALAZZO_BASE_URL") or LOCAL_BASE_URL,
            replies=bool(environ.get("PALAZZO_INBOUND_SECRET") or environ.get("PALAZZO_IMAP_HOST")),
            mail_domain=(environ.get("PALAZZO_MAIL_DOMAIN") or "").strip().lower(),
            smtp_host=(environ.get("PALAZZO_SMTP_HOST") or "").strip(),
            smtp_port=_port(environ, "PALAZZO_SMTP_PORT", SMTP_PORTS.get(security, 0)),
            smtp_user=environ.get("PALAZZO_SMTP_USER") or "",
            smtp_password=environ.get("PALAZZO_SMTP_PASSWORD") or "",
            smtp_security=security,
        )


@dataclass(frozen=True)
class ImapSettings:
    """The mailbox a worker reads replies from (PALAZZO_IMAP_HOST set): a mailbox of Palazzo's own,
    whose handled mail is moved to `done_folder` (a path with "/", in the server's own separator)."""

    host: str = ""
    port: int = IMAP_PORTS["tls"]
    user: str = ""
    password: str = ""
    security: str = "tls"
    folder: str = "INBOX"
    done_folder: str = "Palazzo/Done"
    poll: float = 60.0  # seconds between looks without IDLE, and between two IDLEs with it
    authserv: str = ""  # the provider's name in its Authentication-Results headers, which are then trusted
    timeout: float = 30.0  # seconds a connection may take, or an answer but IDLE's

    def __post_init__(self) -> None:
        _check_security("PALAZZO_IMAP_SECURITY", self.security)
        if self.poll <= 0:
            raise ValueError(f"PALAZZO_IMAP_POLL must be a positive number of seconds, not {self.poll}")

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> ImapSettings:
        security = (environ.get("PALAZZO_IMAP_SECURITY") or "tls").strip().lower()
        try:
            poll = float(environ.get("PALAZZO_IMAP_POLL") or 60)
        except ValueError:
            raise ValueError(f"PALAZZO_IMAP_POLL must be seconds, not {environ['PALAZZO_IMAP_POLL']!r}") from None
        return cls(
            host=(environ.get("PALAZZO_IMAP_HOST") or "").strip(),
            port=_port(environ, "PALAZZO_IMAP_PORT", IMAP_PORTS.get(security, 0)),
            user=environ.get("PALAZZO_IMAP_USER") or "",
            password=environ.get("PALAZZO_IMAP_PASSWORD") or "",
            security=security,
            folder=environ.get("PALAZZO_IMAP_FOLDER") or "INBOX",
            done_folder=environ.get("PALAZZO_IMAP_DONE_FOLDER") or "Palazzo/Done",
            poll=poll,
            authserv=(environ.get("PALAZZO_IMAP_AUTHSERV") or "").strip(),
        )


def _check_security(name: str, value: str) -> None:
    if value not in SECURITY:
        raise ValueError(f"{name} must be one of {', '.join(SECURITY)}, not {value!r}")


def _port(environ: Mapping[str, str], name: str, default: int) -> int:
    """A port setting, or the usual port of the connection's security."""
    text = (environ.get(name) or "").strip()
    if not text:
        return default
    if not text.isascii() or not text.isdigit() or not 0 < int(text) < 65536:
        raise ValueError(f"{name} must be a port number, not {text!r}")
    return int(text)


def domain_of(base_url: str) -> str:
    """The right-hand side of our Message-IDs: the host players reach us at."""
    return urlsplit(base_url).hostname or "localhost"
