"""Playouts for search: games played on to their end in place, by the real rules, many per second.

`apply` is made for a move from a client: it checks the move's shape and that it answers the seat's
decision, and works on a copy (`table.fork`) so that a refused move changes nothing. A playout makes
thousands of moves that the engine listed itself, on a state nobody else holds. So `step` runs the
same handlers and the same `rules.advance` as `apply`, on the state itself, without the copy and the
checks; `random_move` picks the move the random bot (`engine.bots.uniform`) would pick, with the same
draws from its generator, without building the long lists it picks from (an action's ~900 builds, a
card's 120 return orders); `playout` loops the two to the end. `tests/test_fast.py` holds them to
`apply` and to the random bot over whole games: the same moves, states and events.

A search keeps its own state per playout (`engine.core.copy_state`, which `playout` does unless told
it need not), and asks `result` of the end: `PrincesOfFlorence.result(state)` is ``state["result"]``.
"""
from __future__ import annotations

import random
from itertools import compress, islice
from math import factorial
from typing import Callable, Sequence

from engine.bots.uniform import fill_in
from engine.core import Event, Move, State, copy_state
from engine.pof import actions, auction, choices
from engine.pof.rules import MOVES, PrincesOfFlorence, advance
from engine.pof.table import decision_of

Policy = Callable[[State, int, random.Random], Move]  # (state, seat, generator) -> a move for that seat

_GAME = PrincesOfFlorence()


def step(state: State, seat: int, move: Move, events: list[Event] | None = None) -> list[Event]:
    """Play `move` for `seat` on `state` itself, as `apply` would play it on its copy; returns the events.

    For a state the caller owns and a move `legal_moves` listed (or one of its fillings, `fills`): a
    move `apply` would refuse may leave the state half changed here instead of raising cleanly. Pass
    `events` to collect them in a list of your own (a search that needs none may reuse one).
    """
    if events is None:
        events = []
    MOVES[move["type"]][1](state, seat, move, events)
    advance(state, events)
    return events


def random_move(state: State, seat: int, rng: random.Random) -> Move:
    """What `engine.bots.uniform.choose` gives for the seat (which has a decision pending), drawing the
    same numbers from `rng`.

    `choose` draws one index into `legal_moves` (`rng.choice`) and may then fill a publish's bonus
    cards; this draws the same index into the same list, built only where that is cheap: an action's
    builds are counted in their selection (`actions.listing`), a card choice's moves (every card kept,
    times every order of the rest) counted, and only the move drawn is made.
    """
    decision = decision_of(state, seat)
    kind = decision["kind"]
    # The entice moves come first in every list (rules.legal_moves); none without an enticement card.
    enticing = choices.entice_moves(state, seat) if state["players"][seat]["private"]["enticements"] else []
    if kind == "bid" or kind == "open_auction":  # most decisions of a game, with short lists
        answers = auction.legal_moves(state, seat, kind)
        return rng.choice(enticing + answers if enticing else answers)
    if kind == "action":
        purchases, builds, rest = actions.listing(state, seat)
        ahead = len(enticing) + len(purchases)
        count = builds.count(1)
        index = rng.choice(range(ahead + count + len(rest)))
        if index < ahead:
            return (enticing + purchases)[index]
        if index < ahead + count:
            return next(islice(compress(actions.BUILD_MOVES, builds), index - ahead, None))
        move = rest[index - ahead - count]
        if move["type"] != "publish":
            return move
        return fill_in(move, actions.publish_fills(state, seat, move["profession"]), rng)
    if kind == "choose_card":
        shown = decision["private"]["cards"]
        orders = factorial(len(shown) - 1)
        index = rng.choice(range(len(enticing) + len(shown) * orders))
        if index < len(enticing):
            return enticing[index]
        kept, order = divmod(index - len(enticing), orders)
        rest = [card for card in shown if card != shown[kept]]
        return {"type": "choose_card", "card": shown[kept], "return_order": _nth_order(rest, order)}
    return rng.choice(_GAME.legal_moves(state, seat))  # the others list a few moves, none to fill in


def _nth_order(cards: list[str], index: int) -> list[str]:
    """The `index`-th of `itertools.permutations(cards)`, which lists orders lexicographically by position."""
    pool, order = list(cards), []
    for left in range(len(pool), 0, -1):
        position, index = divmod(index, factorial(left - 1))
        order.append(pool.pop(position))
    return order


def playout(state: State, rng: random.Random | Sequence[random.Random], policy: Policy = random_move,
            copy: bool = True) -> State:
    """The game played on from `state` to its end by `policy` for every seat; returns the final state.

    `rng` is one generator for every seat, or one per seat (as `engine.bots.play.play_game` gives its
    bots, so that a playout from the first state with `random_move` ends as `play_game` with random
    bots does). `copy=False` plays on `state` itself, for a caller that made it for this playout.
    """
    if copy:
        state = copy_state(state)
    rngs = [rng] * len(state["players"]) if isinstance(rng, random.Random) else list(rng)
    events: list[Event] = []
    while state["phase"] != "over":
        seat = state["pending"][0]["seat"]
        move = policy(state, seat, rngs[seat])
        MOVES[move["type"]][1](state, seat, move, events)
        advance(state, events)
        events.clear()
    return state
