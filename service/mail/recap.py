"""What happened at a seat's table since its last decision, for the decision mails: the other seats'
moves and the rounds' results, in the web story's sentences (`service.story`), from the feed
redacted for the seat (`games.events_for`), so that a recap can only tell what the seat may know.

The seat's last decision is the last feed entry made by it (`by`: its own move, or the deadline's
or the stand-in's for it). The recap is every entry after that decision's version, and those of
that version about the others (a move's consequences: the lot another seat won, the round's end),
up to the version the mail shows. What the seat itself did it knows, so its own moves are left out;
a move the deadline made for it (`timeout`) is kept. Only the last `limit` are told: a mail stays
short, and the rest are "N earlier", which the seat page's log has.
"""
from __future__ import annotations

from typing import Any, TypedDict

from engine.core import Game
from service import games
from service.store import Store
from service import story

RECAP_LINES = 30  # sentences in a decision mail
REMINDER_LINES = 5  # in a reminder, which follows the decision mail
LOOK_BACK = 400  # feed entries read back looking for the seat's last decision


class Recap(TypedDict):
    """The sentences to tell (oldest first), how many earlier ones were left out, and whether the seat
    had decided before (else the recap tells the game from its start, or from LOOK_BACK entries ago)."""
    lines: list[str]
    more: int
    since_decision: bool


def since_last_decision(entries: list[dict[str, Any]], seat: int) -> tuple[list[dict[str, Any]], bool]:
    """The entries (redacted for `seat`, oldest first) a recap tells: after the seat's last decision,
    without the seat's own moves; and whether a decision of the seat's was among the entries."""
    last = max((entry["version"] for entry in entries if entry.get("by") == seat), default=None)
    if last is None:
        return entries, False
    return [entry for entry in entries if entry["version"] > last or (
        entry["version"] == last and not _own_move(entry, seat))], True


def _own_move(entry: dict[str, Any], seat: int) -> bool:
    """An event of a move the seat made itself, about itself: nothing it needs to be told."""
    return entry.get("by") == seat and not entry.get("timeout") and (entry.get("event") or {}).get("seat") == seat


def told(game: Game, entries: list[dict[str, Any]], names: list[str], seat: int, limit: int, earlier: int = 0,
         since_decision: bool = True) -> Recap | None:
    """The last `limit` of `entries` in the story's sentences; `earlier` entries before them were not
    read. None when there is nothing to tell."""
    if not entries:
        return None
    shown = entries[-limit:] if limit > 0 else []
    return {"lines": [line["text"] for line in story.lines(game, shown, names, seat)],
            "more": earlier + len(entries) - len(shown), "since_decision": since_decision}


def of(store: Store, table: games.Table, seat: int, limit: int = RECAP_LINES) -> Recap | None:
    """The recap for the seat's decision mail, from the seat's redacted feed up to the table's version."""
    total = store.feed_length(table.id)
    start = max(0, total - LOOK_BACK)
    entries, _, _ = games.events_for(store, table.id, seat, start, LOOK_BACK)
    entries = [entry for entry in entries if entry.get("version", 0) <= table.version]
    recent, found = since_last_decision(entries, seat)
    names = [games.seat_name(entry, number) for number, entry in enumerate(table.meta["seats"])]
    return told(table.game, recent, names, seat, limit, 0 if found else start, found)
