"""A player's mail preferences, kept under his address: time zone, and which mails he wants."""
from __future__ import annotations

import json
from typing import Any

from service.store import Store, dumps, email_key

MAIL_CHOICES = ("all", "decisions", "none")  # decisions: only his decisions and reminders
DEFAULTS = {"time_zone": "UTC", "mail": "all", "bounced": None}  # bounced: why mail to it stopped


def read(store: Store, email_hash: str) -> dict[str, Any]:
    raw = store.redis.get(email_key(email_hash, "settings"))
    return {**DEFAULTS, **(json.loads(raw) if raw else {})}


def write(store: Store, email_hash: str, changes: dict[str, Any]) -> dict[str, Any]:
    settings = {**read(store, email_hash), **changes}
    store.redis.set(email_key(email_hash, "settings"), dumps(settings))
    return settings
