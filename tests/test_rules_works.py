"""Works: value, the round's minimum, payout and its split, bonus cards, best work, enticed professions.

Positions start in round 1's Phase B (see test_rules_actions): seat 0 holds alchemist, botanist,
physicist; seat 1 goldsmith, architect, mathematician; seat 2 philosopher, map_maker, historian; all
have 3300 florins. Preferences (data.json): alchemist laboratory/lake/opinion, physicist
laboratory/woods/travel, philosopher university/park/travel, goldsmith workshop/lake/travel,
historian library/lake/opinion, map_maker library/woods/travel.
"""
from __future__ import annotations

import pytest

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
    publishes = [m for m in GAME.legal_moves(state, 0) if m["type"] == "publish"]
    assert publishes == [publish(p, *cards) for p in ("alchemist", "botanist", "physicist")
                         for cards in (["per_juggler"], ["per_juggler", "per_freedom"])]
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
