"""CPU of one move in the web process, against the bare INCR endpoint: no HTTP, no other process.

Calls the app the API benchmark serves (`benchmarks/wsgi.py`) as gunicorn would, with a WSGI environ
per request, on a private redis-server (the repository's redis.conf: AOF, fsync always), and reads
this process's CPU time (`time.process_time`) over every move of a few planned 5-seat games, over
the same games played through the benchmark's Flask-free move route, and over as many INCRs. It
isolates what a move costs the web process from gunicorn, the kernel's connections and the load
generator, which `benchmarks/api.py` measures all together. The best of --rounds is reported (a
shared machine only adds time). With --profile it then plays both routes once more under cProfile
and prints where each spends its time, by package (time blocked reading Redis's answers left out).

    python benchmarks/move_cpu.py [--games 6] [--rounds 3] [--profile]
"""
from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import json
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.api import GAME, MOVES, OPTIONS, planned_moves  # noqa: E402
from service.localredis import LocalRedis  # noqa: E402


def call(app, method: str, path: str, body: dict, token: str | None = None) -> tuple[str, bytes]:
    raw = json.dumps(body).encode()
    environ = {"REQUEST_METHOD": method, "PATH_INFO": path, "QUERY_STRING": "", "SERVER_NAME": "127.0.0.1",
               "SERVER_PORT": "8000", "SERVER_PROTOCOL": "HTTP/1.1", "wsgi.url_scheme": "http",
               "wsgi.input": io.BytesIO(raw), "wsgi.errors": sys.stderr, "wsgi.multithread": True,
               "wsgi.multiprocess": True, "wsgi.run_once": False, "REMOTE_ADDR": "127.0.0.1",
               "CONTENT_TYPE": "application/json", "CONTENT_LENGTH": str(len(raw)), "HTTP_HOST": "127.0.0.1:8000"}
    if token:
        environ["HTTP_AUTHORIZATION"] = f"Bearer {token}"
    answer: dict[str, str] = {}
    data = b"".join(app(environ, lambda status, headers, exc_info=None: answer.setdefault("status", status)))
    return answer["status"], data


def new_games(app, count: int) -> list[tuple[str, dict[int, str], list]]:
    made = []
    for seed in range(1, count + 1):
        body = {"game": GAME, "seed": seed, "options": OPTIONS, "seats": [{"name": f"P{n}"} for n in range(5)]}
        created = json.loads(call(app, "POST", "/api/v1/games", body)[1])
        game_id = created["game"]["id"]
        call(app, "POST", f"/api/v1/games/{game_id}/start", {}, created["tokens"]["host"])
        made.append((game_id, {s["seat"]: s["token"] for s in created["tokens"]["seats"]}, planned_moves(seed)))
    return made


def play_all(app, games: list, route: str) -> tuple[float, int]:
    """(CPU seconds a move, moves played): every planned move of `games`, each to `route`."""
    moves = 0
    began = time.process_time()
    for game_id, tokens, planned in games:
        for version, (seat, move) in enumerate(planned, start=2):
            status, data = call(app, "POST", route.format(game_id), {"move": move, "version": version}, tokens[seat])
            assert status.startswith("200"), data
            moves += 1
    return (time.process_time() - began) / moves, moves


def measure(app, games: list, bare_games: list) -> tuple[float, float, float, int]:
    """(CPU seconds a move, a move without Flask, an INCR, moves played)."""
    per_move, moves = play_all(app, games, MOVES["moves"])
    per_bare, _ = play_all(app, bare_games, MOVES["bare moves"])
    began = time.process_time()
    for _ in range(moves):
        assert call(app, "POST", "/bench/incr", {})[0].startswith("200")
    return per_move, per_bare, (time.process_time() - began) / moves, moves


PACKAGES = {"/redis/": "redis-py", "/werkzeug/": "werkzeug", "/flask/": "flask",
            "/flask_smorest/": "smorest, webargs, marshmallow", "/webargs/": "smorest, webargs, marshmallow",
            "/marshmallow/": "smorest, webargs, marshmallow", "/engine/": "engine", "/service/": "service",
            "orjson": "json", "/benchmarks/": "this harness", "sendall": "socket sends", "~": "builtins"}


def profile(app, games: list, route: str) -> None:
    """One play of `games` to `route` under cProfile: each package's share of the time, outside I/O waits."""
    profiler = cProfile.Profile()
    profiler.runcall(play_all, app, games, route)
    shares: dict[str, float] = {}
    for (path, _, function), (_, calls, own, _, _) in pstats.Stats(profiler).stats.items():
        if function == "<method 'recv_into' of '_socket.socket' objects>":
            continue  # waiting for Redis (its fsync), not CPU
        where = next((name for part, name in PACKAGES.items() if part in path or part in function), "other")
        shares[where] = shares.get(where, 0.0) + own
    total = sum(shares.values())
    print(f"  {route.format('<id>')} under cProfile: " + ", ".join(
        f"{name} {share / total:.0%}" for name, share in sorted(shares.items(), key=lambda item: -item[1])))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="then show where each route's time goes")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data, LocalRedis(Path(data), conf=REPO / "redis.conf") as server:
        os.environ.update(REDIS_URL=server.url, PALAZZO_SECRET="benchmark-" + "s" * 32,
                          PALAZZO_RATE_LIMIT="100000000 per minute")
        from benchmarks import wsgi
        rounds = [measure(wsgi.app, new_games(wsgi.app, args.games), new_games(wsgi.app, args.games))
                  for _ in range(args.rounds)]
        move, bare, incr = (min(r[n] for r in rounds) for n in range(3))
        print(f"web process CPU, best of {args.rounds} rounds of {rounds[0][3]} moves: move {move * 1e6:.0f} us, "
              f"move without Flask {bare * 1e6:.0f} us, bare INCR {incr * 1e6:.0f} us; ratio INCR/move "
              f"{incr / move:.2f}, INCR/move without Flask {incr / bare:.2f}")
        if args.profile:
            for route in MOVES.values():
                profile(wsgi.app, new_games(wsgi.app, args.games), route)
    return 0


if __name__ == "__main__":
    sys.exit(main())
