"""Bots that think slowly, for the tests of the bots' own queue (tests/test_bot_queue.py).

`palazzo worker` as the tests start it imports this module (conftest's WORKER). In a worker whose
environment has PALAZZO_TEST_SLOW_BOT="<bot> <seconds>", the toy game's <bot> waits that long before
it chooses, as a search bot thinking would; anywhere else this module changes nothing.
"""
from __future__ import annotations

import os
import time

import engine.bots
from engine.core import get_game

import tests.toy_game  # noqa: F401  (registers the toy game)


def _slowed(name: str, seconds: float):
    think = getattr(get_game("toy-count"), "bots", {}).get(name) or engine.bots._PLAYERS[name]

    def choose(game, state, seat, rng):
        time.sleep(seconds)
        return think(game, state, seat, rng)
    return choose


_asked = os.environ.get("PALAZZO_TEST_SLOW_BOT", "").split()
if _asked:
    _game = get_game("toy-count")
    _game.bots = {**getattr(_game, "bots", {}), _asked[0]: _slowed(_asked[0], float(_asked[1]))}
