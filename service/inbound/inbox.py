"""Inbound mail kept in Redis: each post's raw fields and what became of it, under a key derived from
its Message-ID, so that a provider posting the same mail twice is seen, and a mail the job could not
handle is still there to retry and for the host to look at.

``pz:inbound:{<key>}:raw`` holds the fields as posted (JSON; each field's bytes as latin-1 text,
which maps every byte to one character and back, so they come back exactly), ``...:state`` a hash: ``status`` (received,
queued, then applied, refused, stale, help, closed, ignored, unreadable or failed), ``detail``, the game and seat
it was for, and the ``plan`` (the moves read from it, stored before any is played, so a retry plays
the same ones). Both live a week, longer than a provider retries a post. Each game also keeps its
last replies, newest last, for its host.
"""
from __future__ import annotations

import hashlib
import time
from collections.abc import Mapping
from typing import Any

from redis import Redis

from service.store import PREFIX, dumps, game_key, loads

TTL = 7 * 24 * 3600
KEEP = 100  # the replies a game keeps for its host
PENDING = ("received", "failed")  # a post that finds its mail in one of these queues it again
QUEUED = "queued"


def key_of(message_id: str | None, post: Mapping[str, bytes]) -> str:
    """The mail's key: its Message-ID's digest, or, for a mail without one, the digest of its fields."""
    basis = message_id.strip() if message_id else _text(post)
    return hashlib.sha256(basis.encode()).hexdigest()[:32]


def _key(key: str, part: str) -> str:
    return f"{PREFIX}:inbound:{{{key}}}:{part}"


def _text(post: Mapping[str, bytes]) -> str:
    return dumps({name: post[name].decode("latin-1") for name in sorted(post)})


def keep(redis: Redis, key: str, post: Mapping[str, bytes]) -> str:
    """Store a post's fields unless its mail is known already, and return the mail's status (received
    when it is new) in the same round trip: its keys share one cluster slot, so one transaction."""
    with redis.pipeline(transaction=True) as pipe:
        pipe.set(_key(key, "raw"), _text(post), nx=True, ex=TTL)
        pipe.hsetnx(_key(key, "state"), "status", "received")
        pipe.expire(_key(key, "state"), TTL)
        pipe.hget(_key(key, "state"), "status")
        *_, status = pipe.execute()
    return status


def fields(redis: Redis, key: str) -> dict[str, bytes] | None:
    raw = redis.get(_key(key, "raw"))
    return {name: value.encode("latin-1") for name, value in loads(raw).items()} if raw is not None else None


def state(redis: Redis, key: str) -> dict[str, Any]:
    found = redis.hgetall(_key(key, "state"))
    return {name: loads(value) if name == "plan" else value for name, value in found.items()}


def update(redis: Redis, key: str, **changes: Any) -> None:
    mapping = {name: dumps(value) if name == "plan" else str(value) for name, value in changes.items()}
    redis.hset(_key(key, "state"), mapping=mapping)


def claim(redis: Redis, key: str, what: str, ttl: int = TTL) -> bool:
    """True the first time `what` is claimed for this mail (its answer is sent once)."""
    return bool(redis.set(_key(key, f"claim:{what}"), "1", nx=True, ex=ttl))


def unclaim(redis: Redis, key: str, what: str) -> None:
    redis.delete(_key(key, f"claim:{what}"))


def note(redis: Redis, game_id: str, entry: dict[str, Any]) -> None:
    """Keep what became of a reply in the game's list, for its host."""
    with redis.pipeline(transaction=False) as pipe:
        pipe.rpush(game_key(game_id, "replies"), dumps({"at": int(time.time()), **entry}))
        pipe.ltrim(game_key(game_id, "replies"), -KEEP, -1)
        pipe.execute()


def noted(redis: Redis, game_id: str) -> list[dict[str, Any]]:
    return [loads(item) for item in redis.lrange(game_key(game_id, "replies"), 0, -1)]
