"""The host's counters (`service.metrics` serves them): fields of Redis hashes, so that every web and
worker process adds to the same figure, which outlives any of them. Moves are counted by the commit
itself, per shard (`service.store.moves_key`)."""
from __future__ import annotations

import re
from typing import Any

from service.store import PREFIX

REFUSALS = f"{PREFIX}:metrics:refusals"  # problem answers, by code
MAILS_SENT = f"{PREFIX}:metrics:mails_sent"  # mails the provider accepted, by kind
MAILS_FAILED = f"{PREFIX}:metrics:mails_failed"  # mails refused for good or failing after the last try, by kind


def is_counter(key: str) -> bool:
    """A key of the host's counters: a refusal bumps one (a fixed set of fields, never a key per
    caller), so tests that hold "a refusal changes nothing" compare every key but these."""
    return key.startswith(f"{PREFIX}:metrics:") or re.fullmatch(rf"{PREFIX}:\{{[0-9a-f]{{2}}\}}:moves", key) is not None


def count(redis: Any, key: str, field: str) -> None:
    """Add one to the counter `field` of `key` (one of the hashes above)."""
    redis.hincrby(key, field, 1)
