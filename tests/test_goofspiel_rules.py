"""Goofspiel's rules: scoring, both tie rules, bids hidden until all are in, refusals with their
codes, the default move, options and setups, and the last round that plays itself."""
from __future__ import annotations

import json

import pytest

from engine import IllegalMove, copy_state, get_game, redact
from engine.core import standings
from tests.goofspiel_helpers import GAME, bid, illegal, new_game, play_round


def test_it_is_registered_with_its_interface():
    assert get_game("goofspiel") is GAME
    assert (GAME.min_seats, GAME.max_seats) == (2, 5)
    assert GAME.decision_kinds == ["bid"] and GAME.deadline_keys == ["bid"]
    assert set(GAME.move_types) == {"bid"}


def test_the_first_prize_shows_and_every_seat_bids_at_once():
    state = new_game([3, 1, 2, 5, 4], seats=3)
    assert (state["round"], state["prize"], state["prizes_left"]) == (1, 3, [1, 2, 4, 5])
    assert GAME.pending(state) == [{"seat": s, "kind": "bid", "deadline": "bid"} for s in range(3)]
    assert GAME.legal_moves(state, 1) == [{"type": "bid", "card": c} for c in range(1, 6)]
    state = bid(state, 1, 4)
    assert [d["seat"] for d in GAME.pending(state)] == [0, 2]
    assert GAME.legal_moves(state, 1) == []


def test_the_one_highest_bid_takes_the_prize():
    state, events = play_round(new_game([3, 1, 2, 5, 4], seats=3), 2, 5, 4)
    assert [p["points"] for p in state["players"]] == [0, 3, 0]
    assert state["players"][1]["won"] == [3]
    assert [p["hand"] for p in state["players"]] == [[1, 3, 4, 5], [1, 2, 3, 4], [1, 2, 3, 5]]
    entry = state["history"][0]
    assert entry == {"round": 1, "prize": 3, "carried": [], "stake": 3, "winner": 1, "outcome": "taken",
                     "bids": [{"seat": 0, "card": 2}, {"seat": 1, "card": 5}, {"seat": 2, "card": 4}]}
    assert [e["type"] for e in events] == ["bid_made", "bid_made", "bid_made", "round_over", "prize_turned"]
    assert events[3] == {"type": "round_over", **entry}
    assert events[4] == {"type": "prize_turned", "round": 2, "prize": 1, "stake": 1}
    assert (state["round"], state["prize"], state["prizes_left"]) == (2, 1, [2, 4, 5])
    assert all(not p["has_bid"] and p["private"] == {"bid": None} for p in state["players"])


def test_a_lower_bid_tied_does_not_matter_only_the_highest():
    state, _ = play_round(new_game([5, 1, 2, 3, 4], seats=3), 2, 2, 3)
    assert state["history"][0]["winner"] == 2 and state["players"][2]["points"] == 5


def test_discard_a_tied_highest_bid_loses_the_prize():
    state, _ = play_round(new_game([5, 1, 2, 3, 4], seats=3), 4, 4, 1)
    assert state["history"][0]["winner"] is None and state["history"][0]["outcome"] == "lost"
    assert [p["points"] for p in state["players"]] == [0, 0, 0]
    assert state["carried"] == []
    state, _ = play_round(state, 5, 1, 2)  # the next round is worth its own prize only
    assert state["players"][0]["points"] == 1 and state["history"][1]["stake"] == 1


def test_carry_a_tied_prize_adds_to_the_next_round():
    state, events = play_round(new_game([5, 1, 2, 3, 4], seats=2, ties="carry"), 4, 4)
    assert state["history"][0]["outcome"] == "carried" and state["carried"] == [5]
    assert events[-1] == {"type": "prize_turned", "round": 2, "prize": 1, "stake": 6}
    assert GAME.view(state, None)["stake"] == 6
    state, _ = play_round(state, 1, 1)  # tied again: both carry on
    assert state["carried"] == [5, 1] and GAME.view(state, 0)["stake"] == 8
    state, _ = play_round(state, 2, 3)
    assert state["history"][2] == {"round": 3, "prize": 2, "carried": [5, 1], "stake": 8, "winner": 1,
                                   "outcome": "taken", "bids": [{"seat": 0, "card": 2}, {"seat": 1, "card": 3}]}
    assert state["players"][1]["points"] == 8 and state["players"][1]["won"] == [1, 2, 5]
    assert state["carried"] == []


def test_carry_a_tie_in_the_last_round_is_lost():
    state = new_game([1, 2, 3], seats=2, ties="carry")
    state, _ = play_round(state, 1, 2)   # seat 1 takes 1
    state, events = play_round(state, 2, 1)  # seat 0 takes 2; both are left holding the 3: a tie
    assert state["phase"] == "over"
    assert state["history"][-1]["outcome"] == "lost" and state["history"][-1]["stake"] == 3
    assert [p["points"] for p in state["players"]] == [2, 1]


def test_the_last_round_plays_itself_and_the_game_ends():
    state = new_game([2, 3, 1], seats=2)
    state, _ = play_round(state, 3, 1)
    state, events = play_round(state, 2, 3)
    types = [e["type"] for e in events]
    assert types == ["bid_made", "bid_made", "round_over", "prize_turned", "last_round", "round_over", "game_over"]
    assert state["phase"] == "over" and state["prize"] is None
    assert GAME.pending(state) == [] and GAME.legal_moves(state, 0) == []
    last = state["history"][-1]
    assert last["prize"] == 1 and last["bids"] == [{"seat": 0, "card": 1}, {"seat": 1, "card": 2}]
    assert [p["hand"] for p in state["players"]] == [[], []]
    assert GAME.result(state) == events[-1]["result"] == {
        "scores": [{"seat": 0, "points": 2, "prizes": [2], "rank": 2},
                   {"seat": 1, "points": 4, "prizes": [1, 3], "rank": 1}],
        "winners": [1]}
    assert GAME.result(new_game([1, 2, 3])) is None


def test_equal_points_share_a_rank_and_standings_read_the_result():
    state = new_game([1, 2, 3, 4], seats=3)
    state, _ = play_round(state, 4, 1, 2)  # seat 0 takes 1
    state, _ = play_round(state, 1, 4, 3)  # seat 1 takes 2
    state, _ = play_round(state, 3, 2, 1)  # seat 0 takes 3; the 4 plays itself: 2, 3, 4 -> seat 2
    result = GAME.result(state)
    assert [(s["points"], s["rank"]) for s in result["scores"]] == [(4, 1), (2, 3), (4, 1)]
    assert result["winners"] == [0, 2]
    assert standings(GAME, result) == [{"seat": 0, "rank": 1, "score": 4}, {"seat": 1, "rank": 3, "score": 2},
                                       {"seat": 2, "rank": 1, "score": 4}]


# --- bids hidden until all are in ----------------------------------------------------------------


def test_a_pending_bid_is_seen_by_its_seat_alone_then_by_everyone():
    state = new_game([3, 1, 2, 5, 4], seats=3)
    state, events = GAME.apply(state, 1, {"type": "bid", "card": 4})
    mine = GAME.view(state, 1)
    assert mine["players"][1]["private"] == {"bid": 4} and mine["players"][1]["has_bid"]
    for viewer in (0, 2, None):
        seen = GAME.view(state, viewer)
        assert "private" not in seen["players"][1] and seen["players"][1]["has_bid"]
        assert seen["players"][1]["hand"] == [1, 2, 3, 4, 5], "the hand keeps the card until the reveal"
        assert '"secret"' not in json.dumps(seen)
    assert [redact(e, 0) for e in events] == [{"type": "bid_made", "seat": 1}]
    assert [redact(e, 1) for e in events] == [{"type": "bid_made", "seat": 1, "private": {"card": 4}}]
    state, events = play_round_from(state, {0: 2, 2: 5})
    for viewer in (0, 1, 2, None):
        seen = GAME.view(state, viewer)
        assert seen["history"][0]["bids"] == [{"seat": 0, "card": 2}, {"seat": 1, "card": 4}, {"seat": 2, "card": 5}]
        assert redact(events[-2], viewer)["bids"] == seen["history"][0]["bids"]


def play_round_from(state, cards: dict[int, int]):
    events = []
    for seat, card in cards.items():
        state, more = GAME.apply(state, seat, {"type": "bid", "card": card})
        events += more
    return state, events


def test_what_others_see_does_not_depend_on_the_card_bid():
    state = new_game([3, 1, 2, 5, 4], seats=3)
    seen = {card: [GAME.view(bid(state, 0, card), viewer) for viewer in (1, 2, None)] for card in range(1, 6)}
    assert all(views == seen[1] for views in seen.values())


def test_the_prize_deck_order_is_seen_by_nobody():
    state = new_game([3, 1, 2, 5, 4], seats=2)
    for viewer in (0, 1, None):
        seen = GAME.view(state, viewer)
        assert "secret" not in seen
        assert seen["prizes_left"] == {"count": 4, "values": [1, 2, 4, 5]}


# --- refusals -------------------------------------------------------------------------------------


def test_moves_are_refused_with_their_codes_and_change_nothing():
    state = new_game([3, 1, 2, 5, 4], seats=2)
    before = copy_state(state)
    illegal(state, 0, "bid 3", "bad_move")
    illegal(state, 0, {"type": "fold"}, "unknown_move")
    illegal(state, 0, {"type": "bid"}, "bad_move")
    illegal(state, 0, {"type": "bid", "card": "3"}, "bad_move")
    illegal(state, 0, {"type": "bid", "card": True}, "bad_move")
    illegal(state, 0, {"type": "bid", "card": 3, "also": 1}, "bad_move")
    illegal(state, 0, {"type": "bid", "card": 6}, "not_in_hand")
    illegal(state, 0, {"type": "bid", "card": 0}, "not_in_hand")
    illegal(state, 2, {"type": "bid", "card": 3}, "bad_seat")
    illegal(state, -1, {"type": "bid", "card": 3}, "bad_seat")
    assert state == before
    once = bid(state, 0, 3)
    illegal(once, 0, {"type": "bid", "card": 2}, "already_bid")
    played, _ = play_round(state, 3, 1)
    illegal(played, 0, {"type": "bid", "card": 3}, "not_in_hand")
    over, _ = play_round(new_game([1, 2, 3]), 1, 2)
    over, _ = play_round(over, 2, 1)
    illegal(over, 0, {"type": "bid", "card": 3}, "game_over")
    assert state == before, "apply never changes its input"


def test_the_default_is_the_lowest_card_in_hand():
    state = new_game([3, 1, 2, 5, 4], seats=2)
    assert GAME.default_move(state, 1) == {"type": "bid", "card": 1}
    state, _ = play_round(state, 1, 2)
    assert GAME.default_move(state, 0) == {"type": "bid", "card": 2}
    assert GAME.default_move(state, 1) == {"type": "bid", "card": 1}
    with pytest.raises(IllegalMove):
        GAME.default_move(bid(state, 0, 4), 0)


# --- options and setups ---------------------------------------------------------------------------


def test_options_are_filled_in_and_checked():
    assert GAME.normalize_options({}) == {"seats": 2, "cards": 13, "ties": "discard"}
    chosen = {"seats": 5, "cards": 3, "ties": "carry"}
    assert GAME.normalize_options(chosen) == chosen
    for bad in ({"seats": 1}, {"seats": 6}, {"seats": "3"}, {"seats": True}, {"cards": 2}, {"cards": 14},
                {"cards": 5.0}, {"cards": False}, {"ties": "share"}, {"ties": None}, {"colour": "red"}):
        with pytest.raises(IllegalMove) as refused:
            GAME.normalize_options(bad)
        assert refused.value.code == "bad_options", bad


def test_a_setup_is_an_order_of_the_whole_prize_deck():
    options = GAME.normalize_options({"cards": 5})
    assert sorted(GAME.make_setup(options, 7)["prizes"]) == [1, 2, 3, 4, 5]
    assert GAME.make_setup(options, 7) == GAME.make_setup(options, 7)
    assert any(GAME.make_setup(options, seed) != GAME.make_setup(options, 7) for seed in range(8, 12))
    for bad in ({"prizes": [1, 2, 3, 4]}, {"prizes": [1, 2, 3, 4, 4]}, {"prizes": [1, 2, 3, 4, 6]},
                {"prizes": [1, 2, 3, 4, "5"]}, {"prizes": [1, 2, 3, 4, True]}, {"deck": [1, 2, 3, 4, 5]},
                {"prizes": [1, 2, 3, 4, 5], "more": 1}, [1, 2, 3, 4, 5], None):
        with pytest.raises(IllegalMove) as refused:
            GAME.new_state(options, bad)
        assert refused.value.code == "bad_setup", bad


def test_words_name_every_id_and_label_moves_and_options():
    from engine.core import option_words, word
    assert word(GAME, "goofspiel") == "Goofspiel"
    assert word(GAME, "bid") == "to bid a card"
    assert GAME.describe({"type": "bid", "card": 7}) == "Bid 7"
    assert option_words(GAME, GAME.normalize_options({"cards": 10, "ties": "carry"})) == [
        "10 cards in each hand and in the prize deck (1 to 10)", "a tied prize carries over to the next round"]
    with pytest.raises(KeyError):
        word(GAME, "nonsense")
