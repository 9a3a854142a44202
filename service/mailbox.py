"""The local outbox as the rest of the service has always called it; the mail itself lives in
`service.mail` (rendering, the outbox and SendGrid backends)."""
from __future__ import annotations

from typing import Any

from service.mail import outbox as local
from service.mail.message import Mail
from service.store import Store

OUTBOX = local.OUTBOX


def send(store: Store, to: str, subject: str, text: str) -> None:
    """Keep a plain-text mail in the local outbox."""
    local.push(store.redis, Mail(to=to, subject=subject, text=text))


def outbox(store: Store) -> list[dict[str, Any]]:
    """Every message sent so far (local backend), oldest first."""
    return local.messages(store.redis)
