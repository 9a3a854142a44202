"""The facts of Princes of Florence's own mails (`engine.presentation.Mails`): what a decision mail, a
round's result, the final scores, a welcome and the answer to a reply say of the game, each from the
reader's own view (the one private part read is his own, `players[seat].private`). The service frames
them (greeting, links, deadline, default, reply commands) and renders the templates that read them.
"""
from __future__ import annotations

from typing import Any

from engine.pof.data import ECONOMY, ROUNDS
from engine.pof.presentation import yard_svg
from engine.pof.presentation.phrases import PHASES, florins
from engine.pof.words import listing, name, names as named

CHOOSE_KINDS = ("keep_professions", "choose_card", "place_landscape", "use_enticement", "split_payout")
CHOICES = {
    "keep_professions": "keep your professions",
    "choose_card": "choose a card",
    "place_landscape": "place your landscape",
    "use_enticement": "use your enticement card?",
    "split_payout": "split your payout",
}
YARD_TITLE = "Your principality"


def own(view: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """The reader's own seat, private part included: only his own view has it."""
    me = view["players"][seat] if seat is not None else {}
    if "private" not in me:
        raise ValueError(f"this is not seat {seat}'s own view")
    return me


class PrincesOfFlorenceMails:
    def kind(self, decision_kind: str) -> str:
        return "your_bid" if decision_kind == "bid" else "choose" if decision_kind in CHOOSE_KINDS else "your_turn"

    def summary(self, mail: str, facts: dict[str, Any]) -> str:
        if mail == "your_bid":
            return f"Your bid: the {facts['lot']['item']} stands at {facts['lot']['bid']}"
        if mail == "choose":
            return f"Your choice: {CHOICES.get(facts['kind'], name(facts['kind']))}"
        return f"Your turn in round {facts['round']}"

    def decision(self, view: dict[str, Any], seat: int, decision: dict[str, Any], names: list[str]) -> dict[str, Any]:
        me = own(view, seat)
        return {
            "round": view["round"], "rounds": ROUNDS, "min_work_value": view["min_work_value"],
            "cash": florins(me["private"]["cash"]), "prestige": me["prestige"],
            "lot": _lot(view, names, seat) if decision["kind"] == "bid" else None,
            "yard": yard_svg.grid(me, YARD_TITLE),
        }

    def standing(self, view: dict[str, Any], seat: int) -> dict[str, Any]:
        me = own(view, seat)
        return {"round": view["round"], "cash": florins(me["private"]["cash"]), "prestige": me["prestige"]}

    def welcome(self, view: dict[str, Any], seat: int, names: list[str]) -> dict[str, Any]:
        me = own(view, seat)
        private = me["private"]
        return {
            "round": view["round"], "rounds": ROUNDS, "phase": PHASES.get(view["phase"], view["phase"]),
            "min_work_value": view["min_work_value"], "cash": florins(private["cash"]), "prestige": me["prestige"],
            "hand": named(private.get("hand", [])), "bonus_cards": len(private.get("bonus_cards", [])),
            "standings": [{"name": names[p["seat"]], "prestige": p["prestige"], "me": p["seat"] == seat}
                          for p in sorted(view["players"], key=lambda p: -p["prestige"])],
            "yard": yard_svg.grid(me, YARD_TITLE),
        }

    def round_result(self, view: dict[str, Any], names: list[str], finished: int | None) -> dict[str, Any]:
        if finished is None:
            finished = view["round"] if view["phase"] == "over" else view["round"] - 1
        if not 1 <= finished <= ROUNDS:
            raise ValueError(f"no finished round to report in round {view['round']} ({view['phase']})")
        works = sorted(({"name": names[p["seat"]], "profession": name(w["profession"]), "value": w["value"]}
                        for p in view["players"] for w in p["works"] if w["round"] == finished),
                       key=lambda work: -work["value"])
        best = works[0]["value"] if works else None
        best_names = {w["name"] for w in works if w["value"] == best}
        return {
            "summary": f"Round {finished} is over",
            "finished": finished,
            "rounds": ROUNDS,
            "works": works,
            "best": best,
            "best_names": listing(sorted(best_names)),
            "best_shared": len(best_names) > 1,
            "best_points": ECONOMY["prestige_for_best_work"],
            "standings": [{"name": names[p["seat"]], "prestige": p["prestige"]}
                          for p in sorted(view["players"], key=lambda p: -p["prestige"])],
            "next_round": finished + 1 if finished < ROUNDS and view["phase"] != "over" else None,
            "start_player": names[view["start_player"]],
            "min_work_value": view["min_work_value"],
        }

    def game_over(self, view: dict[str, Any], names: list[str]) -> dict[str, Any]:
        result = view["result"]
        if result is None:
            raise ValueError("the game is not over")
        scores = [{"rank": s["rank"], "name": names[s["seat"]], "prestige": s["prestige"], "cash": florins(s["cash"]),
                   "cards": [{"card": name(c["card"]), "points": c["points"]} for c in s["prestige_cards"]]}
                  for s in sorted(result["scores"], key=lambda s: (s["rank"], s["seat"]))]
        winners = listing([names[seat] for seat in result["winners"]])
        shared = len(result["winners"]) > 1
        return {"summary": f"Game over: {winners} {'win' if shared else 'wins'}", "scores": scores,
                "winners": winners, "shared": shared}


def _lot(view: dict[str, Any], names: list[str], seat: int) -> dict[str, Any]:
    """The item under the hammer, its bid and who is still in, as the reader of a bid mail sees them."""
    lot = view["auction"]["lot"]

    def who(other: int) -> str:
        return "you" if other == seat else names[other]

    return {
        "item": name(lot["item"]),
        "bid": lot["bid"],
        "leader": who(lot["leader"]),
        "chooser": who(lot["chooser"]),
        "still_in": listing([who(other) for other in lot["in"]]),
        "next_bid": lot["bid"] + ECONOMY["auction_step"],
        "open_bidding": view["options"]["bidding"] == "open",
    }


MAILS = PrincesOfFlorenceMails()
