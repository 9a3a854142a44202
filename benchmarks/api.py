"""Throughput of move submission against a trivial JSON endpoint: gunicorn, real Redis, loopback.

Starts a private redis-server (the repository's redis.conf: AOF with fsync always, unless --no-fsync)
and gunicorn, then runs client processes for a fixed time against each workload in turn:
- health: GET /api/v1/health, which touches neither Redis nor the engine (the ceiling);
- moves: POST /api/v1/games/<id>/moves with real Princes of Florence moves. Each client plays its
  own 5-seat games; it replays the game locally from the same seed to know every next legal move and
  version, so only move submissions are timed.
Reports requests per second, p50/p99 latency, and the ratio (target: moves >= half of health).

    python benchmarks/api.py [--clients 8] [--seconds 10] [--workers 4] [--no-fsync]
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
            "seats": [{"name": f"P{n}", "email": f"bench{seed}-{n}@example.org"} for n in range(5)]}
    status, data = request(port, "POST", "/api/v1/games", body)
    assert status == 201, data
    created = json.loads(data)
    game_id = created["game"]["id"]
    status, data = request(port, "POST", f"/api/v1/games/{game_id}/start", {}, created["tokens"]["host"])
    assert status == 200, data
    return game_id, {s["seat"]: s["token"] for s in created["tokens"]["seats"]}


def client(args: tuple[str, int, float, int]) -> list[float]:
    """One load process: latencies (seconds) of every request it made before the time ran out."""
    workload, port, until, number = args
    latencies: list[float] = []
    if workload == "health":
        while time.time() < until:
            began = time.perf_counter()
            status, _ = request(port, "GET", "/api/v1/health")
            latencies.append(time.perf_counter() - began)
            assert status == 200
        return latencies
    seed = number * 1000
    while time.time() < until:
        seed += 1
        moves = planned_moves(seed)
        game_id, tokens = new_game(port, seed)
        version = 2
        for seat, move in moves:
            if time.time() >= until:
                break
            began = time.perf_counter()
            status, data = request(port, "POST", f"/api/v1/games/{game_id}/moves",
                                   {"move": move, "version": version}, tokens[seat])
            latencies.append(time.perf_counter() - began)
            assert status == 200, data
            version += 1
    return latencies


def measure(workload: str, port: int, clients: int, seconds: float) -> dict:
    until = time.time() + seconds
    with multiprocessing.Pool(clients) as pool:
        began = time.time()
        results = pool.map(client, [(workload, port, until, n) for n in range(clients)])
        elapsed = time.time() - began
    latencies = sorted(x for result in results for x in result)
    return {
        "requests": len(latencies),
        "per_second": len(latencies) / elapsed,
        "p50_ms": 1000 * latencies[len(latencies) // 2],
        "p99_ms": 1000 * latencies[int(len(latencies) * 0.99)],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--no-fsync", action="store_true", help="Redis without AOF (to see fsync's cost)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data_dir:
        extra = ["--appendonly", "no", "--save", ""] if args.no_fsync else []
        with LocalRedis(Path(data_dir), conf=REPO / "redis.conf", extra=extra) as redis_server:
            port = free_port()
            env = {**os.environ, "REDIS_URL": redis_server.url, "PALAZZO_RATE_LIMIT": "100000000/60"}
            server = subprocess.Popen(
                [sys.executable, "-m", "gunicorn", "--workers", str(args.workers), "--bind", f"127.0.0.1:{port}",
                 "--no-control-socket", "--log-level", "warning", "service.wsgi:app"], cwd=REPO, env=env)
            try:
                for _ in range(100):
                    try:
                        if request(port, "GET", "/api/v1/health")[0] == 200:
                            break
                    except OSError:
                        time.sleep(0.1)
                health = measure("health", port, args.clients, args.seconds)
                moves = measure("moves", port, args.clients, args.seconds)
            finally:
                server.terminate()
                server.wait(timeout=30)
    durability = "no AOF" if args.no_fsync else "AOF fsync always"
    print(f"gunicorn {args.workers} sync workers, {args.clients} client processes, {args.seconds:g} s each, "
          f"Redis {durability}")
    for name, figures in (("GET /health", health), ("POST move", moves)):
        print(f"{name:12} {figures['per_second']:8.0f} req/s   p50 {figures['p50_ms']:6.2f} ms   "
              f"p99 {figures['p99_ms']:6.2f} ms   ({figures['requests']} requests)")
    ratio = moves["per_second"] / health["per_second"]
    print(f"ratio moves/health: {ratio:.2f} (target >= 0.50)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
