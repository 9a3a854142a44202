"""Properties of every Goofspiel game, checked after every move of random whole games: views fit their
schema and hide every pending bid but the viewer's own, hands shrink by one card a round, the points
are the prizes taken, apply never changes its input, and a seed and the moves determine the game."""
from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import copy_state
from engine.bots import choose_move
from engine.bots.play import play_game
from tests.goofspiel_helpers import GAME
from tests.test_engine_schemas import validator

VIEW = validator(GAME.schemas["view"])
RESULT = validator(GAME.schemas["result"])


def with_other_bids(state: dict, viewer: int | None, rng: random.Random) -> dict:
    """The same game with every hidden bid but the viewer's changed to another card of that hand."""
    state = copy_state(state)
    for player in state["players"]:
        if player["seat"] != viewer and player["has_bid"]:
            player["private"]["bid"] = rng.choice(player["hand"])
    return state


def check(state: dict, rng: random.Random) -> None:
    options, players, history = state["options"], state["players"], state["history"]
    deck = list(range(1, options["cards"] + 1))
    for player in players:
        played = [bid["card"] for entry in history for bid in entry["bids"] if bid["seat"] == player["seat"]]
        assert len(player["hand"]) == options["cards"] - len(history)
        assert sorted(player["hand"] + played) == deck
        assert player["points"] == sum(player["won"])
    taken = [entry["stake"] for entry in history if entry["outcome"] == "taken"]
    assert sum(player["points"] for player in players) == sum(taken)
    prizes = [card for player in players for card in player["won"]]
    prizes += [entry["prize"] for entry in history if entry["outcome"] == "lost"] + list(state["carried"])
    prizes += (state["prize"] is not None) * [state["prize"]] + state["prizes_left"]
    assert len(prizes) == len(set(prizes)) and set(prizes) <= set(deck)
    for entry in history:
        top = max(bid["card"] for bid in entry["bids"])
        leaders = [bid["seat"] for bid in entry["bids"] if bid["card"] == top]
        assert entry["winner"] == (leaders[0] if len(leaders) == 1 else None)
    for viewer in [*range(len(players)), None]:
        seen = GAME.view(state, viewer)
        VIEW.validate(seen)
        for player in seen["players"]:
            assert ("private" in player) == (player["seat"] == viewer)
        assert GAME.view(with_other_bids(state, viewer, rng), viewer) == seen


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), seats=st.integers(2, 5), cards=st.integers(3, 13),
       ties=st.sampled_from(["discard", "carry"]))
def test_random_whole_games_keep_every_property(seed: int, seats: int, cards: int, ties: str) -> None:
    options = GAME.normalize_options({"seats": seats, "cards": cards, "ties": ties})
    state = GAME.new_state(options, GAME.make_setup(options, seed))
    rng = random.Random(seed)
    check(state, rng)
    while GAME.result(state) is None:
        decision = rng.choice(GAME.pending(state))
        seat = decision["seat"]
        before = copy_state(state)
        state, events = GAME.apply(state, seat, choose_move("random", GAME, state, seat, rng))
        assert state != before and before == copy_state(before)
        check(state, rng)
    assert len(state["history"]) == cards
    RESULT.validate(GAME.result(state))
    assert sorted(score["points"] for score in GAME.result(state)["scores"]) == sorted(
        player["points"] for player in state["players"])


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), seats=st.integers(2, 5))
def test_a_seed_and_the_bots_determine_the_game_and_the_moves_replay_it(seed: int, seats: int) -> None:
    options = GAME.normalize_options({"seats": seats, "ties": "carry" if seed % 2 else "discard"})
    bots = ["greedy", "random"] * 3
    first, moves = play_game(GAME, options, GAME.make_setup(options, seed), bots[:seats], seed)
    again, same = play_game(GAME, options, GAME.make_setup(options, seed), bots[:seats], seed)
    assert (first, moves) == (again, same)
    state = GAME.new_state(options, GAME.make_setup(options, seed))
    for entry in moves:
        state, _ = GAME.apply(state, entry["seat"], entry["move"])
    assert state == first and GAME.result(state) is not None
