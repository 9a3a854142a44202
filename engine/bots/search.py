"""The search bots: determinized Monte Carlo over greedy playouts, at three budgets.

At each decision the bot draws whole states its seat could be in from its own view alone
(`engine.pof.sampling.determinize`), plays each of a few candidate moves in them and the game on to its
end with every seat played by greedy, and makes the move whose playouts end best for it on average (its
prestige margin over the best other seat, and a win). The candidates are greedy's own move and the few
others a decision of its kind offers (every item, both answers to a bid, each card, a few payout splits,
the best improvements and works); sequential halving spends the playouts, so the weak half of the
candidates is dropped after each round and the rest are played more. All candidates are played in the
same drawn states with the same generators (common random numbers), so their difference is the move's.

The bot reads the real state only through `game.view(state, seat)` and `game.legal_moves(state, seat)`,
and is deterministic for its generator. A budget counts playouts, never time.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any, Callable

from engine.bots import greedy
from engine.core import Game, IllegalMove, Move, State
from engine.pof import fast, scoring
from engine.pof.data import MIN_WORK_VALUE
from engine.pof.sampling import determinize

LEVELS = {"search-easy": 6, "search": 16, "search-hard": 64}  # playouts a decision
WIN = 5  # prestige points a playout's win is worth besides its margin
PRIOR = 0.5  # points greedy's own move is given: another must beat it by more than noise
MAX_CANDIDATES = 8
PLAYOUTS_PER_CANDIDATE = 4  # the fewest a candidate is worth: a small budget weighs fewer moves


@dataclass(frozen=True)
class Thought:
    """A decision and what it cost: the move, the playouts run, the candidates and their mean values."""

    move: Move
    playouts: int
    values: list[tuple[Move, float]]


def player(level: str) -> Callable[[Game, State, int, random.Random], Move]:
    """The `choose` of a level, as the bots' registry wants it."""
    budget = LEVELS[level]

    def choose(game: Game, state: State, seat: int, rng: random.Random) -> Move:
        return think(game, state, seat, rng, budget).move
    return choose


def think(game: Game, state: State, seat: int, rng: random.Random, budget: int) -> Thought:
    """The move after `budget` playouts (fewer when greedy's move is the only candidate)."""
    if game.name != "princes-of-florence":
        own = getattr(game, "bots", {}).get("greedy")
        if own is None:
            raise IllegalMove("unknown_bot", f"the search bots play only princes-of-florence, not {game.name}")
        return Thought(own(game, state, seat, rng), 0, [])
    view = game.view(state, seat)
    legal = game.legal_moves(state, seat)
    seeds = [rng.getrandbits(64) for _ in range(budget)]
    worlds: dict[int, State] = {}

    def world(i: int) -> State:
        if i not in worlds:
            worlds[i] = determinize(game, view, seat, random.Random(seeds[i]))
        return worlds[i]

    room = max(2, min(MAX_CANDIDATES, budget // PLAYOUTS_PER_CANDIDATE))
    candidates = _candidates(game, world(0), seat, view, legal, random.Random(seeds[0]))[:room]
    if len(candidates) == 1:
        return Thought(candidates[0], 0, [])
    totals = [0.0] * len(candidates)
    counts = [0] * len(candidates)
    alive = list(range(len(candidates)))
    rounds = math.ceil(math.log2(len(candidates)))
    played, used = 0, 0
    for round_ in range(rounds):
        each = max(1, (budget - used) // ((rounds - round_) * len(alive)))
        if used + each * len(alive) > budget:
            break  # the last round decides
        for c in alive:
            for i in range(counts[c], counts[c] + each):
                totals[c] += _playout(game, world(i % budget), seat, candidates[c], seeds[i % budget])
                played += 1
            counts[c] += each
        used += each * len(alive)
        alive.sort(key=lambda c: -_mean(totals[c], counts[c], c))
        alive = alive[: max(1, math.ceil(len(alive) / 2))]
    best = alive[0]
    values = [(candidates[c], _mean(totals[c], counts[c], c)) for c in range(len(candidates))]
    return Thought(candidates[best], played, values)


def _mean(total: float, count: int, candidate: int) -> float:
    return total / count + (PRIOR if candidate == 0 else 0.0)


def _playout(game: Game, world: State, seat: int, move: Move, seed: int) -> float:
    """Play `move` in `world` and the game to its end with greedy at every seat: the seat's margin over
    the best other seat, and a win (half of one when shared)."""
    state, _ = game.apply(world, seat, move)  # checked, and on a copy: the world serves every candidate
    state = fast.playout(state, random.Random(seed), lambda now, mover, rng: greedy.decide(
        game, now, mover, _whole_view(now), rng))
    scores = {score["seat"]: score["prestige"] for score in game.result(state)["scores"]}
    best_other = max(points for other, points in scores.items() if other != seat)
    winners = game.result(state)["winners"]
    return scores[seat] - best_other + (WIN / len(winners) if seat in winners else 0.0)


def _whole_view(state: State) -> dict[str, Any]:
    """What greedy reads, taken from a made-up state as it is: nothing in it is anybody's secret."""
    return {**state, "min_work_value": MIN_WORK_VALUE[state["round"] - 1]}


def _candidates(game: Game, world: State, seat: int, view: dict, legal: list[Move], rng: random.Random) -> list[Move]:
    """Greedy's move first, then the others worth playing out at this kind of decision, each once."""
    me = world["players"][seat]
    decision = next(d for d in view["pending"] if d["seat"] == seat)
    first = greedy.decide(game, world, seat, view, rng)
    answers = [greedy.fill_fully(game, world, seat, m) for m in legal if m["type"] != "entice"]
    entices = sorted((m for m in legal if m["type"] == "entice"), key=lambda m: -greedy.entice_value(me, m))
    others = entices[:1] + _OTHERS[decision["kind"]](view, me, decision, answers)
    moves: list[Move] = [first]
    for move in others:
        if move not in moves:
            moves.append(move)
    return moves


def _all(view: dict, me: dict, decision: dict, moves: list[Move]) -> list[Move]:
    return moves


def _auction_items(view: dict, me: dict, decision: dict, moves: list[Move]) -> list[Move]:
    return sorted(moves, key=lambda m: -greedy.item_value(view, me, m["item"]) if m["type"] == "open_auction" else 0)


def _bids(view: dict, me: dict, decision: dict, moves: list[Move]) -> list[Move]:
    """Step out, or the lowest bid (open bidding: also a jump of a few steps)."""
    bids = [m for m in moves if m["type"] == "bid"]
    return [{"type": "step_out"}, *bids[:1], *bids[3:4]]


def _spread(view: dict, me: dict, decision: dict, moves: list[Move]) -> list[Move]:
    """A few placements across the yard's listing, and throwing the tile away."""
    places = [m for m in moves if m["type"] == "place_landscape"]
    picks = [places[i * (len(places) - 1) // 3] for i in range(4)] if places else []
    return picks + [m for m in moves if m["type"] == "discard_landscape"]


def _cards(view: dict, me: dict, decision: dict, moves: list[Move]) -> list[Move]:
    shown = decision["private"]["cards"]
    return [{"type": "choose_card", "card": card, "return_order": [c for c in shown if c != card]} for card in shown]


def _splits(view: dict, me: dict, decision: dict, moves: list[Move]) -> list[Move]:
    most = len(moves) - 1
    return [{"type": "split_payout", "prestige": points} for points in (most, 0, most // 2, most * 3 // 4, most // 4)]


def _actions(view: dict, me: dict, decision: dict, moves: list[Move]) -> list[Move]:
    """The best work, ending the turn, and the improvements greedy values most (one build per kind)."""
    works = sorted((m for m in moves if m["type"] == "publish"),
                   key=lambda m: -scoring.work_value(me, m["profession"], m["bonus_cards"]))
    firsts: dict[tuple, Move] = {}
    for move in moves:
        if move["type"] in greedy.IMPROVEMENTS:
            firsts.setdefault((move["type"], move.get("building"), move.get("freedom")), move)
    improvements = sorted(firsts.values(), key=lambda m: -greedy.improvement_value(view, me, m))
    return works[:1] + improvements[:3] + [{"type": "end_turn"}] + works[1:2]


_OTHERS: dict[str, Callable[[dict, dict, dict, list[Move]], list[Move]]] = {
    "keep_professions": _all,
    "open_auction": _auction_items,
    "bid": _bids,
    "place_landscape": _spread,
    "choose_card": _cards,
    "use_enticement": _all,
    "split_payout": _splits,
    "action": _actions,
}
