"""The move vocabulary of Princes of Florence: one place that engine, API, emails and pages share.

A move is a JSON object ``{"type": <one of MOVE_TYPES>, <its fields>}``. Each field is described by
a small JSON-Schema fragment, so that the API can publish it in OpenAPI without restating it; names
from a fixed set carry an ``enum``. `check_shape` checks JSON types only: the rules check the values,
so that a client learns a specific code (unknown_item, bad_target, ...) rather than a shape error.
Squares are ``[row, col]`` pairs on the 7x7 yard, row 0 at the top, col 0 at the left.

Moves marked ``free`` never answer a decision: they are allowed at the times their doc says and are
not listed by ``legal_moves`` (their parameters would make the list endless). A move marked
``private`` changes only what its mover may see, unless it moves the game on (orders that answer a
bid at once): the service then keeps it from everyone else, the version and the public feed.
"""
from __future__ import annotations

from typing import Any, Callable

from engine.core import IllegalMove
from engine.fragments import list_of, names
from engine.pof.data import AUCTION_ITEMS, BONUS_CARDS, BUILDINGS, FREEDOMS, PRESTIGE_CARDS, PROFESSIONS


SQUARES = list_of({"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2})
ITEM = names(AUCTION_ITEMS)
PROFESSION = names(PROFESSIONS)
BONUS_CARD = names(BONUS_CARDS)
CARD = names([*PROFESSIONS, *BONUS_CARDS, *PRESTIGE_CARDS])  # what a choose_card decision may show
# Bid limits by item. The shape check reads only the values' type: an unknown item or a negative
# limit is the rules' to refuse, with codes of their own (unknown_item, bad_amount).
LIMITS = {
    "type": "object",
    "properties": {item: {"type": "integer", "minimum": 0} for item in AUCTION_ITEMS},
    "additionalProperties": False,
}

MOVE_TYPES: dict[str, dict[str, Any]] = {
    "keep_professions": {
        "doc": "At the start: keep 3 of the 4 professions dealt; the 4th goes under the deck.",
        "fields": {"professions": list_of(PROFESSION)},
    },
    "open_auction": {
        "doc": "As chooser: put an item up for auction with the opening bid of 200.",
        "fields": {"item": ITEM},
    },
    "pass_auction": {
        "doc": "As chooser, with the auction_pass option: buy nothing this round.",
        "fields": {},
    },
    "bid": {
        "doc": "Raise the bid on the item under auction (by 100, or any multiple with open bidding).",
        "fields": {"amount": {"type": "integer"}},
    },
    "step_out": {"doc": "Stop bidding on the item under auction.", "fields": {}},
    "place_landscape": {
        "doc": "Place the landscape just bought on these empty squares (any rotation or mirror).",
        "fields": {"squares": SQUARES},
    },
    "discard_landscape": {"doc": "Throw away the landscape just bought.", "fields": {}},
    "choose_card": {
        "doc": "Keep one of the cards shown; the others go under the deck in return_order.",
        "fields": {"card": CARD, "return_order": list_of(CARD)},
    },
    "entice": {
        "doc": (
            "Free, during any of your own decisions: use an enticement card on a profession that"
            " published for an opponent. It answers a use_enticement decision; any other stays pending."
        ),
        "fields": {"profession": PROFESSION},
    },
    "keep_enticement": {"doc": "Keep the enticement card just bought for later.", "fields": {}},
    "buy_freedom": {"doc": "Action: buy a freedom for 300.", "fields": {"freedom": names(FREEDOMS)}},
    "buy_profession": {"doc": "Action: pay 300 and choose a profession from the deck.", "fields": {}},
    "buy_bonus_card": {"doc": "Action: pay 300 and choose a bonus card from the deck.", "fields": {}},
    "build": {
        "doc": "Action: build on these empty squares (price 700/300/0 by architects).",
        "fields": {"building": names(BUILDINGS), "squares": SQUARES},
    },
    "publish": {
        "doc": (
            "Action: a profession in hand publishes a work, with these bonus cards added. Listed once per"
            " profession, with the fewest cards that reach the round's minimum; its fill says which cards"
            " may go with it instead and what each adds."
        ),
        "fields": {"profession": PROFESSION, "bonus_cards": list_of(BONUS_CARD)},
    },
    "split_payout": {
        "doc": "After publishing: turn part of the payout into prestige, 200 florins a point.",
        "fields": {"prestige": {"type": "integer"}},
    },
    "end_turn": {"doc": "End the action turn now.", "fields": {}},
    "sell_prestige": {
        "doc": "Free, during any of your own decisions: sell prestige points for 100 florins each.",
        "fields": {"points": {"type": "integer"}},
        "free": True,
    },
    "set_orders": {
        "doc": (
            "Free, at any time: standing orders for the next auction (the current one during Phase A):"
            " bid up to limits[item] on that item, and with step_out_otherwise step out of every"
            " other auction unless you are the chooser. They vanish when that round ends;"
            " send empty limits and false to cancel."
        ),
        "fields": {
            "limits": LIMITS,
            "step_out_otherwise": {"type": "boolean"},
        },
        "free": True,
        "private": True,
    },
}


def check_shape(move: Any) -> dict[str, Any]:
    """Check that `move` is a known type with exactly its fields, each of the right JSON type.

    Every move `apply` gets comes through here, so a good one passes on a short path; the long one
    finds what is wrong with the others.
    """
    if type(move) is dict:
        kind = move.get("type")
        fields = _FIELDS.get(kind) if type(kind) is str else None
        if fields is not None and move.keys() == fields[0]:
            for name, matches in fields[1]:
                if not matches(move[name]):
                    break
            else:
                return move
    if not isinstance(move, dict) or not isinstance(move.get("type"), str):
        raise IllegalMove("bad_move", "a move is an object with a string 'type'")
    checks = _CHECKS.get(move["type"])
    if checks is None:
        raise IllegalMove("unknown_move", f"unknown move type {move['type']!r}")
    if len(move) != len(checks) + 1 or not all(name in move for name in checks):
        given, fields = set(move) - {"type"}, set(checks)
        missing, extra = sorted(fields - given), sorted(given - fields)
        raise IllegalMove("bad_move", f"{move['type']}: missing {missing}, unexpected {extra}")
    for name, matches in checks.items():
        if not matches(move[name]):
            kind = MOVE_TYPES[move["type"]]["fields"][name]["type"]
            raise IllegalMove("bad_move", f"{move['type']}: field {name!r} is not a valid {kind}")
    return move


def _is_integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_string(value: Any) -> bool:
    return isinstance(value, str)


def _is_boolean(value: Any) -> bool:
    return isinstance(value, bool)


def _checker(schema: dict[str, Any]) -> Callable[[Any], bool]:
    """A test of a value against one fragment, built once: every move `apply` gets is checked."""
    kind = schema["type"]
    if kind == "integer":
        return _is_integer
    if kind == "string":
        return _is_string
    if kind == "boolean":
        return _is_boolean
    if kind == "array":
        item = _checker(schema["items"])
        least, most = schema.get("minItems", 0), schema.get("maxItems")
        if most is None:
            return lambda value: isinstance(value, list) and all(map(item, value))
        return lambda value: isinstance(value, list) and least <= len(value) <= most and all(map(item, value))
    if kind == "object":
        if "properties" not in schema:
            member = _checker(schema["additionalProperties"])
            return lambda value: isinstance(value, dict) and all(
                isinstance(name, str) and member(each) for name, each in value.items())
        # A name the object does not list may match any listed member's fragment: the rules refuse the
        # name itself with a code of their own (unknown_item).
        listed = {name: _checker(fragment) for name, fragment in schema["properties"].items()}
        anyone = list(listed.values())
        return lambda value: isinstance(value, dict) and all(
            isinstance(name, str) and (listed[name](each) if name in listed else any(c(each) for c in anyone))
            for name, each in value.items())
    raise ValueError(f"unknown schema type {kind}")


_CHECKS: dict[str, dict[str, Callable[[Any], bool]]] = {
    move_type: {name: _checker(fragment) for name, fragment in spec["fields"].items()}
    for move_type, spec in MOVE_TYPES.items()
}
# move type -> (every key a move of it has, its fields' checks): the short path of `check_shape`
_FIELDS: dict[str, tuple[frozenset[str], tuple[tuple[str, Callable[[Any], bool]], ...]]] = {
    move_type: (frozenset(["type", *checks]), tuple(checks.items())) for move_type, checks in _CHECKS.items()
}
