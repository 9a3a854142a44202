"""Table talk: a game's messages, to the whole table or privately to one seat, and who may read each.

Every channel (the API and its long-poll, the pages, the mails and digests, the answers to replies,
the host's views) reads messages through `shown`, the one rule of who sees what:
- a message to the table is seen by everyone, spectators too;
- a private message (`to` a seat) is seen by its sender and that seat only: no other seat, no
  spectator, and not the host unless he sent it;
- a message the host hid stays in the record, marked hidden; its text is shown to its sender alone.
Messages belong to seats, as a seat's private part of the game does: a substitute who takes a seat
over reads the seat's messages, and its earlier holder, whose token, session and reply address die
with the hand-over, reads and writes none.

They are kept as a Redis list beside the game, `game_key(id, "messages")` (so in the game's cluster
slot), oldest first; a message's `seq` is its place in the list, from 1. Posting is one Lua script
that checks, in the same atomic step as the append, that the game still lets its sender talk (its
status, and for a seat, the holder generation the sender was checked as), appends, and publishes
on the game's talk channel for long-polling readers. An idempotency key (a reply's line, a form's
key, an API client's Idempotency-Key) posts once. A finished game keeps its messages when it is
compacted (players still say "good game" after the end); the keys that made posts idempotent go.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

import redis

from service import deadlines, games, preferences, ratelimit
from service.problems import Problem
from service.store import MESSAGE_KEYS as KEYS
from service.store import Store, dumps, game_key, loads

MAX_CHARS = 2000
MAX_MESSAGES = 10_000  # a game's whole talk; with the rate limit per seat, a bound on its memory
LIMIT = "60 per hour"  # per seat (and for the host) of a game: PALAZZO_TALK_LIMIT
CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")
TALKING = (games.OPEN, games.RUNNING, games.PAUSED, games.FINISHED)  # a cancelled game is silent
HOST_NAME = "the host"

# KEYS: the game hash, its messages, its talk channel, its message keys.
# ARGV: the statuses that may talk (",a,b,"), the sender's seat ('' for the host), his holder
#       generation, the message as stored, its idempotency key ('' for none), the most messages kept.
# Answers {outcome, seq}: ok, duplicate (the seq the key posted), missing, status, holder, full.
POST = """
local head = redis.call('HMGET', KEYS[1], 'status', 'meta')
if not head[1] then return {'missing', 0} end
if not string.find(ARGV[1], ',' .. head[1] .. ',', 1, true) then return {'status', 0} end
if ARGV[5] ~= '' then
  local earlier = redis.call('HGET', KEYS[4], ARGV[5])
  if earlier then return {'duplicate', tonumber(earlier)} end
end
if ARGV[2] ~= '' then
  local entry = cjson.decode(head[2])['seats'][tonumber(ARGV[2]) + 1]
  local holder = entry and entry['holder']
  if type(holder) ~= 'number' then holder = 0 end
  if entry == nil or holder ~= tonumber(ARGV[3]) then return {'holder', 0} end
end
if redis.call('LLEN', KEYS[2]) >= tonumber(ARGV[6]) then return {'full', 0} end
local seq = redis.call('RPUSH', KEYS[2], ARGV[4])
if ARGV[5] ~= '' then redis.call('HSET', KEYS[4], ARGV[5], seq) end
redis.call('PUBLISH', KEYS[3], seq)
return {'ok', seq}
"""


@dataclass(frozen=True)
class Reader:
    """Who reads (or writes): a seat, the host (`host`), or a spectator (neither)."""

    seat: int | None = None
    host: bool = False


SPECTATOR = Reader()
HOST = Reader(host=True)


def reader_of(role: str, seat: int | None) -> Reader:
    """The reader a caller's role at a game makes him (`resources.common.viewer`'s answer)."""
    return Reader(seat) if role == "seat" else HOST if role == "host" else SPECTATOR


def _sent_by(message: dict[str, Any], reader: Reader) -> bool:
    return reader.host if message["by"] is None else (not reader.host and reader.seat == message["by"])


def shown(message: dict[str, Any], reader: Reader) -> dict[str, Any] | None:
    """The message as `reader` may see it, or None when he may not see it at all: THE rule."""
    mine = _sent_by(message, reader)
    if message["to"] is not None and not (mine or (not reader.host and reader.seat == message["to"])):
        return None
    return {key: message.get(key) for key in ("seq", "at", "by", "name", "to")} | {
        "text": None if message.get("hidden") and not mine else message["text"],
        "hidden": bool(message.get("hidden"))}


def channel(game_id: str) -> str:
    """Published to whenever the game's talk grows, for long-polling readers."""
    return game_key(game_id, "talk")


def clean(text: str) -> str:
    """The text as kept: line ends made newlines, blank edges trimmed; refused when empty, too long
    or holding a control character (a tab, a NUL, an escape), each with its own code."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    if not text:
        raise Problem("message_empty", "a message needs some text")
    if len(text) > MAX_CHARS:
        raise Problem("message_too_long",
                      f"a message holds at most {MAX_CHARS:,} characters; this one has {len(text):,}")
    bad = CONTROL.search(text)
    if bad:
        raise Problem("message_control_character",
                      f"a message may hold no control characters but newlines (it holds U+{ord(bad[0]):04X})")
    return text


def held_by_player(entry: dict[str, Any]) -> bool:
    """Whether a person holds the seat (not a bot, not an open seat): only he can read a private message."""
    return not entry.get("bot") and not entry.get("open") and bool(entry.get("email_hash") or entry.get("token"))


def _recipient(table: games.Table, writer: Reader, to: int | None) -> None:
    if to is None:
        return
    seats = table.meta["seats"]
    if not 0 <= to < len(seats):
        raise Problem("bad_recipient", f"there is no seat {to + 1}: seats go from 1 to {len(seats)}")
    if not writer.host and writer.seat == to:
        raise Problem("bad_recipient", "a private message goes to another seat than your own")
    if not held_by_player(seats[to]):
        raise Problem("bad_recipient", f"nobody but a bot or an empty chair sits at seat {to + 1}: "
                                       "write to a seat a player holds")


@cache
def _script(client: redis.Redis) -> Any:
    return client.register_script(POST)


def post(store: Store, table: games.Table, writer: Reader, to: int | None, text: str,
         limit: ratelimit.Limit, key: str | None = None) -> tuple[dict[str, Any], bool]:
    """Keep a message from `writer` (a seat or the host) to the table (`to` None) or a seat: (the
    message as its sender sees it, whether it was posted before under `key`). Refused, with nothing
    kept, when the text is bad, the recipient no seat a player holds, the sender over his limit,
    the game cancelled or his seat handed to someone else since `table` was read."""
    if writer.seat is None and not writer.host:
        raise Problem("not_a_seat", "only a player seated at this game, or its host, may talk at its table")
    text = clean(text)
    _recipient(table, writer, to)
    window = ratelimit.Window.at(limit, "talk", f"{table.id}:{'host' if writer.host else writer.seat}")
    with store.redis.pipeline(transaction=False) as pipe:
        window.read(pipe)
        wait = window.retry_after(pipe.execute())
    if wait is not None:
        raise Problem("rate_limited", f"you have written a lot at this table; try again in {wait} s",
                      headers={"Retry-After": str(wait)}, retry_after=wait)
    name = HOST_NAME if writer.host else table.meta["seats"][writer.seat]["name"]
    entry = {"at": deadlines.stamp(deadlines.now()), "by": writer.seat, "name": name, "to": to, "text": text,
             "hidden": False}
    holder = "" if writer.host else table.holder(writer.seat)
    keyed = hashlib.sha256(f"{'host' if writer.host else writer.seat}:{key}".encode()).hexdigest()[:32] if key else ""
    outcome, seq = _script(store.redis)(
        keys=[game_key(table.id, "game"), game_key(table.id, "messages"), channel(table.id), game_key(table.id, KEYS)],
        args=["," + ",".join(TALKING) + ",", "" if writer.host else writer.seat, holder, dumps(entry), keyed,
              MAX_MESSAGES])
    if outcome == "duplicate":
        return shown(message(store, table.id, int(seq)), writer), True
    if outcome != "ok":
        raise _refused(outcome, table)
    with store.redis.pipeline(transaction=False) as pipe:
        window.count(pipe)
        pipe.execute()
    posted = {"seq": int(seq), **entry}
    if store.followups is not None:
        store.followups.talk(store, table, int(seq))
    return shown(posted, writer), False


def _refused(outcome: str, table: games.Table) -> Problem:
    if outcome == "missing":
        return Problem("game_not_found", "the game is gone")
    if outcome == "status":
        return Problem("game_cancelled", "the game was cancelled: its table is silent")
    if outcome == "full":
        return Problem("talk_full", f"this game keeps no more than {MAX_MESSAGES:,} messages")
    return Problem("not_a_seat", "this seat has been handed to someone else: its earlier player may not talk here")


def _entries(raw: list[str], first: int) -> list[dict[str, Any]]:
    return [{"seq": first + index, **loads(item)} for index, item in enumerate(raw)]


def message(store: Store, game_id: str, seq: int) -> dict[str, Any] | None:
    """The message `seq` as stored (for nobody in particular: pass it through `shown`), or None."""
    raw = store.redis.lindex(game_key(game_id, "messages"), seq - 1) if seq >= 1 else None
    return None if raw is None else _entries([raw], seq)[0]


def count(store: Store, game_id: str) -> int:
    """How many messages the game holds, those any reader may not see included."""
    return int(store.redis.llen(game_key(game_id, "messages")))


def page(store: Store, game_id: str, reader: Reader, after: int, limit: int
         ) -> tuple[list[dict[str, Any]], int, int]:
    """Messages with seq > `after` as `reader` sees them, the seq to resume after, and how many there are.

    As in the feed, the cursor counts the messages the reader may not see too, so a page of others'
    private messages still moves on."""
    with store.redis.pipeline(transaction=False) as pipe:
        pipe.lrange(game_key(game_id, "messages"), after, after + limit - 1)
        pipe.llen(game_key(game_id, "messages"))
        raw, total = pipe.execute()
    entries = _entries(raw, after + 1)
    last = entries[-1]["seq"] if entries else min(after, int(total))
    return [seen for entry in entries if (seen := shown(entry, reader)) is not None], last, int(total)


def since(store: Store, game_id: str, after: int) -> list[dict[str, Any]]:
    """Every message with seq > `after`, as stored (for a digest, which passes each through `shown`)."""
    return _entries(store.redis.lrange(game_key(game_id, "messages"), after, -1), after + 1)


def recent(store: Store, game_id: str, reader: Reader, most: int = 30, looked_at: int = 300
           ) -> tuple[list[dict[str, Any]], int]:
    """The last `most` messages `reader` may see among the last `looked_at`, oldest first, and the total."""
    with store.redis.pipeline(transaction=False) as pipe:
        pipe.llen(game_key(game_id, "messages"))
        pipe.lrange(game_key(game_id, "messages"), -looked_at, -1)
        total, raw = pipe.execute()
    entries = _entries(raw, int(total) - len(raw) + 1)
    visible = [seen for entry in entries if (seen := shown(entry, reader)) is not None]
    return visible[-most:], int(total)


def wait(store: Store, game_id: str, after: int, seconds: float) -> None:
    """A long-poll: return once the game holds more than `after` messages, or after `seconds`."""
    games.wait_for_growth(store, channel(game_id), lambda: count(store, game_id), after, seconds)


def hide(store: Store, table: games.Table, seq: int) -> dict[str, Any]:
    """The host hides a message he may see (one to the table, or his own): it stays in the record,
    marked hidden, and nobody but its sender reads its text any more. Hiding twice changes nothing."""
    key = game_key(table.id, "messages")
    with store.redis.pipeline(transaction=True) as pipe:
        while True:
            try:
                pipe.watch(key)
                raw = pipe.lindex(key, seq - 1) if seq >= 1 else None
                found = None if raw is None else _entries([raw], seq)[0]
                if found is None or shown(found, HOST) is None:
                    raise Problem("message_not_found", f"there is no message {seq} that the host may see")
                if found.get("hidden"):
                    return shown(found, HOST)
                found["hidden"] = True
                pipe.multi()
                pipe.lset(key, seq - 1, dumps({k: v for k, v in found.items() if k != "seq"}))
                pipe.execute()
                return shown(found, HOST)
            except redis.WatchError:
                continue


def mail_choices(store: Store, email_hash: str) -> dict[str, str]:
    """How the talk of each game the address holds a seat in reaches it by mail."""
    chosen = preferences.talk_choices(store, email_hash)
    return {game_id: chosen.get(game_id, preferences.TALK_DEFAULT)
            for game_id in sorted(games.seats_held(store, email_hash))}


def choose_mail(store: Store, email_hash: str, game_id: str, choice: str) -> None:
    """Set how the game's talk reaches the address (a digest lists what comes after now)."""
    preferences.choose_talk(store, email_hash, game_id, choice, count(store, game_id))
