"""A portable record (`service.records`, palazzo-record-1) kept again as a finished game of this store:
what `palazzo import` does, so a game played elsewhere (or before a store was lost) has its archive page.

Only a finished game's record can come in: a running game's record holds no setup and no move (they
hide what its players may not know yet), so there is nothing to replay, and a game half played has
players who would expect to go on. The record is checked whole and played again from its setup under
its own rules version before anything is written, and its result must be the one replayed: a record
that does not replay, names a game this server does not serve or a rules version it does not know,
or is malformed, is refused with nothing stored.

The game it makes holds nobody: its seats keep their names, with no address, token or bot, and it
has no host, so nobody can act on it; it was never compacted twice, as a finished game it is folded
at once. Its log is the record's moves, its feed the events they make again (each at its move's
time), and its table talk the record's messages to the whole table (a private message in a seat's
record stays his: it is not brought into a game anybody may watch).
"""
from __future__ import annotations

import re
import secrets
from collections.abc import Iterable
from typing import Any

from engine.core import IllegalMove, get_game
from service import deadlines, games, messages, playing, records, titles
from service.games import FINISHED
from service.store import FORMAT, Store, dumps, game_key

NAME_CHARS = 60
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


class BadRecord(Exception):
    """A record that cannot be imported, with the sentence that says why."""


def import_record(store: Store, record: Any, served: Iterable[str]) -> str:
    """Keep `record` as a new finished game of `store` (one of the `served` games): its id. Raises
    BadRecord, with nothing written, for a record that is malformed or does not replay to its result."""
    checked = _checked(record, tuple(served))
    game = get_game(checked["game"])
    log, feed = _replayed(game, checked)
    now = deadlines.now()
    game_id = secrets.token_hex(8)
    seats = [{"name": seat["name"], "bot": None, "email": None, "token": None} for seat in checked["seats"]]
    meta = games.new_meta(game_id, game.name, checked["options"], checked["setup"], seats, now, checked["rules"],
                          created_at=log[0]["at"] or deadlines.stamp(now), vacation_days=0,
                          imported_at=deadlines.stamp(now))
    meta["title"] = checked["title"] if titles.fault(checked["title"]) is None else games.default_title(meta)
    fields = {"meta": dumps(meta), "state": dumps(checked["state"]), "pending": "[]", "private_moves": "{}",
              "status": FINISHED, "result": dumps(checked["result"]), "version": checked["version"],
              "rev": checked["version"], "format": FORMAT}
    talk = [dumps({key: message.get(key) for key in ("at", "by", "name", "to", "text", "hidden")})
            for message in checked["messages"]]
    with store.redis.pipeline(transaction=True) as pipe:
        pipe.hset(game_key(game_id, "game"), mapping=fields)
        pipe.rpush(game_key(game_id, "log"), *[dumps(entry) for entry in log])
        pipe.rpush(game_key(game_id, "events"), *[dumps(entry) for entry in feed])
        if talk:
            pipe.rpush(game_key(game_id, "messages"), *talk)
        pipe.execute()
    store.compact(game_id)
    return game_id


def _checked(record: Any, served: tuple[str, ...]) -> dict[str, Any]:
    """The record's parts, each of the shape the record endpoint gives it; BadRecord says what is wrong."""
    if not isinstance(record, dict):
        raise BadRecord("a record is a JSON object")
    if record.get("format") != records.FORMAT:
        raise BadRecord(f"not a game record: its \"format\" is {record.get('format')!r}, not {records.FORMAT!r}")
    missing = [key for key in ("game", "rules", "options", "title", "seats", "setup", "moves", "messages",
                               "status", "result") if key not in record]
    if missing:
        raise BadRecord(f"the record lacks {', '.join(missing)}")
    if record["status"] != FINISHED or record["setup"] is None or record["moves"] is None:
        raise BadRecord(f"the record is of a game that is {record['status']}, not finished: until its end it holds "
                        "no setup and no move to replay")
    if not isinstance(record["game"], str) or record["game"] not in served:
        raise BadRecord(f"this server plays no game {record['game']!r} (it serves {', '.join(served)})")
    if not _whole(record["rules"]):
        raise BadRecord("\"rules\" is the rules version, a whole number")
    if not isinstance(record["options"], dict) or not isinstance(record["setup"], dict):
        raise BadRecord("\"options\" and \"setup\" are objects")
    if not isinstance(record["title"], str):
        raise BadRecord("\"title\" is a string")
    seats = record["seats"]
    if not isinstance(seats, list) or [seat.get("seat") if isinstance(seat, dict) else None for seat in seats] \
            != list(range(len(seats))):
        raise BadRecord("\"seats\" lists {\"seat\", \"name\"} for seats 0, 1, 2 … in order")
    for seat in seats:
        name = seat.get("name")
        if not isinstance(name, str) or not 1 <= len(name) <= NAME_CHARS or CONTROL.search(name):
            raise BadRecord(f"seat {seat['seat']}'s name is 1 to {NAME_CHARS} characters, none a control character")
    if not isinstance(record["moves"], list):
        raise BadRecord("\"moves\" is a list of {\"seat\", \"move\", \"at\"}")
    for index, entry in enumerate(record["moves"]):
        if not (isinstance(entry, dict) and _whole(entry.get("seat")) and isinstance(entry.get("move"), dict)
                and isinstance(entry["move"].get("type"), str) and (entry.get("at") is None or _stamp(entry["at"]))):
            raise BadRecord(f"move {index}: an entry is {{\"seat\": a number, \"move\": an object with a \"type\", "
                            "\"at\": a UTC ISO time or null}")
    if not isinstance(record["messages"], list) or len(record["messages"]) > messages.MAX_MESSAGES \
            or not all(_message(m, len(seats)) for m in record["messages"]):
        raise BadRecord("\"messages\" lists messages as GET /games/{id}/record gives them")
    return {**record, "messages": [m for m in record["messages"] if m["to"] is None]}


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _stamp(text: Any) -> bool:
    try:
        deadlines.parse(text)
    except (TypeError, ValueError):
        return False
    return True


def _message(message: Any, seats: int) -> bool:
    if not isinstance(message, dict):
        return False
    by, to, text = message.get("by"), message.get("to"), message.get("text")
    return (all(who is None or (_whole(who) and 0 <= who < seats) for who in (by, to))
            and (text is None or (isinstance(text, str) and len(text) <= messages.MAX_CHARS))
            and isinstance(message.get("name"), str) and len(message["name"]) <= NAME_CHARS
            and isinstance(message.get("hidden"), bool) and _stamp(message.get("at")))


def _replayed(game: Any, record: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The move log and the event feed of the record played again from its setup; the final state
    and result go into `record`. Private moves (standing orders) join the log unnumbered and add
    nothing to the feed, as `playing.play` keeps them."""
    try:
        options = game.normalize_options(record["options"])
        state = game.new_state(options, record["setup"], record["rules"])
    except (IllegalMove, KeyError, TypeError, ValueError) as error:
        raise BadRecord(f"the game cannot start from the record's options and setup: {_why(error)}") from None
    if len(record["seats"]) != options["seats"]:
        raise BadRecord(f"the record names {len(record['seats'])} seats for a game of {options['seats']}")
    first = record["moves"][0]["at"] if record["moves"] else None
    feed = [{"version": 1, "at": first, "by": None, "event": {"type": "game_created", "game": game.name,
                                                              "seats": options["seats"]}},
            {"version": 2, "at": first, "by": None, "event": {"type": "game_started"}}]
    log, version, pending = [], 2, game.pending(state)
    for index, entry in enumerate(record["moves"]):
        seat, move = entry["seat"], entry["move"]
        try:
            state, events = game.apply(state, seat, move)
        except (IllegalMove, KeyError, TypeError, ValueError, IndexError) as error:
            raise BadRecord(f"move {index} (seat {seat}) does not replay: {_why(error)}") from None
        now_pending = game.pending(state)
        kept = {"seat": seat, "move": move, "at": entry.get("at")}
        private = game.result(state) is None and playing.is_private(game, move, pending, now_pending)
        pending = now_pending
        if private:
            log.append(kept)
            continue
        version += 1
        log.append({"version": version, **kept})
        feed += [{"version": version, "at": kept["at"], "by": seat, "event": event}
                 for event in events if "private_to" not in event]
    result = game.result(state)
    if result is None or not log:
        raise BadRecord(f"the record's {len(record['moves'])} moves do not end the game")
    if result != record["result"]:
        raise BadRecord("the record's result is not the one its moves lead to")
    record.update(state=state, version=version)
    return log, feed


def _why(error: Exception) -> str:
    return f"{error.code}: {error.message}" if isinstance(error, IllegalMove) else f"{type(error).__name__}: {error}"
