"""Grace: a game's one extension per seat of a missed deadline, instead of the default move.

A game created with `grace_hours` gives each seat, on its first timeout of a decision with a real
choice (two legal moves or more), that many hours more for the same decision, once: the deadline
moves `grace_hours` later (from now, for a worker that came later than that), out of the player's
quiet hours; the seat's entry keeps `grace_used` (and `grace`: the decision it was given
for and until when, which its mail tells) and everyone reads a `grace` event. A seat whose stand-in
answers, a bot's or an open one gets none, and a newcomer to a seat starts with his own.
It is part of the deadline's one path (`playing.default_on`), so a late or repeated job gives it once.
"""
from __future__ import annotations

from datetime import timedelta
from typing import Any

from service import deadlines
from service.games import RUNNING, Table, feed_entry, follow_up, seat_is_open
from service.store import Committed, Store, dumps


def owed(table: Table, seat: int) -> int | None:
    """The hours of grace the seat's overdue decision gets now, or None: the default plays."""
    hours = table.meta.get("grace_hours")
    entry = table.meta["seats"][seat]
    if not hours or entry.get("grace_used") or entry.get("bot") or entry.get("standin") or seat_is_open(entry):
        return None
    return hours if len(table.game.legal_moves(table.state, seat)) >= 2 else None


def give(store: Store, table: Table, seat: int, decision: dict[str, Any], hours: int) -> tuple[Committed, Table]:
    """Extend the seat's decision by `hours`, in one public commit at the table's revision: (the
    outcome, the table after it when it is ok)."""
    now = deadlines.now()
    entry = table.meta["seats"][seat]
    extended = deadlines.parse(decision["deadline_at"]) + timedelta(hours=hours)
    if extended <= now:  # a worker that came later than the grace itself
        extended = now + timedelta(hours=hours)
    until = deadlines.stamp(deadlines.quiet_end(extended, entry.get("quiet")))
    seats = list(table.meta["seats"])
    seats[seat] = {**entry, "grace_used": True, "grace": {"since": decision["since"], "until": until}}
    meta = {**table.meta, "seats": seats}
    pending = [{**d, "deadline_at": until} if d["seat"] == seat and d["since"] == decision["since"] else d
               for d in table.pending]
    version = table.version + 1
    new = Table(table.id, version, table.rev + 1, table.status, meta, table.state, pending, table.private_moves,
                table.game)
    outcome = store.commit(table.id, table.rev, statuses=(RUNNING,),
                           fields={"meta": dumps(meta), "pending": dumps(pending)},
                           events=[feed_entry(version, None, {"type": "grace", "seat": seat, "until": until})],
                           wake=deadlines.wake_at(new, now, store.compact_after))
    if outcome.outcome == "ok":
        follow_up(store, new)
    return outcome, new
