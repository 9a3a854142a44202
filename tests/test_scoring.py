"""Worked examples for scoring: every number below was counted by hand from the court it describes."""
from __future__ import annotations

from typing import Any

import pytest

from engine.core import IllegalMove
from engine.pof.data import PALAZZO
from engine.pof.scoring import (
    bonus_value,
    court,
    final_result,
    prestige_card_points,
    work_value,
)

# Square counts chosen here, independent of data.json shapes, so the empty-square arithmetic is ours.
LANDSCAPE_SQUARES = {"woods": 4, "lake": 4, "park": 3}
BUILDING_SQUARES = {
    "university": 7, "laboratory": 7, "workshop": 7,
    "library": 5, "opera": 5, "studio": 5, "hospital": 5, "theater": 5,
    "tower": 3, "chapel": 3,
}
FREE_SQUARES = [[r, c] for r in range(7) for c in range(7) if (r, c) not in {tuple(s) for s in PALAZZO}]


def make_player(
    seat: int = 0,
    *,
    woods: int = 0,
    lakes: int = 0,
    parks: int = 0,
    buildings: tuple[str, ...] = (),
    jugglers: int = 0,
    architects: int = 0,
    freedoms: tuple[str, ...] = (),
    hand: tuple[str, ...] = (),
    played: tuple[str, ...] = (),
    works: int = 0,
    enticements: int = 0,
    received: int = 0,
    prestige_cards: tuple[str, ...] = (),
    prestige: int = 0,
    cash: int = 3500,
) -> dict[str, Any]:
    """A player dict whose tiles take consecutive free squares, so no two items overlap."""
    free = iter(FREE_SQUARES)

    def take(n: int) -> list[list[int]]:
        return [next(free) for _ in range(n)]

    kinds = ["woods"] * woods + ["lake"] * lakes + ["park"] * parks
    return {
        "seat": seat,
        "prestige": prestige,
        "jugglers": jugglers,
        "architects": architects,
        "freedoms": list(freedoms),
        "landscapes": [{"kind": k, "squares": take(LANDSCAPE_SQUARES[k])} for k in kinds],
        "buildings": [{"kind": b, "squares": take(BUILDING_SQUARES[b])} for b in buildings],
        "played": list(played),
        "works": [{"profession": "poet", "value": 10, "round": 1} for _ in range(works)],
        "enticements_received": received,
        "private": {
            "cash": cash,
            "hand": list(hand),
            "bonus_cards": [],
            "prestige_cards": list(prestige_cards),
            "enticements": enticements,
        },
    }


# The court most bonus-card tests read:
# woods 2, lakes 1, parks 0 -> landscapes 3, landscape types 2
# buildings laboratory, workshop (large), library (medium), tower (small) -> 4 buildings, 3 sizes
# jugglers 3, architects 2, freedoms 2, prestige cards 1, works 1
# hand alchemist + painter, 1 unused enticement, played composer, 1 enticement received
RICH = make_player(
    woods=2, lakes=1,
    buildings=("laboratory", "workshop", "library", "tower"),
    jugglers=3, architects=2, freedoms=("travel", "religion"),
    hand=("alchemist", "painter"), played=("composer",), works=1,
    enticements=1, received=1, prestige_cards=("most_woods",),
)


def bonus(card: str, player: dict[str, Any] = RICH, profession: str = "alchemist") -> int:
    return bonus_value(card, player, profession)


# --- court -------------------------------------------------------------------------------------------

def test_empty_court_has_43_empty_squares() -> None:
    c = court(make_player())
    assert c["empty_squares"] == 43  # 49 squares - 6 Palazzo
    assert c["buildings"] == c["landscapes"] == c["person_cards"] == 0


def test_court_counts_of_the_rich_court() -> None:
    c = court(RICH)
    assert (c["woods"], c["lakes"], c["parks"], c["landscapes"], c["landscape_types"]) == (2, 1, 0, 3, 2)
    assert (c["buildings"], c["large_buildings"], c["medium_buildings"], c["small_buildings"]) == (4, 2, 1, 1)
    assert c["building_sizes"] == 3
    assert (c["jugglers"], c["architects"], c["freedoms"], c["prestige_cards"], c["works"]) == (3, 2, 2, 1, 1)
    assert c["person_cards"] == 5  # 2 in hand + 1 played + 1 unused enticement + 1 enticement received
    assert c["cards_in_hand"] == 3  # 2 in hand + 1 unused enticement
    assert c["empty_squares"] == 9  # 43 - (4+4 woods + 4 lake + 7+7 large + 5 medium + 3 small = 34)


# --- the 20 bonus cards ------------------------------------------------------------------------------

def test_bonus_per_building() -> None:
    assert bonus("per_building") == 4  # 1 x 4 buildings


def test_bonus_per_large_building() -> None:
    assert bonus("per_large_building") == 4  # 2 x 2 large (laboratory, workshop)


def test_bonus_per_medium_building_and_woods() -> None:
    assert bonus("per_medium_building_and_woods") == 3  # 1 medium + 2 woods


def test_bonus_per_small_building_and_landscape() -> None:
    assert bonus("per_small_building_and_landscape") == 4  # 1 small + 3 landscapes


def test_bonus_per_building_size() -> None:
    assert bonus("per_building_size") == 6  # 2 x 3 sizes (large, medium, small)
    two_large = make_player(buildings=("university", "workshop"), hand=("alchemist",))
    assert bonus("per_building_size", two_large) == 2  # 2 x 1 size: several of a size count once


def test_bonus_per_landscape() -> None:
    assert bonus("per_landscape") == 3  # 1 x (2 woods + 1 lake)


def test_bonus_per_woods() -> None:
    assert bonus("per_woods") == 4  # 2 x 2 woods


def test_bonus_per_lake() -> None:
    assert bonus("per_lake") == 2  # 2 x 1 lake


def test_bonus_per_park() -> None:
    assert bonus("per_park") == 0  # 2 x 0 parks
    parks = make_player(parks=3, woods=1, hand=("poet",))
    assert bonus("per_park", parks, "poet") == 6  # 2 x 3 parks; the woods does not count


def test_bonus_per_juggler() -> None:
    assert bonus("per_juggler") == 6  # 2 x 3 jugglers


def test_bonus_per_freedom() -> None:
    assert bonus("per_freedom") == 4  # 2 x 2 freedoms


def test_bonus_per_juggler_and_freedom() -> None:
    assert bonus("per_juggler_and_freedom") == 5  # 3 jugglers + 2 freedoms


def test_bonus_per_architect() -> None:
    assert bonus("per_architect") == 4  # 2 x 2 architects


def test_bonus_per_architect_and_lake() -> None:
    assert bonus("per_architect_and_lake") == 3  # 2 architects + 1 lake


def test_bonus_per_prestige_card() -> None:
    assert bonus("per_prestige_card") == 2  # 2 x 1 prestige card held


def test_bonus_per_prestige_card_and_freedom() -> None:
    assert bonus("per_prestige_card_and_freedom") == 3  # 1 prestige card + 2 freedoms


def test_bonus_per_landscape_type() -> None:
    assert bonus("per_landscape_type") == 4  # 2 x 2 types (woods, lake), not per tile
    all_three = make_player(woods=1, lakes=1, parks=2, hand=("poet",))
    assert bonus("per_landscape_type", all_three, "poet") == 6  # 2 x 3 types


def test_bonus_per_category() -> None:
    # woods yes, lake yes, park no, juggler yes, architect yes, prestige card yes, freedom yes -> 6
    assert bonus("per_category") == 6
    # 2 freedoms are one category, 2 woods one more -> 2
    few = make_player(woods=2, freedoms=("travel", "opinion"), hand=("poet",))
    assert bonus("per_category", few, "poet") == 2


def test_bonus_per_card_in_hand() -> None:
    # hand alchemist + painter, + 1 unused enticement, - the publishing alchemist = 2;
    # the played composer and the received enticement are on the table, not in hand
    assert bonus("per_card_in_hand") == 2
    big_hand = make_player(hand=("poet", "painter", "doctor", "jurist"), enticements=2)
    assert bonus("per_card_in_hand", big_hand, "poet") == 5  # 4 + 2 - 1


def test_bonus_per_work_published() -> None:
    assert bonus("per_work_published") == 2  # 1 work already + this one
    veteran = make_player(works=3, hand=("poet",))
    assert bonus("per_work_published", veteran, "poet") == 4  # 3 + 1
    assert bonus("per_work_published", make_player(hand=("poet",)), "poet") == 1  # first work: 0 + 1


def test_unknown_bonus_card_is_refused() -> None:
    with pytest.raises(IllegalMove):
        bonus("per_dragon")


# --- work value --------------------------------------------------------------------------------------

def test_work_value_with_every_preference_and_two_bonus_cards() -> None:
    # alchemist prefers laboratory, lake, opinion
    player = make_player(
        lakes=2, buildings=("laboratory",), freedoms=("opinion",), jugglers=2,
        hand=("alchemist", "painter"), played=("composer",), enticements=1,
    )
    # 4 building + 3 lake + 3 opinion + 2x2 jugglers + 4 person cards (2 hand, 1 played, 1 enticement)
    # = 18; per_lake 2x2 = 4; per_card_in_hand painter + enticement = 2 -> 24
    assert work_value(player, "alchemist", ["per_lake", "per_card_in_hand"]) == 24


def test_work_value_counts_the_preferred_landscape_once() -> None:
    one = make_player(lakes=1, hand=("alchemist",))
    three = make_player(lakes=3, hand=("alchemist",))
    assert work_value(one, "alchemist", []) == 4  # 3 lake + 1 person card
    assert work_value(three, "alchemist", []) == 4  # still 3 lake, extra lakes give nothing here


def test_work_value_ignores_preferences_of_other_professions() -> None:
    # alchemist wants laboratory/lake/opinion; this court has workshop, woods, travel
    player = make_player(woods=1, buildings=("workshop",), freedoms=("travel",), hand=("alchemist",), received=2)
    assert work_value(player, "alchemist", []) == 3  # 1 in hand + 2 received enticement cards


# --- the 14 prestige cards ---------------------------------------------------------------------------

def with_count(what: str, n: int, seat: int, cards: tuple[str, ...] = ()) -> dict[str, Any]:
    """A player with exactly n of one thing a 'most' card compares."""
    kwargs: dict[str, Any] = {
        "jugglers": {"jugglers": n},
        "architects": {"architects": n},
        "buildings": {"buildings": ("tower", "chapel", "library", "opera")[:n]},
        "landscapes": {"parks": n},
        "woods": {"woods": n},
        "lakes": {"lakes": n},
        "parks": {"parks": n},
        "works": {"works": n},
    }[what]
    return make_player(seat, prestige_cards=cards, **kwargs)


def card_points(players: list[dict[str, Any]], seat: int = 0) -> int:
    (entry,) = prestige_card_points(players)[seat]
    return entry["points"]


# card, what it counts, full points, shared points (all from the guide's card list)
MOST_CARDS = [
    ("most_jugglers", "jugglers", 6, 3),
    ("most_architects", "architects", 6, 3),
    ("most_buildings", "buildings", 6, 3),
    ("most_landscapes", "landscapes", 7, 4),
    ("most_woods", "woods", 7, 4),
    ("most_lakes", "lakes", 6, 3),
    ("most_parks", "parks", 5, 3),
    ("most_works", "works", 7, 4),
]


@pytest.mark.parametrize(("card", "what", "full", "shared"), MOST_CARDS, ids=[c[0] for c in MOST_CARDS])
def test_most_card(card: str, what: str, full: int, shared: int) -> None:
    # strictly first: 3 against 2 and 1 -> full points
    assert card_points([with_count(what, 3, 0, (card,)), with_count(what, 2, 1), with_count(what, 1, 2)]) == full
    # tied first: 2 against 2 and 1 -> shared points
    assert card_points([with_count(what, 2, 0, (card,)), with_count(what, 2, 1), with_count(what, 1, 2)]) == shared
    # behind: 1 against 2 -> 0
    assert card_points([with_count(what, 1, 0, (card,)), with_count(what, 2, 1), with_count(what, 0, 2)]) == 0
    # nobody has any: the holder needs at least one -> 0
    assert card_points([with_count(what, 0, 0, (card,)), with_count(what, 0, 1), with_count(what, 0, 2)]) == 0


def test_most_landscapes_counts_every_kind() -> None:
    # seat 0: woods + lake + park = 3 against seat 1: 2 parks -> strictly first, 7
    players = [make_player(0, woods=1, lakes=1, parks=1, prestige_cards=("most_landscapes",)), make_player(1, parks=2)]
    assert card_points(players) == 7


def test_fewest_empty_squares() -> None:
    card = ("fewest_empty_squares",)
    # seat 0 covers 7 + 5 = 12 -> 31 empty; seat 1 covers 4 -> 39 empty -> strictly fewest, 8
    assert card_points([make_player(0, buildings=("university", "opera"), prestige_cards=card),
                        make_player(1, woods=1)]) == 8
    # both cover 12 (university + opera vs 3 woods) -> 31 each -> shared, 4
    assert card_points([make_player(0, buildings=("university", "opera"), prestige_cards=card),
                        make_player(1, woods=3)]) == 4
    # all yards empty (43 each): tied fewest, and there is no minimum -> 4
    assert card_points([make_player(0, prestige_cards=card), make_player(1), make_player(2)]) == 4
    # seat 0 covers 4 -> 39; seat 1 covers 12 -> 31 -> 0
    assert card_points([make_player(0, lakes=1, prestige_cards=card), make_player(1, woods=3)]) == 0


def test_two_large_buildings() -> None:
    card = ("two_large_buildings",)
    assert card_points([make_player(0, buildings=("university", "workshop"), prestige_cards=card)]) == 5
    # 1 large + 3 medium is not 2 large -> 0
    assert card_points([make_player(0, buildings=("university", "library", "opera", "studio"),
                                    prestige_cards=card)]) == 0


def test_all_landscape_types() -> None:
    card = ("all_landscape_types",)
    assert card_points([make_player(0, woods=1, lakes=1, parks=1, prestige_cards=card)]) == 8
    assert card_points([make_player(0, woods=2, lakes=2, prestige_cards=card)]) == 0  # no park


def test_all_freedoms() -> None:
    card = ("all_freedoms",)
    assert card_points([make_player(0, freedoms=("travel", "opinion", "religion"), prestige_cards=card)]) == 8
    assert card_points([make_player(0, freedoms=("travel", "opinion"), prestige_cards=card)]) == 0


def test_architect_juggler_two_landscapes() -> None:
    card = ("architect_juggler_two_landscapes",)
    assert card_points([make_player(0, architects=1, jugglers=1, woods=1, parks=1, prestige_cards=card)]) == 7
    assert card_points([make_player(0, architects=3, jugglers=2, woods=1, prestige_cards=card)]) == 0  # 1 landscape
    assert card_points([make_player(0, jugglers=1, lakes=2, prestige_cards=card)]) == 0  # no architect


def test_four_buildings_two_freedoms_four_works() -> None:
    card = ("four_buildings_two_freedoms_four_works",)
    four = ("tower", "chapel", "library", "opera")
    assert card_points([make_player(0, buildings=four, freedoms=("travel", "opinion"), works=4,
                                    prestige_cards=card)]) == 6
    assert card_points([make_player(0, buildings=four, freedoms=("travel", "opinion"), works=3,
                                    prestige_cards=card)]) == 0  # 3 works


def test_prestige_card_points_lists_each_held_card_per_seat() -> None:
    # seat 0 holds two cards: most_jugglers (2 vs 1 -> 6) and all_freedoms (1 freedom -> 0); seat 1 none
    players = [make_player(0, jugglers=2, freedoms=("travel",), prestige_cards=("most_jugglers", "all_freedoms")),
               make_player(1, jugglers=1)]
    assert prestige_card_points(players) == [
        [{"card": "most_jugglers", "points": 6}, {"card": "all_freedoms", "points": 0}],
        [],
    ]


# --- final result ------------------------------------------------------------------------------------

def test_final_result_adds_prestige_cards() -> None:
    # seat 0: 10 PP + most_jugglers (3 vs 1 -> 6) = 16; seat 1: 14 PP -> seat 0 wins
    players = [make_player(0, prestige=10, jugglers=3, prestige_cards=("most_jugglers",), cash=100),
               make_player(1, prestige=14, jugglers=1, cash=900)]
    result = final_result(players)
    assert [s["prestige"] for s in result["scores"]] == [16, 14]
    assert result["scores"][0]["prestige_cards"] == [{"card": "most_jugglers", "points": 6}]
    assert [s["rank"] for s in result["scores"]] == [1, 2]
    assert result["winners"] == [0]


def test_final_result_cash_breaks_a_prestige_tie() -> None:
    players = [make_player(0, prestige=20, cash=500), make_player(1, prestige=20, cash=900),
               make_player(2, prestige=15, cash=5000)]
    result = final_result(players)
    assert [(s["seat"], s["prestige"], s["cash"], s["rank"]) for s in result["scores"]] == [
        (0, 20, 500, 2), (1, 20, 900, 1), (2, 15, 5000, 3)]
    assert result["winners"] == [1]


def test_final_result_full_tie_shares_first_place() -> None:
    players = [make_player(0, prestige=20, cash=500), make_player(1, prestige=20, cash=500),
               make_player(2, prestige=10, cash=500)]
    result = final_result(players)
    assert [s["rank"] for s in result["scores"]] == [1, 1, 3]  # competition ranking: 1, 1, 3
    assert result["winners"] == [0, 1]
