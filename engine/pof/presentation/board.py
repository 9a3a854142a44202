"""The table of Princes of Florence as one reader sees it: the round, whose turn, the auction, every
principality, the supply, the scores. The service's page adds the rest (its header, the waiting
decisions, the log) and draws both, seat and spectator page alike, with `reader` the seat or None.

It reads `game.view(state, reader)` alone, so what a page shows is what the API would show the
same reader.
"""
from __future__ import annotations

from typing import Any

from engine.pof.data import ECONOMY, ROUNDS
from engine.pof.presentation import principality, words
from engine.pof.presentation.phrases import PHASES


def facts(view: dict[str, Any], reader: int | None, names: list[str]) -> dict[str, Any]:
    """What the game's pages draw of the table beside the service's facts."""
    players = [principality.figures(view, seat, names, reader, cell=48 if seat == reader or reader is None else 26)
               for seat in range(len(names))]
    if reader is not None:
        players = [players[reader]] + [p for p in players if p["seat"] != reader]
    return {
        "round": view["round"], "rounds": ROUNDS, "phase": PHASES.get(view["phase"], view["phase"]),
        "min_work_value": view["min_work_value"],
        "turn": _turn(view, names),
        "auction": _auction(view, names, reader),
        "players": players,
        "supply": _supply(view),
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
