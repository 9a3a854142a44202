"""Bots at Goofspiel: every bot plays every game, random only legal moves, greedy from its own view
only and clearly better than random (a count over many games, not a timing)."""
from __future__ import annotations

import random

import pytest

from engine import copy_state, get_game
from engine.bots import BOTS, choose_move
from engine.bots.play import play_game
from tests.goofspiel_helpers import GAME, new_game


def _new(seats: int, seed: int, **options):
    options = GAME.normalize_options({"seats": seats, **options})
    return options, GAME.make_setup(options, seed)


@pytest.mark.parametrize("name", ["princes-of-florence", "goofspiel"])
@pytest.mark.parametrize("bot", BOTS)
def test_every_bot_plays_every_game(name, bot):
    game = get_game(name)
    options = game.normalize_options({"seats": 3})
    state = game.new_state(options, game.make_setup(options, 1))
    seat = game.pending(state)[0]["seat"]
    assert choose_move(bot, game, state, seat, random.Random(0)) in game.legal_moves(state, seat)


@pytest.mark.parametrize("seats", [2, 3, 5])
@pytest.mark.parametrize("ties", ["discard", "carry"])
def test_bots_play_whole_games_with_legal_moves(seats, ties):
    options, setup = _new(seats, seats, ties=ties)
    state, rng = GAME.new_state(options, setup), random.Random(seats)
    while GAME.result(state) is None:
        for decision in GAME.pending(state):
            seat = decision["seat"]
            for bot in BOTS:
                assert choose_move(bot, GAME, state, seat, rng) in GAME.legal_moves(state, seat)
        seat = GAME.pending(state)[0]["seat"]
        state, _ = GAME.apply(state, seat, choose_move("random", GAME, state, seat, rng))
    final, moves = play_game(GAME, options, setup, ["greedy", "random", "random", "greedy", "random"][:seats], 3)
    assert GAME.result(final) is not None and len(moves) == seats * (options["cards"] - 1)


def test_greedy_bids_the_card_that_ranks_as_the_prize():
    state = new_game([13, *range(1, 13)], seats=2)
    assert choose_move("greedy", GAME, state, 0, random.Random(0)) == {"type": "bid", "card": 13}
    state = new_game([1, *range(2, 14)], seats=2)
    assert choose_move("greedy", GAME, state, 0, random.Random(0)) == {"type": "bid", "card": 1}
    state = new_game([5, 1, 2, 3, 4], seats=2, ties="carry")
    state, _ = GAME.apply(state, 0, {"type": "bid", "card": 2})
    state, _ = GAME.apply(state, 1, {"type": "bid", "card": 2})  # tied: 5 + 1 at stake, more than any prize left
    assert choose_move("greedy", GAME, state, 0, random.Random(0)) == {"type": "bid", "card": 5}


def test_greedy_decides_from_what_its_seat_may_see():
    state = new_game([7, *range(1, 7), *range(8, 14)], seats=3)
    state, _ = GAME.apply(state, 1, {"type": "bid", "card": 13})
    seen = choose_move("greedy", GAME, state, 0, random.Random(0))
    scrambled = copy_state(state)
    scrambled["players"][1]["private"]["bid"] = 1
    scrambled["secret"]["prizes"] = scrambled["secret"]["prizes"][::-1]
    assert choose_move("greedy", GAME, scrambled, 0, random.Random(0)) == seen


def test_greedy_clearly_beats_random():
    """One greedy and two random bots, greedy moving one seat on each game: a fair share is a third."""
    games, wins = 200, 0
    for seed in range(games):
        bots = ["random"] * 3
        bots[seed % 3] = "greedy"
        options, setup = _new(3, seed, ties="carry" if seed % 2 else "discard")
        state, _ = play_game(GAME, options, setup, bots, seed)
        wins += GAME.result(state)["winners"] == [seed % 3]
    assert wins / games >= 0.7
