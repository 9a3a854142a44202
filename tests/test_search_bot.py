"""Determinization and the search bots: made-up states a seat could be in, a search that never peeks,
plays the same for a seed, spends its budget in playouts and plays whole games legally."""
from __future__ import annotations

import random
from collections import Counter

import pytest

from engine import copy_state, get_game
from engine.bots import BOTS, choose_move
from engine.bots.search import LEVELS, think
from engine.pof.data import PROFESSIONS
from engine.pof.sampling import determinize
from tests.test_bots import _listed_or_filled, _scramble_hidden
from tests.test_properties import check_state, profession_places

GAME = get_game("princes-of-florence")
TINY = 2  # playouts a decision in these tests (two candidates, one playout each): its logic, not its strength


def _positions(seats: int, seed: int, every: int = 1, bidding: str = "step"):
    """(state, seat) for every seat with a decision, every `every` moves of a game of random and greedy."""
    options = GAME.normalize_options({"seats": seats, "bidding": bidding})
    state, rng = GAME.new_state(options, GAME.make_setup(options, seed)), random.Random(seed)
    step = 0
    while GAME.result(state) is None:
        if step % every == 0:
            for decision in GAME.pending(state):
                yield state, decision["seat"]
        seat = GAME.pending(state)[0]["seat"]
        state, _ = GAME.apply(state, seat, choose_move("greedy" if step % 3 else "random", GAME, state, seat, rng))
        step += 1


def _hidden_parts(state: dict, seat: int) -> dict:
    """What the seat cannot see: the others' private parts and offers, and the secret."""
    return {
        "players": [p["private"] for p in state["players"] if p["seat"] != seat],
        "offers": [d.get("private") for d in state["pending"] if d["seat"] != seat],
        "secret": state["secret"],
    }


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_a_determinized_state_looks_the_same_to_its_seat_and_is_whole(seats):
    changed = 0
    for i, (state, seat) in enumerate(_positions(seats, seats, bidding="open" if seats == 4 else "step")):
        seen = GAME.view(state, seat)
        made = determinize(GAME, seen, seat, random.Random(i))
        assert GAME.view(made, seat) == seen
        check_state(made)  # every card in one place, nothing hidden shows in any seat's view
        assert GAME.legal_moves(made, seat) == GAME.legal_moves(state, seat)
        for key in set(state) | set(made):
            if key not in ("players", "pending", "secret"):
                assert made[key] == state[key]
        for real, other in zip(state["players"], made["players"]):
            assert {k: v for k, v in real.items() if k != "private"} == {k: v for k, v in other.items() if k != "private"}
        changed += _hidden_parts(made, seat) != _hidden_parts(state, seat)
    assert changed > 100  # the hidden parts are drawn, not copied


def test_determinized_states_play_on_to_the_end():
    for i, (state, seat) in enumerate(_positions(4, 7, every=25)):
        made = determinize(GAME, GAME.view(state, seat), seat, random.Random(i))
        rng = random.Random(i)
        while GAME.result(made) is None:
            mover = GAME.pending(made)[0]["seat"]
            made, _ = GAME.apply(made, mover, choose_move("random", GAME, made, mover, rng))
            assert profession_places(made) == Counter(list(PROFESSIONS))
        assert GAME.result(made)["winners"]


def test_the_cards_dealt_at_the_start_are_drawn_from_those_the_seat_has_not_seen():
    options = GAME.normalize_options({"seats": 3})
    state = GAME.new_state(options, GAME.make_setup(options, 2))
    hands = Counter()
    for i in range(300):
        made = determinize(GAME, GAME.view(state, 0), 0, random.Random(i))
        hands.update(made["pending"][1]["private"]["dealt"])
    mine = set(state["pending"][0]["private"]["dealt"])
    assert not mine & set(hands)
    assert set(hands) == set(PROFESSIONS) - mine  # any card seat 0 has not seen may be seat 1's


def test_the_search_bot_does_not_peek():
    """The same view gives the same move, whatever the hidden parts (drawn anew or scrambled)."""
    checked = 0
    for seats, seed in ((3, 11), (5, 12)):
        for i, (state, seat) in enumerate(_positions(seats, seed, every=17)):
            if len(GAME.legal_moves(state, seat)) < 2:
                continue
            other = determinize(GAME, GAME.view(state, seat), seat, random.Random(-i))
            seen = think(GAME, state, seat, random.Random(i), TINY).move
            assert think(GAME, other, seat, random.Random(i), TINY).move == seen
            assert think(GAME, _scramble_hidden(state, seat), seat, random.Random(i), TINY).move == seen
            checked += 1
    assert checked > 12


def test_the_search_bot_is_deterministic_for_a_seed_and_leaves_the_state_alone():
    for state, seat in list(_positions(3, 4, every=40))[:4]:
        before = copy_state(state)
        first = think(GAME, state, seat, random.Random(5), TINY)
        assert think(GAME, state, seat, random.Random(5), TINY) == first
        assert state == before


def test_each_level_spends_its_budget_in_playouts():
    assert LEVELS["search-easy"] < LEVELS["search"] < LEVELS["search-hard"]
    late = [(s, seat) for s, seat in _positions(3, 9) if s["round"] == 7 and len(GAME.legal_moves(s, seat)) > 1]
    state, seat = next((s, seat) for s, seat in late if GAME.pending(s)[0]["kind"] == "action")
    for level, budget in LEVELS.items():
        thought = think(GAME, state, seat, random.Random(0), budget)
        assert len(thought.values) > 1
        assert budget - len(thought.values) < thought.playouts <= budget


def test_search_bots_are_registered_and_play_whole_games_legally():
    assert {"search-easy", "search", "search-hard"} <= set(BOTS)
    options = GAME.normalize_options({"seats": 3, "bidding": "open", "auction_pass": True})
    state, rng = GAME.new_state(options, GAME.make_setup(options, 3)), random.Random(3)
    while GAME.result(state) is None:
        seat = GAME.pending(state)[0]["seat"]
        if seat == 0:
            move = think(GAME, state, seat, rng, 2).move
            assert _listed_or_filled(state, seat, move)
        else:
            move = choose_move("greedy", GAME, state, seat, rng)
        state, _ = GAME.apply(state, seat, move)
    assert GAME.result(state)["winners"]


def test_search_bots_play_goofspiel_as_its_own_greedy():
    game = get_game("goofspiel")
    options = game.normalize_options({"seats": 3})
    state = game.new_state(options, game.make_setup(options, 1))
    for level in LEVELS:
        assert choose_move(level, game, state, 0, random.Random(0)) == choose_move("greedy", game, state, 0,
                                                                                    random.Random(0))
