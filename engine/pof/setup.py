"""A new game: options, the chance drawn once from a seed (the setup), and the first state."""
from __future__ import annotations

import random
from typing import Any

from engine.core import IllegalMove, State
from engine.options import with_defaults, within
from engine.pof.table import DEADLINE_CLASS
from engine.pof.data import ECONOMY, FREEDOMS, LANDSCAPES, SUPPLY, BONUS_CARDS, BUILDINGS, PRESTIGE_CARDS, PROFESSIONS

MIN_SEATS, MAX_SEATS = 3, 5
BIDDING = ("step", "open")
DEFAULT_OPTIONS: dict[str, Any] = {"seats": 4, "bidding": "step", "auction_pass": False, "shuffle_seats": False}
DECKS = {"professions": PROFESSIONS, "bonus_cards": BONUS_CARDS, "prestige_cards": PRESTIGE_CARDS}


def normalize_options(options: dict[str, Any] | None) -> dict[str, Any]:
    """Fill in defaults; refuse unknown options and bad values."""
    merged = with_defaults(options, DEFAULT_OPTIONS)
    within(merged, "seats", MIN_SEATS, MAX_SEATS)
    if merged["bidding"] not in BIDDING:
        raise IllegalMove("bad_options", "bidding must be 'step' (raise by 100) or 'open' (any multiple of 100)")
    for flag in ("auction_pass", "shuffle_seats"):
        if not isinstance(merged[flag], bool):
            raise IllegalMove("bad_options", f"{flag} must be true or false")
    return merged


def make_setup(options: dict[str, Any], seed: int) -> dict[str, Any]:
    """Seat order and deck orders drawn from the seed: the only chance in the game."""
    rng = random.Random(seed)
    seats = list(range(options["seats"]))
    if options["shuffle_seats"]:
        rng.shuffle(seats)
    decks = {}
    for name, cards in DECKS.items():
        order = list(cards)
        rng.shuffle(order)
        decks[name] = order
    return {"seat_order": seats, "decks": decks}


def check_setup(options: dict[str, Any], setup: Any) -> None:
    """An explicit setup must be a seat permutation and a permutation of each whole deck."""
    if not isinstance(setup, dict) or set(setup) != {"seat_order", "decks"}:
        raise IllegalMove("bad_setup", "setup is an object with exactly 'seat_order' and 'decks'")
    order = setup["seat_order"]
    if not _is_list_of(order, int) or sorted(order) != list(range(options["seats"])):
        raise IllegalMove("bad_setup", f"seat_order must be a permutation of 0..{options['seats'] - 1}")
    decks = setup["decks"]
    if not isinstance(decks, dict) or set(decks) != set(DECKS):
        raise IllegalMove("bad_setup", f"decks must name exactly {sorted(DECKS)}")
    for name, cards in DECKS.items():
        order = decks[name]
        if not _is_list_of(order, str) or sorted(order) != sorted(cards):
            raise IllegalMove("bad_setup", f"decks.{name} must be an ordering of all {len(cards)} cards")


def _is_list_of(value: Any, kind: type) -> bool:
    return isinstance(value, list) and all(type(item) is kind for item in value)


def new_player(seat: int) -> dict[str, Any]:
    return {
        "seat": seat,
        "prestige": 0,
        "jugglers": 0,
        "architects": 0,
        "freedoms": [],
        "landscapes": [],
        "buildings": [],
        "played": [],
        "works": [],
        "enticements_received": 0,
        "private": {
            "cash": ECONOMY["start_cash"],
            "hand": [],
            "bonus_cards": [],
            "prestige_cards": [],
            "enticements": 0,
            "orders": None,
        },
    }


def new_state(options: dict[str, Any], setup: dict[str, Any]) -> State:
    """Deal 4 professions to each seat; everyone keeps 3 (a simultaneous decision)."""
    options = normalize_options(options)
    check_setup(options, setup)
    seats = options["seats"]
    decks = {name: list(order) for name, order in setup["decks"].items()}
    dealt = ECONOMY["start_professions_dealt"]
    pending = []
    for seat in range(seats):
        hand, decks["professions"] = decks["professions"][:dealt], decks["professions"][dealt:]
        pending.append({"seat": seat, "kind": "keep_professions", "deadline": DEADLINE_CLASS["keep_professions"],
                        "private": {"dealt": hand}})
    return {
        "game": "princes-of-florence",
        "options": options,
        "round": 1,
        "phase": "professions",
        "start_player": 0,
        "players": [new_player(seat) for seat in range(seats)],
        "supply": {
            **{kind: SUPPLY["landscape_each"] for kind in LANDSCAPES},
            "juggler": SUPPLY["juggler"],
            "architect": SUPPLY["architect"],
            "enticement": SUPPLY["enticement"],
            "buildings": {kind: building["copies"] for kind, building in BUILDINGS.items()},
            "freedoms": {freedom: seats - 1 for freedom in FREEDOMS},
        },
        "auction": None,
        "turn": None,
        "pending": pending,
        "result": None,
        "secret": {"decks": decks, "returned": {}, "seat_order": setup["seat_order"]},
    }
