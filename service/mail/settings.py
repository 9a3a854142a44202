"""How mail leaves Palazzo: a part of `service.config.Config`, read with it once, so that a worker and the app agree."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from service.links import LOCAL_BASE_URL

BACKENDS = ("outbox", "sendgrid")
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
    replies: bool = False  # whether players may answer by replying (PALAZZO_INBOUND_SECRET is set)
    mail_domain: str = ""  # the domain of reply addresses, whose MX is the provider's inbound parse

    def __post_init__(self) -> None:
        if self.backend not in BACKENDS:
            raise ValueError(f"PALAZZO_MAIL_BACKEND must be one of {', '.join(BACKENDS)}, not {self.backend!r}")
        if self.backend == "sendgrid" and not self.sendgrid_api_key:
            raise ValueError("PALAZZO_MAIL_BACKEND=sendgrid needs SENDGRID_API_KEY")

    @property
    def domain(self) -> str:
        return domain_of(self.base_url)

    @property
    def reply_domain(self) -> str:
        """Where replies go: PALAZZO_MAIL_DOMAIN, else the host players reach us at."""
        return self.mail_domain or self.domain

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> MailSettings:
        return cls(
            backend=environ.get("PALAZZO_MAIL_BACKEND") or "outbox",
            sendgrid_api_key=environ.get("SENDGRID_API_KEY") or None,
            sendgrid_host=environ.get("PALAZZO_SENDGRID_HOST") or SENDGRID_HOST,
            sender=environ.get("PALAZZO_MAIL_FROM") or DEFAULT_SENDER,
            base_url=environ.get("PALAZZO_BASE_URL") or LOCAL_BASE_URL,
            replies=bool(environ.get("PALAZZO_INBOUND_SECRET")),
            mail_domain=(environ.get("PALAZZO_MAIL_DOMAIN") or "").strip().lower(),
        )


def domain_of(base_url: str) -> str:
    """The right-hand side of our Message-IDs: the host players reach us at."""
    return urlsplit(base_url).hostname or "localhost"
