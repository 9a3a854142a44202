"""Builders for the Goofspiel tests: games from an explicit prize order, and rounds played by hand."""
from __future__ import annotations

from typing import Any

import pytest

from engine import IllegalMove, get_game

GAME = get_game("goofspiel")
State = dict[str, Any]


def new_game(prizes: list[int], seats: int = 2, **options: Any) -> State:
    """A fresh game whose prize deck is turned in this order (its length is the `cards` option)."""
    options = GAME.normalize_options({"seats": seats, "cards": len(prizes), **options})
    return GAME.new_state(options, {"prizes": prizes})


def bid(state: State, seat: int, card: int) -> State:
    state, _ = GAME.apply(state, seat, {"type": "bid", "card": card})
    return state


def play_round(state: State, *cards: int) -> tuple[State, list[dict]]:
    """Every seat bids, seat 0 first: the state after the round, and all its events."""
    events: list[dict] = []
    for seat, card in enumerate(cards):
        state, more = GAME.apply(state, seat, {"type": "bid", "card": card})
        events += more
    return state, events


def illegal(state: State, seat: int, move: Any, code: str) -> None:
    with pytest.raises(IllegalMove) as refused:
        GAME.apply(state, seat, move)
    assert refused.value.code == code, refused.value.message
