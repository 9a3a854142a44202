"""Outgoing mail behind one small interface; the local backend keeps messages in a Redis list.

SendGrid comes later as a second backend with the same `send`.
"""
from __future__ import annotations

import json
from typing import Any

from service.store import PREFIX, Store, dumps

OUTBOX = f"{PREFIX}:outbox"


def send(store: Store, to: str, subject: str, text: str) -> None:
    store.redis.rpush(OUTBOX, dumps({"to": to, "subject": subject, "text": text}))


def outbox(store: Store) -> list[dict[str, Any]]:
    """Every message sent so far (local backend), oldest first."""
    return [json.loads(item) for item in store.redis.lrange(OUTBOX, 0, -1)]
