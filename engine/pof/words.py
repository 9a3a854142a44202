"""The one table of words for Princes of Florence: every name a person reads of the game's things.

Ids are the API's and the grammar's ("organ_builder", "per_building_size"); people read names
("organ builder", "+2 per building size"). Cards, tiles, buildings and freedoms are named in
data.json beside their numbers, so that a host who corrects a card corrects its name with it; the
rules' own things (the auction items, the decks, the decisions) are named here. Pages, mails,
labels, the log and the grammar's answers all ask `name`, so a thing is called one way everywhere.
Pure: no I/O beyond data.json, read once by `engine.pof.data`.
"""
from __future__ import annotations

from typing import Iterable

from engine.pof.data import AUCTION_ITEMS, BONUS_CARDS, DATA, PRESTIGE_CARDS
from engine.pof.table import DECISION_KINDS
from engine.presentation import listing

GAME = "princes-of-florence"
CARD_RECORDS = ("buildings", "landscapes", "freedoms", "professions", "bonus_cards", "prestige_cards")

ITEMS = {"juggler": "juggler", "architect": "architect", "prestige_card": "prestige card",
         "enticement": "enticement card"}  # the items on offer that are no tile (those are landscapes)
DECK_CARDS = {"professions": "profession", "bonus_cards": "bonus card", "prestige_cards": "prestige card"}
DECISIONS = {  # what a seat is asked, as a page or a mail says what a game waits for
    "keep_professions": "to keep professions", "open_auction": "to put an item up for auction",
    "bid": "to bid or step out", "place_landscape": "to place a landscape", "choose_card": "to choose a card",
    "use_enticement": "to use or keep an enticement card", "action": "to take actions",
    "split_payout": "to split a payout",
}


def _table() -> dict[str, str]:
    """Every id the game shows, with its name; an id of two kinds of thing (the architect is a
    profession and an item, the woods a landscape and an item) has one name for both."""
    names: dict[str, str] = {}

    def add(thing: str, said: str) -> None:
        if names.setdefault(thing, said) != said:
            raise ValueError(f"{thing!r} is named both {names[thing]!r} and {said!r}")

    for records in CARD_RECORDS:
        for record in DATA[records]:
            add(record["id"], record["name"])
    for item, said in ITEMS.items():
        add(item, said)
    for deck, card in DECK_CARDS.items():
        add(deck, f"{card} deck")
    for kind in DECISION_KINDS:
        add(kind, DECISIONS[kind])
    add(GAME, "Princes of Florence")  # the game's own id, as a page or a title names the game
    missing = set(AUCTION_ITEMS) - set(names)
    if missing:
        raise ValueError(f"auction items without a name: {sorted(missing)}")
    return names


NAMES: dict[str, str] = _table()


def name(thing: str) -> str:
    """What a person reads for an id of the game: "organ_builder" is the organ builder; raises
    KeyError for an id the table lacks, so that no raw id slips onto a page or into a mail."""
    return NAMES[thing]


def spoken(thing: str) -> str:
    """A name as a command line writes it: lowercase and without commas ("four buildings two
    freedoms four works"), which the grammar reads back like the id."""
    return name(thing).lower().replace(",", "")


def deck_card(deck: str) -> str:
    """What one card of a deck is called: "bonus card" for the bonus_cards deck."""
    return DECK_CARDS[deck]


def names(things: Iterable[str]) -> str:
    """Several things named as a sentence: "bell maker, painter and poet"."""
    return listing(map(name, things))


def bonus_text(card: str) -> str:
    """A bonus card's whole rule, of which its name is the short form."""
    return BONUS_CARDS[card]["text"]


COUNTED = {"large_buildings": "large buildings", "empty_squares": "empty squares", "works": "works published"}


def prestige_text(card: str) -> str:
    """A prestige card's rule in words, from its numbers: "6 PP for the most jugglers, 3 if tied"."""
    rule = PRESTIGE_CARDS[card]
    if "needs" in rule:
        needs = listing([f"{count} {COUNTED.get(what, what)}" for what, count in rule["needs"].items()])
        return f"{rule['points']} PP for at least {needs}"
    extreme, what = ("most", rule["most"]) if "most" in rule else ("fewest", rule["fewest"])
    return f"{rule['points']} PP for the {extreme} {COUNTED.get(what, what)}, {rule['shared']} if tied"


def shown(card: str) -> str:
    """A card as it is offered to be chosen: a bonus card by its whole rule, which says what it adds."""
    return bonus_text(card) if card in BONUS_CARDS else name(card)
