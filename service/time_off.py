"""A player's quiet hours in every seat he holds: copied from his preferences (his `quiet` {from, to}
and his `time_zone`) into each seat's entry, as `quiet` {zone, from, to}, and his pending deadlines
moved out of them.

`deadlines.due_at` reads the seat's entry for every new deadline; this keeps the entries true when he
changes his mind. The settings call `apply_quiet` after a change of `quiet` or `time_zone`; taking a
seat brings them along (`games._seat_entry`). Each game changes in one public commit (its pages and
mails see the new deadline), and a deadline that moved says so in the feed (`deadline_moved`).
A deadline never moves earlier: hours that end or shrink leave it where it is.
"""
from __future__ import annotations

from service import deadlines, games, preferences
from service.games import OPEN, PAUSED, RUNNING, Table
from service.problems import Problem
from service.store import Store

LIVE = (OPEN, RUNNING, PAUSED)


def apply_quiet(store: Store, email_hash: str) -> int:
    """Copy the address's quiet hours into every seat it holds and move those seats' deadlines out of
    them; returns how many games changed. A game that keeps changing meanwhile is tried again."""
    chosen = preferences.read(store, email_hash)
    quiet = deadlines.seat_quiet(chosen.get("quiet"), chosen.get("time_zone"))
    changed = 0
    for game_id, (seat, head) in games.seats_held(store, email_hash).items():
        if head.status in LIVE:
            changed += _into_seat(store, game_id, seat, email_hash, quiet)
    return changed


def _into_seat(store: Store, game_id: str, seat: int, email_hash: str, quiet: dict[str, str] | None) -> bool:
    def change(table: Table) -> bool:
        entry = table.meta["seats"][seat]
        if table.status not in LIVE or entry.get("email_hash") != email_hash or entry.get("quiet") == quiet:
            return False
        _commit(store, table, seat, {**entry, "quiet": quiet} if quiet else
                {key: value for key, value in entry.items() if key != "quiet"})
        return True
    try:
        return games.retrying(store, games.load(store, game_id), change)
    except Problem as problem:
        if problem.code == "busy" or problem.code.startswith("game_"):
            return False
        raise


def _commit(store: Store, table: Table, seat: int, entry: dict) -> Table:
    """The seat's new entry and, in a running or paused game, its deadlines out of the new hours."""
    seats = list(table.meta["seats"])
    seats[seat] = entry
    pending = deadlines.out_of_quiet(table.pending, seat, entry.get("quiet")) if table.status != OPEN else None
    before = table.decision_of(seat)
    after = next((d for d in pending or [] if d["seat"] == seat), None)
    event = None
    if before and after and before.get("deadline_at") != after.get("deadline_at"):
        event = {"type": "deadline_moved", "seat": seat, "deadline_at": after["deadline_at"], "why": "quiet_hours"}
    return games._host_change(store, table, LIVE, meta={**table.meta, "seats": seats}, pending=pending, event=event)
