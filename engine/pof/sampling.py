"""Determinization: a whole state that one seat could be in, drawn from that seat's view alone.

A search bot may read only what its seat sees (`view.view`), yet the rules need a whole state to play
on. `determinize` fills in what the view leaves out, so that the state's view for that seat is the
view it was made from: the other seats' hands of professions, bonus and prestige cards, the cards
dealt or shown to another seat, the cards given back at the start, and every deck's order are dealt
at random from the cards the seat has not seen; the counts of each (hands, decks) are public and kept.

Two hidden things are not cards. Another seat's cash is estimated from its public court (what its works
paid, less what its buildings, freedoms and cards cost, less an auction a round), since a view keeps no
history to count it from; its standing orders are taken to be none, as a bot that cannot see them
must assume (they only ever bid for their seat, never change what the seat could do).
"""
from __future__ import annotations

import random
from typing import Any

from engine.core import State
from engine.pof.data import BONUS_CARDS, ECONOMY, PRESTIGE_CARDS, PROFESSIONS

View = dict[str, Any]
DECKS = {"professions": list(PROFESSIONS), "bonus_cards": list(BONUS_CARDS), "prestige_cards": list(PRESTIGE_CARDS)}
HANDS = {"professions": "hand", "bonus_cards": "bonus_cards", "prestige_cards": "prestige_cards"}
AUCTION_SPEND = 300  # florins a seat is taken to spend in each auction it has been through: a guess


def determinize(game: Any, view: View, seat: int, rng: random.Random) -> State:
    """A state whose `view(state, seat)` is `view` (the seat's own view), hidden parts drawn by `rng`.

    `game` is Princes of Florence; it is taken for the symmetry with the other bots' signatures.
    """
    players = [_seat_state(p, seat, view) for p in view["players"]]
    pending = [dict(d) for d in view["pending"]]
    returned: dict[str, list[str]] = {}
    decks: dict[str, list[str]] = {}
    for deck, cards in DECKS.items():
        unseen = [card for card in cards if card not in _seen(view, seat, deck)]
        rng.shuffle(unseen)
        for other in players:
            if other["seat"] != seat:
                count = view["players"][other["seat"]]["counts"][HANDS[deck]]
                other["private"][HANDS[deck]], unseen = unseen[:count], unseen[count:]
        if deck == "professions":
            unseen = _deal_the_start(view, seat, pending, returned, unseen)
        offered = len(unseen) - view["decks"][deck]
        for decision in pending:
            if decision["seat"] != seat and decision["kind"] == "choose_card" and decision["deck"] == deck:
                decision["private"], unseen = {"cards": unseen[:offered]}, unseen[offered:]
        decks[deck] = unseen
        assert len(unseen) == view["decks"][deck], f"the {deck} do not add up"
    state = {key: value for key, value in view.items() if key not in ("decks", "min_work_value")}
    state["players"], state["pending"] = players, pending
    state["secret"] = {"decks": decks, "returned": returned, "seat_order": list(range(len(players)))}
    return state


def _seat_state(shown: dict[str, Any], seat: int, view: View) -> dict[str, Any]:
    """A seat's state without the view's counts; another seat's private part is made up (cards later)."""
    state = {key: value for key, value in shown.items() if key != "counts"}
    if shown["seat"] != seat:
        state["private"] = {"cash": estimated_cash(shown, view), "hand": [], "bonus_cards": [], "prestige_cards": [],
                            "enticements": shown["counts"]["enticements"], "orders": None}
    return state


def _seen(view: View, seat: int, deck: str) -> set[str]:
    """The cards of a deck the seat sees where they are: its own, its offer, and those on the tables."""
    me = view["players"][seat]["private"]
    seen = set(me[HANDS[deck]])
    for decision in view["pending"]:
        if decision["seat"] == seat and "private" in decision:
            if decision["kind"] == "keep_professions" and deck == "professions":
                seen |= set(decision["private"]["dealt"])
            elif decision.get("deck") == deck:
                seen |= set(decision["private"]["cards"])
    for player in view["players"]:
        if deck == "professions":
            seen |= set(player["played"])
        elif deck == "bonus_cards":
            seen |= {card for work in player["works"] for card in work["bonus_cards"]}
    return seen


def _deal_the_start(view: View, seat: int, pending: list[dict], returned: dict[str, list[str]],
                    unseen: list[str]) -> list[str]:
    """While professions are kept: four dealt to each other seat still choosing, one given back by each
    seat that has chosen (its own too: a view does not show it); the rest of `unseen` is the deck."""
    if view["phase"] != "professions":
        return unseen
    choosing = {d["seat"] for d in pending if d["kind"] == "keep_professions"}
    dealt, kept = ECONOMY["start_professions_dealt"], ECONOMY["start_professions_kept"]
    for decision in pending:
        if decision["kind"] == "keep_professions" and decision["seat"] != seat:
            decision["private"], unseen = {"dealt": unseen[:dealt]}, unseen[dealt:]
    for other in range(len(view["players"])):
        if other not in choosing:
            returned[str(other)], unseen = unseen[: dealt - kept], unseen[dealt - kept:]
    return unseen


def estimated_cash(shown: dict[str, Any], view: View) -> int:
    """Another seat's florins, guessed from its court: what its works paid in florins (a prestige point
    taken from a payout for every point beyond those its buildings earned), less what it bought."""
    paid = ECONOMY["florins_per_work_point"] * sum(work["value"] for work in shown["works"])
    counts = shown["counts"]
    cards = counts["bonus_cards"] + sum(len(work["bonus_cards"]) for work in shown["works"])
    professions = max(0, counts["hand"] + len(shown["played"]) - ECONOMY["start_professions_kept"])
    bought = (ECONOMY["price_freedom"] * len(shown["freedoms"]) + ECONOMY["price_bonus_card"] * cards
              + ECONOMY["price_profession"] * professions
              + ECONOMY["price_building_by_architects"][1] * len(shown["buildings"]))
    auctions = view["round"] - (1 if view["phase"] in ("professions", "auction") else 0)
    taken = max(0, shown["prestige"] - ECONOMY["prestige_per_building"] * len(shown["buildings"]))
    cash = ECONOMY["start_cash"] + paid - bought - AUCTION_SPEND * auctions
    cash -= min(taken * ECONOMY["florins_per_prestige_when_publishing"], paid)
    return max(0, cash - cash % 100)

