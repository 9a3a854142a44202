"""Goofspiel's numbers: every limit and default the rules, schemas and words read, in one place.

A card is its value: each hand and the prize deck hold the cards 1..cards once each.
"""
from __future__ import annotations

from typing import Any

GAME = "goofspiel"
RULES_VERSION = 1  # one more whenever a rule or number here changes what a move does (engine.core.Game)
MIN_SEATS, MAX_SEATS = 2, 5
MIN_CARDS, MAX_CARDS = 3, 13
TIES = ("discard", "carry")  # what becomes of a prize whose highest bid is tied (README: Goofspiel)
DEFAULT_OPTIONS: dict[str, Any] = {"seats": 2, "cards": 13, "ties": "discard"}
DECISION_KINDS = ("bid",)  # every seat bids at once, each round
DEADLINE_CLASS = {"bid": "bid"}
PHASES = ("bidding", "over")


def deck(cards: int) -> list[int]:
    """The cards of a hand, and of the prize deck: 1..cards."""
    return list(range(1, cards + 1))
