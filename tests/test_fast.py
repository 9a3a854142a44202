"""The fast path for playouts (engine/pof/fast.py) held to the real engine over whole random games:
`random_move` picks what the random bot picks with the same draws, `step` leaves the state `apply`
returns with the same events, and `playout` ends where `play_game` ends."""
from __future__ import annotations

import json
import random
import subprocess
import sys
from itertools import permutations

import pytest

from engine import copy_state, get_game
from engine.bots import choose_move, uniform
from engine.bots.play import play_game
from engine.pof import fast
from engine.pof.data import AUCTION_ITEMS, ROUNDS

GAME = get_game("princes-of-florence")
OPTIONS = [
    {"seats": 3},
    {"seats": 4, "bidding": "open", "auction_pass": True},
    {"seats": 5},
    {"seats": 5, "bidding": "open", "shuffle_seats": True},
]


def _start(options: dict, seed: int) -> tuple[dict, dict]:
    options = GAME.normalize_options(options)
    return options, GAME.new_state(options, GAME.make_setup(options, seed))


def _twin(rng: random.Random) -> random.Random:
    twin = random.Random()
    twin.setstate(rng.getstate())
    return twin


def _free_move(state: dict, seat: int, rng: random.Random) -> dict | None:
    """Now and then a move no list offers: standing orders (at any time) or a sale of prestige (at a
    decision of the seat's own), so that `step` is held to `apply` on them and on what they set off."""
    roll = rng.random()
    if roll < 0.04 and (state["phase"] != "actions" or state["round"] < ROUNDS):
        limits = {item: rng.choice([0, 300, 600]) for item in rng.sample(AUCTION_ITEMS, rng.randint(0, 3))}
        return {"type": "set_orders", "limits": limits, "step_out_otherwise": rng.random() < 0.5}
    if roll < 0.06 and state["players"][seat]["prestige"] > 0:
        return {"type": "sell_prestige", "points": 1}
    return None


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_random_move_and_step_are_the_random_bot_and_apply(options):
    for seed in range(4):
        _, state = _start(options, seed)
        mine = copy_state(state)
        rng = random.Random(f"fast:{seed}")
        while GAME.result(state) is None:
            seat = GAME.pending(state)[0]["seat"]
            move = _free_move(state, seat, rng)
            if move is None:
                twin = _twin(rng)
                move = fast.random_move(mine, seat, rng)
                assert move == uniform.choose(GAME, state, seat, twin)
                assert rng.getstate() == twin.getstate(), "random_move draws as the random bot draws"
            state, events = GAME.apply(state, seat, move)
            assert fast.step(mine, seat, move) == events
            assert mine == state
        assert mine["result"] == GAME.result(state)


def test_step_plays_greedy_moves_as_apply():
    """Greedy fills a publish with every card that adds something: fillings `random_move` rarely makes."""
    for seed in range(3):
        _, state = _start({"seats": 4}, seed)
        mine = copy_state(state)
        rngs = [random.Random(seat) for seat in range(4)]
        while GAME.result(state) is None:
            seat = GAME.pending(state)[0]["seat"]
            move = choose_move("greedy" if seat % 2 else "random", GAME, state, seat, rngs[seat])
            state, events = GAME.apply(state, seat, move)
            collected: list[dict] = []
            assert fast.step(mine, seat, move, collected) is collected and collected == events
            assert mine == state


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_a_playout_of_random_moves_ends_as_play_game_with_random_bots(options):
    for seed in range(3):
        options_, state = _start(options, seed)
        before = json.dumps(state, sort_keys=True)
        rngs = [random.Random(f"{seed}:{seat}") for seat in range(options_["seats"])]
        end = fast.playout(state, rngs)
        assert json.dumps(state, sort_keys=True) == before, "a playout plays on a copy unless told otherwise"
        final, _ = play_game(GAME, options_, GAME.make_setup(options_, seed), ["random"] * options_["seats"], seed)
        assert end == final and GAME.result(end) is not None


def test_a_playout_from_the_middle_by_any_policy_is_the_game_apply_plays():
    options, state = _start({"seats": 5}, 7)
    rng = random.Random(7)
    for _ in range(120):  # into the second round or so
        seat = GAME.pending(state)[0]["seat"]
        state, _ = GAME.apply(state, seat, uniform.choose(GAME, state, seat, rng))

    def greedy(state: dict, seat: int, rng: random.Random) -> dict:
        return choose_move("greedy", GAME, state, seat, rng)

    end = fast.playout(state, random.Random(1), greedy)
    rng = random.Random(1)
    while GAME.result(state) is None:
        seat = GAME.pending(state)[0]["seat"]
        state, _ = GAME.apply(state, seat, greedy(state, seat, rng))
    assert end == state
    own = copy_state(end)
    assert fast.playout(own, rng, copy=False) is own


def test_the_nth_order_is_the_nth_of_permutations():
    for size in range(6):
        cards = [f"card{i}" for i in range(size)]
        assert [fast._nth_order(cards, i) for i in range(len(list(permutations(cards))))] == \
            [list(order) for order in permutations(cards)]


@pytest.mark.parametrize("module", ["engine.pof.fast", "engine.bots.search", "engine.bots"])
def test_the_playout_modules_import_first(module):
    """fast and the bots import each other's modules: each must import on its own, in a fresh interpreter."""
    done = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
