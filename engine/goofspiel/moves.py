"""Goofspiel's one move, ``{"type": "bid", "card": N}``, and the check of its shape.

The shape check reads JSON types only; which cards may be bid is the rules' to say, with a code of
their own (not_in_hand), so that a client learns why.
"""
from __future__ import annotations

from typing import Any

from engine.core import IllegalMove, Move
from engine.options import whole
from engine.goofspiel.data import MAX_CARDS

CARD = {"type": "integer", "minimum": 1, "maximum": MAX_CARDS}
MOVE_TYPES: dict[str, dict[str, Any]] = {
    "bid": {
        "doc": "Bid a card of your hand for the prize showing; bids stay hidden until every seat has bid.",
        "fields": {"card": CARD},
    },
}


def check_shape(move: Any) -> Move:
    """`move` is a bid with exactly an integer card."""
    if not isinstance(move, dict) or not isinstance(move.get("type"), str):
        raise IllegalMove("bad_move", "a move is an object with a string 'type'")
    if move["type"] not in MOVE_TYPES:
        raise IllegalMove("unknown_move", f"unknown move type {move['type']!r}; Goofspiel has only 'bid'")
    card = move.get("card")
    if set(move) != {"type", "card"} or not whole(card):
        raise IllegalMove("bad_move", "a bid is {\"type\": \"bid\", \"card\": <an integer>} and nothing else")
    return move
