"""Benchmark the rules engine on one core: whole random 5-player games, legal_moves and apply.

Run from the repository root: python -m benchmarks.engine [--games 200] [--seed 1]
(as a module, because this file shares its name with the engine package)
A benchmark, not a test: it prints figures and asserts nothing.
"""
from __future__ import annotations

import argparse
import statistics
import time

from engine import get_game
from engine.bots.play import play_game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    game = get_game("princes-of-florence")
    options = game.normalize_options({"seats": 5})
    setups = [game.make_setup(options, args.seed + i) for i in range(args.games)]

    start = time.perf_counter()
    logs = [play_game(game, options, setup, ["random"] * 5, args.seed + i)[1] for i, setup in enumerate(setups)]
    elapsed = time.perf_counter() - start
    decisions = sum(map(len, logs))
    print(f"random 5-player games: {args.games / elapsed:.1f} games/s "
          f"({decisions / args.games:.0f} decisions a game, {elapsed / decisions * 1e6:.1f} us a decision)")

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


if __name__ == "__main__":
    main()
