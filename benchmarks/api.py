"""Throughput of move submission against one durable write: gunicorn, real Redis, loopback.

Starts a private redis-server (the repository's redis.conf: AOF with fsync always, unless --no-fsync)
and gunicorn serving `benchmarks/wsgi.py` (the real app plus a bare endpoint), then runs client
processes for a fixed time against each workload in turn, at each client count:
- health: GET /api/v1/health, which only PINGs Redis (no write, no engine);
- incr: POST /bench/incr, a bare Flask view doing one Redis INCR: one durable write per request and
  nothing else, the fair ceiling for a move (issue 8's goal: moves >= 0.8 of it, p99 < 50 ms at 16);
- moves: POST /api/v1/games/<id>/moves with real Princes of Florence moves. Each client plays its
  own 5-seat games; it replays each game locally from its seed to know every next legal move and
  version. The games are planned and created before the clock starts (enough for the window at the
  trivial endpoint's rate), so the window holds only move submissions: planning and creating games
  would otherwise take the same two cores away from the server being measured;
- bare moves: the same moves to `benchmarks/wsgi.py`'s Flask-free route, which calls the same
  service functions: how close a move could come if the web framework cost nothing.
Every client process is started and ready before its workload's window opens, and all are released
together. Reports requests per second, p50/p99 latency, the ratio of moves to incr, and the CPU each
request cost the web processes, Redis and the load generator (from /proc), to show where a gap lies.

    python benchmarks/api.py [--clients 8,16] [--seconds 10] [--workers 4] [--threads 4] [--no-fsync]
"""
from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from service.localredis import LocalRedis, free_port  # noqa: E402

GAME = "princes-of-florence"
OPTIONS = {"bidding": "step", "auction_pass": False}
TRIVIAL = {"health": ("GET", "/api/v1/health"), "incr": ("POST", "/bench/incr")}
MOVES = {"moves": "/api/v1/games/{}/moves", "bare moves": "/bench/games/{}/moves"}


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU of these processes so far (0 for one that has gone)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def children(pid: int) -> list[int]:
    """The direct children of a process (gunicorn's workers)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def request(port: int, method: str, path: str, body: dict | None = None, token: str | None = None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    connection.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, data


def planned_moves(seed: int) -> list[tuple[int, dict]]:
    """The whole game the server will see for this seed, chosen at random from the legal moves."""
    import engine.pof  # noqa: F401
    from engine.core import get_game
    game = get_game(GAME)
    options = game.normalize_options({**OPTIONS, "seats": 5})
    state = game.new_state(options, game.make_setup(options, seed))
    rng, moves = random.Random(seed), []
    while game.result(state) is None:
        seat = game.pending(state)[0]["seat"]
        move = rng.choice(game.legal_moves(state, seat))
        state, _ = game.apply(state, seat, move)
        moves.append((seat, move))
    return moves


def new_game(port: int, seed: int) -> tuple[str, dict[int, str]]:
    body = {"game": GAME, "seed": seed, "options": OPTIONS,
            "seats": [{"name": f"P{n}"} for n in range(5)]}
    status, data = request(port, "POST", "/api/v1/games", body)
    assert status == 201, data
    created = json.loads(data)
    game_id = created["game"]["id"]
    status, data = request(port, "POST", f"/api/v1/games/{game_id}/start", {}, created["tokens"]["host"])
    assert status == 200, data
    return game_id, {s["seat"]: s["token"] for s in created["tokens"]["seats"]}


def prepare_games(port: int, moves_wanted: int, seed: int) -> tuple[list, int]:
    """Planned and started games for one client, holding at least `moves_wanted` moves in all."""
    prepared, planned = [], 0
    while planned < moves_wanted:
        seed += 1
        moves = planned_moves(seed)
        game_id, tokens = new_game(port, seed)
        prepared.append((game_id, tokens, moves))
        planned += len(moves)
    return prepared, seed


def client(workload: str, port: int, seconds: float, number: int, moves_wanted: int, ready, results) -> None:
    """One load process: prepares, waits for the others, then sends requests for `seconds`.

    Puts (latencies in seconds, games it had to create inside the window) on `results`.
    """
    latencies: list[float] = []
    late_games = 0
    seed = number * 100_000
    prepared: list = []
    if workload in MOVES:
        prepared, seed = prepare_games(port, moves_wanted, seed)
    ready.wait()
    started = time.process_time()
    until = time.time() + seconds
    if workload in TRIVIAL:
        method, path = TRIVIAL[workload]
        while time.time() < until:
            began = time.perf_counter()
            status, _ = request(port, method, path, {} if method == "POST" else None)
            latencies.append(time.perf_counter() - began)
            assert status == 200
        results.put((latencies, late_games, time.process_time() - started))
        return
    while time.time() < until:
        if not prepared:  # more moves than planned for: plan and create inside the window
            more, seed = prepare_games(port, 1, seed)
            prepared += more
            late_games += 1
        game_id, tokens, moves = prepared.pop(0)
        version = 2
        for seat, move in moves:
            if time.time() >= until:
                break
            began = time.perf_counter()
            status, data = request(port, "POST", MOVES[workload].format(game_id),
                                   {"move": move, "version": version}, tokens[seat])
            latencies.append(time.perf_counter() - began)
            assert status == 200, data
            version += 1
    results.put((latencies, late_games, time.process_time() - started))


def measure(workload: str, port: int, clients: int, seconds: float, servers: dict[str, list[int]],
            expected_rate: float = 0.0) -> dict:
    """Run `clients` processes for `seconds` once all are ready; `expected_rate` sizes the moves prepared.

    `servers` names the processes whose CPU is split per request ("web": gunicorn's, "redis": Redis's).
    """
    context = multiprocessing.get_context("fork")
    ready, results = context.Barrier(clients + 1), context.Queue()
    moves_wanted = int(expected_rate * seconds / clients * 1.2) + 1
    processes = [context.Process(target=client, args=(workload, port, seconds, n, moves_wanted, ready, results))
                 for n in range(clients)]
    for process in processes:
        process.start()
    ready.wait(timeout=600)
    began, cpu_before = time.time(), {name: cpu_seconds(pids) for name, pids in servers.items()}
    collected = [results.get(timeout=seconds + 120) for _ in processes]
    elapsed = time.time() - began
    cpu = {name: cpu_seconds(pids) - cpu_before[name] for name, pids in servers.items()}
    for process in processes:
        process.join(timeout=30)
        assert process.exitcode == 0, f"a {workload} client failed"
    latencies = sorted(x for result, _, _ in collected for x in result)
    cpu["clients"] = sum(used for _, _, used in collected)
    return {
        "requests": len(latencies),
        "per_second": len(latencies) / elapsed,
        "p50_ms": 1000 * latencies[len(latencies) // 2],
        "p99_ms": 1000 * latencies[int(len(latencies) * 0.99)],
        "late_games": sum(late for _, late, _ in collected),
        "cpu_us": {name: 1e6 * used / len(latencies) for name, used in cpu.items()},
    }


def report(name: str, figures: dict) -> None:
    print(f"  {name:12} {figures['per_second']:8.0f} req/s   p50 {figures['p50_ms']:6.2f} ms   "
          f"p99 {figures['p99_ms']:6.2f} ms   ({figures['requests']} requests)")
    print("  " + " " * 12 + " CPU per request: " + ", ".join(f"{name} {us:.0f} us" for name, us in figures["cpu_us"].items()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", default="8,16", help="client counts to run, comma-separated")
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--no-fsync", action="store_true", help="Redis without AOF (to see fsync's cost)")
    args = parser.parse_args()
    counts = [int(n) for n in args.clients.split(",")]
    durability = "no AOF" if args.no_fsync else "AOF fsync always"
    print(f"gunicorn {args.workers} gthread workers x {args.threads} threads, {args.seconds:g} s per workload, "
          f"Redis {durability}")
    with tempfile.TemporaryDirectory() as data_dir:
        extra = ["--appendonly", "no", "--save", ""] if args.no_fsync else []
        with LocalRedis(Path(data_dir), conf=REPO / "redis.conf", extra=extra) as redis_server:
            port = free_port()
            env = {**os.environ, "REDIS_URL": redis_server.url, "PALAZZO_RATE_LIMIT": "100000000 per minute",
                   "PALAZZO_SECRET": "benchmark-" + "s" * 32}
            server = subprocess.Popen(
                [sys.executable, "-m", "gunicorn", "--config", "python:service.gunicorn_conf", "--workers",
                 str(args.workers), "--threads", str(args.threads), "--bind", f"127.0.0.1:{port}",
                 "--log-level", "warning", "benchmarks.wsgi:app"], cwd=REPO, env=env)
            try:
                for _ in range(100):
                    try:
                        if request(port, "GET", "/api/v1/health")[0] == 200:
                            break
                    except OSError:
                        time.sleep(0.1)
                servers = {"web": [server.pid, *children(server.pid)], "redis": [redis_server.process.pid]}
                for clients in counts:
                    health = measure("health", port, clients, args.seconds, servers)
                    incr = measure("incr", port, clients, args.seconds, servers)
                    moves = measure("moves", port, clients, args.seconds, servers, health["per_second"])
                    bare = measure("bare moves", port, clients, args.seconds, servers, health["per_second"])
                    print(f"{clients} client processes:")
                    for name, figures in (("GET /health", health), ("POST incr", incr), ("POST move", moves),
                                          ("bare move", bare)):
                        report(name, figures)
                    for name, figures in (("move", moves), ("bare move", bare)):
                        if figures["late_games"]:
                            print(f"  (the {name} clients ran out of prepared games and created "
                                  f"{figures['late_games']} inside the window)")
                    print(f"  ratio moves/incr: {moves['per_second'] / incr['per_second']:.2f} (goal >= 0.80); "
                          f"moves/health: {moves['per_second'] / health['per_second']:.2f}; "
                          f"move p99 {moves['p99_ms']:.0f} ms (goal < 50 ms at 16 clients)")
                    print(f"  without Flask: bare moves/incr {bare['per_second'] / incr['per_second']:.2f}, "
                          f"moves/bare moves {moves['per_second'] / bare['per_second']:.2f}")
            finally:
                server.terminate()
                server.wait(timeout=30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
