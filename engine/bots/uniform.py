"""The random bot: a uniform choice among the legal moves, for any game.

It is the baseline the other bots must beat, and a cheap way to reach odd corners of the rules.
A listed move with fields to fill in (`engine.core.Fillable`) is one entry however many fillings it
has, so the bot also fills it in at random half the time, to reach those corners as well.
"""
from __future__ import annotations

import random

from engine.core import Fill, Game, Move, State, filled, fills


def choose(game: Game, state: State, seat: int, rng: random.Random) -> Move:
    move = rng.choice(game.legal_moves(state, seat))
    return fill_in(move, fills(game, state, seat, move), rng)


def fill_in(move: Move, annotations: list[Fill], rng: random.Random) -> Move:
    """The listed move as the bot sends it: each annotated field, half the time, refilled with a random
    subset of its choices (kept as listed when that subset falls short). Shared with
    `engine.pof.fast.random_move`, which must draw from `rng` exactly as `choose` does."""
    for fill in annotations:
        if rng.random() < 0.5:
            values = [choice["value"] for choice in fill["choices"] if rng.random() < 0.5]
            move = filled(move, fill, values) or move
    return move
