"""The one table of words for Goofspiel: every name a person reads of the game's ids, the labels of
moves and options, and the sentences of its log. Pages, mails, the API's labels, the grammar's
answers and the log all read these."""
from __future__ import annotations

from typing import Any, Callable

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


OUTCOMES: dict[str, str] = {  # the end of a round's sentence, after the bids
    "taken": "{winner} takes it",
    "carried": "tied, it carries over",
    "lost": "tied, it is lost",
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


def cards(values: list[int]) -> str:
    """A list of cards as read: "1, 4, 9", or "none"."""
    return ", ".join(map(str, values)) or "none"


def points(count: int) -> str:
    """ "1 point", "7 points"."""
    return f"{count} point{'' if count == 1 else 's'}"


def stake(prize: int, carried: list[int], total: int) -> str:
    """What a round is for: "prize 7", or "prize 7 (with 3, 5 carried: 15 points)"."""
    return f"prize {prize}" + (f" (with {cards(carried)} carried: {points(total)})" if carried else "")


def round_over(entry: dict[str, Any], who: Callable[[int], str]) -> str:
    """A revealed round: "Round 3, prize 7: Ann 9, Bob 4; Ann takes it." """
    bids = ", ".join(f"{who(bid['seat'])} {bid['card']}" for bid in entry["bids"])
    winner = who(entry["winner"]) if entry["winner"] is not None else ""
    ending = OUTCOMES[entry["outcome"]].format(winner=winner)
    return f"Round {entry['round']}, {stake(entry['prize'], entry['carried'], entry['stake'])}: {bids}; {ending}."


def bid_made(event: dict[str, Any], who: Callable[[int], str]) -> str:
    """A bid as its reader may know it: the card to its own seat, the mere fact to everyone else."""
    card = (event.get("private") or {}).get("card")
    return f"{who(event['seat'])} bid {card}." if card is not None else f"{who(event['seat'])} has bid."


def prize_turned(event: dict[str, Any], who: Callable[[int], str]) -> str:
    return f"Round {event['round']}: the {event['prize']} is turned up ({points(event['stake'])} at stake)."


def last_round(event: dict[str, Any], who: Callable[[int], str]) -> str:
    return f"Round {event['round']} is the last: each hand's one card is its bid."


def game_over(event: dict[str, Any], who: Callable[[int], str]) -> str:
    """The end: "Game over: Ann 20, Bob 15; Ann wins." """
    result = event["result"]
    scores = ", ".join(f"{who(score['seat'])} {score['points']}" for score in result["scores"])
    winners = " and ".join(who(seat) for seat in result["winners"])
    return f"Game over: {scores}; {winners} {'wins' if len(result['winners']) == 1 else 'share the win'}."


SENTENCES: dict[str, Callable[[dict[str, Any], Callable[[int], str]], str]] = {
    "bid_made": bid_made, "round_over": round_over, "prize_turned": prize_turned,
    "last_round": last_round, "game_over": game_over,
}
