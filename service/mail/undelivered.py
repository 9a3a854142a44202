"""Mail that did not reach its player, kept per game so that the host can see it and act."""
from __future__ import annotations

import json
from typing import Any

from redis import Redis

from service.mail.message import Mail
from service.store import dumps, game_key

KEEP = 100  # the newest entries a game keeps


def keep(redis: Redis, mail: Mail, reason: str) -> None:
    if mail.game:
        key = game_key(mail.game, "undelivered")
        redis.rpush(key, dumps({"to": mail.to, "kind": mail.kind, "subject": mail.subject, "reason": reason}))
        redis.ltrim(key, -KEEP, -1)


def listed(redis: Redis, game_id: str) -> list[dict[str, Any]]:
    return [json.loads(item) for item in redis.lrange(game_key(game_id, "undelivered"), 0, -1)]
