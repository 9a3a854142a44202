"""Benchmark the rules engine on one core: whole random 5-player games, legal_moves and apply, the
publish listing of a seat holding all 20 bonus cards, and the largest whole listing in random games.

The games are played twice, the same games move for move: through the Game interface (`play_game`
with random bots: `legal_moves`, then `apply` on a copy) and as a search's playouts do
(`engine.pof.fast.playout`). Both rates count CPU seconds of this process (one core, whatever else
the machine runs; wall-clock rates follow in brackets), and are printed as ratios to the goal, to
main's rate before issue 20 (BASELINE_GAMES_PER_SECOND: recorded, measured as this measures on the
machine of README's figures) and to each other (measured in this run).

Run from the repository root: python -m benchmarks.engine [--games 200] [--seed 1]
(as a module, because this file shares its name with the engine package)
A benchmark, not a test: it prints figures and asserts nothing. Other processes on the machine slow
it down: run it a few times and take the median.
"""
from __future__ import annotations

import argparse
import gzip
import json
import random
import statistics
import time
from typing import Any

from engine import copy_state, get_game
from engine.bots.play import play_game
from engine.core import Game, fills
from engine.pof import fast, yard
from engine.pof.data import BONUS_CARDS, MIN_WORK_VALUE, ROUNDS

GOAL_GAMES_PER_SECOND = 400  # issue 20: playouts for the search bot
# main before issue 20 (0b41013), games per CPU second at --games 100, median of 3 runs on the machine of
# README's figures: on another machine this ratio says little, the ratio of this run's two lines does.
BASELINE_GAMES_PER_SECOND = 77.6
HAND = 10  # professions in the hand of the listing's seat: more than a real game gives


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    game = get_game("princes-of-florence")
    logs = games_per_second(game, args.games, args.seed)
    publish_listing(game, args.seed)
    whole_listing(game, logs[:50])


def games_per_second(game: Game, games: int, seed: int) -> list[tuple[dict, list]]:
    """Prints the rates; returns each game's (setup, log) for the other measures."""
    options = game.normalize_options({"seats": 5})
    setups = [game.make_setup(options, seed + i) for i in range(games)]

    yard.forget()  # each run starts with no yard known, as the other does
    start, cpu = time.perf_counter(), time.process_time()
    logs = [play_game(game, options, setup, ["random"] * 5, seed + i)[1] for i, setup in enumerate(setups)]
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    decisions = sum(map(len, logs))
    rate = games / cpu
    print(f"random 5-player games through legal_moves and apply (engine.bots.play.play_game): {rate:.1f} games "
          f"per CPU second, {_ratios(rate)} ({games / elapsed:.1f} games/s; {decisions / games:.0f} decisions a "
          f"game, {cpu / decisions * 1e6:.1f} us of CPU a decision)")

    firsts = [game.new_state(options, setup) for setup in setups]
    yard.forget()
    start, cpu = time.perf_counter(), time.process_time()
    for i, first in enumerate(firsts):
        fast.playout(first, [random.Random(f"{seed + i}:{seat}") for seat in range(5)])
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    fast_rate = games / cpu
    print(f"the same games as playouts (engine.pof.fast.playout): {fast_rate:.1f} games per CPU second, "
          f"{_ratios(fast_rate)}, {fast_rate / rate:.2f} x the games above in this run ({games / elapsed:.1f} games/s)")

    legal_us, apply_us = [], []
    for setup, log in zip(setups[:20], logs[:20]):
        state = game.new_state(options, setup)
        for step in log:
            t0 = time.perf_counter()
            game.legal_moves(state, step["seat"])
            t1 = time.perf_counter()
            state, _ = game.apply(state, step["seat"], step["move"])
            t2 = time.perf_counter()
            legal_us.append((t1 - t0) * 1e6)
            apply_us.append((t2 - t1) * 1e6)
    for name, samples in (("legal_moves", legal_us), ("apply", apply_us)):
        cuts = statistics.quantiles(samples, n=100)
        print(f"{name}: median {statistics.median(samples):.1f} us, p99 {cuts[98]:.1f} us "
              f"over {len(samples)} calls")
    return list(zip(setups, logs))


def _ratios(rate: float) -> str:
    """The rate against the goal and against main's recorded rate (not measured in this run: main's code
    is not here to run)."""
    return (f"{rate / GOAL_GAMES_PER_SECOND:.2f} x the goal of {GOAL_GAMES_PER_SECOND}, "
            f"{rate / BASELINE_GAMES_PER_SECOND:.2f} x main's recorded {BASELINE_GAMES_PER_SECOND} before issue 20")


def listing(game: Game, state: dict, seat: int) -> list[dict]:
    """The seat's moves as GET /games/{id}/moves lists them: move, label, fill."""
    return [{"move": move, "label": game.describe(move), "fill": fills(game, state, seat, move)}
            for move in game.legal_moves(state, seat)]


def whole_listing(game: Game, played: list[tuple[dict, list]]) -> None:
    """The largest listing any seat got in these games (build placements make it: up to ~900 early in a
    game, with cash and an empty yard), and what it weighs gzipped as the API sends it on request."""
    options = game.normalize_options({"seats": 5})
    largest = b""
    for setup, log in played:
        state = game.new_state(options, setup)
        for step in log:
            text = json.dumps(listing(game, state, step["seat"])).encode()
            largest = max(largest, text, key=len)
            state, _ = game.apply(state, step["seat"], step["move"])
    t0 = time.perf_counter()
    packed = gzip.compress(largest, 6)
    took = (time.perf_counter() - t0) * 1e3
    print(f"largest whole listing in {len(played)} random games: {len(largest) / 1024:.1f} KB, gzipped "
          f"{len(packed) / 1024:.1f} KB ({len(packed) / len(largest):.2f}) in {took:.1f} ms")


def publish_listing(game: Game, seed: int) -> None:
    """The seat's listing as GET /games/{id}/moves builds it (move, label, fill), in every round: the worst
    size and time, and how many publish moves listing every set of cards would have made instead."""
    worst: dict[str, Any] = {"bytes": 0, "entries": 0, "exhaustive": 0}
    times = []
    for round_ in range(1, ROUNDS + 1):
        state, seat = _twenty_cards(game, seed, round_)
        for _ in range(30):
            t0 = time.perf_counter()
            entries = listing(game, state, seat)
            text = json.dumps(entries)
            times.append((time.perf_counter() - t0) * 1e3)
        worst["bytes"] = max(worst["bytes"], len(text))
        worst["entries"] = max(worst["entries"], sum(1 for entry in entries if entry["move"]["type"] == "publish"))
        worst["exhaustive"] = max(worst["exhaustive"], _exhaustive_count(entries, state, seat))
    print(f"publish listing at 20 cards, {HAND} professions, rounds 1-{ROUNDS}: at most {worst['entries']} publish "
          f"entries, {worst['bytes'] / 1024:.1f} KB, {statistics.median(times):.2f} ms "
          f"(slowest of {len(times)}: {max(times):.2f} ms); listing every set of cards made "
          f"{worst['exhaustive']:,} publish moves")


def _twenty_cards(game: Game, seed: int, round_: int) -> tuple[dict, int]:
    """A seat to act in Phase B of `round_`, with every bonus card, HAND professions, no cash (so it may
    only publish or end its turn) and a court where cards add 0 to 8 each."""
    options = game.normalize_options({"seats": 3})
    state = game.new_state(options, game.make_setup(options, seed))
    while state["phase"] != "actions":
        seat = state["pending"][0]["seat"]
        state, _ = game.apply(state, seat, game.default_move(state, seat))
    state = copy_state(state)
    seat = state["pending"][0]["seat"]
    me, decks = state["players"][seat], state["secret"]["decks"]
    state["round"] = round_
    me["private"]["cash"] = 0
    me["private"]["bonus_cards"], decks["bonus_cards"] = decks["bonus_cards"], []
    extra = HAND - len(me["private"]["hand"])
    me["private"]["hand"], decks["professions"] = me["private"]["hand"] + decks["professions"][:extra], \
        decks["professions"][extra:]
    me["jugglers"], me["freedoms"] = 2, ["opinion", "travel"]
    me["landscapes"] = [{"kind": "woods", "squares": [[0, 0], [1, 0], [2, 0], [2, 1]]},
                        {"kind": "lake", "squares": [[0, 5], [0, 6], [1, 5], [1, 6]]}]
    assert len(me["private"]["bonus_cards"]) == len(BONUS_CARDS) == 20
    return state, seat


def _exhaustive_count(listing: list[dict], state: dict, seat: int) -> int:
    """Sets of cards that make each listed work legal: what the listing used to enumerate one by one
    (counted by subset sums, since enumerating 2^20 sets per profession takes minutes)."""
    least = MIN_WORK_VALUE[state["round"] - 1]
    total = 0
    for entry in listing:
        for fill in entry["fill"]:
            ways = {0: 1}  # sum of adds -> how many sets of cards give it
            for choice in fill["choices"]:
                for value, count in list(ways.items()):
                    ways[value + choice["adds"]] = ways.get(value + choice["adds"], 0) + count
            total += sum(count for value, count in ways.items() if fill["base"] + value >= least)
    return total


if __name__ == "__main__":
    main()
