"""Goofspiel's greedy bot: bid the card of its hand that ranks as the prize at stake ranks among the
prizes still to come (the 13 for the best prize, its lowest card for the worst).

Its hand and the prizes left are equally many, so each card finds its prize; a stake swollen by
carried ties ranks higher and draws a higher card. It reads only its own seat's view, and plays
the same in the same position (it needs no chance).
"""
from __future__ import annotations

import random

from engine.core import Game, Move, State


def choose(game: Game, state: State, seat: int, rng: random.Random) -> Move:
    view = game.view(state, seat)
    hand = view["players"][seat]["hand"]
    rank = sum(value < view["stake"] for value in view["prizes_left"]["values"])
    return {"type": "bid", "card": hand[min(rank, len(hand) - 1)]}
