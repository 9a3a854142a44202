"""The game's event feed as sentences a player reads: "Ann bought the woods for 400."

Takes feed entries already redacted for the reader (`games.events_for`), so a sentence can only
tell what its reader may know; a private part shows only in its own seat's log.
"""
from __future__ import annotations

import logging
from typing import Any, Callable

from engine.pof.view import squares_name
from service import deadlines
from service.phrases import clock
from service.words import deck_card, listing, name, names

log = logging.getLogger(__name__)
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


def _left(e: Event) -> str:
    reason = (e.get("reason") or "").rstrip(".!")
    why = {"left": f"{e['name']} left the game", "removed": f"The host removed {e['name']}: {reason}",
           "missed": f"{e['name']} lost the seat: {reason}"}[e["why"]]
    return f"{why}. A stand-in plays seat {e['seat'] + 1} until someone takes it over."


def _stand_in(e: Event, who: Callable[[int], str]) -> str:
    missed = "a decision" if e["missed"] == 1 else f"{e['missed']} decisions in a row"
    return (f"{who(e['seat'])} let {missed} run out: from now on a stand-in, the "
            f"{e['bot']} bot, answers at the seat's deadlines, until its player moves again.")


def _away(e: Event, who: Callable[[int], str]) -> str:
    until = clock(deadlines.parse(e["until"]), "UTC")
    return f"{who(e['seat'])} is away until {until}: only that seat's deadlines stand still meanwhile."


def _back(e: Event, who: Callable[[int], str]) -> str:
    hours = e["hours"]
    return f"{who(e['seat'])} is back, after {hours} hour{'' if hours == 1 else 's'} of vacation."


def _best(e: Event, who: Callable[[int], str]) -> str:
    return (f"Best work of round {e['round']} ({e['value']}): {listing([who(s) for s in e['seats']])} "
            f"{'gain' if len(e['seats']) > 1 else 'gains'} {e['points']} PP.")


def _over(e: Event, who: Callable[[int], str]) -> str:
    winners = listing([who(s) for s in e["result"]["winners"]])
    return f"The game is over: {winners} {'win' if len(e['result']['winners']) > 1 else 'wins'}."


SENTENCES: dict[str, Callable[[Event, Callable[[int], str]], str]] = {
    "game_created": lambda e, who: f"The game was created for {e['seats']} seats.",
    "game_started": lambda e, who: "The host started the game.",
    "game_paused": lambda e, who: f"The host paused the game until {e['until']}.",
    "game_resumed": lambda e, who: "The game goes on.",
    "game_cancelled": lambda e, who: "The host cancelled the game.",
    "game_renamed": lambda e, who: f"The host named the game “{e['title']}”.",
    "seat_replaced": lambda e, who: (f"{e['name']} joined at seat {e['seat'] + 1}." if e.get("joined")
                                     else f"{e['name']} now plays seat {e['seat'] + 1}."),
    "seat_opened": lambda e, who: f"Seat {e['seat'] + 1} is open.",
    "seat_left": lambda e, who: _left(e),
    "standin_started": _stand_in,
    "standin_ended": lambda e, who: f"{who(e['seat'])} moved again: the stand-in no longer answers for the seat.",
    "vacation_started": _away,
    "vacation_ended": _back,
    "grace": lambda e, who: f"Time ran out for {who(e['seat'])}, who has a grace until {e['until']}, once.",
    "deadline_moved": lambda e, who: f"The deadline of {who(e['seat'])} moved to {e['deadline_at']}, out of his "
                                     "quiet hours.",
    "timeout": lambda e, who: f"Time ran out for {who(e['seat'])} ({name(e['kind'])}); "
                              + (f"the stand-in ({e['bot']}) played." if e.get("bot") else "the default was played."),
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


def told(event: Event, names: list[str], reader: int | None) -> str:
    """One event in words, the reader's own seat marked "(you)"; raises KeyError, IndexError or
    TypeError for an event SENTENCES cannot tell (an unknown type, a field it lacks)."""
    def who(seat: int) -> str:
        return f"{names[seat]} (you)" if seat == reader else names[seat]

    return SENTENCES[event["type"]](event, who)


def sentence(event: Event, names: list[str], reader: int | None) -> str:
    """`told`, or for an event it cannot tell the type's name: a page still draws its log (and says
    so in the server log). tests/test_web_story.py checks that no event of a whole game comes here."""
    try:
        return told(event, names, reader)
    except (KeyError, IndexError, TypeError):
        log.warning("no sentence for a %r event", event.get("type"), exc_info=True)
        return f"{str(event.get('type') or 'something').replace('_', ' ')}."


def lines(entries: list[dict[str, Any]], names: list[str], reader: int | None) -> list[dict[str, Any]]:
    """Feed entries as {seq, version, at, text}, oldest first."""
    return [{"seq": entry.get("seq"), "version": entry.get("version"), "at": entry.get("at"),
             "text": sentence(entry.get("event") or {}, names, reader)} for entry in entries]
