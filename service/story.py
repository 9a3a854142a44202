"""The game's event feed as sentences a player reads: "Ann is away until Friday 5 December, 18:00 UTC."

The service's own events (a game created, paused, a seat handed over, a deadline) are told here; a
game's events by its presentation (`engine.presentation.sentence`: its own sentence, else a generic
one). Takes feed entries already redacted for the reader (`games.events_for`), so a sentence can only
tell what its reader may know; a private part shows only in its own seat's log.
"""
from __future__ import annotations

import logging
from typing import Any, Callable

from engine.core import Game
from engine.presentation import presentation_of, said, seat_namer
from engine.presentation import sentence as game_sentence
from service import deadlines
from service.phrases import clock

log = logging.getLogger(__name__)
Event = dict[str, Any]


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


SENTENCES: dict[str, Callable[[Event, Callable[[int], str]], str]] = {
    "game_created": lambda e, who: f"The game was created for {e['seats']} seats.",
    "game_started": lambda e, who: "The host started the game.",
    "game_paused": lambda e, who: f"The host paused the game until {e['until']}.",
    "game_resumed": lambda e, who: "The game goes on.",
    "game_cancelled": lambda e, who: "The host cancelled the game" + (f": {e['reason']}" if e.get("reason") else "."),
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
    "timeout": lambda e, who: f"Time ran out for {who(e['seat'])} ({who.said(e['kind'])}); "
                              + (f"the stand-in ({e['bot']}) played." if e.get("bot") else "the default was played."),
}


class _Teller:
    """Names a seat for one reader (his own marked "(you)") and an id in the game's words."""

    def __init__(self, game: Game, names: list[str], reader: int | None):
        self._seat, self._game = seat_namer(names, reader), game

    def __call__(self, seat: int) -> str:
        return self._seat(seat)

    def said(self, thing: str) -> str:
        return said(self._game, thing)


def told(game: Game, event: Event, names: list[str], reader: int | None, generic: bool = False) -> str:
    """One event in words, the reader's own seat marked "(you)"; raises KeyError, IndexError or
    TypeError for an event neither SENTENCES nor the game's presentation can tell (an unknown type,
    a field it lacks), unless `generic` lets an event of the game's that it tells nothing of have
    the generic sentence (`engine.presentation.sentence`)."""
    if event.get("type") in SENTENCES:
        return SENTENCES[event["type"]](event, _Teller(game, names, reader))
    own = presentation_of(game).sentence(event, names, reader)
    if own is not None:
        return own
    if generic:
        return game_sentence(game, event, names, reader)
    raise KeyError(event.get("type"))


def sentence(game: Game, event: Event, names: list[str], reader: int | None) -> str:
    """`told`, generic for an event of a game that brings no sentence for it, or for an event that
    cannot be told the type's name: a page still draws its log (and says so in the server log).
    tests/test_web_story.py checks that no event of a whole game comes to that."""
    try:
        return told(game, event, names, reader, generic=True)
    except (KeyError, IndexError, TypeError):
        log.warning("no sentence for a %r event", event.get("type"), exc_info=True)
        return f"{str(event.get('type') or 'something').replace('_', ' ')}."


def lines(game: Game, entries: list[dict[str, Any]], names: list[str], reader: int | None) -> list[dict[str, Any]]:
    """Feed entries as {seq, version, at, text}, oldest first."""
    return [{"seq": entry.get("seq"), "version": entry.get("version"), "at": entry.get("at"),
             "text": sentence(game, entry.get("event") or {}, names, reader)} for entry in entries]
