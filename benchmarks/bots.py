"""Benchmark a search bot against greedy: win rates with 95% intervals, prestige margins, CPU a decision.

One seat plays --bot, every other seat greedy; the bot's seat moves one on each game (seats rotated),
and game i uses setup seed --seed + i, so a run is the same games every time. A win is a first place
(shared on a full tie). The margin is the bot's final prestige less the best other seat's. CPU is this
process's `time.process_time` around each of the bot's decisions (on a shared machine it still counts
the bot's own work only). `search-hard` is timed first, on --hard-decisions positions of greedy games.
The player counts take turns game by game, and --minutes ends a long run with the games it finished.
A benchmark, not a test: it prints figures and asserts nothing.

    python benchmarks/bots.py [--games 20] [--players 3,5] [--bot search] [--seed 1] [--processes 1]
                              [--hard-decisions 12] [--minutes 0]
"""
from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import get_game  # noqa: E402
from engine.bots import choose_move  # noqa: E402

GAME = get_game("princes-of-florence")
GOALS = {3: 0.60, 5: 0.45}  # issue 20


def wilson(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return centre - half, centre + half


def play(job: tuple[str, int, int, int]) -> tuple[float, int, list[float]]:
    """One game: (the bot's share of the win, its margin, its CPU seconds per decision)."""
    bot, players, seed, index = job
    options = GAME.normalize_options({"seats": players})
    state = GAME.new_state(options, GAME.make_setup(options, seed + index))
    seat_of_bot = index % players
    bots = ["greedy"] * players
    bots[seat_of_bot] = bot
    rngs = [random.Random(f"{seed + index}:{seat}") for seat in range(players)]
    cpu: list[float] = []
    while GAME.result(state) is None:
        seat = GAME.pending(state)[0]["seat"]
        start = time.process_time()
        move = choose_move(bots[seat], GAME, state, seat, rngs[seat])
        if seat == seat_of_bot:
            cpu.append(time.process_time() - start)
        state, _ = GAME.apply(state, seat, move)
    result = GAME.result(state)
    prestige = {score["seat"]: score["prestige"] for score in result["scores"]}
    margin = prestige[seat_of_bot] - max(points for seat, points in prestige.items() if seat != seat_of_bot)
    won = 1 / len(result["winners"]) if seat_of_bot in result["winners"] else 0.0
    return won, margin, cpu


def positions(count: int, seed: int) -> list[tuple[dict, int]]:
    """`count` decisions spread over 3-player greedy games, each with more than one legal move."""
    found: list[tuple[dict, int]] = []
    index = 0
    while len(found) < count:
        options = GAME.normalize_options({"seats": 3})
        state = GAME.new_state(options, GAME.make_setup(options, seed + 10_000 + index))
        rng = random.Random(index)
        step = 0
        while GAME.result(state) is None:
            seat = GAME.pending(state)[0]["seat"]
            if step % 23 == 0 and len(GAME.legal_moves(state, seat)) > 1 and len(found) < count:
                found.append((state, seat))
            state, _ = GAME.apply(state, seat, choose_move("greedy", GAME, state, seat, rng))
            step += 1
        index += 1
    return found


def time_decision(job: tuple[str, dict, int, int]) -> float:
    bot, state, seat, index = job
    start = time.process_time()
    choose_move(bot, GAME, state, seat, random.Random(index))
    return time.process_time() - start


def cpu_line(name: str, cpu: list[float]) -> str:
    if not cpu:
        return f"{name}: no decisions timed"
    return (f"{name}: CPU per decision median {statistics.median(cpu):.3f} s, max {max(cpu):.3f} s, "
            f"mean {statistics.mean(cpu):.3f} s over {len(cpu)} decisions")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="games for each player count")
    parser.add_argument("--players", default="3,5", help="comma-separated player counts")
    parser.add_argument("--bot", default="search")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--hard-decisions", type=int, default=12, help="positions to time search-hard on (0: none)")
    parser.add_argument("--minutes", type=float, default=0, help="start no game after this many minutes (0: no limit)")
    args = parser.parse_args()
    counts = [int(n) for n in args.players.split(",")]
    print(f"{args.bot} against greedy, {args.games} games per player count, seed {args.seed}, "
          f"{args.processes} process(es)", flush=True)
    deadline = time.perf_counter() + 60 * args.minutes if args.minutes else math.inf
    with Pool(args.processes) as pool:
        if args.hard_decisions:
            spots = positions(args.hard_decisions, args.seed)
            jobs = [("search-hard", state, seat, i) for i, (state, seat) in enumerate(spots)]
            cpu = pool.map(time_decision, jobs, chunksize=1) if args.processes > 1 else list(map(time_decision, jobs))
            print(cpu_line("search-hard on positions of greedy games", cpu), flush=True)
        # The player counts take turns, so that a run cut short by --minutes has games of each.
        jobs = [(args.bot, players, args.seed, index) for index in range(args.games) for players in counts]
        games: dict[int, list[tuple[float, int, list[float]]]] = {players: [] for players in counts}
        results = pool.imap(play, jobs, chunksize=1) if args.processes > 1 else map(play, jobs)
        for (_, players, _, _), (won, margin, cpu) in zip(jobs, results):
            played = games[players]
            played.append((won, margin, cpu))
            print(f"  {players}p game {len(played)}: won {won:g}, margin {margin:+d}, "
                  f"wins so far {sum(g[0] for g in played):g}/{len(played)}, "
                  f"CPU median {statistics.median(cpu):.3f} s max {max(cpu):.3f} s", flush=True)
            if time.perf_counter() > deadline:
                print(f"  stopped after --minutes {args.minutes}", flush=True)
                pool.terminate()
                break
    for players, played in games.items():
        summary(args.bot, players, played)


def summary(bot: str, players: int, games: list[tuple[float, int, list[float]]]) -> None:
    if not games:
        print(f"{players} players: no game finished")
        return
    wins = sum(won for won, _, _ in games)
    low, high = wilson(wins, len(games))
    baseline, rate = 1 / players, wins / len(games)
    print(f"{players} players: {bot} wins {rate:.1%} (95% CI {low:.1%}-{high:.1%}) of {len(games)} games; "
          f"baseline {baseline:.1%}, ratio {rate / baseline:.2f}, goal {GOALS.get(players, baseline):.0%}; "
          f"mean margin {statistics.mean(m for _, m, _ in games):+.1f} prestige")
    print("  " + cpu_line(bot, [seconds for _, _, decisions in games for seconds in decisions]))

if __name__ == "__main__":
    main()
