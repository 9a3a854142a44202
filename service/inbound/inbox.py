"""Inbound mail kept in Redis: each post's fields and what became of it, under a key derived from its
Message-ID, so that a provider posting the same mail twice is seen, and a mail the job could not
handle is still there to retry and for the host to look at. The endpoint keeps only posts for an
address of ours (`endpoint`), and only the fields a reply needs.

``pz:inbound:{<key>}:raw`` holds the fields as posted (JSON; each field's bytes as latin-1 text,
which maps every byte to one character and back, so they come back exactly), ``...:state`` a hash:
``status`` (received, queued, then applied, refused, stale, help, closed, ignored, unreadable or
failed), ``detail``, the game and seat it was for, and the ``plan`` (the moves read from it, stored
before any is played, so a retry plays the same ones). The fields and the plan go as soon as the mail
has its final status (`finish`), except for a mail that failed, which the host or a later post of it
may still want; the state stays TTL, as long as a provider may post the mail again. Each game also
keeps its last replies, newest last, for its host.
"""
from __future__ import annotations

import hashlib
import time
from collections.abc import Mapping
from typing import Any

from redis import Redis

from service.store import PREFIX, dumps, game_key, loads

TTL = 3 * 24 * 3600 + 3600  # SendGrid retries a post for up to 3 days; an hour for clocks and queues
KEEP = 100  # the replies a game keeps for its host
FAILED = "failed"
PENDING = ("received", FAILED)  # a post that finds its mail in one of these queues it again
QUEUED = "queued"

# The fields are kept only with a new state, so a post of a mail already done keeps nothing again.
_KEEP = """
if redis.call('HSETNX', KEYS[2], 'status', 'received') == 1 then
  redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
  redis.call('EXPIRE', KEYS[2], ARGV[2])
end
return redis.call('HGET', KEYS[2], 'status')
"""


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
    when it is new), in one atomic step: its keys share one cluster slot."""
    return redis.eval(_KEEP, 2, _key(key, "raw"), _key(key, "state"), _text(post), TTL)


def fields(redis: Redis, key: str) -> dict[str, bytes] | None:
    raw = redis.get(_key(key, "raw"))
    return {name: value.encode("latin-1") for name, value in loads(raw).items()} if raw is not None else None


def state(redis: Redis, key: str) -> dict[str, Any]:
    found = redis.hgetall(_key(key, "state"))
    return {name: loads(value) if name == "plan" else value for name, value in found.items()}


def update(redis: Redis, key: str, **changes: Any) -> None:
    mapping = {name: dumps(value) if name == "plan" else str(value) for name, value in changes.items()}
    redis.hset(_key(key, "state"), mapping=mapping)


def finish(redis: Redis, key: str, status: str, detail: str) -> None:
    """Record what became of the mail; unless it failed, its fields and plan go at once, and only
    its state stays, to know a repeated post of it by."""
    with redis.pipeline(transaction=True) as pipe:
        pipe.hset(_key(key, "state"), mapping={"status": status, "detail": detail})
        if status != FAILED:
            pipe.delete(_key(key, "raw"))
            pipe.hdel(_key(key, "state"), "plan")
        pipe.execute()


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
