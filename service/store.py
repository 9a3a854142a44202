"""Redis as the system of record: key names and the one atomic commit every change goes through.

All keys of a game carry the hash tag of its shard, ``{<two hex digits>}`` (256 shards, a game's
by crc32 of its id), so that a game lives in one Redis Cluster slot and the commit script may touch
all of its keys, and also its shard's wake index: the sorted set of when each game next needs a
worker (a deadline, the end of a pause, compaction), written in the same atomic step as the change
that moves it, so no crash can leave a game that nobody will wake. The move log is the source of
truth; the stored state is a cache of replaying it, written in the same atomic step.

Beside the game lie its idempotency answers (a key each, for a day; listed in the game's `answers`
index as they are written) and its claims (one hash), so that compaction can delete them all by
name, without a SCAN: a finished game then leaves its hash and its archive, and its table talk if it has
any (`service.messages`), nothing else.

A game hash carries its stored format, `format` (FORMAT; a game written before formats were kept has
none and is format 1): `palazzo upgrade` (service.upgrade) moves each game from its format to this one.

A game hash carries two counters. `rev` counts every write of the state, private ones included, and
is what the commit checks, so no two writers ever lose each other's update. `version` counts only
what everybody may see (moves, host actions): it is the number clients hold, and a private change
(standing orders) leaves it alone so nobody learns of it or finds his own move stale because of it.
"""
from __future__ import annotations

import base64
import zlib
from dataclasses import dataclass
from typing import Any, Callable

import orjson
import redis
from redis.exceptions import NoScriptError

from service.status import Status

PREFIX = "pz"
FORMAT = 2  # the stored format a new game gets; 1: before games kept their rules and format versions
FIRST_FORMAT = 1  # what a game hash without a `format` field is
IDEMPOTENCY_TTL = 24 * 3600
ANSWERS, CLAIMS = "answers", "claims"  # game parts: the index of its idempotency answers, its claims
MESSAGE_KEYS = "message_keys"  # game part: the idempotency keys of its table talk (service.messages)

# KEYS: game hash, move log, event list, idempotency key, feed channel, the shard's wake index, the
#       game's index of idempotency answers, the shard's move counters.
# ARGV: expected rev, allowed statuses (",a,b,"), idempotency record ('' = none), its ttl,
#       bump the version ('1' or '0'), the game's wake time ('' = none), n log entries, m field/value
#       pairs, the move counter to add one to ('' = none), then the log entries, the pairs, and the events. The idempotency record is the answer
#       itself, written in the same step as the move, so a retry after a crash anywhere still finds it.
#       It is indexed by its key's part after the game id, with when it expires; expired entries go.
_COMMIT = """
local head = redis.call('HMGET', KEYS[1], 'rev', 'version', 'status')
if not head[2] then return {'missing', 0, ''} end
local version = tonumber(head[2])
local rev = tonumber(head[1] or head[2])
if ARGV[3] ~= '' and redis.call('EXISTS', KEYS[4]) == 1 then return {'duplicate', version, head[3]} end
if tonumber(ARGV[1]) ~= rev then return {'stale', version, head[3]} end
if not string.find(ARGV[2], ',' .. head[3] .. ',', 1, true) then return {'status', version, head[3]} end
if ARGV[5] == '1' then version = version + 1 end
local n, m = tonumber(ARGV[7]), tonumber(ARGV[8])
local fields = {'rev', rev + 1, 'version', version}
for i = 10 + n, 9 + n + 2 * m do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', KEYS[1], unpack(fields))
for i = 10, 9 + n do redis.call('RPUSH', KEYS[2], ARGV[i]) end
local seq = redis.call('LLEN', KEYS[3])
for i = 10 + n + 2 * m, #ARGV do redis.call('RPUSH', KEYS[3], ARGV[i]) end
if #ARGV >= 10 + n + 2 * m then redis.call('PUBLISH', KEYS[5], seq) end
if ARGV[9] ~= '' then redis.call('HINCRBY', KEYS[8], ARGV[9], 1) end
if ARGV[3] ~= '' then
  local ttl, now = tonumber(ARGV[4]), tonumber(redis.call('TIME')[1])
  redis.call('SET', KEYS[4], ARGV[3], 'EX', ttl)
  redis.call('ZREMRANGEBYSCORE', KEYS[7], '-inf', now)
  redis.call('ZADD', KEYS[7], now + ttl, string.match(KEYS[4], '}:[^:]+:(.+)$'))
  redis.call('EXPIRE', KEYS[7], ttl)
end
local game = string.match(KEYS[1], '}:(.+):game$')
if ARGV[6] == '' then redis.call('ZREM', KEYS[6], game) else redis.call('ZADD', KEYS[6], ARGV[6], game) end
return {'ok', version, seq}
"""

# KEYS: the game's claims (field: what, value: until when it holds). ARGV: what, its ttl.
# 1 when claimed now; the hash lives as long as its latest claim.
_CLAIM = """
local now, ttl = tonumber(redis.call('TIME')[1]), tonumber(ARGV[2])
if tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0') > now then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], now + ttl)
if redis.call('TTL', KEYS[1]) < ttl then redis.call('EXPIRE', KEYS[1], ttl) end
return 1
"""


SHARDS = 256  # part of the key layout: every key of a game names its shard


def shard_of(game_id: str) -> str:
    """The game's shard: crc32, not Python's salted hash, so that every process agrees."""
    return f"{zlib.crc32(game_id.encode()) % SHARDS:02x}"


def game_key(game_id: str, part: str) -> str:
    return f"{PREFIX}:{{{shard_of(game_id)}}}:{game_id}:{part}"


def wake_key(shard: str) -> str:
    """The shard's wake index: game id -> when it next needs a worker (epoch seconds)."""
    return f"{PREFIX}:{{{shard}}}:wake"


WAKE_KEYS = [wake_key(f"{number:02x}") for number in range(SHARDS)]


def moves_key(shard: str) -> str:
    """The shard's move counters (who moved -> moves committed), added to by the commit itself, in the
    game's own slot: counted exactly when a move is committed, at no extra round trip (service.metrics)."""
    return f"{PREFIX}:{{{shard}}}:moves"


MOVES_KEYS = [moves_key(f"{number:02x}") for number in range(SHARDS)]


def woken_key(shard: str) -> str:
    """The shard's claims on due wakes: "<game>:<wake time>" -> until when the claim holds (epoch
    seconds). Kept by the shard, not beside each game, so a finished game leaves none behind."""
    return f"{PREFIX}:{{{shard}}}:woken"


def idempotency_key(game_id: str, seat: int, key_hash: str) -> str:
    return game_key(game_id, f"idem:{seat}:{key_hash}")


def token_key(token_id: str) -> str:
    return f"{PREFIX}:token:{token_id}"


def email_key(email_hash: str, part: str) -> str:
    return f"{PREFIX}:email:{email_hash}:{part}"


def lobby_key() -> str:
    """The lobby: public games anyone may join, scored by when they were created (ms). One key of its
    own, in its own Redis Cluster slot, so it is written beside a game's commit, never inside it."""
    return f"{PREFIX}:lobby"


def feed_channel(game_id: str) -> str:
    """Published to whenever the game's event feed grows, for long-polling readers."""
    return game_key(game_id, "feed")


def head_fields(names: tuple[str, ...] | list[str]) -> list[str]:
    """The hash fields `Store.head` reads: version, status and rev, then `names`."""
    return ["version", "status", "rev", *names]


def dumps(doc: Any) -> str:
    """Compact JSON, as everything in the store is written (orjson: a state in a tenth of the time)."""
    return orjson.dumps(doc, option=orjson.OPT_NON_STR_KEYS).decode()


def loads(raw: str | bytes) -> Any:
    return orjson.loads(raw)


@dataclass
class Committed:
    """What the commit script answered: `outcome` is ok, stale, status, duplicate or missing."""

    outcome: str
    version: int
    status: str = ""
    first_seq: int = 0


class Store:
    """Reads and the atomic commit; knows Redis, nothing about rules or HTTP.

    `followups` (service.followups) is told of every committed change, to queue what comes next; a
    finished game is compacted `compact_after` seconds after its last move.
    """

    def __init__(self, client: redis.Redis, followups: Any = None, compact_after: float = 600.0):
        self.redis = client
        self.followups = followups
        self.compact_after = compact_after
        self._commit = client.register_script(_COMMIT)
        self._claim = client.register_script(_CLAIM)

    def create(self, game_id: str, fields: dict[str, str], events: list[str]) -> None:
        """Write a new game in one transaction (ids are random: no two games share one)."""
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(game_key(game_id, "game"), mapping={**fields, "version": 1, "rev": 1, "format": FORMAT})
            if events:
                pipe.rpush(game_key(game_id, "events"), *events)
            pipe.execute()

    def head(self, game_id: str, *names: str) -> dict[str, str | None]:
        fields = head_fields(names)
        return dict(zip(fields, self.redis.hmget(game_key(game_id, "game"), fields)))

    def commit(self, game_id: str, rev: int, *, statuses: tuple[str, ...], fields: dict[str, str],
               log: list[str] = (), events: list[str] = (), public: bool = True,
               idempotency: tuple[str, str] | None = None, wake: float | None = None,
               also: Callable[[redis.client.Pipeline], None] | None = None, counted: str = "") -> Committed:
        """Apply one change atomically if the game is still at `rev` and in one of `statuses`.

        `public` changes move the version on; private ones (standing orders) only the rev. `wake` is
        when the game as changed next needs a worker (None: never), indexed in the same step. `also`
        queues more writes (the caller's rate count) in the same round trip, whatever the outcome.
        `counted` names the move counter (who moved) the commit adds one to, if it commits.
        """
        idem_key, idem_record = idempotency or (game_key(game_id, "idem:none"), "")
        pairs = [item for pair in fields.items() for item in pair]
        keys = [game_key(game_id, "game"), game_key(game_id, "log"), game_key(game_id, "events"), idem_key,
                feed_channel(game_id), wake_key(shard_of(game_id)), game_key(game_id, ANSWERS),
                moves_key(shard_of(game_id))]
        args = [rev, "," + ",".join(statuses) + ",", idem_record, IDEMPOTENCY_TTL, "1" if public else "0",
                "" if wake is None else f"{wake:.3f}", len(log), len(fields), counted, *log, *pairs, *events]
        answer = self._run_commit(keys, args, also)
        outcome, version, third = answer
        if outcome == "ok":
            return Committed("ok", int(version), "", int(third))
        return Committed(outcome, int(version), third or "")

    def _run_commit(self, keys: list[str], args: list[Any],
                    also: Callable[[redis.client.Pipeline], None] | None) -> list[Any]:
        """The commit script, alone or with `also` in one pipeline.

        The pipeline sends EVALSHA itself: redis-py's Script in a pipeline would first ask SCRIPT
        EXISTS, a round trip of its own (and its cluster pipeline refuses `evalsha()`, though it routes
        the raw command by its keys). A server that lost the script (a restart) gets it once more.
        """
        if also is None:
            return self._commit(keys=keys, args=args)
        with self.redis.pipeline(transaction=False) as pipe:
            pipe.execute_command("EVALSHA", self._commit.sha, len(keys), *keys, *args)
            also(pipe)
            answers = pipe.execute(raise_on_error=False)
        if isinstance(answers[0], NoScriptError):
            return self._commit(keys=keys, args=args)
        if isinstance(answers[0], Exception):
            raise answers[0]
        return answers[0]

    def claim(self, game_id: str, what: str, ttl: int) -> bool:
        """True the first time `what` is claimed for the game within `ttl` seconds: what it stands
        for (a mail) is this caller's to do. All of a game's claims are fields of one hash: a key
        each cost more, and compaction finds them by name."""
        return bool(self._claim(keys=[game_key(game_id, CLAIMS)], args=[what, ttl]))

    def unclaim(self, game_id: str, what: str) -> None:
        """Let a claim go before its time, so that what it stood for may be done again (a decision
        mail that met a paused game is sent again at the resume)."""
        self.redis.hdel(game_key(game_id, CLAIMS), what)

    def log(self, game_id: str) -> list[dict[str, Any]]:
        with self.redis.pipeline(transaction=False) as pipe:
            pipe.lrange(game_key(game_id, "log"), 0, -1)
            pipe.get(game_key(game_id, "archive"))
            raw, archive = pipe.execute()
        return [loads(entry) for entry in (unpack(archive)["log"] if archive is not None else raw)]

    def events(self, game_id: str, after: int, limit: int) -> tuple[list[dict[str, Any]], int]:
        """Events with seq > `after` (seq counts from 1), and how many events exist in all."""
        with self.redis.pipeline(transaction=False) as pipe:
            pipe.lrange(game_key(game_id, "events"), after, after + limit - 1)
            pipe.llen(game_key(game_id, "events"))
            pipe.get(game_key(game_id, "archive"))
            raw, total, archive = pipe.execute()
        if archive is not None:
            feed = unpack(archive)["events"]
            raw, total = feed[after:after + limit], len(feed)
        return [{"seq": after + i + 1, **loads(item)} for i, item in enumerate(raw)], int(total)

    def due(self, now: float, batch: int = 500) -> list[tuple[str, float]]:
        """Games whose wake time has come, earliest first, with it: one ZRANGEBYSCORE per shard, in
        one pipelined round trip (per node), so the cost follows the games due, not those waiting."""
        with self.redis.pipeline(transaction=False) as pipe:
            for key in WAKE_KEYS:
                pipe.zrangebyscore(key, "-inf", now, start=0, num=batch, withscores=True)
            found = [(member, float(at)) for shard in pipe.execute() for member, at in shard]
        return sorted(found, key=lambda entry: entry[1])[:batch]

    def wake_at(self, game_id: str) -> float | None:
        at = self.redis.zscore(wake_key(shard_of(game_id)), game_id)
        return None if at is None else float(at)

    def feed_length(self, game_id: str) -> int:
        with self.redis.pipeline(transaction=False) as pipe:
            pipe.llen(game_key(game_id, "events"))
            pipe.get(game_key(game_id, "archive"))
            total, archive = pipe.execute()
        return len(unpack(archive)["events"]) if archive is not None else int(total)

    def compact(self, game_id: str) -> bool:
        """Fold a finished game's move log and event feed into one compressed key (a tenth of the
        memory) and delete what lies beside it; True when done. Reads see no difference.

        What goes: the idempotency answers (a retried move now gets the 409 the same move without
        its key gets), the keys that made its messages' posts idempotent, and the claims, since
        nothing mails a finished game's moves any more (every mail job of its moves was queued before
        the wake job that compacts it). Its table talk stays, as its own list: players may still post.
        Only a finished game is compacted: nothing appends to it any more, and the WATCH makes the
        fold give way to any writer all the same. All these keys and the wake index share the
        game's hash tag, so this is one transaction on a Redis Cluster too.
        """
        keys = [game_key(game_id, part) for part in ("game", "log", "events", ANSWERS, CLAIMS)]
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.watch(*keys)
            if pipe.hget(keys[0], "status") != Status.FINISHED or pipe.exists(game_key(game_id, "archive")):
                return False
            archive = {"log": pipe.lrange(keys[1], 0, -1), "events": pipe.lrange(keys[2], 0, -1)}
            answers = [game_key(game_id, part) for part in pipe.zrange(keys[3], 0, -1)]
            pipe.multi()
            pipe.set(game_key(game_id, "archive"), pack(archive))
            pipe.delete(*keys[1:], *answers, game_key(game_id, MESSAGE_KEYS))
            pipe.zrem(wake_key(shard_of(game_id)), game_id)
            try:
                pipe.execute()
            except redis.WatchError:
                return False
        return True


def pack(archive: dict[str, list[str]]) -> str:
    """The archive of a compacted game: its log and feed entries (JSON text each), zlib-compressed,
    in base85 text (the store's client speaks text)."""
    return base64.b85encode(zlib.compress(dumps(archive).encode(), 6)).decode()


def unpack(raw: str) -> dict[str, list[str]]:
    return loads(zlib.decompress(base64.b85decode(raw)))
