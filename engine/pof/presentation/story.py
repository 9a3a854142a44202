"""Princes of Florence's events as sentences a player reads: "Ann bought the woods for 400." The
log's sentences of the service's own events (a game created, a seat handed over, a deadline) are the
service's (`service/story.py`); these are the game's, asked through `engine.presentation.sentence`.

Takes events already redacted for the reader, so a sentence can only tell what its reader may know; a
private part shows only in its own seat's log.
"""
from __future__ import annotations

from typing import Any, Callable

from engine.pof.presentation.words import deck_card, listing, name, names
from engine.pof.view import squares_name
from engine.presentation import seat_namer

Event = dict[str, Any]


def _kept(e: Event, who: Callable[[int], str]) -> str:
    private = e.get("private")
    if private:
        return f"{who(e['seat'])} kept {names(private['kept'])} and gave back {names(private['returned'])}."
    return f"{who(e['seat'])} kept three professions."


def _chosen(e: Event, who: Callable[[int], str]) -> str:
    private = e.get("private")
    deck = deck_card(e["deck"])
    if private:
        return f"{who(e['seat'])} took the {deck} {name(private['card'])}."
    return f"{who(e['seat'])} took a {deck}."


def _published(e: Event, who: Callable[[int], str]) -> str:
    cards = e.get("bonus_cards") or []
    extra = f", with {names(cards)}" if cards else ""
    return f"{who(e['seat'])} published a work by the {name(e['profession'])} worth {e['value']}{extra}."


def _best(e: Event, who: Callable[[int], str]) -> str:
    return (f"Best work of round {e['round']} ({e['value']}): {listing([who(s) for s in e['seats']])} "
            f"{'gain' if len(e['seats']) > 1 else 'gains'} {e['points']} PP.")


def _over(e: Event, who: Callable[[int], str]) -> str:
    winners = listing([who(s) for s in e["result"]["winners"]])
    return f"The game is over: {winners} {'win' if len(e['result']['winners']) > 1 else 'wins'}."


SENTENCES: dict[str, Callable[[Event, Callable[[int], str]], str]] = {
    "professions_kept": _kept,
    "round_started": lambda e, who: f"Round {e['round']} begins; {who(e['start_player'])} chooses first.",
    "auction_opened": lambda e, who: f"{who(e['seat'])} put the {name(e['item'])} up for auction at {e['bid']}.",
    "bid": lambda e, who: f"{who(e['seat'])} bid {e['amount']} for the {name(e['item'])}.",
    "stepped_out": lambda e, who: f"{who(e['seat'])} stepped out of the {name(e['item'])} auction"
                                  + (f" ({e['reason']})." if e.get("reason") else "."),
    "sat_out": lambda e, who: f"{who(e['seat'])} sits this auction round out ({e['reason']}).",
    "auction_won": lambda e, who: f"{who(e['seat'])} bought the {name(e['item'])} for {e['price']}.",
    "prestige_sold": lambda e, who: f"{who(e['seat'])} sold {e['points']} PP for florins"
                                    + (" to pay." if e.get("automatic") else "."),
    "landscape_placed": lambda e, who: f"{who(e['seat'])} placed a {name(e['kind'])} on {squares_name(e['squares'])}.",
    "landscape_discarded": lambda e, who: f"{who(e['seat'])} threw a {name(e['kind'])} away ({e['reason']}).",
    "prestige_gained": lambda e, who: f"{who(e['seat'])} gains {e['points']} PP ({e['reason']}).",
    "card_bought": lambda e, who: f"{who(e['seat'])} bought a card from the {name(e['deck'])}.",
    "card_chosen": _chosen,
    "freedom_bought": lambda e, who: f"{who(e['seat'])} bought the freedom of {name(e['freedom'])}.",
    "built": lambda e, who: f"{who(e['seat'])} built the {name(e['building'])} on {squares_name(e['squares'])}.",
    "work_published": _published,
    "payout_split": lambda e, who: f"{who(e['seat'])} took {e['prestige']} PP and {e['florins']} florins.",
    "enticed": lambda e, who: f"{who(e['seat'])} enticed the {name(e['profession'])} away from {who(e['from_seat'])}.",
    "enticement_kept": lambda e, who: f"{who(e['seat'])} keeps the enticement card for later.",
    "turn_ended": lambda e, who: f"{who(e['seat'])} is done for this turn.",
    "best_work": _best,
    "game_over": _over,
}


def told(event: Event, seats: list[str], reader: int | None) -> str | None:
    """One event in words, the reader's own seat marked "(you)"; None for an event that is not the
    game's; raises KeyError, IndexError or TypeError for one of its events that lacks a field."""
    tell = SENTENCES.get(event.get("type"))
    return tell(event, seat_namer(seats, reader)) if tell else None
