"""Counting a court and turning it into numbers: work values, bonus cards, prestige cards, the final ranking.

Every function reads the all-knowing player dict (private part included) and never mutates it, so the
rules engine can call them while publishing a work and once more at the end of the game.
"""
from __future__ import annotations

from operator import itemgetter
from typing import Any, Callable, Iterable

from engine.core import IllegalMove
from engine.pof.data import (
    BONUS_CARDS,
    BUILDINGS,
    GRID_COLS,
    GRID_ROWS,
    PALAZZO,
    PRESTIGE_CARDS,
    PROFESSIONS,
    WORK_VALUE,
)

Player = dict[str, Any]
Court = dict[str, int]

YARD_SQUARES: int = GRID_ROWS * GRID_COLS - len(PALAZZO)
_SIZES = ("large", "medium", "small")
# Landscape kinds are singular on tiles, plural in counts (woods stays woods).
_LANDSCAPE_COUNT = {"woods": "woods", "lake": "lakes", "park": "parks"}


def court(player: Player) -> Court:
    """Every count a bonus or prestige card can ask about, so the cards never look at raw data."""
    private = player.get("private", {})
    landscapes = player.get("landscapes", [])
    buildings = player.get("buildings", [])
    hand = private.get("hand", [])
    enticements = private.get("enticements", 0)

    counts: Court = {name: 0 for name in _LANDSCAPE_COUNT.values()}
    for tile in landscapes:
        counts[_LANDSCAPE_COUNT[tile["kind"]]] += 1
    sizes = {size: 0 for size in _SIZES}
    for building in buildings:
        sizes[BUILDINGS[building["kind"]]["size"]] += 1

    covered = sum(len(item["squares"]) for item in (*landscapes, *buildings))  # pieces never overlap (yard.py)
    counts.update(
        landscapes=len(landscapes),
        landscape_types=sum(1 for name in _LANDSCAPE_COUNT.values() if counts[name] > 0),
        buildings=len(buildings),
        large_buildings=sizes["large"],
        medium_buildings=sizes["medium"],
        small_buildings=sizes["small"],
        building_sizes=sum(1 for n in sizes.values() if n > 0),
        jugglers=player.get("jugglers", 0),
        architects=player.get("architects", 0),
        freedoms=len(player.get("freedoms", [])),
        prestige_cards=len(private.get("prestige_cards", [])),
        works=len(player.get("works", [])),
        person_cards=person_cards(player),
        cards_in_hand=len(hand) + enticements,
        empty_squares=YARD_SQUARES - covered,
    )
    return counts


def person_cards(player: Player) -> int:
    """Professions in hand and played, unused enticement cards, and enticement cards received."""
    private = player.get("private", _NOTHING)
    return (len(private.get("hand", ())) + len(player.get("played", ())) + private.get("enticements", 0)
            + player.get("enticements_received", 0))


_NOTHING: dict[str, Any] = {}  # what a player without a private part holds (never changed)


def _categories(c: Court) -> int:
    """Distinct kinds of holding among the seven the category card names; having any one is enough."""
    kinds = ("woods", "lakes", "parks", "jugglers", "architects", "prestige_cards", "freedoms")
    return sum(1 for kind in kinds if c[kind] > 0)


# Each card as a function of the court; the publishing card's own effect on the counts is handled by
# the two hand/table cards, the only ones that depend on which card publishes.
_BONUS: dict[str, Callable[[Court], int]] = {
    "per_building": lambda c: c["buildings"],
    "per_large_building": lambda c: 2 * c["large_buildings"],
    "per_medium_building_and_woods": lambda c: c["medium_buildings"] + c["woods"],
    "per_small_building_and_landscape": lambda c: c["small_buildings"] + c["landscapes"],
    "per_building_size": lambda c: 2 * c["building_sizes"],
    "per_landscape": lambda c: c["landscapes"],
    "per_woods": lambda c: 2 * c["woods"],
    "per_lake": lambda c: 2 * c["lakes"],
    "per_park": lambda c: 2 * c["parks"],
    "per_juggler": lambda c: 2 * c["jugglers"],
    "per_freedom": lambda c: 2 * c["freedoms"],
    "per_juggler_and_freedom": lambda c: c["jugglers"] + c["freedoms"],
    "per_architect": lambda c: 2 * c["architects"],
    "per_architect_and_lake": lambda c: c["architects"] + c["lakes"],
    "per_prestige_card": lambda c: 2 * c["prestige_cards"],
    "per_prestige_card_and_freedom": lambda c: c["prestige_cards"] + c["freedoms"],
    "per_landscape_type": lambda c: 2 * c["landscape_types"],
    "per_category": _categories,
    "per_work_published": lambda c: c["works"] + 1,
}
if set(_BONUS) | {"per_card_in_hand"} != set(BONUS_CARDS):
    raise RuntimeError("scoring.py and data.json disagree on the bonus cards")


def bonus_value(card: str, player: Player, profession: str, c: Court | None = None) -> int:
    """What one bonus card adds to the work `profession` publishes now; unknown cards are refused.

    `c` is the player's `court` when the caller has it already: listing a hand of cards needs one court,
    not one per card.
    """
    if card not in BONUS_CARDS:
        raise IllegalMove("unknown_bonus_card", f"no bonus card called {card!r}")
    if c is None:
        c = court(player)
    if card == "per_card_in_hand":
        hand = player.get("private", {}).get("hand", [])
        return c["cards_in_hand"] - (1 if profession in hand else 0)
    return _BONUS[card](c)


def work_value(player: Player, profession: str, bonus_cards: list[str], c: Court | None = None) -> int:
    """The value of a work published now, before the round's minimum is checked; `c` as in `bonus_value`.

    Each card adds its `bonus_value` whatever other cards go with it, so a work's value is the value
    without cards plus each card's: what lets `legal_moves` list one work per profession.
    """
    if c is None and bonus_cards:
        c = court(player)
    value = work_values(player, (profession,), c)[0]
    return value + sum(bonus_value(card, player, profession, c) for card in bonus_cards) if bonus_cards else value


def work_values(player: Player, professions: Iterable[str], c: Court | None = None) -> list[int]:
    """`work_value` without bonus cards of each of `professions`, the court looked at once for all:
    listing the works of a hand asks it for every profession at every action."""
    owned = set(map(_KIND, player.get("buildings", ())))
    grown = set(map(_KIND, player.get("landscapes", ())))
    freedoms = player.get("freedoms", ())
    people = person_cards(player) if c is None else c["person_cards"]
    base = _PER_JUGGLER * player.get("jugglers", 0) + _PER_PERSON_CARD * people
    values = []
    for building, landscape, freedom in map(_PREFERENCES.__getitem__, professions):
        values.append(base + (_FOR_BUILDING if building in owned else 0) + (_FOR_LANDSCAPE if landscape in grown else 0)
                      + (_FOR_FREEDOM if freedom in freedoms else 0))
    return values


_KIND = itemgetter("kind")
# profession -> what it prefers, as a tuple: work_values runs at every action of every playout
_PREFERENCES = {profession: (prefs["building"], prefs["landscape"], prefs["freedom"])
                for profession, prefs in PROFESSIONS.items()}
_FOR_BUILDING, _FOR_LANDSCAPE, _FOR_FREEDOM = WORK_VALUE["building"], WORK_VALUE["landscape"], WORK_VALUE["freedom"]
_PER_JUGGLER, _PER_PERSON_CARD = WORK_VALUE["per_juggler"], WORK_VALUE["per_person_card"]


def _card_points(card_id: str, seat_index: int, courts: list[Court]) -> int:
    """Points one prestige card gives its holder, judged against every court at the table."""
    card = PRESTIGE_CARDS[card_id]
    mine = courts[seat_index]
    if "needs" in card:
        return card["points"] if all(mine[k] >= n for k, n in card["needs"].items()) else 0
    if "most" in card:
        key, sign = card["most"], 1
        if mine[key] < 1:
            return 0
    else:
        # 'fewest' is 'most' of the negated count, with no minimum to reach.
        key, sign = card["fewest"], -1
    own = sign * mine[key]
    others = [sign * c[key] for i, c in enumerate(courts) if i != seat_index]
    if not others or own > max(others):
        return card["points"]
    return card["shared"] if own == max(others) else 0


def prestige_card_points(players: list[Player]) -> list[list[dict[str, Any]]]:
    """Per seat, the points of each prestige card it holds, so the final screen can show every card."""
    courts = [court(p) for p in players]
    return [
        [
            {"card": card_id, "points": _card_points(card_id, i, courts)}
            for card_id in p.get("private", {}).get("prestige_cards", [])
        ]
        for i, p in enumerate(players)
    ]


def final_result(players: list[Player]) -> dict[str, Any]:
    """Final prestige, cash and a shared-on-full-tie ranking (1, 1, 3) in seat order."""
    cards = prestige_card_points(players)
    scores = [
        {
            "seat": p["seat"],
            "prestige": p.get("prestige", 0) + sum(e["points"] for e in entries),
            "prestige_cards": entries,
            "cash": p.get("private", {}).get("cash", 0),
        }
        for p, entries in zip(players, cards)
    ]
    keys = [(s["prestige"], s["cash"]) for s in scores]
    for s, key in zip(scores, keys):
        s["rank"] = 1 + sum(1 for other in keys if other > key)
    scores.sort(key=lambda s: s["seat"])
    return {"scores": scores, "winners": [s["seat"] for s in scores if s["rank"] == 1]}
