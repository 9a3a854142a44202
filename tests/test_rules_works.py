"""Works: value, the round's minimum, payout and its split, bonus cards, best work, enticed professions.

Positions start in round 1's Phase B (see test_rules_actions): seat 0 holds alchemist, botanist,
physicist; seat 1 goldsmith, architect, mathematician; seat 2 philosopher, map_maker, historian; all
have 3300 florins. Preferences (data.json): alchemist laboratory/lake/opinion, physicist
laboratory/woods/travel, philosopher university/park/travel, goldsmith workshop/lake/travel,
historian library/lake/opinion, map_maker library/woods/travel.
"""
from __future__ import annotations

import json
from itertools import combinations

import pytest

from engine.core import IllegalMove, filled
from engine.pof import yard
from engine.pof.data import BONUS_CARDS
from tests.rules_helpers import (
    GAME, LANDSCAPE_SPOTS, cash, edit, give, illegal, keep_all, new_game, play, play_events, pp, to_actions, waiting,
)

END = {"type": "end_turn"}
LAB = [[3, 0], [3, 1], [3, 2], [3, 3], [4, 0], [4, 1], [4, 2]]


def phase_b() -> dict:
    return to_actions(keep_all(new_game(4)))


def publish(profession: str, *cards: str) -> dict:
    return {"type": "publish", "profession": profession, "bonus_cards": list(cards)}


def split(points: int) -> dict:
    return {"type": "split_payout", "prestige": points}


def test_work_value_counts_building_landscape_freedom_jugglers_and_person_cards() -> None:
    state = give(phase_b(), 0, jugglers=2, freedoms=["opinion"], landscapes=[("lake", LANDSCAPE_SPOTS["lake"])],
                 buildings=[("laboratory", LAB)])
    # alchemist: laboratory 4 + lake 3 + opinion 3 + 2 jugglers x 2 + 3 person cards = 17
    # physicist: laboratory 4 + 4 + 3 = 11 (no woods, no travel)
    state, events = play_events(state, (0, publish("alchemist")))
    assert {"type": "work_published", "seat": 0, "profession": "alchemist", "value": 17, "bonus_cards": []} in events
    assert waiting(state) == (0, "split_payout") and state["pending"][0]["payout"] == 1700
    assert GAME.legal_moves(state, 0)[-1] == split(8)  # 1700 // 200
    illegal(state, 0, split(9), "bad_points")
    illegal(state, 0, split(-1), "bad_points")
    state = play(state, (0, split(5)))  # 5 PP = 1000 florins; 700 florins
    assert (pp(state, 0), cash(state, 0)) == (5, 3300 + 700)
    me = state["players"][0]
    assert me["played"] == ["alchemist"] and me["private"]["hand"] == ["botanist", "physicist"]
    assert me["works"] == [{"profession": "alchemist", "value": 17, "round": 1, "bonus_cards": []}]
    # the played card still counts: physicist 4 + 4 + 3 (2 in hand + 1 played) = 11
    state, events = play_events(state, (0, publish("physicist")))
    assert events[0]["value"] == 11


def test_one_landscape_of_the_type_counts_once() -> None:
    state = give(phase_b(), 0, jugglers=2, landscapes=[("lake", LANDSCAPE_SPOTS["lake"]),
                                                        ("lake", [[3, 5], [3, 6], [4, 5], [4, 6]])])
    state, events = play_events(state, (0, publish("alchemist")))
    assert events[0]["value"] == 3 + 4 + 3  # lake 3 (not 6) + jugglers 4 + 3 person cards


def test_an_unused_enticement_card_is_a_person_card() -> None:
    state = give(phase_b(), 0, jugglers=2, enticements=1)
    state, events = play_events(state, (0, publish("alchemist")))
    assert events[0]["value"] == 4 + 3 + 1


def test_odd_payout_splits_into_whole_points() -> None:
    state = give(phase_b(), 0, jugglers=2)  # 4 + 3 = 7 -> 700 florins, at most 3 PP
    state = play(state, (0, publish("botanist")))
    assert GAME.legal_moves(state, 0) == [split(0), split(1), split(2), split(3)]
    assert GAME.default_move(state, 0) == split(0)
    state = play(state, (0, split(3)))
    assert (pp(state, 0), cash(state, 0)) == (3, 3300 + 100)


@pytest.mark.parametrize(("round_", "least", "jugglers", "enticements"), [
    (1, 7, 2, 0), (2, 9, 3, 0), (3, 11, 4, 0), (4, 13, 5, 0), (5, 15, 6, 0), (6, 16, 6, 1), (7, 17, 7, 0),
])
def test_the_round_minimum(round_: int, least: int, jugglers: int, enticements: int) -> None:
    state = edit(phase_b())
    state["round"] = round_  # a position in that round's Phase B
    state["supply"]["juggler"] = 7
    exact = give(state, 0, jugglers=jugglers, enticements=enticements)  # 3 + 2j + e = least
    short = give(state, 0, jugglers=jugglers - 1, enticements=enticements + 1)  # one less
    assert GAME.view(exact, 0)["min_work_value"] == least
    state, events = play_events(exact, (0, publish("botanist")))
    assert events[0]["value"] == least
    illegal(short, 0, publish("botanist"), "work_too_weak")
    assert not [m for m in GAME.legal_moves(short, 0) if m["type"] == "publish"]


def test_bonus_cards_add_to_one_work_and_are_used_up() -> None:
    state = give(phase_b(), 0, jugglers=1, bonus_cards=["per_juggler", "per_freedom"])
    # without a card 2 + 3 = 5 < 7; per_juggler adds 2 x 1 = 2; per_freedom adds 0
    # one work per profession, with the fewest cards that reach 7; the fill lists what else may go with it
    publishes = [m for m in GAME.legal_moves(state, 0) if m["type"] == "publish"]
    assert publishes == [publish(p, "per_juggler") for p in ("alchemist", "botanist", "physicist")]
    assert GAME.fill(state, 0, publishes[0]) == [{
        "field": "bonus_cards", "base": 5, "least": 7, "measure": "work value",
        "choices": [{"value": "per_juggler", "adds": 2}, {"value": "per_freedom", "adds": 0}],
    }]
    assert GAME.fill(state, 0, {"type": "end_turn"}) == []
    assert GAME.apply(state, 0, publish("alchemist", "per_freedom", "per_juggler"))[1][0]["value"] == 7
    illegal(state, 0, publish("alchemist"), "work_too_weak")
    illegal(state, 0, publish("alchemist", "per_juggler", "per_juggler"), "bad_bonus_cards")
    illegal(state, 0, publish("alchemist", "per_woods"), "bad_bonus_cards")
    illegal(state, 0, publish("goldsmith", "per_juggler"), "not_in_hand")
    state, events = play_events(state, (0, publish("alchemist", "per_juggler")))
    assert events[0]["value"] == 7 and events[0]["bonus_cards"] == ["per_juggler"]
    assert state["players"][0]["private"]["bonus_cards"] == ["per_freedom"]
    state = play(state, (0, split(0)))
    illegal(state, 0, publish("botanist", "per_juggler"), "bad_bonus_cards")
    illegal(state, 0, publish("alchemist"), "not_in_hand")  # played already


EIGHT_IN_HAND = ["alchemist", "botanist", "physicist", "pharmacist", "dramatist", "poet", "astronomer", "organ_builder"]


def rich_court(round_: int) -> dict:
    """Seat 0 in round `round_`'s Phase B with all 20 bonus cards, 8 professions and something of every
    kind a card counts, so that most cards add something and each profession's value differs."""
    state = edit(phase_b())
    state["round"] = round_
    state = give(state, 0, jugglers=1, architects=1, freedoms=["opinion"], enticements=1, hand=EIGHT_IN_HAND,
                 bonus_cards=list(BONUS_CARDS), prestige_cards=["most_jugglers"],
                 landscapes=[("woods", LANDSCAPE_SPOTS["woods"]), ("lake", LANDSCAPE_SPOTS["lake"])])
    for kind in ("laboratory", "library", "tower"):
        state = give(state, 0, buildings=[(kind, yard.legal_placements(state["players"][0], kind)[0])])
    return state


def modest_court(round_: int) -> dict:
    """Seat 0 in round `round_`'s Phase B with all 20 bonus cards, its 3 professions and a woods only:
    late in the game a work needs many cards, or cannot be published at all."""
    state = edit(phase_b())
    state["round"] = round_
    return give(state, 0, bonus_cards=list(BONUS_CARDS), landscapes=[("woods", LANDSCAPE_SPOTS["woods"])])


def publish_entries(state: dict, seat: int = 0) -> list[tuple[dict, list[dict]]]:
    return [(m, GAME.fill(state, seat, m)) for m in GAME.legal_moves(state, seat) if m["type"] == "publish"]


COURTS = [(rich_court, 1), (rich_court, 4), (rich_court, 7), (modest_court, 5), (modest_court, 7)]


@pytest.mark.parametrize(("court", "round_"), COURTS)
def test_twenty_bonus_cards_list_one_work_per_profession(court, round_: int) -> None:
    """The listing grows with the professions, not the sets of cards (it was 2^20 sets per profession)."""
    state = court(round_)
    hand = state["players"][0]["private"]["hand"]
    entries = publish_entries(state)
    assert 0 < len(entries) <= len(hand)
    assert len({m["profession"] for m, _ in entries}) == len(entries)
    listing = [{"move": m, "label": GAME.describe(m), "fill": fill} for m, fill in entries]
    assert len(json.dumps(listing)) < 20_000
    for move, (fill,) in entries:
        assert [c["value"] for c in fill["choices"]] == list(BONUS_CARDS)
        assert fill["least"] == GAME.view(state, 0)["min_work_value"]
        chosen = sum(c["adds"] for c in fill["choices"] if c["value"] in move["bonus_cards"])
        assert fill["base"] + chosen >= fill["least"]
        _, events = GAME.apply(state, 0, move)  # as listed
        assert events[0]["value"] == fill["base"] + chosen
        # the fewest cards that reach the minimum, the biggest first
        adds = sorted((c["adds"] for c in fill["choices"]), reverse=True)
        assert len(move["bonus_cards"]) == next(n for n in range(len(adds) + 1)
                                                if fill["base"] + sum(adds[:n]) >= fill["least"])
    # a profession is left out only when even every card together cannot reach the minimum
    for profession in set(hand) - {m["profession"] for m, _ in entries}:
        illegal(state, 0, publish(profession, *BONUS_CARDS), "work_too_weak")


def test_the_courts_above_reach_every_case() -> None:
    """The positions of the test above list works without cards, with one, with several, and leave some out."""
    sizes, left_out = set(), 0
    for court, round_ in COURTS:
        state = court(round_)
        entries = publish_entries(state)
        sizes |= {min(len(m["bonus_cards"]), 2) for m, _ in entries}
        left_out += len(state["players"][0]["private"]["hand"]) - len(entries)
    assert sizes == {0, 1, 2} and left_out > 0


def test_what_a_card_adds_is_what_publishing_with_it_adds() -> None:
    state = rich_court(1)
    entries = publish_entries(state)
    assert len(entries) == len(EIGHT_IN_HAND)
    for move, (fill,) in entries:
        assert any(c["adds"] > 0 for c in fill["choices"]) and any(c["adds"] == 0 for c in fill["choices"])
        for choice in fill["choices"]:
            _, events = GAME.apply(state, 0, publish(move["profession"], choice["value"]))
            assert events[0]["value"] == fill["base"] + choice["adds"], choice
        _, events = GAME.apply(state, 0, publish(move["profession"], *BONUS_CARDS))
        assert events[0]["value"] == fill["base"] + sum(c["adds"] for c in fill["choices"])


def test_every_set_of_cards_is_legal_exactly_when_the_fill_says_so() -> None:
    """Brute force over a small hand: each (profession, set of cards) against the rules themselves."""
    state = give(phase_b(), 0, jugglers=1, freedoms=["travel"],
                 bonus_cards=["per_juggler", "per_freedom", "per_card_in_hand", "per_woods", "per_work_published"])
    state = edit(state)
    state["round"] = 3  # 11: 2 + 3 person cards = 5 alone, +3 with travel (physicist); cards must make up the rest
    held = state["players"][0]["private"]["bonus_cards"]
    entries = {m["profession"]: (m, fill) for m, (fill,) in publish_entries(state)}
    accepted = 0
    for profession in ("alchemist", "botanist", "physicist"):
        for size in range(len(held) + 1):
            for cards in combinations(held, size):
                try:
                    GAME.apply(state, 0, publish(profession, *cards))
                    legal = True
                except IllegalMove as refused:
                    assert refused.code == "work_too_weak"
                    legal = False
                accepted += legal
                predicted = profession in entries and filled(*entries[profession], list(cards)) is not None
                assert predicted == legal, (profession, cards)
    assert 0 < accepted < 3 * 2 ** len(held)


def test_two_works_in_one_turn() -> None:
    state = give(phase_b(), 0, jugglers=2)
    state = play(state, (0, publish("alchemist")), (0, split(0)), (0, publish("botanist")), (0, split(0)))
    assert cash(state, 0) == 3300 + 700 + 700 and len(state["players"][0]["works"]) == 2
    assert waiting(state) == (1, "action")


def test_best_work_of_the_round_gives_three_to_every_seat_tied() -> None:
    state = give(phase_b(), 0, jugglers=2, buildings=[("laboratory", LAB)])  # alchemist 4 + 4 + 3 = 11
    state = give(state, 1, jugglers=1, freedoms=["travel"])  # goldsmith 3 + 2 + 3 = 8
    state = give(state, 2, jugglers=2, buildings=[("university", [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1],
                                                                  [1, 2], [2, 1]])])  # philosopher 4 + 4 + 3 = 11
    state, events = play_events(state, (0, publish("alchemist")), (0, split(0)), (0, END),
                                (1, publish("goldsmith")), (1, split(0)), (1, END),
                                (2, publish("philosopher")), (2, split(0)), (2, END))
    assert [pp(state, s) for s in range(4)] == [0, 0, 0, 0]  # not before the round ends
    state, events = play_events(state, (3, END))
    assert {"type": "best_work", "round": 1, "value": 11, "seats": [0, 2], "points": 3} in events
    assert [pp(state, s) for s in range(4)] == [3, 0, 3, 0]
    assert state["round"] == 2 and state["phase"] == "auction"
    # round 2: nobody publishes, nobody gets the bonus (last round's works do not count)
    state = to_actions(state)
    state, events = play_events(state, (1, END), (2, END), (3, END), (0, END))
    assert not [e for e in events if e["type"] == "best_work"]
    assert [pp(state, s) for s in range(4)] == [3, 0, 3, 0]


def test_an_enticed_profession_publishes_again_and_the_used_card_counts_for_its_former_owner() -> None:
    state = edit(phase_b())
    two = state["players"][2]
    two["private"]["hand"].remove("historian")
    two["played"].append("historian")
    two["works"].append({"profession": "historian", "value": 7, "round": 1, "bonus_cards": []})
    state = give(state, 0, enticements=1, landscapes=[("lake", LANDSCAPE_SPOTS["lake"])])
    state = give(state, 2, jugglers=2)
    state = play(state, (0, {"type": "entice", "profession": "historian"}))
    # seat 0: historian lake 3 + person cards (alchemist, botanist, physicist, historian) 4 = 7
    state, events = play_events(state, (0, publish("historian")), (0, split(0)), (0, END), (1, END))
    assert events[0]["value"] == 7
    assert state["players"][0]["played"] == ["historian"] and state["players"][2]["works"][0]["profession"] == "historian"
    # seat 2: map_maker 2 jugglers 4 + person cards: philosopher, map_maker in hand + the used card = 7
    state, events = play_events(state, (2, publish("map_maker")))
    assert events[0]["value"] == 7
    # ... and the enticer cannot entice its own played profession back, nor the new owner's unplayed ones
    assert not [m for m in GAME.legal_moves(state, 0) if m["type"] == "entice"]
