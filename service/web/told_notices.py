"""What the seat page and the host page say at their top about deadlines that played for a player
(`service.told`): to the player, his last decision played for him and by whom, with the move's label
(his own page only) and the stand-in answering for him since when; to the host, every seat with a
stand-in or a decision run out since its player last moved, by kind and time, never the move."""
from __future__ import annotations

from typing import Any

from service import games, told
from service.games import Table
from service.store import Store
from service.web.tableau import due, waiting_for


def for_seat(store: Store, table: Table, seat: int, zone: str) -> dict[str, Any] | None:
    """The seat's own notice, or None when no deadline has played for its player since he last moved."""
    timed_out = told.last_timeout(table, seat)
    misses = told.misses(table, seat)
    if timed_out is None and not misses["standin"]:
        return None
    played = None
    if timed_out is not None:
        played = {"asked": waiting_for(table.meta, timed_out["kind"]), "by": timed_out["by"],
                  "label": told.label(store, table, seat, timed_out), "when": due(timed_out["at"], zone)}
    return {"played": played, **misses, "standin_since": due(misses["standin_since"], zone)}


def for_host(table: Table, zone: str) -> list[dict[str, Any]]:
    """One line's facts for each seat a stand-in answers for, or whose player let a decision run out
    since his last move (an open seat's stand-in is in the seat list already)."""
    found = []
    for seat, entry in enumerate(table.meta["seats"]):
        if games.seat_is_open(entry) or entry.get("bot"):
            continue
        timed_out = told.last_timeout(table, seat)
        misses = told.misses(table, seat)
        if timed_out is None and not misses["standin"]:
            continue
        found.append({"seat": seat, "name": games.seat_name(entry, seat), **misses,
                      "standin_since": due(misses["standin_since"], zone),
                      "asked": waiting_for(table.meta, timed_out["kind"]) if timed_out else None,
                      "when": due(timed_out["at"], zone) if timed_out else None})
    return found
