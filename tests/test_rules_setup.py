"""Setup: options, the explicit setup, the deal, and keeping 3 of 4 professions (simultaneously)."""
from __future__ import annotations

import pytest

from engine import IllegalMove
from tests.rules_helpers import (
    GAME, PROFESSION_ORDER, cash, deck, dealt, illegal, keep_all, new_game, play, pp, to_round, waiting,
)


def test_new_game_cash_prestige_and_supply() -> None:
    state = new_game(4)
    assert state["round"] == 1 and state["phase"] == "professions" and state["start_player"] == 0
    assert [cash(state, s) for s in range(4)] == [3500] * 4
    assert [pp(state, s) for s in range(4)] == [0] * 4
    supply = state["supply"]
    assert (supply["woods"], supply["lake"], supply["park"]) == (6, 6, 6)
    assert (supply["architect"], supply["enticement"], supply["juggler"]) == (6, 5, 7)
    assert set(supply["buildings"].values()) == {3} and len(supply["buildings"]) == 10
    assert supply["freedoms"] == {"travel": 3, "opinion": 3, "religion": 3}  # 4 players - 1


@pytest.mark.parametrize(("seats", "freedoms"), [(3, 2), (5, 4)])
def test_freedom_supply_is_players_minus_one(seats: int, freedoms: int) -> None:
    assert set(new_game(seats)["supply"]["freedoms"].values()) == {freedoms}


def test_each_seat_is_dealt_four_in_deck_order_and_all_decide_at_once() -> None:
    state = new_game(4)
    assert sorted(d["seat"] for d in state["pending"]) == [0, 1, 2, 3]
    assert {d["kind"] for d in state["pending"]} == {"keep_professions"}
    assert dealt(state, 0) == ["alchemist", "botanist", "physicist", "bell_maker"]
    assert dealt(state, 3) == ["choreographer", "painter", "sculptor", "doctor"]
    # 21 - 16 dealt = 5 left, in order
    assert deck(state, "professions") == ["pharmacist", "dramatist", "poet", "astronomer", "organ_builder"]


def test_kept_cards_go_to_hand_and_the_fourth_goes_under_the_deck_in_seat_order() -> None:
    keep = {0: ["alchemist", "physicist", "bell_maker"],  # returns botanist
            1: ["goldsmith", "architect", "mathematician"],  # returns jurist
            2: ["map_maker", "historian", "composer"],  # returns philosopher
            3: ["choreographer", "painter", "doctor"]}  # returns sculptor
    forward = keep_all(new_game(4), keep, order=[0, 1, 2, 3])
    backward = keep_all(new_game(4), keep, order=[3, 1, 0, 2])
    expected = ["pharmacist", "dramatist", "poet", "astronomer", "organ_builder",
                "botanist", "jurist", "philosopher", "sculptor"]
    assert deck(forward, "professions") == expected
    assert deck(backward, "professions") == expected
    assert forward["players"][2]["private"]["hand"] == ["map_maker", "historian", "composer"]
    assert forward["players"] == backward["players"]
    assert forward["phase"] == "auction" and waiting(forward) == (0, "open_auction")


def test_the_deal_waits_for_everyone() -> None:
    state = play(new_game(3), (1, {"type": "keep_professions", "professions": ["jurist", "mathematician", "goldsmith"]}))
    assert state["phase"] == "professions"
    assert sorted(d["seat"] for d in state["pending"]) == [0, 2]
    # the returned card is not under the deck yet (nobody may learn the order of submission)
    assert len(deck(state, "professions")) == 21 - 12


@pytest.mark.parametrize("kept", [
    ["alchemist", "botanist"],  # two
    ["alchemist", "botanist", "physicist", "bell_maker"],  # four
    ["alchemist", "alchemist", "botanist"],  # the same twice
    ["alchemist", "botanist", "goldsmith"],  # goldsmith was dealt to seat 1
])
def test_keep_exactly_three_different_dealt_cards(kept: list[str]) -> None:
    illegal(new_game(4), 0, {"type": "keep_professions", "professions": kept}, "bad_choice")


def test_keeping_twice_is_refused() -> None:
    state = play(new_game(3), (0, {"type": "keep_professions", "professions": ["alchemist", "botanist", "physicist"]}))
    illegal(state, 0, {"type": "keep_professions", "professions": ["alchemist", "botanist", "bell_maker"]},
            "not_your_decision")


def test_default_keep_gives_back_the_last_card_dealt() -> None:
    state = new_game(3)
    assert GAME.default_move(state, 1) == {"type": "keep_professions",
                                           "professions": ["goldsmith", "architect", "mathematician"]}


def test_options_and_setup_are_checked() -> None:
    for options in ({"seats": 2}, {"seats": 6}, {"seats": True}, {"bidding": "dutch"},
                    {"auction_pass": "yes"}, {"colour": "red"}):
        with pytest.raises(IllegalMove) as info:
            GAME.normalize_options(options)
        assert info.value.code == "bad_options"
    options = GAME.normalize_options({"seats": 3})
    assert options == {"seats": 3, "bidding": "step", "auction_pass": False, "shuffle_seats": False}
    good = GAME.make_setup(options, 7)
    assert good == GAME.make_setup(options, 7)  # a seed determines the setup
    for bad in ({**good, "seat_order": [0, 1, 1]},
                {**good, "decks": {**good["decks"], "professions": PROFESSION_ORDER[:-1]}},
                {**good, "decks": {**good["decks"], "professions": good["decks"]["bonus_cards"]}},
                {"seat_order": [0, 1, 2]}):
        with pytest.raises(IllegalMove) as info:
            GAME.new_state(options, bad)
        assert info.value.code == "bad_setup"


def test_start_player_moves_one_seat_each_round() -> None:
    state = keep_all(new_game(3))
    assert state["start_player"] == 0 and waiting(state) == (0, "open_auction")
    state = to_round(state, 2)
    assert state["start_player"] == 1 and waiting(state) == (1, "open_auction")
    state = to_round(state, 3)
    assert state["start_player"] == 2 and waiting(state) == (2, "open_auction")
    state = to_round(state, 4)
    assert state["start_player"] == 0 and waiting(state) == (0, "open_auction")
