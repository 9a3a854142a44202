"""Play a whole game with bots: the one loop the simulate command, benchmarks and tests share."""
from __future__ import annotations

import random
from typing import Any

from engine.bots import check_bots, choose_move
from engine.core import Game, IllegalMove, State

MAX_DECISIONS = 100_000  # far above any real game: a loop that runs this long is a bug


def play_game(
    game: Game, options: dict[str, Any], setup: dict[str, Any], bots: list[str], seed: int
) -> tuple[State, list[dict[str, Any]]]:
    """The final state and every move made, as ``[{"seat", "move"}]``: setup + moves replay the game.

    Each seat's bot draws from its own generator seeded by (seed, seat), so changing one seat's
    bot never changes what another seat's bot would do in the same position.
    """
    options = game.normalize_options(options)
    if len(bots) != options["seats"]:
        raise IllegalMove("bad_bots", f"{len(bots)} bots for {options['seats']} seats")
    check_bots(bots)
    rngs = [random.Random(f"{seed}:{seat}") for seat in range(len(bots))]
    state = game.new_state(options, setup)
    moves: list[dict[str, Any]] = []
    while game.result(state) is None:
        if len(moves) >= MAX_DECISIONS:
            raise RuntimeError(f"no result after {MAX_DECISIONS} decisions")
        seat = game.pending(state)[0]["seat"]
        move = choose_move(bots[seat], game, state, seat, rngs[seat])
        state, _ = game.apply(state, seat, move)
        moves.append({"seat": seat, "move": move})
    return state, moves
