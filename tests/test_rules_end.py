"""The end of the game, default moves, what a viewer may see, and whole games played by random legal moves."""
from __future__ import annotations

import json
import random

import pytest

from engine import IllegalMove
from engine.core import filled, redact
from tests.rules_helpers import (
    GAME, cash, deck, drive, end_turns_until, frozen, give, illegal, keep_all, new_game, play, play_events, pp,
    to_actions, to_round, waiting,
)

END = {"type": "end_turn"}


# --- the end -------------------------------------------------------------------------------------


def last_turn(**cash_by_seat: int) -> dict:
    """3 seats, round 7, seat 2's turn (the last of the game): seat 0 has a juggler, seat 1 an unused
    enticement card, seat 2 an architect; everyone paid 7 x 200 = 1400, so each has 2100 florins."""
    state = to_round(keep_all(new_game(3)), 7)
    state = to_actions(state, {0: "juggler", 1: "enticement", 2: "architect"})
    state = end_turns_until(state, 2)
    assert [cash(state, s) for s in range(3)] == [2100, 2100, 2100]
    assert [pp(state, s) for s in range(3)] == [0, 0, 0]
    state = give(state, 0, prestige_cards=["most_jugglers"])  # 1 juggler, nobody else has one: 6
    state = give(state, 1, prestige_cards=["all_freedoms"], prestige=4)  # no freedoms: 0
    state = give(state, 2, prestige_cards=["most_architects"])  # 6
    for seat, amount in cash_by_seat.items():
        state = give(state, int(seat[1:]), cash=amount)
    return state


def test_after_round_seven_prestige_cards_are_scored_and_cash_breaks_ties() -> None:
    state, events = play_events(last_turn(s2=2200), (2, END))
    assert state["phase"] == "over" and state["pending"] == [] and state["round"] == 7
    result = GAME.result(state)
    assert [(s["seat"], s["prestige"], s["cash"], s["rank"]) for s in result["scores"]] == [
        (0, 6, 2100, 2), (1, 4, 2100, 3), (2, 6, 2200, 1)]
    assert result["scores"][0]["prestige_cards"] == [{"card": "most_jugglers", "points": 6}]
    assert result["scores"][1]["prestige_cards"] == [{"card": "all_freedoms", "points": 0}]
    assert result["winners"] == [2]
    assert events[-1] == {"type": "game_over", "result": result}


def test_a_tie_in_prestige_and_cash_is_shared() -> None:
    state = play(last_turn(), (2, END))
    assert [s["rank"] for s in GAME.result(state)["scores"]] == [1, 3, 1]
    assert GAME.result(state)["winners"] == [0, 2]


def test_nothing_happens_after_the_end() -> None:
    state = play(last_turn(), (2, END))
    for seat in range(3):
        assert GAME.legal_moves(state, seat) == []
        illegal(state, seat, END, "game_over")
        illegal(state, seat, {"type": "set_orders", "limits": {}, "step_out_otherwise": True}, "game_over")
        with pytest.raises(IllegalMove) as info:
            GAME.default_move(state, seat)
        assert info.value.code == "not_your_decision"


def test_the_game_is_not_over_before_round_seven_ends() -> None:
    state = play(to_round(keep_all(new_game(3)), 7))
    assert state["phase"] == "auction" and GAME.result(state) is None


# --- default moves --------------------------------------------------------------------------------


def test_default_moves() -> None:
    state = keep_all(new_game(4))
    assert GAME.default_move(state, 0) == {"type": "open_auction", "item": "woods"}
    with pytest.raises(IllegalMove) as info:
        GAME.default_move(state, 1)
    assert info.value.code == "not_your_decision"
    state = play(state, (0, {"type": "open_auction", "item": "woods"}))
    assert GAME.default_move(state, 1) == {"type": "step_out"}
    state = play(state, (1, {"type": "step_out"}), (2, {"type": "step_out"}), (3, {"type": "step_out"}))
    # the first placement in reading order, first orientation: the L standing at the top left
    assert GAME.default_move(state, 0) == {"type": "place_landscape", "squares": [[0, 0], [1, 0], [2, 0], [2, 1]]}
    state = play(state, (0, GAME.default_move(state, 0)))
    assert GAME.default_move(state, 1) == {"type": "open_auction", "item": "lake"}  # woods is sold
    state = to_actions(state)
    assert GAME.default_move(state, 0) == END
    state = play(state, (0, {"type": "buy_profession"}))
    assert GAME.default_move(state, 0) == {"type": "choose_card", "card": "pharmacist",
                                           "return_order": ["dramatist", "poet", "astronomer", "organ_builder"]}


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_a_game_of_timeouts_ends(seats: int) -> None:
    state = drive(keep_all(new_game(seats)), lambda s: s["phase"] == "over")
    result = GAME.result(state)
    assert len(result["scores"]) == seats and state["round"] == 7


# --- what a viewer sees ---------------------------------------------------------------------------


def test_a_view_hides_other_seats_cash_cards_offers_orders_and_the_decks() -> None:
    state = keep_all(new_game(4))
    state = play(state, (0, {"type": "open_auction", "item": "prestige_card"}), (1, {"type": "step_out"}),
                 (2, {"type": "step_out"}), (3, {"type": "step_out"}))
    state = give(state, 0, bonus_cards=["per_woods"], cash=1234)
    state = play(state, (0, {"type": "set_orders", "limits": {"lake": 600}, "step_out_otherwise": False}))
    assert waiting(state) == (0, "choose_card")
    secret_words = ["1234", "per_woods", "alchemist", "most_jugglers", "lake': 600", "pharmacist", "returned"]
    for viewer in (1, 2, 3, None):
        seen = GAME.view(state, viewer)
        text = json.dumps(seen)
        assert "secret" not in seen and "private" not in seen["players"][0]
        assert "private" not in seen["pending"][0]  # the 5 prestige cards shown to seat 0
        for word in secret_words:
            assert word.replace("'", '"') not in text, word
        # the public counts
        assert seen["decks"] == {"professions": 9, "bonus_cards": 19, "prestige_cards": 9}
        assert seen["players"][0]["counts"] == {"hand": 3, "bonus_cards": 1, "prestige_cards": 0,
                                                "enticements": 0, "person_cards": 3}
        assert seen["min_work_value"] == 7 and seen["players"][0]["prestige"] == 0
    mine = GAME.view(state, 0)
    assert mine["players"][0]["private"]["cash"] == 1234
    assert mine["pending"][0]["private"]["cards"] == deck(new_game(4), "prestige_cards")[:5]
    assert "private" not in mine["players"][1] and "secret" not in mine


def test_kept_and_chosen_cards_are_private_in_events() -> None:
    state = new_game(4)
    state, events = play_events(state, (2, {"type": "keep_professions",
                                            "professions": ["philosopher", "map_maker", "historian"]}))
    assert "philosopher" in json.dumps(redact(events, 2))
    for viewer in (0, 1, 3, None):
        assert "philosopher" not in json.dumps(redact(events, viewer))


# --- random legal games ---------------------------------------------------------------------------


def card_totals(state: dict, used_bonus_cards: list[str]) -> dict[str, int]:
    """Every profession, bonus and prestige card, wherever it is (bonus cards used on works are gone from
    the state, so the caller lists them); each must be somewhere exactly once."""
    seen: dict[str, list[str]] = {name: list(cards) for name, cards in state["secret"]["decks"].items()}
    seen["bonus_cards"] += used_bonus_cards
    for returned in state["secret"]["returned"].values():
        seen["professions"] += returned
    for p in state["players"]:
        seen["professions"] += p["private"]["hand"] + p["played"]
        seen["bonus_cards"] += p["private"]["bonus_cards"]
        seen["prestige_cards"] += p["private"]["prestige_cards"]
    for d in state["pending"]:
        if d["kind"] == "choose_card":
            seen[d["deck"]] += d["private"]["cards"]
        if d["kind"] == "keep_professions":
            seen["professions"] += d["private"]["dealt"]
    for name, cards in seen.items():
        assert len(cards) == len(set(cards)), (name, cards)
    return {name: len(cards) for name, cards in seen.items()}


@pytest.mark.parametrize(("seats", "seed", "options"), [
    (3, 1, {}), (4, 2, {"bidding": "open"}), (5, 3, {"auction_pass": True}), (4, 4, {}),
])
def test_random_legal_games_keep_every_invariant(seats: int, seed: int, options: dict) -> None:
    rng = random.Random(seed)
    state = GAME.new_state({"seats": seats, **options}, GAME.make_setup({"seats": seats, **options}, seed))
    steps, used = 0, []
    while state["phase"] != "over":
        steps += 1
        assert steps < 3000
        seat = state["pending"][rng.randrange(len(state["pending"]))]["seat"]
        moves = GAME.legal_moves(state, seat)
        assert moves and GAME.default_move(state, seat) in moves
        # prefer doing something over ending the turn or stepping out, so the game goes places
        busy = [m for m in moves if m["type"] not in ("end_turn", "step_out")] or moves
        move = rng.choice(busy if rng.random() < 0.7 else moves)
        for fill in GAME.fill(state, seat, move):  # a work with more cards than listed, when it may
            move = filled(move, fill, [c["value"] for c in fill["choices"] if rng.random() < 0.5]) or move
        state, events = GAME.apply(state, seat, move)
        assert json.loads(frozen(state)) == state  # still plain JSON
        used += [card for e in events if e["type"] == "work_published" for card in e["bonus_cards"]]
        assert card_totals(state, used) == {"professions": 21, "bonus_cards": 20, "prestige_cards": 14}
        for p in state["players"]:
            assert p["private"]["cash"] >= 0 and p["prestige"] >= 0 and p["architects"] <= 3
        supply = state["supply"]
        assert min(supply[k] for k in ("woods", "lake", "park", "juggler", "architect", "enticement")) >= 0
        assert min(supply["buildings"].values()) >= 0 and min(supply["freedoms"].values()) >= 0
    assert GAME.result(state) is not None


def test_illegal_moves_of_every_shape_leave_the_state_alone() -> None:
    state = to_actions(keep_all(new_game(4)))
    for seat, move, code in [
        (0, {"type": "fly"}, "unknown_move"),
        (0, {"kind": "end_turn"}, "bad_move"),
        (0, "end_turn", "bad_move"),
        (0, {"type": "end_turn", "now": True}, "bad_move"),
        (0, {"type": "buy_freedom"}, "bad_move"),
        (0, {"type": "bid", "amount": True}, "bad_move"),
        (0, {"type": "build", "building": "tower", "squares": [[0, 0, 0]]}, "bad_move"),
        (9, END, "bad_seat"),
        (-1, END, "bad_seat"),
        (0, {"type": "bid", "amount": 300}, "not_your_decision"),
        (0, {"type": "split_payout", "prestige": 0}, "not_your_decision"),
        (0, {"type": "keep_enticement"}, "not_your_decision"),
        (0, {"type": "build", "building": "tower", "squares": [[0, 0], [0, 1], [0, 7]]}, "bad_squares"),
    ]:
        illegal(state, seat, move, code)


def test_the_best_work_of_round_seven_counts_in_the_final_score() -> None:
    state = give(last_turn(), 2, jugglers=2, freedoms=["travel"], bonus_cards=["per_juggler"],
                 buildings=[("university", [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2], [2, 1]])])
    # philosopher: university 4 + travel 3 + 2 jugglers 4 + 3 person cards + per_juggler 4 = 18 >= 17
    state, events = play_events(state, (2, {"type": "publish", "profession": "philosopher",
                                            "bonus_cards": ["per_juggler"]}), (2, {"type": "split_payout", "prestige": 0}),
                                (2, END))
    assert {"type": "best_work", "round": 7, "value": 18, "seats": [2], "points": 3} in events
    assert state["phase"] == "over"
    scores = GAME.result(state)["scores"]
    assert (scores[2]["prestige"], scores[2]["cash"], scores[2]["rank"]) == (3 + 6, 2100 + 1800, 1)
