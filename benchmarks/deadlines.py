"""Deadline enforcement under load: how late real `palazzo worker`s play timeouts, and what the poll costs.

A figure, not a test; loopback only. Starts a private redis-server (the repository's redis.conf: AOF
with fsync on every write, unless --no-fsync) and fills it through `service.games.create` and
`start`, exactly as the API does, with Princes of Florence games of three human seats whose
opening decision (`keep_professions`) has a per-game deadline:
- the waiting games (default 9,000) are due in a day. They are created first, by several
  processes at once (--procs), with no worker running: they only make the wake index as large as a
  busy server's;
- then `palazzo worker` processes start (--workers, polling every --every seconds) and the due games (default
  1,000) are created with deadlines spread evenly over 30-60 s from then (--window).
Lateness is, per due game, when its first timeout move was committed minus its `deadline_at`. The
move log's `at` has whole seconds only, so the benchmark also watches every due game's log (one
pipelined LLEN per game every --poll seconds) and notes when its first entry appears: an upper bound
on the commit time, by at most the poll interval. Goal: p99 <= 2 s.

Then the workers stop and `Store.due` (the poll's ZRANGEBYSCORE on each of the 256 shards) is timed
with the index as it is (one entry per game) and with --fake extra far-future entries, in alternating
rounds, asked at a moment before the earliest entry so that only what is not yet due can cost;
Redis's own time per call (INFO commandstats) is shown beside the client's, each the best of the
rounds (a shared machine's other work only adds time). Goal: flat, a ratio ~1.

    python benchmarks/deadlines.py [--due 1000] [--waiting 9000] [--workers 2] [--fake 90000] [--no-fsync]
"""
from __future__ import annotations

import argparse
import math
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import engine.pof  # noqa: E402,F401  (registers the game)
from service import deadlines, followups, games  # noqa: E402
from service.config import Config, make_store  # noqa: E402
from service.localredis import LocalRedis  # noqa: E402
from service.store import WAKE_KEYS, Store, game_key, shard_of, wake_key  # noqa: E402

DAY = 24 * 3600
GOAL_P99 = 2.0
SECRET = "bench-deadlines-" + "s" * 32
KIND = "keep_professions"  # the opening decision: all three seats at once


def store_for(url: str) -> Store:
    """The store the API and the workers use (RQ followups), on the benchmark's redis-server."""
    return make_store(Config.from_env().but(redis_url=url, queue_url=None, jobs="rq", bot_delay=0))


def create_games(store: Store, count: int, seconds_for: Callable[[int], int]) -> list[tuple[str, float]]:
    """Create and start `count` games, game i with `seconds_for(i)` to its opening decision:
    [(game id, deadline as epoch seconds)]."""
    made = []
    seats = [{"name": f"P{n}"} for n in range(3)]
    for index in range(count):
        spec = {"game": "princes-of-florence", "seats": seats, "deadlines": {KIND: seconds_for(index)}}
        table, _, _ = games.create(store, spec, min_deadline=1)
        table = games.start(store, table)
        made.append((table.id, deadlines.wake_at(table, deadlines.now(), store.compact_after)))
    return made


def _create_waiting(url: str, count: int) -> int:
    create_games(store_for(url), count, lambda _: DAY)
    return count


def create_waiting(url: str, count: int, procs: int) -> float:
    """The games due in a day, made by `procs` processes at once; returns the seconds it took."""
    started = time.perf_counter()
    shares = [count // procs + (1 if n < count % procs else 0) for n in range(procs)]
    with ProcessPoolExecutor(procs) as pool:
        assert sum(pool.map(_create_waiting, [url] * procs, shares)) == count
    return time.perf_counter() - started


def start_workers(url: str, count: int, logs: Path, every: float) -> list[subprocess.Popen]:
    """Real `palazzo worker` processes, each in its own process group; waits until RQ lists them all."""
    from rq import Worker
    env = {**os.environ, "REDIS_URL": url, "PALAZZO_SECRET": SECRET, "PALAZZO_POLL_SECONDS": str(every),
           "PALAZZO_BOT_DELAY": "0", "PALAZZO_JOBS": "rq", "PYTHONPATH": str(REPO)}
    env.pop("PALAZZO_QUEUE_URL", None)
    started = []
    for number in range(count):
        log = (logs / f"worker-{number}.log").open("w")
        started.append(subprocess.Popen([sys.executable, "-m", "service.cli", "worker"], cwd=REPO, env=env,
                                        stdout=log, stderr=subprocess.STDOUT, start_new_session=True))
    connection = store_for(url).followups.connection
    limit = time.monotonic() + 30
    while len(Worker.all(connection=connection)) < count:
        if time.monotonic() > limit or any(p.poll() is not None for p in started):
            stop_workers(started)
            raise RuntimeError(f"the workers did not start; see {logs}")
        time.sleep(0.1)
    return started


def stop_workers(started: list[subprocess.Popen]) -> None:
    for process in started:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
    for process in started:
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def watch(store: Store, due: list[tuple[str, float]], grace: float, poll: float) -> tuple[dict[str, float], int, float]:
    """Poll the due games' move logs until each has its first entry (a timeout: nobody else moves)
    or `grace` seconds after the last deadline: {game id: when it was seen}, the deepest the RQ
    queue got meanwhile, and how long the watch lasted from the first deadline on."""
    seen: dict[str, float] = {}
    deepest = 0
    queue_key = store.followups.queue.key
    give_up = max(at for _, at in due) + grace
    while len(seen) < len(due) and time.time() < give_up:
        now = time.time()
        watched = [game_id for game_id, at in due if game_id not in seen and at <= now + 1]
        with store.redis.pipeline(transaction=False) as pipe:
            for game_id in watched:
                pipe.llen(game_key(game_id, "log"))
            pipe.llen(queue_key)
            *lengths, depth = pipe.execute()
        now = time.time()
        seen.update({game_id: now for game_id, length in zip(watched, lengths) if length})
        deepest = max(deepest, depth)
        time.sleep(poll)
    return seen, deepest, time.time() - min(at for _, at in due)


def logged_lateness(store: Store, due: list[tuple[str, float]]) -> list[float]:
    """Per enforced game: the `at` of its first timeout log entry minus its deadline (whole seconds)."""
    late = []
    for game_id, at in due:
        timeouts = [entry for entry in store.log(game_id) if entry.get("timeout")]
        if timeouts:
            late.append(deadlines.parse(timeouts[0]["at"]).timestamp() - at)
    return late


def percentile(values: list[float], share: float) -> float:
    """Nearest rank: the smallest value with at least `share` of the values at or below it."""
    ordered = sorted(values)
    return ordered[min(len(ordered), max(1, math.ceil(share * len(ordered)))) - 1]


class Measure(NamedTuple):
    """One timing of `Store.due`: median client time and Redis's own time a call, all shards (microseconds)."""

    client_us: float
    server_us: float
    due: int
    entries: int


def time_due(store: Store, calls: int) -> Measure:
    """`calls` calls of `Store.due` against the index as it is, asked at a moment just before its
    earliest entry: nothing is due, so what is measured is the cost of what is not yet due."""
    connection = store.redis
    with connection.pipeline(transaction=False) as pipe:
        for key in WAKE_KEYS:
            pipe.zrange(key, 0, 0, withscores=True)
            pipe.zcard(key)
        answers = pipe.execute()
    earliest = min(first[0][1] for first in answers[0::2] if first)
    connection.config_resetstat()
    spent = []
    for _ in range(calls):
        started = time.perf_counter()
        found = store.due(earliest - 1)
        spent.append(time.perf_counter() - started)
    server = connection.info("commandstats").get("cmdstat_zrangebyscore", {}).get("usec_per_call", 0.0)
    return Measure(statistics.median(spent) * 1e6, float(server) * len(WAKE_KEYS), len(found), sum(answers[1::2]))


def add_fakes(store: Store, count: int, chunk: int = 10_000) -> None:
    """Far-future entries (ten years on and later), as if that many more games were waiting."""
    far = time.time() + 10 * 365 * DAY
    for first in range(0, count, chunk):
        with store.redis.pipeline(transaction=False) as pipe:
            for n in range(first, min(count, first + chunk)):
                pipe.zadd(wake_key(shard_of(f"bench-fake-{n}")), {f"bench-fake-{n}": far + n})
            pipe.execute()


def remove_fakes(store: Store, count: int, chunk: int = 10_000) -> None:
    for first in range(0, count, chunk):
        with store.redis.pipeline(transaction=False) as pipe:
            for n in range(first, min(count, first + chunk)):
                pipe.zrem(wake_key(shard_of(f"bench-fake-{n}")), f"bench-fake-{n}")
            pipe.execute()


def poll_cost(store: Store, fake: int, calls: int, rounds: int) -> tuple[list[Measure], list[Measure]]:
    """`Store.due` timed without and with the fake entries, alternating, `rounds` times each."""
    plain, padded = [], []
    for _ in range(rounds):
        plain.append(time_due(store, calls))
        add_fakes(store, fake)
        padded.append(time_due(store, calls))
        remove_fakes(store, fake)
    return plain, padded


def wake_jobs(logs: Path) -> int:
    """Wake jobs the workers started, duplicates included: RQ logs "<queue>: <call>" as it takes one."""
    taken = f"{followups.QUEUE}: workers.deadlines.wake("
    return sum(path.read_text(errors="replace").count(taken) for path in logs.glob("worker-*.log"))


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--due", type=int, default=1000, help="games due within the window (default 1000)")
    parser.add_argument("--waiting", type=int, default=9000, help="games due in a day (default 9000)")
    parser.add_argument("--window", type=float, nargs=2, default=(30.0, 60.0), metavar=("FROM", "TO"),
                        help="the due games' deadlines, seconds after the workers are up (default 30 60)")
    parser.add_argument("--workers", type=int, default=2, help="`palazzo worker` processes (default 2)")
    parser.add_argument("--every", type=float, default=1, help="PALAZZO_POLL_SECONDS for the workers (default 1)")
    parser.add_argument("--procs", type=int, default=2, help="processes creating the waiting games (default 2)")
    parser.add_argument("--grace", type=float, default=60, help="seconds after the last deadline to wait (default 60)")
    parser.add_argument("--poll", type=float, default=0.2, help="seconds between looks at the due games' logs")
    parser.add_argument("--fake", type=int, default=90_000, help="far-future index entries added for the poll's cost")
    parser.add_argument("--calls", type=int, default=100, help="Store.due calls per measure (default 100)")
    parser.add_argument("--rounds", type=int, default=10, help="alternating measures of each index size (default 10)")
    parser.add_argument("--logs", type=Path, help="keep the workers' logs in this folder (default: thrown away)")
    parser.add_argument("--no-fsync", action="store_true", help="Redis without AOF (to see fsync's cost)")
    args = parser.parse_args()
    low, high = args.window
    if args.due < 1 or args.waiting < 0 or args.procs < 1 or args.workers < 1 or not 0 < low <= high:
        parser.error("needs --due >= 1, --waiting >= 0, --procs and --workers >= 1, 0 < FROM <= TO")
    return args


@dataclass
class Results:
    due: list[tuple[str, float]]
    observed: list[float]  # seconds late, as watched
    logged: list[float]  # seconds late, from the log's whole-second `at`
    jobs: int
    pace: float  # wake jobs a second over the watch
    deepest: int
    plain: list[Measure]
    padded: list[Measure]


def spread(start: float, low: float, high: float, count: int) -> Callable[[int], int]:
    """Seconds to give game i so that the count deadlines fall evenly over [start + low, start + high]."""
    return lambda i: max(1, math.ceil(start + low + (high - low) * i / count - time.time()))


def measure(args: argparse.Namespace, temp_dir: Path) -> Results:
    conf = None if args.no_fsync else REPO / "redis.conf"
    extra = ["--appendonly", "no", "--save", ""] if args.no_fsync else []
    with LocalRedis(temp_dir / "redis", conf=conf, extra=extra) as server:
        store = store_for(server.url)
        print(f"redis-server on {server.url} ({'no AOF' if args.no_fsync else 'AOF, fsync always'});"
              f" {os.cpu_count()} cores", flush=True)
        made = create_waiting(server.url, args.waiting, args.procs) if args.waiting else 0.0
        print(f"setup: {args.waiting:,} waiting games (due in a day) in {made:.1f} s with {args.procs} processes"
              f" ({args.waiting / made if made else 0:.0f} games/s)", flush=True)
        logs = args.logs or temp_dir
        logs.mkdir(parents=True, exist_ok=True)
        workers = start_workers(server.url, args.workers, logs, args.every)
        try:
            t0 = time.time()
            due = create_games(store, args.due, spread(t0, *args.window, args.due))
            print(f"setup: {args.due:,} due games in {time.time() - t0:.1f} s, deadlines"
                  f" {min(a for _, a in due) - t0:.0f}-{max(a for _, a in due) - t0:.0f} s from now;"
                  f" waiting for {args.workers} worker(s)...", flush=True)
            seen, deepest, watched = watch(store, due, args.grace, args.poll)
        finally:
            stop_workers(workers)
        jobs = wake_jobs(logs)
        observed = [seen[game_id] - at for game_id, at in due if game_id in seen]
        plain, padded = poll_cost(store, args.fake, args.calls, args.rounds)
        return Results(due, observed, logged_lateness(store, due), jobs, jobs / watched, deepest, plain, padded)


def report(args: argparse.Namespace, results: Results) -> None:
    due, observed, logged = results.due, results.observed, results.logged
    print()
    print(f"Enforcement: {len(due):,} due games among {len(due) + args.waiting:,}, {args.workers} worker(s),"
          f" polling every {args.every:g} s")
    print(f"  enforced {len(observed):,} of {len(due):,} within {args.grace:.0f} s of the last deadline;"
          f" {results.jobs:,} wake jobs ran ({results.jobs / len(due):.2f} per due game,"
          f" {results.pace:.0f} a second over the watch); deepest RQ queue {results.deepest:,}")
    if observed:
        p50, p99, worst = percentile(observed, 0.5), percentile(observed, 0.99), max(observed)
        verdict = "met" if p99 <= GOAL_P99 and len(observed) == len(due) else "MISSED"
        print("  lateness, first timeout committed - deadline_at:")
        print(f"    watched every {args.poll:g} s : p50 {p50:.2f} s, p99 {p99:.2f} s, max {worst:.2f} s;"
              f" p99 / goal ({GOAL_P99:g} s) = {p99 / GOAL_P99:.2f} -> {verdict}")
    if logged:
        print(f"    log `at` (whole s)    : p50 {percentile(logged, 0.5):.0f} s, p99 {percentile(logged, 0.99):.0f} s,"
              f" max {max(logged):.0f} s (each true value lies in [x, x+1))")
    sizes = [results.plain[0].entries, results.padded[0].entries]
    client = [min(m.client_us for m in rows) for rows in (results.plain, results.padded)]
    server = [min(m.server_us for m in rows) for rows in (results.plain, results.padded)]
    print()
    print(f"Poll cost: Store.due (ZRANGEBYSCORE -inf now LIMIT 0 500 on each of {len(WAKE_KEYS)} shards, one pipeline),"
          f" {results.plain[0].due} due")
    print(f"  best of {args.rounds} rounds of {args.calls} calls per size (a shared machine's other work only adds time)")
    for size, spent, own in zip(sizes, client, server):
        print(f"  {size:>8,} entries: median {spent:7.1f} us a call (Redis itself {own:6.1f} us)")
    print(f"  ratio {sizes[1]:,} / {sizes[0]:,} entries: {client[1] / client[0]:.2f} at the client,"
          f" {server[1] / server[0]:.2f} in Redis (goal: flat, ~1)")


def main() -> int:
    args = parse_args()
    with tempfile.TemporaryDirectory(prefix="palazzo-bench-") as temp:
        results = measure(args, Path(temp))
    report(args, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
