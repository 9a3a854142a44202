"""The local backend: mail kept in a Redis list instead of sent, for `palazzo serve` and the tests
(`palazzo outbox` shows it). Each entry is a mail's JSON dict, oldest first."""
from __future__ import annotations

import json
from typing import Any

from redis import Redis

from service.mail.message import Mail
from service.store import PREFIX, dumps

OUTBOX = f"{PREFIX}:outbox"


def push(redis: Redis, mail: Mail) -> str:
    """Keep the mail; its place in the list is its local message id."""
    return f"outbox-{redis.rpush(OUTBOX, dumps(mail.to_json()))}"


def messages(redis: Redis) -> list[dict[str, Any]]:
    return [json.loads(item) for item in redis.lrange(OUTBOX, 0, -1)]
