"""What an address is signed in with: its player tokens (the API's) and its browser sessions, each
ending after an idle time, listed and revoked by their owner.

A token's or session's record keeps when it was made (`created`), when it was last used (`used`,
to the step below) and where from (`from`). Each use slides its end, cheaply: the record is
rewritten (with its key's TTL) only once `Idle.step` has passed since `used`, so a busy token
writes once a day, not once a request. An idle record is not dropped at once: its key outlives
the idle time by `KEPT`, so that its holder hears "expired" rather than "unknown" (401
`token_expired`, or the sign-in page for a browser).

The address's index (`email_key(owner, "signed-in")`) names every record it owns, so that its owner
can list them and sign out everywhere without a SCAN. The record is the truth: an index entry whose
record is gone, idle or another address's is dropped when read. Tokens made before records had
`used` are indexed at their first use.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from typing import Any

import redis

from service import clock
from service.deadlines import stamp
from service.store import PREFIX, Store, dumps, email_key, loads, token_key

DAY = 24 * 3600
KEPT = 30 * DAY  # how long an idle record stays to say it expired
API, BROWSER = "api", "browser"  # the kinds listed: a player token, a browser session
SESSION_ID = "s"  # a session's public id: this letter and the start of its key's digest (never hex alone)

# KEYS: the record. ARGV: the record as read, the record to write, its TTL. Writes only when the
# record is still what was read, so a use never brings back a revoked record or undoes a change.
_SWAP = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
return 1
"""


@dataclass(frozen=True)
class Idle:
    """How long a record may go unused (seconds), and what follows from it."""

    seconds: float

    @property
    def step(self) -> float:
        """How often a use rewrites the record: a day, or half the idle time when that is shorter."""
        return min(self.seconds / 2, DAY)

    @property
    def ttl(self) -> int:
        return int(self.seconds) + 1 + KEPT

    def expired(self, record: dict[str, Any], at: float) -> bool:
        used = record.get("used")
        return used is not None and at - used > self.seconds

    def due(self, record: dict[str, Any], at: float) -> bool:
        return at - record.get("used", 0) >= self.step


def now() -> int:
    """The service's clock (tests move it), in whole seconds."""
    return int(clock.now().timestamp())


def session_key(digest: str) -> str:
    """A browser session's record, under a digest of its cookie's id (`service.web.session`)."""
    return f"{PREFIX}:web:session:{digest}"


def session_digest(sid: str) -> str:
    return hashlib.sha256(sid.encode()).hexdigest()[:40]


def index_key(owner: str) -> str:
    return email_key(owner, "signed-in")


def _member_key(member: str) -> str:
    kind, _, name = member.partition(":")
    return token_key(name) if kind == "t" else session_key(name)


def _public_id(member: str) -> str:
    kind, _, name = member.partition(":")
    return name if kind == "t" else SESSION_ID + name[:15]


def origin(address: str | None, agent: str | None) -> str | None:
    """Where a token or session was asked from, as its owner's list shows it (kept short)."""
    parts = [part.strip()[:80] for part in (address, agent) if part and part.strip()]
    return ", ".join(parts) or None


def stamped(record: dict[str, Any], origin: str | None) -> dict[str, Any]:
    """A new record with when it was made and used (now), and where from."""
    at = now()
    return {**record, "created": at, "used": at, "from": origin}


def enter(pipe: Any, owner: str, member: str) -> None:
    """Index a new record under its owner (`t:<token id>`, or `s:<session digest>`)."""
    pipe.sadd(index_key(owner), member)


@cache
def _swap(client: redis.Redis) -> Any:
    return client.register_script(_SWAP)


def swap(store: Store, key: str, read: str, record: dict[str, Any], ttl: int) -> bool:
    """Write `record` at `key` if it still holds `read` (what was read from it); True when written."""
    return bool(_swap(store.redis)(keys=[key], args=[read, dumps(record), ttl]))


def touch(store: Store, member: str, read: str, record: dict[str, Any], idle: Idle) -> dict[str, Any]:
    """A use of the record read at `member`'s key: slide its end when `idle.step` has passed."""
    at = now()
    if not idle.due(record, at):
        return record
    legacy = "used" not in record
    touched = {**record, "used": at, **({"created": None, "from": None} if legacy else {})}
    if swap(store, _member_key(member), read, touched, idle.ttl) and legacy and record.get("email"):
        store.redis.sadd(index_key(record["email"]), member)
    return touched


def _read(store: Store, owner: str) -> list[tuple[str, str | None]]:
    """(member, its record as stored) for every entry of the owner's index, in one round trip more."""
    members = sorted(store.redis.smembers(index_key(owner)))
    if not members:
        return []
    with store.redis.pipeline(transaction=False) as pipe:
        for member in members:
            pipe.get(_member_key(member))
        return list(zip(members, pipe.execute()))


def listed(store: Store, owner: str, token_idle: Idle, session_idle: Idle) -> list[dict[str, Any]]:
    """The owner's live tokens and sessions, newest use first; index entries that lead nowhere go."""
    at, shown, gone = now(), [], []
    for member, stored in _read(store, owner):
        record = loads(stored) if stored else None
        idle = token_idle if member.startswith("t:") else session_idle
        if record is None or record.get("email") != owner or idle.expired(record, at):
            gone.append(member)
            continue
        shown.append({"id": _public_id(member), "kind": API if member.startswith("t:") else BROWSER,
                      "created": _when(record.get("created")), "last_used": _when(record.get("used")),
                      "from": record.get("from")})
    if gone:
        store.redis.srem(index_key(owner), *gone)
    return sorted(shown, key=lambda entry: (entry["last_used"] or "", entry["id"]), reverse=True)


def _when(seconds: int | None) -> str | None:
    return stamp(datetime.fromtimestamp(seconds, UTC)) if seconds is not None else None


def revoke(store: Store, owner: str, public_id: str) -> bool:
    """End one of the owner's tokens or sessions at once; False when he owns none by that id."""
    for member, stored in _read(store, owner):
        if _public_id(member) == public_id and stored and loads(stored).get("email") == owner:
            with store.redis.pipeline(transaction=False) as pipe:
                pipe.delete(_member_key(member))
                pipe.srem(index_key(owner), member)
                pipe.execute()
            return True
    return False


def revoke_all(store: Store, owner: str) -> int:
    """Sign the owner out everywhere: every token and session he owns ends; how many did."""
    mine = [member for member, stored in _read(store, owner) if stored and loads(stored).get("email") == owner]
    with store.redis.pipeline(transaction=False) as pipe:
        for member in mine:
            pipe.delete(_member_key(member))
        pipe.delete(index_key(owner))
        pipe.execute()
    return len(mine)


def hand_on(store: Store, old: str, new: str) -> None:
    """Make every token and session of `old` the address `new`'s (a change of address): each record
    is rewritten only while it is still what was read, so one revoked meanwhile stays revoked."""
    for member, stored in _read(store, old):
        record = loads(stored) if stored else None
        if record is None or record.get("email") != old:
            continue
        ttl = store.redis.ttl(_member_key(member))
        if ttl > 0 and swap(store, _member_key(member), stored, {**record, "email": new}, ttl):
            store.redis.sadd(index_key(new), member)
    store.redis.delete(index_key(old))
