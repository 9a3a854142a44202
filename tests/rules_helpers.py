"""Builders for the rules tests: games from an explicit setup, and ways to drive them to a position.

Deck orders default to the order of data.json, so a test can count by hand who is dealt what:
with 4 seats, seat 0 is dealt alchemist, botanist, physicist, bell_maker; seat 1 goldsmith,
architect, mathematician, jurist; seat 2 philosopher, map_maker, historian, composer; seat 3
choreographer, painter, sculptor, doctor; the deck keeps pharmacist, dramatist, poet, astronomer,
organ_builder (then the four returned cards, in seat order).

`edit` gives a copy of a state to change by hand; `give` changes a seat's court through it and
keeps the supply consistent, so a position need not be played out move by move.
"""
from __future__ import annotations

import json
from typing import Any, Callable, Iterable

import pytest

from engine import IllegalMove, copy_state, get_game
from engine.pof.data import BONUS_CARDS, LANDSCAPES, PRESTIGE_CARDS, PROFESSIONS

GAME = get_game("princes-of-florence")
State = dict[str, Any]

PROFESSION_ORDER = list(PROFESSIONS)
BONUS_ORDER = list(BONUS_CARDS)
PRESTIGE_ORDER = list(PRESTIGE_CARDS)


def ordered(first: Iterable[str], everything: list[str]) -> list[str]:
    """A deck that starts with `first` (in that order), then the rest in data order."""
    first = list(first)
    return first + [card for card in everything if card not in first]


def new_game(seats: int = 4, professions: Iterable[str] = (), bonus_cards: Iterable[str] = (),
             prestige_cards: Iterable[str] = (), **options: Any) -> State:
    """A fresh game whose decks begin with the given cards (the rest follow in data order)."""
    setup = {
        "seat_order": list(range(seats)),
        "decks": {
            "professions": ordered(professions, PROFESSION_ORDER),
            "bonus_cards": ordered(bonus_cards, BONUS_ORDER),
            "prestige_cards": ordered(prestige_cards, PRESTIGE_ORDER),
        },
    }
    return GAME.new_state({"seats": seats, **options}, setup)


def dealt(state: State, seat: int) -> list[str]:
    return next(d for d in state["pending"] if d["seat"] == seat)["private"]["dealt"]


def keep_all(state: State, keep: dict[int, list[str]] | None = None,
             order: Iterable[int] | None = None) -> State:
    """Everyone keeps 3 professions: `keep[seat]`, else the first three dealt; in `order` of seats."""
    keep = keep or {}
    seats = list(order) if order is not None else range(len(state["players"]))
    for seat in seats:
        state, _ = GAME.apply(state, seat, {"type": "keep_professions",
                                            "professions": keep.get(seat, dealt(state, seat)[:3])})
    return state


def apply(state: State, seat: int, move: dict[str, Any]) -> tuple[State, list[dict[str, Any]]]:
    return GAME.apply(state, seat, move)


def play(state: State, *steps: tuple[int, dict[str, Any]]) -> State:
    """Apply (seat, move) pairs in turn; returns the last state."""
    for seat, move in steps:
        state, _ = GAME.apply(state, seat, move)
    return state


def play_events(state: State, *steps: tuple[int, dict[str, Any]]) -> tuple[State, list[dict[str, Any]]]:
    """Like `play`, but also returns every event, in order."""
    events: list[dict[str, Any]] = []
    for seat, move in steps:
        state, new = GAME.apply(state, seat, move)
        events += new
    return state, events


def waiting(state: State) -> tuple[int, str]:
    """The one seat with a decision and its kind (fails if none or several are pending)."""
    assert len(state["pending"]) == 1, state["pending"]
    decision = state["pending"][0]
    return decision["seat"], decision["kind"]


def decision(state: State, seat: int) -> dict[str, Any]:
    return next(d for d in state["pending"] if d["seat"] == seat)


def drive(state: State, until: Callable[[State], bool], choose: Callable[[State, int, str], dict | None] | None = None,
          limit: int = 5000) -> State:
    """Apply moves until `until(state)`: `choose(state, seat, kind)` if it returns a move, else the default."""
    for _ in range(limit):
        if until(state):
            return state
        seat = state["pending"][0]["seat"]
        kind = state["pending"][0]["kind"]
        move = choose(state, seat, kind) if choose else None
        state, _ = GAME.apply(state, seat, move or GAME.default_move(state, seat))
    raise AssertionError("drive did not reach the position")


def buy_items(items: dict[int, str]) -> Callable[[State, int, str], dict | None]:
    """A `choose` for `drive`: each chooser opens items[seat], every bidder steps out, landscapes are thrown away."""
    def choose(state: State, seat: int, kind: str) -> dict | None:
        if kind == "open_auction" and seat in items:
            return {"type": "open_auction", "item": items[seat]}
        if kind == "place_landscape":
            return {"type": "discard_landscape"}
        return None
    return choose


def to_actions(state: State, items: dict[int, str] | None = None) -> State:
    """From anywhere before Phase B: through the auction (each seat buys items[seat] for 200) into Phase B."""
    if state["phase"] == "professions":
        state = keep_all(state)
    return drive(state, lambda s: s["phase"] == "actions", buy_items(items or {}))


def end_turns_until(state: State, seat: int) -> State:
    """In Phase B: end every turn until `seat` is to act."""
    return drive(state, lambda s: bool(s["pending"]) and s["pending"][0]["kind"] == "action"
                 and s["pending"][0]["seat"] == seat)


def to_round(state: State, round_number: int) -> State:
    """By default moves (everyone ends every turn) to the start of `round_number`'s auction."""
    if state["phase"] == "professions":
        state = keep_all(state)
    return drive(state, lambda s: s["round"] == round_number and s["phase"] == "auction"
                 and s["auction"]["done"] == [] and s["auction"]["lot"] is None, buy_items({}))


def edit(state: State) -> State:
    return copy_state(state)


def give(state: State, seat: int, *, cash: int | None = None, prestige: int | None = None,
         jugglers: int = 0, architects: int = 0, freedoms: Iterable[str] = (),
         landscapes: Iterable[tuple[str, list[list[int]]]] = (),
         buildings: Iterable[tuple[str, list[list[int]]]] = (),
         hand: Iterable[str] | None = None, bonus_cards: Iterable[str] = (),
         prestige_cards: Iterable[str] = (), enticements: int = 0) -> State:
    """A copy where `seat` has these extra things, taken from the supply or the decks so totals stay right."""
    state = copy_state(state)
    me, supply, decks = state["players"][seat], state["supply"], state["secret"]["decks"]
    if cash is not None:
        me["private"]["cash"] = cash
    if prestige is not None:
        me["prestige"] = prestige
    me["jugglers"] += jugglers
    supply["juggler"] -= jugglers
    me["architects"] += architects
    supply["architect"] -= architects
    for freedom in freedoms:
        me["freedoms"].append(freedom)
        supply["freedoms"][freedom] -= 1
    for kind, squares in landscapes:
        me["landscapes"].append({"kind": kind, "squares": squares})
        supply[kind] -= 1
    for kind, squares in buildings:
        me["buildings"].append({"kind": kind, "squares": squares})
        supply["buildings"][kind] -= 1
    if hand is not None:
        for card in hand:
            if card in decks["professions"]:
                decks["professions"].remove(card)
        me["private"]["hand"] = list(hand)
    for name, cards in (("bonus_cards", bonus_cards), ("prestige_cards", prestige_cards)):
        for card in cards:
            decks[name].remove(card)
            me["private"][name].append(card)
    me["private"]["enticements"] += enticements
    supply["enticement"] -= enticements
    for value in supply.values():
        assert not isinstance(value, int) or value >= 0, "the supply ran out in a hand-built position"
    return state


def frozen(state: State) -> str:
    return json.dumps(state, sort_keys=True)


def illegal(state: State, seat: int, move: dict[str, Any], code: str) -> None:
    """The move is refused with `code`, and the state given is left exactly as it was."""
    before = frozen(state)
    with pytest.raises(IllegalMove) as info:
        GAME.apply(state, seat, move)
    assert info.value.code == code, info.value.message
    assert frozen(state) == before


def cash(state: State, seat: int) -> int:
    return state["players"][seat]["private"]["cash"]


def pp(state: State, seat: int) -> int:
    return state["players"][seat]["prestige"]


def deck(state: State, name: str) -> list[str]:
    return state["secret"]["decks"][name]


# Squares far from the Palazzo (rows 5-6, cols 0-2) for hand-built courts.
LANDSCAPE_SPOTS = {
    "woods": [[0, 0], [1, 0], [2, 0], [2, 1]],
    "lake": [[0, 5], [0, 6], [1, 5], [1, 6]],
    "park": [[3, 5], [4, 5], [4, 6]],
}
assert set(LANDSCAPE_SPOTS) == set(LANDSCAPES)

# A tiling of the whole yard (43 squares) by 6 woods, 4 lakes and a park; the park is last, so the
# first ten pieces leave exactly the L-shaped hole [2, 4], [3, 4], [3, 5].
FULL_YARD: list[tuple[str, list[list[int]]]] = [
    ("lake", [[0, 0], [0, 1], [1, 0], [1, 1]]),
    ("lake", [[0, 2], [0, 3], [1, 2], [1, 3]]),
    ("lake", [[0, 4], [0, 5], [1, 4], [1, 5]]),
    ("woods", [[0, 6], [1, 6], [2, 5], [2, 6]]),
    ("lake", [[2, 0], [2, 1], [3, 0], [3, 1]]),
    ("woods", [[2, 2], [2, 3], [3, 3], [4, 3]]),
    ("woods", [[3, 2], [4, 0], [4, 1], [4, 2]]),
    ("woods", [[3, 6], [4, 4], [4, 5], [4, 6]]),
    ("woods", [[5, 3], [5, 4], [5, 5], [6, 3]]),
    ("woods", [[5, 6], [6, 4], [6, 5], [6, 6]]),
    ("park", [[2, 4], [3, 4], [3, 5]]),
]
