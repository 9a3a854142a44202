"""The table as one reader sees it: the round, whose turn, the auction, every principality, the log,
the scores. Seat pages and the spectator page are both drawn from this, with `reader` the seat or None.

It reads `game.view(state, reader)` and the feed redacted for the reader, nothing else of the game,
so what a page shows is what the API would show the same reader.
"""
from __future__ import annotations

from typing import Any

from engine import get_game
from engine.core import word
from engine.pof.data import ECONOMY, ROUNDS
from service import deadlines, games, preferences, vacation
from service.games import Table
from service import phrases
from service.store import Store
from service import story
from service import words
from service.web import principality

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


def asked(view: dict[str, Any], decision: dict[str, Any]) -> dict[str, Any]:
    """A seat's pending decision with what its own view adds (the cards dealt, the payout): what the
    forms and `phrases.pending` read."""
    details = next((d for d in view.get("pending", []) if d.get("seat") == decision["seat"]), {})
    return {**details, **decision}


def table_context(store: Store, table: Table, reader: int | None, view: dict[str, Any]) -> dict[str, Any]:
    """Everything but the reader's own forms: header, waiting decisions, auction, seats, log, scores.
    `view` is `game.view(state, reader)`, made once by the page, which its forms read too."""
    names = names_of(table)
    zone = time_zone(store, table, reader)
    players = [principality.figures(view, seat, names, reader, cell=48 if seat == reader or reader is None else 26)
               for seat in range(len(names))]
    if reader is not None:
        players = [players[reader]] + [p for p in players if p["seat"] != reader]
    total = store.feed_length(table.id)
    entries, _, _ = games.events_for(store, table.id, reader, max(0, total - LOG_LINES), LOG_LINES)
    return {
        "game_id": table.id, "title": games.title_of(table), "version": table.version, "status": table.status,
        "status_words": STATUS.get(table.status),
        "paused_until": due(table.meta.get("paused_until"), zone), "zone": zone,
        "round": view["round"], "rounds": ROUNDS, "phase": phrases.PHASES.get(view["phase"], view["phase"]),
        "min_work_value": view["min_work_value"],
        "waiting": [{"name": names[d["seat"]], "me": d["seat"] == reader, "what": waiting_for(table.meta, d["kind"]),
                     "kind": d["kind"], "due": due(d.get("deadline_at"), zone),
                     "away": away(table.meta["seats"][d["seat"]], zone)} for d in table.pending]
        if table.status in (games.RUNNING, games.PAUSED) else [],
        "away": [{"seat": number, "name": names[number], "me": number == reader, "until": until}
                 for number, entry in enumerate(table.meta["seats"]) if (until := away(entry, zone))],
        "turn": _turn(view, names),
        "auction": _auction(view, names, reader),
        "players": players,
        "supply": _supply(view),
        "log": story.lines(entries, names, reader)[::-1],
        "log_total": total,
        "result": _result(view, names, reader),
    }


def _turn(view: dict[str, Any], names: list[str]) -> dict[str, Any] | None:
    turn = view.get("turn")
    if not turn:
        return None
    return {"name": names[turn["seat"]], "actions": turn["actions"], "per_turn": ECONOMY["actions_per_turn"]}


def _auction(view: dict[str, Any], names: list[str], reader: int | None) -> dict[str, Any] | None:
    auction = view.get("auction")
    if not auction:
        return None
    lot = auction.get("lot")
    return {
        "sold": [words.name(item) for item in auction["sold"]],
        "done": [names[seat] for seat in auction["done"]],
        "lot": {"item": words.name(lot["item"]), "item_id": lot["item"], "bid": lot["bid"], "leader": names[lot["leader"]],
                "chooser": names[lot["chooser"]], "still_in": [names[seat] for seat in lot["in"]],
                "to_bid": names[lot["to_bid"]], "mine": lot["leader"] == reader} if lot else None,
    }


def _supply(view: dict[str, Any]) -> dict[str, Any]:
    supply = view["supply"]
    return {
        "items": [(words.name(kind), supply[kind]) for kind in ("woods", "lake", "park", "juggler", "architect",
                                                                 "enticement")],
        "buildings": [(words.name(kind), left) for kind, left in supply["buildings"].items()],
        "freedoms": [(words.name(kind), left) for kind, left in supply["freedoms"].items()],
        "decks": [(words.name(deck), left) for deck, left in view.get("decks", {}).items()],
    }


def _result(view: dict[str, Any], names: list[str], reader: int | None) -> list[dict[str, Any]] | None:
    """The final scores, each prestige card's part shown (the result is public at the end)."""
    result = view.get("result")
    if not result:
        return None
    public = {p["seat"]: p for p in view["players"]}
    return [{"rank": s["rank"], "name": names[s["seat"]], "me": s["seat"] == reader, "prestige": s["prestige"],
             "cash": s["cash"], "before_cards": s["prestige"] - sum(c["points"] for c in s["prestige_cards"]),
             "works": len(public[s["seat"]]["works"]),
             "cards": [{"name": words.name(c["card"]), "text": words.prestige_text(c["card"]), "points": c["points"]}
                       for c in s["prestige_cards"]]}
            for s in sorted(result["scores"], key=lambda s: (s["rank"], s["seat"]))]
