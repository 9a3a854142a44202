"""The random bot: a uniform choice among the legal moves, for any game.

It is the baseline the other bots must beat, and a cheap way to reach odd corners of the rules.
A listed move with fields to fill in (`engine.core.Fillable`) is one entry however many fillings it
has, so the bot also fills it in at random half the time, to reach those corners as well.
"""
from __future__ import annotations

import random

from engine.core import Game, Move, State, filled, fills


def choose(game: Game, state: State, seat: int, rng: random.Random) -> Move:
    move = rng.choice(game.legal_moves(state, seat))
    for fill in fills(game, state, seat, move):
        if rng.random() < 0.5:
            values = [choice["value"] for choice in fill["choices"] if rng.random() < 0.5]
            move = filled(move, fill, values) or move
    return move
