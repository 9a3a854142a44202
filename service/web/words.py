"""How the pages name the game's things: every card, item and piece as data.json defines it.

The mails' words (`service.mail.phrases`) serve here too; this adds what only a page shows: the
text of a prestige card (data.json states its rule as numbers), a profession's preferences.
"""
from __future__ import annotations

from engine.pof.data import BONUS_CARDS, BUILDINGS, PRESTIGE_CARDS, PROFESSIONS
from service.mail.phrases import card, listing, name

__all__ = ["card", "listing", "name", "bonus_text", "prestige_text", "preferences", "building_size"]

_COUNTED = {
    "jugglers": "jugglers", "architects": "architects", "buildings": "buildings", "large_buildings": "large buildings",
    "empty_squares": "empty squares", "landscapes": "landscapes", "woods": "woods", "lakes": "lakes",
    "parks": "parks", "freedoms": "freedoms", "works": "works published",
}


def bonus_text(card_id: str) -> str:
    return BONUS_CARDS[card_id]["text"]


def prestige_text(card_id: str) -> str:
    """A prestige card's rule in words, from its numbers: "Most jugglers: 6 PP (3 if tied)"."""
    rule = PRESTIGE_CARDS[card_id]
    if "needs" in rule:
        needs = listing([f"{count} {_COUNTED.get(what, name(what))}" for what, count in rule["needs"].items()])
        return f"At least {needs}: {rule['points']} PP"
    extreme, what = ("Most", rule["most"]) if "most" in rule else ("Fewest", rule["fewest"])
    return f"{extreme} {_COUNTED.get(what, name(what))}: {rule['points']} PP ({rule['shared']} if tied)"


def preferences(profession: str) -> dict[str, str]:
    """What a profession wants in the principality to make a good work."""
    prefs = PROFESSIONS[profession]
    return {"building": prefs["building"], "landscape": prefs["landscape"], "freedom": prefs["freedom"]}


def building_size(kind: str) -> str:
    return BUILDINGS[kind]["size"]
