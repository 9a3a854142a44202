"""Bots that play a seat, for simulations, benchmarks, tests and empty seats.

A bot decides only from what its seat may see: `game.view(state, seat)` and
`game.legal_moves(state, seat)`; it never reads other seats' private parts or the decks.

Every game is played by every bot of `BOTS` (the service offers them for any seat, and greedy stands in
for a silent player): "random" plays any game; a game may bring its own bots as an optional `bots`
attribute (name -> choose), which come before the ones here ("greedy" here is Princes of Florence's).
The search levels ("search-easy", "search", "search-hard": `search.LEVELS`) search Princes of Florence
and play any other game as its own greedy.
"""
from __future__ import annotations

import random

from engine.bots import greedy, search, uniform
from engine.core import Game, IllegalMove, Move, State

BOTS = ("random", "greedy", *search.LEVELS)
_PLAYERS = {"random": uniform.choose, "greedy": greedy.choose, **{level: search.player(level) for level in search.LEVELS}}


def check_bots(bots: list[str]) -> None:
    """Refuse unknown bot names up front, so a simulation fails before its first game."""
    unknown = sorted(set(bots) - set(BOTS))
    if unknown:
        raise IllegalMove("unknown_bot", f"no bot called {', '.join(unknown)}; bots: {', '.join(BOTS)}")


def choose_move(bot: str, game: Game, state: State, seat: int, rng: random.Random) -> Move:
    """The move `bot` makes for `seat`, which must have a decision pending."""
    if bot not in _PLAYERS:
        check_bots([bot])
    own = getattr(game, "bots", {})
    return own.get(bot, _PLAYERS[bot])(game, state, seat, rng)


__all__ = ["BOTS", "check_bots", "choose_move"]
