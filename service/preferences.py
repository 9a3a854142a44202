"""A player's mail preferences, kept under his address: time zone, and which mails he wants."""
from __future__ import annotations

import json
from typing import Any

from service.store import Store, dumps, email_key

MAIL_CHOICES = ("all", "decisions", "none")  # decisions: only his decisions and reminders
DEFAULTS = {"time_zone": "UTC", "mail": "all", "bounced": None}  # bounced: why mail to it stopped


def _parse(raw: str | None) -> dict[str, Any]:
    return {**DEFAULTS, **(json.loads(raw) if raw else {})}


def read(store: Store, email_hash: str) -> dict[str, Any]:
    return _parse(store.redis.get(email_key(email_hash, "settings")))


def read_many(store: Store, email_hashes: list[str]) -> list[dict[str, Any]]:
    """Several addresses' settings in one round trip (a pipeline, not MGET: the keys lie in
    different cluster slots)."""
    if not email_hashes:
        return []
    with store.redis.pipeline(transaction=False) as pipe:
        for email_hash in email_hashes:
            pipe.get(email_key(email_hash, "settings"))
        return [_parse(raw) for raw in pipe.execute()]


def write(store: Store, email_hash: str, changes: dict[str, Any]) -> dict[str, Any]:
    settings = {**read(store, email_hash), **changes}
    store.redis.set(email_key(email_hash, "settings"), dumps(settings))
    return settings
