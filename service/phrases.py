"""The words of Palazzo's mails: the game's names (its one table, `engine.pof.words`), deadlines in
the player's own time, and what a pending decision asks, each said one way everywhere. Pure
functions of plain data."""
from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from engine.pof.data import ECONOMY
from engine.pof.words import listing, name, names, shown
from service import zones

__all__ = ["NUMBERS", "PHASES", "clock", "florins", "listing", "name", "names", "pending", "relative", "shown",
           "zone"]

NUMBERS = ("no", "one", "two", "three", "four", "five")
PHASES = {"professions": "choosing professions", "auction": "Phase A, the auction", "actions": "Phase B, actions",
          "over": "the game is over"}


def florins(amount: int) -> str:
    return f"{amount:,} florins"


def zone(time_zone: str) -> ZoneInfo:
    """The player's zone; a name we do not know falls back to UTC rather than losing the mail."""
    return ZoneInfo(time_zone if zones.known(time_zone) else "UTC")


def clock(moment: datetime, time_zone: str) -> str:
    """"Tuesday 2 December, 18:00 CET": a moment in the player's zone, as he would say it."""
    local = moment.astimezone(zone(time_zone))
    return f"{local:%A} {local.day} {local:%B}, {local:%H:%M} {local.tzname()}"


def _count(number: int, unit: str) -> str:
    return f"{number} {unit}" if number == 1 else f"{number} {unit}s"


def relative(moment: datetime, now: datetime) -> str:
    """"in 11 hours": how far off a deadline is, rounded to the unit a reader cares about."""
    seconds = (moment - now).total_seconds()
    if seconds <= 0:
        return "already passed"
    if seconds < 60:
        return "in less than a minute"
    minutes, hours = round(seconds / 60), round(seconds / 3600)
    if minutes < 60:
        return f"in {_count(minutes, 'minute')}"
    if hours < 36:
        return f"in {_count(hours, 'hour')}"
    return f"in {_count(round(seconds / 86400), 'day')}"


def pending(decision: dict[str, Any], view: dict[str, Any]) -> str:
    """What a decision asks of its seat, in one or two sentences; `decision` carries the view's details."""
    kind = decision["kind"]
    private = decision.get("private", {})
    if kind == "action":
        left = ECONOMY["actions_per_turn"] - view["turn"]["actions"]
        return (f"It is your action turn: {NUMBERS[left]} of {NUMBERS[ECONOMY['actions_per_turn']]} actions left "
                "(build, buy a freedom, a profession or a bonus card, publish a work), or end your turn.")
    if kind == "open_auction":
        passing = ", or pass and buy nothing this round" if view["options"]["auction_pass"] else ""
        return (f"You choose what goes under the hammer next, at an opening bid of "
                f"{ECONOMY['auction_opening_bid']}{passing}.")
    if kind == "bid":
        return "Raise the bid or step out of the auction."
    if kind == "keep_professions":
        return (f"Keep {NUMBERS[ECONOMY['start_professions_kept']]} of the professions dealt to you: "
                f"{names(private['dealt'])}. The other goes under the deck.")
    if kind == "choose_card":
        deck = decision["deck"]
        return (f"Keep one card from the {name(deck)}: "
                f"{listing([shown(c) for c in private['cards']])}. The others go back under the deck.")
    if kind == "place_landscape":
        return f"Place your new {name(decision['landscape'])} in your yard, or throw it away."
    if kind == "use_enticement":
        return "You may use your enticement card now to entice a profession away, or keep it for later."
    if kind == "split_payout":
        return (f"Split your payout of {florins(decision['payout'])}: each prestige point you take instead "
                f"costs {ECONOMY['florins_per_prestige_when_publishing']} of them.")
    return f"You have a decision to make ({kind})."  # another game's, whose words are not Princes of Florence's
