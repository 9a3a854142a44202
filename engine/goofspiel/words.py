"""The one table of words for Goofspiel: every name a person reads of the game's ids, and the labels
of moves and options. Pages, mails, the API's labels and the grammar's answers all read these."""
from __future__ import annotations

from typing import Any

from engine.core import Move
from engine.goofspiel.data import GAME

NAMES: dict[str, str] = {
    GAME: "Goofspiel",
    "bid": "to bid a card",  # what a pending decision asks: "waiting for Ann to bid a card"
    "bidding": "bidding",
    "over": "over",
    "discard": "a tied prize is lost",
    "carry": "a tied prize carries over to the next round",
    "taken": "taken",
    "carried": "carried over",
    "lost": "lost",
}


def name(thing: str) -> str:
    """What a person reads for an id of the game; KeyError for one the table lacks, so no raw id
    reaches a page or a mail."""
    return NAMES[thing]


def describe(move: Move) -> str:
    """A move's label: "Bid 7"."""
    return f"Bid {move['card']}"


def describe_options(options: dict[str, Any]) -> list[str]:
    """The chosen options as people read them before joining."""
    cards = options["cards"]
    return [f"{cards} cards in each hand and in the prize deck (1 to {cards})", name(options["ties"])]
