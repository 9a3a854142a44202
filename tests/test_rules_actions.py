"""Phase B: two actions a turn, the per-turn limits, freedoms, buildings, cards, enticing and selling prestige.

Every test starts from round 1's Phase B reached with the default auction: seat 0 bought woods, seat 1
a lake, seat 2 a park (all thrown away) and seat 3 a juggler, each for 200, so everyone has 3300.
"""
from __future__ import annotations

import pytest

from tests.rules_helpers import (
    GAME, FULL_YARD, cash, deck, decision, edit, end_turns_until, give, illegal, keep_all, new_game, play, play_events, pp,
    to_actions, waiting,
)

END = {"type": "end_turn"}
TOWER = [[0, 0], [0, 1], [0, 2]]
CHAPEL = [[2, 0], [2, 1], [3, 0]]  # a row below the tower: corners and edges apart


def phase_b(seats: int = 4, items: dict[int, str] | None = None) -> dict:
    state = to_actions(keep_all(new_game(seats)), items)
    assert waiting(state) == (0, "action") and cash(state, 0) == 3300
    return state


def choose_first(state: dict, seat: int) -> dict:
    return play(state, (seat, GAME.default_move(state, seat)))


# --- the turn --------------------------------------------------------------------------------------


def test_two_actions_then_the_turn_passes_in_seat_order() -> None:
    state = play(phase_b(), (0, {"type": "buy_freedom", "freedom": "travel"}))
    assert waiting(state) == (0, "action") and state["turn"]["actions"] == 1
    state = play(state, (0, {"type": "buy_bonus_card"}))
    assert waiting(state) == (0, "choose_card")
    state, events = play_events(state, (0, GAME.default_move(state, 0)))
    assert {"type": "turn_ended", "seat": 0} in events
    assert waiting(state) == (1, "action") and cash(state, 0) == 3300 - 300 - 300


def test_end_turn_early() -> None:
    state, events = play_events(phase_b(), (0, {"type": "buy_freedom", "freedom": "travel"}), (0, END))
    assert waiting(state) == (1, "action")
    state = play(state, (1, END), (2, END))
    assert waiting(state) == (3, "action")


def test_round_start_player_acts_first_in_phase_b() -> None:
    state = play(phase_b(), (0, END), (1, END), (2, END), (3, END))  # round 2: seat 1 starts
    state = to_actions(state)
    assert state["round"] == 2 and waiting(state) == (1, "action")
    state = play(state, (1, END), (2, END), (3, END))
    assert waiting(state) == (0, "action")


def test_one_freedom_a_turn() -> None:
    state = play(phase_b(), (0, {"type": "buy_freedom", "freedom": "travel"}))
    assert not [m for m in GAME.legal_moves(state, 0) if m["type"] == "buy_freedom"]
    illegal(state, 0, {"type": "buy_freedom", "freedom": "opinion"}, "once_a_turn")


def test_one_profession_a_turn() -> None:
    state = choose_first(play(phase_b(), (0, {"type": "buy_profession"})), 0)
    assert {"type": "buy_profession"} not in GAME.legal_moves(state, 0)
    illegal(state, 0, {"type": "buy_profession"}, "once_a_turn")


def test_two_bonus_cards_a_turn() -> None:
    state = choose_first(play(phase_b(), (0, {"type": "buy_bonus_card"})), 0)
    state = choose_first(play(state, (0, {"type": "buy_bonus_card"})), 0)
    assert len(state["players"][0]["private"]["bonus_cards"]) == 2 and cash(state, 0) == 2700
    assert waiting(state) == (1, "action")


def test_two_buildings_a_turn() -> None:
    state = play(phase_b(), (0, {"type": "build", "building": "tower", "squares": TOWER}),
                 (0, {"type": "build", "building": "chapel", "squares": CHAPEL}))
    assert [b["kind"] for b in state["players"][0]["buildings"]] == ["tower", "chapel"]
    assert cash(state, 0) == 3300 - 700 - 700 and pp(state, 0) == 6
    assert waiting(state) == (1, "action")


def test_other_seats_cannot_act_in_this_turn() -> None:
    illegal(phase_b(), 1, {"type": "buy_freedom", "freedom": "travel"}, "not_your_decision")
    illegal(phase_b(), 1, END, "not_your_decision")


# --- freedoms --------------------------------------------------------------------------------------


def test_freedom_costs_300_and_is_owned_once() -> None:
    state = play(phase_b(), (0, {"type": "buy_freedom", "freedom": "religion"}))
    assert state["players"][0]["freedoms"] == ["religion"] and cash(state, 0) == 3000
    assert state["supply"]["freedoms"]["religion"] == 2
    state = play(state, (0, END), (1, END), (2, END), (3, END))
    state = end_turns_until(to_actions(state), 0)
    illegal(state, 0, {"type": "buy_freedom", "freedom": "religion"}, "freedom_unavailable")
    illegal(state, 0, {"type": "buy_freedom", "freedom": "art"}, "unknown_freedom")


def test_freedom_supply_is_players_minus_one() -> None:
    state = phase_b(3)  # 2 of each
    state = play(state, (0, {"type": "buy_freedom", "freedom": "opinion"}), (0, END),
                 (1, {"type": "buy_freedom", "freedom": "opinion"}), (1, END))
    assert state["supply"]["freedoms"]["opinion"] == 0
    assert {"type": "buy_freedom", "freedom": "opinion"} not in GAME.legal_moves(state, 2)
    illegal(state, 2, {"type": "buy_freedom", "freedom": "opinion"}, "freedom_unavailable")


def test_actions_need_cash_and_prestige_can_be_sold_first() -> None:
    state = give(phase_b(), 0, cash=250, prestige=2)
    illegal(state, 0, {"type": "buy_freedom", "freedom": "travel"}, "not_enough_cash")
    assert not [m for m in GAME.legal_moves(state, 0) if m["type"] != "end_turn"]
    state, events = play_events(state, (0, {"type": "sell_prestige", "points": 1}))
    assert {"type": "prestige_sold", "seat": 0, "points": 1, "automatic": False} in events
    assert (cash(state, 0), pp(state, 0)) == (350, 1)
    assert state["turn"]["actions"] == 0  # selling is free
    state = play(state, (0, {"type": "buy_freedom", "freedom": "travel"}))
    assert cash(state, 0) == 50


def test_selling_prestige_only_in_own_decisions_and_only_what_you_have() -> None:
    state = give(phase_b(), 1, prestige=4)
    illegal(state, 1, {"type": "sell_prestige", "points": 1}, "not_your_decision")
    state = give(state, 0, prestige=4)
    illegal(state, 0, {"type": "sell_prestige", "points": 5}, "bad_points")
    illegal(state, 0, {"type": "sell_prestige", "points": 0}, "bad_points")
    state = play(state, (0, {"type": "sell_prestige", "points": 4}))
    assert (cash(state, 0), pp(state, 0)) == (3700, 0)


# --- buildings -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("architects", "price"), [(0, 700), (1, 300), (2, 300), (3, 0)])
def test_building_price_by_architects_and_three_prestige(architects: int, price: int) -> None:
    state = give(phase_b(), 0, architects=architects, prestige=0)
    state, events = play_events(state, (0, {"type": "build", "building": "university",
                                            "squares": [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2], [2, 1]]}))
    assert cash(state, 0) == 3300 - price and pp(state, 0) == 3
    assert state["supply"]["buildings"]["university"] == 2
    assert {"type": "built", "seat": 0, "building": "university",
            "squares": [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2], [2, 1]]} in events


def test_one_building_of_each_type_per_player_and_three_copies_in_the_game() -> None:
    state = play(phase_b(), (0, {"type": "build", "building": "tower", "squares": TOWER}))
    illegal(state, 0, {"type": "build", "building": "tower", "squares": [[3, 4], [3, 5], [3, 6]]},
            "building_unavailable")
    assert not [m for m in GAME.legal_moves(state, 0) if m.get("building") == "tower"]
    state = play(state, (0, END), (1, {"type": "build", "building": "tower", "squares": TOWER}), (1, END),
                 (2, {"type": "build", "building": "tower", "squares": TOWER}), (2, END))
    assert state["supply"]["buildings"]["tower"] == 0
    illegal(state, 3, {"type": "build", "building": "tower", "squares": TOWER}, "building_unavailable")
    illegal(state, 3, {"type": "build", "building": "castle", "squares": TOWER}, "unknown_building")


def test_buildings_touch_only_with_two_architects() -> None:
    touching = [[1, 0], [1, 1], [2, 0]]  # chapel right under the tower: edges shared
    state = play(phase_b(), (0, {"type": "build", "building": "tower", "squares": TOWER}))
    illegal(state, 0, {"type": "build", "building": "chapel", "squares": touching}, "touches_building")
    illegal(state, 0, {"type": "build", "building": "chapel", "squares": [[4, 0], [4, 1], [3, 0]]},
            "touches_building")  # on the Palazzo's edge
    illegal(state, 0, {"type": "build", "building": "chapel", "squares": [[0, 1], [1, 1], [1, 2]]}, "square_taken")
    illegal(state, 0, {"type": "build", "building": "chapel", "squares": [[3, 3], [3, 4], [3, 5]]}, "wrong_shape")
    state = give(state, 0, architects=2)
    state = play(state, (0, {"type": "build", "building": "chapel", "squares": touching}))
    assert cash(state, 0) == 3300 - 700 - 300


def test_a_building_with_no_room_cannot_be_bought() -> None:
    no_woods_sold = {0: "juggler", 1: "architect", 2: "enticement", 3: "lake"}
    state = give(phase_b(items=no_woods_sold), 0, landscapes=FULL_YARD[:-1])  # only the L [2, 4], [3, 4], [3, 5] is free
    builds = [m for m in GAME.legal_moves(state, 0) if m["type"] == "build"]
    assert builds == [{"type": "build", "building": "chapel", "squares": [[2, 4], [3, 4], [3, 5]]}]
    illegal(state, 0, {"type": "build", "building": "tower", "squares": [[2, 4], [3, 4], [4, 4]]}, "square_taken")
    state = give(state, 0, landscapes=FULL_YARD[-1:])
    assert not [m for m in GAME.legal_moves(state, 0) if m["type"] == "build"]


# --- professions and bonus cards -------------------------------------------------------------------


def test_profession_choice_of_five_rest_under_the_deck_in_chosen_order() -> None:
    state = play(phase_b(), (0, {"type": "buy_profession"}))
    shown = decision(state, 0)["private"]["cards"]
    assert shown == ["pharmacist", "dramatist", "poet", "astronomer", "organ_builder"]
    assert cash(state, 0) == 3000 and state["turn"]["actions"] == 1
    order = ["organ_builder", "pharmacist", "astronomer", "dramatist"]
    state = play(state, (0, {"type": "choose_card", "card": "poet", "return_order": order}))
    assert state["players"][0]["private"]["hand"] == ["alchemist", "botanist", "physicist", "poet"]
    # the 4 returned at the deal (each seat's 4th dealt card) were under the deck already
    assert deck(state, "professions") == ["bell_maker", "jurist", "composer", "doctor"] + order


def test_a_short_profession_deck_shows_fewer_and_an_empty_one_cannot_be_bought() -> None:
    state = edit(phase_b())
    state["secret"]["decks"]["professions"] = ["poet", "jurist"]
    state = play(state, (0, {"type": "buy_profession"}))
    assert decision(state, 0)["private"]["cards"] == ["poet", "jurist"]
    state = play(state, (0, {"type": "choose_card", "card": "jurist", "return_order": ["poet"]}))
    assert deck(state, "professions") == ["poet"]
    state = edit(state)
    state["secret"]["decks"]["professions"] = []
    state = play(state, (0, END))
    assert {"type": "buy_profession"} not in GAME.legal_moves(state, 1)
    illegal(state, 1, {"type": "buy_profession"}, "deck_empty")


def test_bonus_card_choice_of_five() -> None:
    state = play(phase_b(), (0, {"type": "buy_bonus_card"}))
    shown = decision(state, 0)["private"]["cards"]
    assert shown == ["per_building", "per_large_building", "per_medium_building_and_woods",
                     "per_small_building_and_landscape", "per_building_size"]
    illegal(state, 0, {"type": "choose_card", "card": "per_woods", "return_order": shown[1:]}, "bad_choice")
    state = play(state, (0, {"type": "choose_card", "card": shown[1], "return_order": [shown[0]] + shown[2:]}))
    assert state["players"][0]["private"]["bonus_cards"] == [shown[1]]
    assert deck(state, "bonus_cards")[-4:] == [shown[0]] + shown[2:] and len(deck(state, "bonus_cards")) == 19


# --- enticement in the own turn --------------------------------------------------------------------


def test_enticing_in_the_own_turn_is_free_and_uses_no_action() -> None:
    state = edit(phase_b())
    two = state["players"][2]
    two["private"]["hand"].remove("historian")
    two["played"].append("historian")
    two["works"].append({"profession": "historian", "value": 7, "round": 1, "bonus_cards": []})
    state = give(state, 0, enticements=1)
    illegal(state, 1, {"type": "entice", "profession": "historian"}, "not_your_decision")
    assert {"type": "entice", "profession": "historian"} in GAME.legal_moves(state, 0)
    state, events = play_events(state, (0, {"type": "entice", "profession": "historian"}))
    assert waiting(state) == (0, "action") and state["turn"]["actions"] == 0
    assert state["players"][0]["private"]["hand"][-1] == "historian"
    assert state["players"][2]["enticements_received"] == 1
    # the card is used: nothing more to entice, and two actions are still to come
    illegal(state, 0, {"type": "entice", "profession": "historian"}, "bad_target")
    state = play(state, (0, {"type": "buy_freedom", "freedom": "travel"}))
    assert waiting(state) == (0, "action")


def test_no_enticing_without_a_card() -> None:
    state = edit(phase_b())
    two = state["players"][2]
    two["private"]["hand"].remove("historian")
    two["played"].append("historian")
    illegal(state, 0, {"type": "entice", "profession": "historian"}, "bad_target")
    assert not [m for m in GAME.legal_moves(state, 0) if m["type"] == "entice"]
