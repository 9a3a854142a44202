"""Capacity figures for the game store on a Redis Cluster: memory per game, and moves per master.

A figure, not a test; loopback only. Starts a 3-master Redis Cluster of Debian's redis-server
(`tests/cluster.py`: AOF with fsync on every write, no replicas) and plays Princes of Florence games
of bots only through the service's own move path (`service.games.create`, `start`, and the bots'
commits in `service.playing`, followups inline: no RQ, no HTTP):

- memory: --games finished games per seat count (3 and 5); for each, `MEMORY USAGE ... SAMPLES 0`
  of every key of the game (a SCAN of its master) plus its host token, and the bytes its commands
  added to the master's append-only file; then the same once the game is compacted (`Store.compact`,
  what a worker does PALAZZO_COMPACT_AFTER seconds after the end);
- throughput: --procs processes each play games for --seconds; the commits each master ran (INFO
  commandstats, EVALSHA) give moves/s per master, and the CPU its redis-server used over the window
  (every command a move costs, the network and the fsyncs) gives the ceiling of a master's single
  thread. On a small machine the clients (the engine, JSON) are the limit, not Redis: the ceiling is
  the figure that says what a master could take.

    python benchmarks/cluster.py [--games 20] [--procs 2] [--seconds 20]
"""
from __future__ import annotations

import argparse
import multiprocessing
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import engine.pof  # noqa: E402,F401  (registers the game)
from service import games  # noqa: E402
from service.config import make_store, settings  # noqa: E402
from service.store import Store, game_key, token_key  # noqa: E402
from tests.cluster import LocalCluster  # noqa: E402

BOTS = ["greedy", "random", "random", "random", "greedy"]


def store_for(url: str) -> Store:
    return make_store({**settings(), "REDIS_URL": url, "QUEUE_URL": None, "JOBS": "inline", "BOT_DELAY": 0})


def play_one(store: Store, seats: int, seed: int) -> str:
    """A whole game of bots, as the API would host it (the start runs the bots inline)."""
    spec = {"game": "princes-of-florence", "seed": seed,
            "seats": [{"name": f"Bot{n}", "bot": BOTS[n]} for n in range(seats)]}
    table, _, _ = games.create(store, spec)
    table = games.start(store, table)
    assert games.load(store, table.id).status == games.FINISHED, table.id
    return table.id


def aof_bytes(node_dir: Path) -> int:
    return sum(path.stat().st_size for path in node_dir.rglob("*.aof"))


def game_memory(cluster: LocalCluster, game_id: str, parts: dict[str, list[int]]) -> int:
    """Bytes of every key of the game on its master, each part's added to `parts`."""
    node = cluster.node(cluster.owner(game_key(game_id, "game")))
    total = 0
    for key in node.scan_iter(match=game_key(game_id, "*"), count=1000):
        used = int(node.execute_command("MEMORY", "USAGE", key, "SAMPLES", "0"))
        parts[key.rsplit(":", 1)[-1]].append(used)
        total += used
    return total


def memory(cluster: LocalCluster, data: Path, count: int) -> None:
    store = store_for(cluster.url)
    for seats in (3, 5):
        per_game, parts, aof, moves, compacted = [], defaultdict(list), [], [], []
        for seed in range(count):
            before = {n: aof_bytes(data / f"node-{port}") for n, port in enumerate(cluster.ports)}
            game_id = play_one(store, seats, 1000 * seats + seed)
            home = cluster.owner(game_key(game_id, "game"))
            aof.append(aof_bytes(data / f"node-{cluster.ports[home]}") - before[home])
            total = game_memory(cluster, game_id, parts)
            host = games.load(store, game_id).meta["host"]
            token_node = cluster.node(cluster.owner(token_key(host)))
            used = int(token_node.execute_command("MEMORY", "USAGE", token_key(host), "SAMPLES", "0"))
            parts["host token"].append(used)
            per_game.append(total + used)
            moves.append(store.redis.llen(game_key(game_id, "log")))
            assert store.compact(game_id)
            compacted.append(game_memory(cluster, game_id, defaultdict(list)) + used)
        print(f"{seats} seats, {count} finished games: MEMORY USAGE per game median "
              f"{statistics.median(per_game) / 1024:.1f} KiB (min {min(per_game) / 1024:.1f}, "
              f"max {max(per_game) / 1024:.1f}); AOF written per game median {statistics.median(aof) / 1024:.1f} KiB; "
              f"median {statistics.median(moves):.0f} moves a game; compacted: median "
              f"{statistics.median(compacted) / 1024:.1f} KiB (max {max(compacted) / 1024:.1f}), "
              f"{statistics.median(compacted) / statistics.median(per_game):.2f} of before")
        for part, sizes in sorted(parts.items(), key=lambda item: -statistics.median(item[1])):
            print(f"    {part:<12} median {statistics.median(sizes) / 1024:7.1f} KiB")


def _player(url: str, seconds: float, seed: int, ready, go, out) -> None:
    store = store_for(url)
    ready.set()
    go.wait()
    finish = time.monotonic() + seconds
    played = 0
    while time.monotonic() < finish:
        play_one(store, 5, seed + played)
        played += 1
    out.put(played)


def commit_stats(cluster: LocalCluster) -> list[tuple[int, float, float]]:
    """Per master: EVALSHA calls, Redis's microseconds in them, its CPU seconds (user + sys)."""
    stats = []
    for number in range(len(cluster.ports)):
        node = cluster.node(number)
        evalsha = node.info("commandstats").get("cmdstat_evalsha", {"calls": 0, "usec": 0})
        cpu = node.info("cpu")
        stats.append((int(evalsha["calls"]), float(evalsha["usec"]), cpu["used_cpu_user"] + cpu["used_cpu_sys"]))
    return stats


def throughput(cluster: LocalCluster, procs: int, seconds: float) -> None:
    context = multiprocessing.get_context("spawn")
    go, out = context.Event(), context.Queue()
    readies = [context.Event() for _ in range(procs)]
    players = [context.Process(target=_player, args=(cluster.url, seconds, 100_000 * (n + 1), readies[n], go, out))
               for n in range(procs)]
    for player in players:
        player.start()
    for ready in readies:
        ready.wait(60)
    before = commit_stats(cluster)
    started = time.monotonic()
    go.set()
    finished = sum(out.get() for _ in players)
    elapsed = time.monotonic() - started
    for player in players:
        player.join()
    after = commit_stats(cluster)
    total = sum(a[0] - b[0] for a, b in zip(after, before))
    print(f"{procs} client processes, {elapsed:.1f} s: {finished} whole 5-seat games, {total} commits, "
          f"{total / elapsed:.0f} moves/s in all")
    for number, (b, a) in enumerate(zip(before, after)):
        calls, usec, cpu = a[0] - b[0], a[1] - b[1], a[2] - b[2]
        per = usec / calls if calls else 0.0
        ceiling = f"{calls / cpu:,.0f}" if cpu else "-"
        print(f"    master {number}: {calls / elapsed:6.0f} moves/s using {cpu / elapsed * 100:4.1f}% of a core "
              f"(all its commands, I/O and fsyncs: a ceiling of about {ceiling} moves/s on one core); "
              f"the commit script alone {per:5.1f} us")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="finished games measured per seat count (default 20)")
    parser.add_argument("--procs", type=int, default=2, help="client processes for the throughput (default 2)")
    parser.add_argument("--seconds", type=float, default=20, help="throughput window (default 20)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp)
        with LocalCluster(data) as cluster:
            memory(cluster, data, args.games)
            cluster.flush()
            throughput(cluster, args.procs, args.seconds)


if __name__ == "__main__":
    main()
