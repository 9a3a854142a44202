"""A new game of Goofspiel: options, the prize deck's order drawn from a seed (the setup), the first state."""
from __future__ import annotations

import random
from typing import Any

from engine.core import IllegalMove, State
from engine.options import whole, with_defaults, within
from engine.goofspiel.data import (DEFAULT_OPTIONS, GAME, MAX_CARDS, MAX_SEATS, MIN_CARDS, MIN_SEATS, TIES,
                                   deck)


def normalize_options(options: dict[str, Any] | None) -> dict[str, Any]:
    """Fill in defaults; refuse unknown options and bad values."""
    merged = with_defaults(options, DEFAULT_OPTIONS)
    within(merged, "seats", MIN_SEATS, MAX_SEATS)
    within(merged, "cards", MIN_CARDS, MAX_CARDS)
    if merged["ties"] not in TIES:
        raise IllegalMove("bad_options", "ties must be 'discard' (a tied prize is lost) or 'carry' "
                                         "(it goes to the next round's winner)")
    return merged


def make_setup(options: dict[str, Any], seed: int) -> dict[str, Any]:
    """The prize deck's order, drawn from the seed: the only chance in the game."""
    prizes = deck(options["cards"])
    random.Random(seed).shuffle(prizes)
    return {"prizes": prizes}


def check_setup(options: dict[str, Any], setup: Any) -> None:
    """An explicit setup is an order of the whole prize deck."""
    if not isinstance(setup, dict) or set(setup) != {"prizes"}:
        raise IllegalMove("bad_setup", "setup is an object with exactly 'prizes'")
    prizes = setup["prizes"]
    if (not isinstance(prizes, list) or not all(whole(card) for card in prizes)
            or sorted(prizes) != deck(options["cards"])):
        raise IllegalMove("bad_setup", f"prizes must be an order of the cards 1 to {options['cards']}")


def new_state(options: dict[str, Any], setup: dict[str, Any]) -> State:
    """Every seat holds the whole hand; the first prize is turned up, the rest stay face down (secret)."""
    options = normalize_options(options)
    check_setup(options, setup)
    first, *rest = setup["prizes"]
    return {
        "game": GAME,
        "options": options,
        "round": 1,
        "phase": "bidding",
        "prize": first,
        "carried": [],
        "prizes_left": sorted(rest),
        "players": [
            {"seat": seat, "hand": deck(options["cards"]), "points": 0, "won": [], "has_bid": False,
             "private": {"bid": None}}
            for seat in range(options["seats"])
        ],
        "history": [],
        "result": None,
        "secret": {"prizes": rest},
    }
