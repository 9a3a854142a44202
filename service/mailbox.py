"""The local outbox as the rest of the service reads it; the mail itself lives in `service.mail`
(rendering, the outbox and SendGrid backends), which is also where mail is kept."""
from __future__ import annotations

from typing import Any

from service.mail import outbox as local
from service.store import Store


def outbox(store: Store) -> list[dict[str, Any]]:
    """Every message sent so far (local backend), oldest first."""
    return local.messages(store.redis)
