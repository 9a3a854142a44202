"""What was done for a player who let time run out: the record of his last deadline move, the table's
events when a stand-in starts or stops answering for him, and his own move's label, read back.

A deadline's move (`playing.default_on`) on a decision with a real choice leaves, in the seat's entry
of the meta, `timed_out`: which decision it answered (`since`, `kind`), the version of the move, when,
for which holder, and who chose it (the engine's default or the stand-in). It stays until his own next
move clears it with the missed count, so the seat page, the host page and the mail (`workers.notify`,
once per decision) read one record. The record names no move: the move may tell his hand, and the meta
is read by every page; his own mail and page read the move from the log (`label`), for his seat only.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any

from service import deadlines
from service.games import MISSED_TURNS, Seated, Table, holder_of
from service.store import Store, game_key, loads

DEFAULT = "default"  # `timed_out.by` when the engine's default move answered, not a stand-in
STARTED, ENDED = "standin_started", "standin_ended"
LOOK_BACK = 200  # log entries read from its end for a move's label before the whole log is read


def record(table: Table, seat: int, bot: str | None, now: datetime) -> dict[str, Any]:
    """The `timed_out` entry for the deadline's move the seat is about to commit (at version + 1)."""
    decision = table.decision_of(seat) or {}
    return {"since": decision.get("since"), "kind": decision.get("kind"), "version": table.version + 1,
            "at": deadlines.stamp(now), "holder": holder_of(table.meta["seats"][seat]), "by": bot or DEFAULT}


def feed_events(before: dict[str, Any], after: dict[str, Any], seat: int) -> tuple[list[dict], list[dict]]:
    """The public events a change of the seat's stand-in makes: (those before the move's, those after).

    `standin_ended` comes before his own move's events (he is back, then he plays); `standin_started`
    after the timeout that started it."""
    if after.get("standin") and not before.get("standin"):
        return [], [{"type": STARTED, "seat": seat, "bot": after["standin"], "missed": after.get("missed", 0)}]
    if before.get("standin") and not after.get("standin"):
        return [{"type": ENDED, "seat": seat, "bot": before["standin"]}], []
    return [], []


def last_timeout(game: Seated, seat: int) -> dict[str, Any] | None:
    """The seat's `timed_out` record, if its current holder let the decision run out (a newcomer to the
    seat reads none of his predecessor's)."""
    entry = game.meta["seats"][seat]
    found = entry.get("timed_out")
    if not found or found.get("holder") != holder_of(entry):
        return None
    return found


def label(store: Store, table: Table, seat: int, timed_out: dict[str, Any]) -> str | None:
    """The label of the move the deadline played for the seat, in the game's words, from the log: for
    the seat's own mail and page only. None when the log no longer has it."""
    recent = [loads(raw) for raw in store.redis.lrange(game_key(table.id, "log"), -LOOK_BACK, -1)]
    for entries in (recent, store.log(table.id)):  # the log's tail first; all of it (or its archive) if need be
        for entry in reversed(entries):
            if entry.get("version") == timed_out["version"] and entry.get("seat") == seat:
                return table.game.describe(entry["move"])
            if (entry.get("version") or 0) and entry["version"] < timed_out["version"]:
                return None
    return None


def misses(game: Seated, seat: int) -> dict[str, Any]:
    """Where the seat stands with its missed decisions: how many in a row, how many more before the
    stand-in answers (0 once it does) and before the seat is taken away (None: never)."""
    entry = game.meta["seats"][seat]
    missed = entry.get("missed", 0)
    limit = game.meta.get("missed_turns", MISSED_TURNS)
    remove_after = game.meta.get("remove_after")
    return {"missed": missed, "standin": entry.get("standin"), "standin_since": entry.get("standin_since"),
            "before_standin": 0 if entry.get("standin") else max(limit - missed, 0),
            "before_removal": None if remove_after is None else max(remove_after - missed, 0)}
