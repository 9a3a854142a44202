"""The table as one reader sees it: its header, the decisions it waits for, who is away, the log, and
what the game draws of its table (`board_facts` of its presentation: its round, its board, every
seat's figures, the scores). A game's own seat and spectator pages are both drawn from this, with
`reader` the seat or None.

It reads `game.view(state, reader)` and the feed redacted for the reader, nothing else of the game,
so what a page shows is what the API would show the same reader.
"""
from __future__ import annotations

from typing import Any

from engine import get_game
from engine.core import word
from engine.presentation import presentation_of
from service import deadlines, games, preferences, vacation
from service.games import Table
from service import phrases
from service.store import Store
from service import story

LOG_LINES = 30
STATUS = {games.OPEN: "not started yet", games.RUNNING: "running", games.PAUSED: "paused",
          games.FINISHED: "over", games.CANCELLED: "cancelled"}


def waiting_for(meta: dict[str, Any], kind: str) -> str:
    """What a decision asks its seat, in its game's words ("to bid or step out"), for any game."""
    return word(get_game(meta["game"]), kind)


def names_of(table: Table) -> list[str]:
    return [games.seat_name(entry, number) for number, entry in enumerate(table.meta["seats"])]


def time_zone(store: Store, table: Table, reader: int | None) -> str:
    """The reader's own zone for deadlines (his mail settings), UTC for spectators."""
    email_hash = table.meta["seats"][reader].get("email_hash") if reader is not None else None
    return preferences.read(store, email_hash)["time_zone"] if email_hash else "UTC"


def due(moment: str | None, zone: str) -> dict[str, str] | None:
    if not moment:
        return None
    at = deadlines.parse(moment)
    return {"clock": phrases.clock(at, zone), "relative": phrases.relative(at, deadlines.now()), "iso": moment}


def away(entry: dict[str, Any], zone: str) -> dict[str, str] | None:
    """When the seat's player is due back from his vacation, in the reader's zone, while he is away."""
    until = vacation.away_until(entry)
    return due(deadlines.stamp(until), zone) if until else None


def table_context(store: Store, table: Table, reader: int | None, view: dict[str, Any]) -> dict[str, Any]:
    """Everything but the reader's own forms: header, waiting decisions, the game's board facts, log.
    `view` is `game.view(state, reader)`, made once by the page, which its forms read too."""
    names = names_of(table)
    zone = time_zone(store, table, reader)
    total = store.feed_length(table.id)
    entries, _, _ = games.events_for(store, table.id, reader, max(0, total - LOG_LINES), LOG_LINES)
    return {
        "game_id": table.id, "title": games.title_of(table), "version": table.version, "status": table.status,
        "status_words": STATUS.get(table.status),
        "paused_until": due(table.meta.get("paused_until"), zone), "zone": zone,
        "waiting": [{"name": names[d["seat"]], "me": d["seat"] == reader, "what": waiting_for(table.meta, d["kind"]),
                     "kind": d["kind"], "due": due(d.get("deadline_at"), zone),
                     "away": away(table.meta["seats"][d["seat"]], zone)} for d in table.pending]
        if table.status in (games.RUNNING, games.PAUSED) else [],
        "away": [{"seat": number, "name": names[number], "me": number == reader, "until": until}
                 for number, entry in enumerate(table.meta["seats"]) if (until := away(entry, zone))],
        "log": story.lines(table.game, entries, names, reader)[::-1],
        "log_total": total,
        **presentation_of(table.game).board_facts(view, reader, names),
    }
