"""Whether `POST /api/v1/sign-in` takes as long for an address that plays here as for one that does not.

Starts a private redis-server (the repository's redis.conf: AOF with fsync always) and gunicorn serving
the real app with RQ jobs (no worker: the jobs a request queues wait, so only the request is timed),
seats `--requests` addresses in games, then asks for a link for each, alternating with as many addresses
that play nowhere, one request at a time. Each known address is asked for once, so no limit per address
cuts any request short. Prints the median and p90 of each and the ratio known/unknown of the medians,
in `--runs` runs (the answer that tells nothing has a ratio of 1.00, within the noise).

    python benchmarks/sign_in.py [--requests 300] [--runs 3]
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from service.localredis import LocalRedis, free_port  # noqa: E402

SEATS = 5


def request(port: int, method: str, path: str, body: dict | None = None, token: str | None = None
            ) -> tuple[int, bytes, float]:
    """(status, body, seconds from sending to the whole answer)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}
    connection.connect()
    began = time.perf_counter()
    connection.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    response = connection.getresponse()
    data = response.read()
    took = time.perf_counter() - began
    connection.close()
    return response.status, data, took


def seat(port: int, addresses: list[str]) -> None:
    """Games whose seats hold these addresses, so that each one plays here."""
    for start in range(0, len(addresses), SEATS):
        group = addresses[start:start + SEATS]
        seats = [{"name": f"P{n}", "email": email} for n, email in enumerate(group)]
        seats += [{"name": f"B{n}", "bot": "random"} for n in range(3 - len(seats))]
        status, data, _ = request(port, "POST", "/api/v1/games", {"game": "princes-of-florence", "seats": seats})
        assert status == 201, data


def run(port: int, number: int, count: int) -> dict[str, list[float]]:
    known = [f"known-{number}-{n}@example.org" for n in range(count)]
    seat(port, known)
    times: dict[str, list[float]] = {"known": [], "unknown": []}
    for n, email in enumerate(known):
        for kind, address in (("known", email), ("unknown", f"nobody-{number}-{n}@example.org")):
            status, data, took = request(port, "POST", "/api/v1/sign-in", {"email": address})
            assert status == 202, data
            times[kind].append(took)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300, help="requests of each kind per run")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data_dir, LocalRedis(Path(data_dir), conf=REPO / "redis.conf") as redis_server:
        port = free_port()
        env = {**os.environ, "REDIS_URL": redis_server.url, "PALAZZO_RATE_LIMIT": "100000000 per minute",
               "PALAZZO_INVITE_LIMIT": "100000000 per hour",
               "PALAZZO_SECRET": "benchmark-" + "s" * 32, "PALAZZO_JOBS": "rq"}
        server = subprocess.Popen([sys.executable, "-m", "gunicorn", "--config", "python:service.gunicorn_conf",
                                   "--bind", f"127.0.0.1:{port}", "--log-level", "warning", "service.wsgi:app"],
                                  cwd=REPO, env=env)
        try:
            for _ in range(100):
                try:
                    if request(port, "GET", "/api/v1/health")[0] == 200:
                        break
                except OSError:
                    time.sleep(0.1)
            print(f"POST /api/v1/sign-in, one request at a time, {args.requests} of each kind per run, "
                  "gunicorn defaults, Redis AOF fsync always")
            for number in range(args.runs):
                times = run(port, number, args.requests)
                medians = {kind: statistics.median(taken) for kind, taken in times.items()}
                p90 = {kind: statistics.quantiles(taken, n=10)[-1] for kind, taken in times.items()}
                print(f"  run {number + 1}: known median {1000 * medians['known']:.2f} ms (p90 "
                      f"{1000 * p90['known']:.2f}), unknown median {1000 * medians['unknown']:.2f} ms (p90 "
                      f"{1000 * p90['unknown']:.2f}); ratio known/unknown {medians['known'] / medians['unknown']:.2f}")
        finally:
            server.terminate()
            server.wait(timeout=30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
