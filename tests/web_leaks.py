"""What a page must not show a reader: every card another seat holds hidden, by name and by text."""
from __future__ import annotations

import re

from engine.pof.data import AUCTION_ITEMS, BONUS_CARDS, BUILDINGS, FREEDOMS, LANDSCAPES, PRESTIGE_CARDS
from service.web import words

PUBLIC_WORDS = {words.name(w) for w in (*AUCTION_ITEMS, *BUILDINGS, *LANDSCAPES, *FREEDOMS)}


def text_of(html: str) -> str:
    """What a page says, tags and attributes included (a leak in an attribute is a leak too)."""
    return html.replace("&#39;", "'").replace("&amp;", "&")


def hidden(state: dict, seat: int) -> set[str]:
    """Every name of a card the seat holds hidden, or is choosing from."""
    private = state["players"][seat]["private"]
    cards = {*private["hand"], *private["bonus_cards"], *private["prestige_cards"]}
    for decision in state["pending"]:
        if decision["seat"] == seat and "private" in decision:
            cards |= {*decision["private"].get("dealt", []), *decision["private"].get("cards", [])}
    return cards


def public(state: dict) -> set[str]:
    """Card names anyone may read: played professions and works, their bonus cards, and at the end
    the prestige cards the scores show."""
    seen = {card["card"] for score in (state["result"] or {}).get("scores", []) for card in score["prestige_cards"]}
    for player in state["players"]:
        seen |= set(player["played"])
        for work in player["works"]:
            seen |= {work["profession"], *work.get("bonus_cards", [])}
    return seen


def shows(text: str, card: str) -> bool:
    """Whether the text names the card, as read or by its id ("map maker", "map_maker"), or states its
    rule (names that are also public words, like the architect, say nothing)."""
    said = words.name(card)
    if said in PUBLIC_WORDS:
        return False
    texts = [words.bonus_text(card)] if card in BONUS_CARDS else []
    texts += [words.prestige_text(card)] if card in PRESTIGE_CARDS else []
    return any(re.search(rf"\b{re.escape(name)}\b", text) for name in {said, card}) or any(t in text for t in texts)


def leaked(state: dict, text: str, reader: int | None) -> list[tuple[int, str]]:
    """(seat, card) of every hidden card of another seat that the reader's page shows."""
    own = hidden(state, reader) if reader is not None else set()
    return [(other, card) for other in range(len(state["players"])) if other != reader
            for card in sorted(hidden(state, other) - public(state) - own) if shows(text, card)]
