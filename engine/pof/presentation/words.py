"""How the pages name the game's things: the game's one table of words (`engine.pof.words`), which
the mails read too, and what only a page shows: a profession's preferences, a building's size.
"""
from __future__ import annotations

from engine.pof.data import BUILDINGS, PROFESSIONS
from engine.pof.words import bonus_text, deck_card, listing, name, names, prestige_text

__all__ = ["bonus_more", "bonus_text", "building_size", "deck_card", "listing", "name", "names", "preferences",
           "prestige_text"]


def bonus_more(card: str) -> str | None:
    """What a bonus card's whole rule says beyond its name, or None: most are named by their whole rule."""
    text = bonus_text(card)
    return None if text == name(card) else text


def preferences(profession: str) -> dict[str, str]:
    """What a profession wants in the principality to make a good work (ids: name them to show them)."""
    prefs = PROFESSIONS[profession]
    return {"building": prefs["building"], "landscape": prefs["landscape"], "freedom": prefs["freedom"]}


def building_size(kind: str) -> str:
    return BUILDINGS[kind]["size"]
