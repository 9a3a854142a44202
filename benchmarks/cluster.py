"""Capacity figures for the game store on a Redis Cluster: memory per game, and moves per master.

A figure, not a test; loopback only. Starts a 3-master Redis Cluster of Debian's redis-server
(`tests/cluster.py`: AOF with fsync on every write, no replicas) and plays Princes of Florence games
through the service's own move path (`service.games.create`, `start`, the API's move function
`service.resources.moves.take`, the bots' commits in `service.playing`; no HTTP):

- memory: --games finished games per seat count (3 and 5), every seat a player with an address
  who plays as the API lets him (the greedy bot's choice, each move with an Idempotency-Key), the
  mail jobs of each move run by an RQ worker in this process, on a plain redis-server of its own
  (the queue Redis, as PALAZZO_QUEUE_URL names it): decision mails, their claims, reminders. For
  each game, `MEMORY USAGE ... SAMPLES 0` of every key it leaves: every key of the game (a SCAN of
  its master: hash, log, feed, idempotency answers, mail claims, their index) and its host token,
  and, on the queue Redis, every RQ key it added (the reminders not yet due, any job record); the
  bytes its commands added to the master's append-only file; then the same once the game is
  compacted (`Store.compact`, what a worker does PALAZZO_COMPACT_AFTER seconds after the end), with
  the name of every key left. Each player's address keys (his games, his settings) are shared by
  all his games and counted apart. The local mailbox (`pz:outbox`) is not counted: SendGrid keeps
  mail in production;
- throughput: --procs processes each play games of bots (followups inline: no RQ) for --seconds;
  the commits each master ran (INFO commandstats, EVALSHA) give moves/s per master, and the CPU
  its redis-server used over the window (every command a move costs, the network and the fsyncs)
  gives the ceiling of a master's single thread. On a small machine the clients (the engine, JSON)
  are the limit, not Redis: the ceiling is the figure that says what a master could take.

    python benchmarks/cluster.py [--games 20] [--procs 2] [--seconds 20]
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import engine.pof  # noqa: E402,F401  (registers the game)
import redis  # noqa: E402
from rq import SimpleWorker  # noqa: E402

from service import games, playing, timers, tokens  # noqa: E402
from service.config import Config, make_store  # noqa: E402
from service.localredis import LocalRedis  # noqa: E402
from service.resources.moves import take  # noqa: E402
from service.store import Store, email_key, game_key, token_key  # noqa: E402
from tests.cluster import LocalCluster  # noqa: E402

BOTS = ["greedy", "random", "random", "random", "greedy"]


def store_for(url: str) -> Store:
    return make_store(Config.from_env().but(redis_url=url, queue_url=None, jobs="inline", bot_delay=0))


def aof_bytes(node_dir: Path) -> int:
    return sum(path.stat().st_size for path in node_dir.rglob("*.aof"))


def used(client: redis.Redis, key: str) -> int:
    return int(client.execute_command("MEMORY", "USAGE", key, "SAMPLES", "0") or 0)


def game_keys(cluster: LocalCluster, game_id: str) -> dict[str, int]:
    """Every key of the game on its master, by the part of its name after the game id, and its size."""
    node = cluster.node(cluster.owner(game_key(game_id, "game")))
    return {key.split(f"{game_id}:", 1)[1]: used(node, key)
            for key in node.scan_iter(match=game_key(game_id, "*"), count=1000)}


def part_of(name: str) -> str:
    """A key's kind: `idem:2:ab12...` counts as `idem`, `mailed:decision:0:7` as `mailed`."""
    return name.split(":", 1)[0]


def rq_keys(queue_redis: redis.Redis) -> dict[str, int]:
    """RQ's keys on the queue Redis and their sizes, but for the workers' own registration."""
    return {key: used(queue_redis, key) for key in queue_redis.scan_iter(match="rq:*", count=1000)
            if not key.startswith(("rq:worker", "rq:scheduler"))}


class Players:
    """Games played by players with addresses, as through the API, with their mail jobs run by RQ."""

    def __init__(self, cluster: LocalCluster, queue: LocalRedis):
        os.environ.update({"REDIS_URL": cluster.url, "PALAZZO_QUEUE_URL": queue.url, "PALAZZO_JOBS": "rq",
                           "PALAZZO_BOT_DELAY": "0", "PALAZZO_MAIL_MERGE_SECONDS": "0",
                           "PALAZZO_MAIL_BACKEND": "outbox", "PALAZZO_SECRET": "benchmark-" + "x" * 40})
        from workers import context
        self.store = context.store()  # the one the jobs use too
        self.queue_redis = redis.Redis.from_url(queue.url, decode_responses=True)
        followups = self.store.followups
        self.worker = SimpleWorker([followups.queue, followups.replies, followups.bots],
                                   connection=followups.connection, name="benchmark")

    def run_jobs(self) -> None:
        self.worker.work(burst=True, logging_level="WARNING")

    def play(self, seats: int, seed: int) -> str:
        spec = {"game": "princes-of-florence", "seed": seed,
                "seats": [{"name": f"P{n}", "email": f"p{n}.{seed}@example.org"} for n in range(seats)]}
        table, _, _ = games.create(self.store, spec)
        table = games.start(self.store, table)
        self.run_jobs()
        while table.status == games.RUNNING:
            decision = table.pending[0]
            move = playing.bot_move(table, decision["seat"], "greedy")
            take(self.store, table, decision["seat"], move, decision["since"],
                 f"move-{table.version}-{decision['seat']}", None)
            self.run_jobs()
            table = games.load(self.store, table.id)
        return table.id


def memory(cluster: LocalCluster, data: Path, count: int) -> None:
    with LocalRedis(data / "queue", extra=["--appendonly", "no", "--save", ""]) as queue:
        players = Players(cluster, queue)
        for seats in (3, 5):
            measure_seats(cluster, data, players, seats, count)


def measure_seats(cluster: LocalCluster, data: Path, players: Players, seats: int, count: int) -> None:
    """Play `count` games of `seats` players and print what each leaves, before and after compaction."""
    store = players.store
    per_game, parts, rq, aof, moves, compacted, left, addresses = [], defaultdict(list), [], [], [], [], set(), []
    waiting, timed = [], []  # the timers a game left (its reminders), in bytes and in number
    jobs_left: Counter[str] = Counter()
    for seed in range(count):
        before = {n: aof_bytes(data / f"node-{port}") for n, port in enumerate(cluster.ports)}
        rq_before = rq_keys(players.queue_redis)
        timers_node = cluster.node(cluster.owner(timers.KEY))
        timers_before = (used(timers_node, timers.KEY), timers_node.zcard(timers.KEY))
        game_id = players.play(seats, 1000 * seats + seed)
        home = cluster.owner(game_key(game_id, "game"))
        aof.append(aof_bytes(data / f"node-{cluster.ports[home]}") - before[home])
        table = games.load(store, game_id)
        host = table.meta["host"]
        token = used(cluster.node(cluster.owner(token_key(host))), token_key(host))
        found = game_keys(cluster, game_id)
        sizes = defaultdict(int)
        for name, size in found.items():
            sizes[part_of(name)] += size
        for part, size in sizes.items():
            parts[part].append(size)
        parts["host token"].append(token)
        rq_after = rq_keys(players.queue_redis)
        rq.append(sum(rq_after.values()) - sum(rq_before.values()))
        waiting.append(used(timers_node, timers.KEY) - timers_before[0])
        timed.append(timers_node.zcard(timers.KEY) - timers_before[1])
        jobs_left.update(players.queue_redis.hget(key, "description").split("(")[0]
                         for key in set(rq_after) - set(rq_before) if key.startswith("rq:job:"))
        per_game.append(sum(found.values()) + token)
        moves.append(store.redis.llen(game_key(game_id, "log")))
        for seat in table.meta["seats"]:
            digest = tokens.email_hash(seat["email"])
            addresses.append(sum(used(cluster.node(cluster.owner(email_key(digest, part))), email_key(digest, part))
                                 for part in ("seats", "known", "settings")))
        assert store.compact(game_id)
        after = game_keys(cluster, game_id)
        left |= set(after)
        compacted.append(sum(after.values()) + token)
    median = statistics.median
    print(f"{seats} seats, {count} finished games played by players with addresses ({median(moves):.0f} moves a "
          f"game, median): MEMORY USAGE of every key the game keeps, median {median(per_game) / 1024:.1f} KiB "
          f"(min {min(per_game) / 1024:.1f}, max {max(per_game) / 1024:.1f}); AOF written per game median "
          f"{median(aof) / 1024:.1f} KiB")
    for part, sizes in sorted(parts.items(), key=lambda item: -median(item[1])):
        print(f"    {part:<12} median {median(sizes) / 1024:7.1f} KiB")
    print(f"  compacted: median {median(compacted) / 1024:.1f} KiB (max {max(compacted) / 1024:.1f}), "
          f"{median(compacted) / median(per_game):.2f} of before; keys left beside the host token: {sorted(left)}")
    print(f"  RQ (queue Redis) after its jobs ran: median {median(rq) / 1024:.1f} KiB a game "
          f"(max {max(rq) / 1024:.1f}); job records left, per game: "
          f"{ {name: round(n / count) for name, n in jobs_left.items()} }")
    print(f"  timers (service.timers) it left: median {median(timed):.0f} ({median(waiting) / 1024:.1f} KiB), one per "
          f"decision mailed: a reminder's timer stays until its step comes, however soon the decision was answered")
    print(f"  each player's address keys (shared by all his games): median {median(addresses)} B")


def play_one(store: Store, seats: int, seed: int) -> str:
    """A whole game of bots, as the API would host it (the start runs the bots inline)."""
    spec = {"game": "princes-of-florence", "seed": seed,
            "seats": [{"name": f"Bot{n}", "bot": BOTS[n]} for n in range(seats)]}
    table, _, _ = games.create(store, spec)
    table = games.start(store, table)
    assert games.load(store, table.id).status == games.FINISHED, table.id
    return table.id


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
