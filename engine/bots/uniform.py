"""The random bot: a uniform choice among the legal moves, for any game.

It is the baseline the other bots must beat, and a cheap way to reach odd corners of the rules.
"""
from __future__ import annotations

import random

from engine.core import Game, Move, State


def choose(game: Game, state: State, seat: int, rng: random.Random) -> Move:
    return rng.choice(game.legal_moves(state, seat))
