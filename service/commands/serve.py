"""Run Palazzo locally (`palazzo up`, also `palazzo serve`): gunicorn, one worker, its own redis-server.

Local state lives under --var (default ./var): `secret`, made once, signs the links the API mails
(PALAZZO_SECRET wins when set), and without REDIS_URL a private redis-server keeps its data in
`redis/` with the repository's redis.conf (AOF, fsync always), so games survive a restart. That
redis-server is restarted when it dies. Ctrl-C or SIGTERM stops both.
"""
from __future__ import annotations

import argparse
import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from service.localredis import LocalRedis

REPO = Path(__file__).resolve().parents[2]
URL_FILE = "redis.url"  # where `palazzo outbox` finds the private redis-server of a running serve
POLL_SECONDS = 0.5
RESTARTS_PER_MINUTE = 3


class ServeError(Exception):
    """A reason not to start, told to the operator on stderr."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn worker processes (default 2)")
    parser.add_argument("--dev", action="store_true", help="Flask's reloading development server instead")
    parser.add_argument("--var", default="var", help="local state: secret and redis/ data (default ./var)")
    parser.add_argument("--no-worker", action="store_true",
                        help="run no `palazzo worker`: bots move inside requests and no deadline is enforced")


def _interrupt(signum, frame) -> None:
    """SIGTERM stops the server and its redis-server like Ctrl-C does, instead of orphaning them."""
    raise KeyboardInterrupt


def local_secret(path: Path) -> str:
    """The secret in `path`, made on first use; created 0600 at once, so it is never readable by others."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        mode = path.stat().st_mode & 0o777
        if mode & 0o077:
            raise ServeError(f"{path} is open to group or others (mode {mode:o}): chmod 600 it") from None
        secret = path.read_text().strip()
        if not secret:
            raise ServeError(f"{path} is empty: delete it and a new secret is made") from None
        return secret
    secret = secrets.token_urlsafe(48)
    with os.fdopen(fd, "w") as file:
        file.write(secret + "\n")
    return secret


def start_redis(data_dir: Path) -> LocalRedis:
    from service.localredis import LocalRedis

    conf = REPO / "redis.conf"
    local = LocalRedis(data_dir.resolve(), conf=conf if conf.exists() else None)
    (data_dir.parent / URL_FILE).write_text(local.url + "\n")
    print(f"redis-server pid {local.process.pid} on {local.url} (data in {data_dir})", flush=True)
    return local


def start_worker() -> subprocess.Popen:
    worker = subprocess.Popen([sys.executable, "-m", "service.cli", "worker"], cwd=REPO)
    print(f"palazzo worker pid {worker.pid} (deadlines, bots)", flush=True)
    return worker


def supervise(server: subprocess.Popen, local: LocalRedis | None, workers: list[subprocess.Popen]) -> int:
    """Wait for gunicorn, restarting a dead redis-server or worker (replaced in `workers`, so the
    caller stops the live one); more than 3 redis deaths a minute stop everything."""
    deaths: list[float] = []
    while (status := server.poll()) is None:
        for index, worker in enumerate(workers):
            if worker.poll() is not None:
                print(f"palazzo worker exited with {worker.returncode}; starting another", file=sys.stderr, flush=True)
                workers[index] = start_worker()
        if local and local.process.poll() is not None:
            now = time.monotonic()
            deaths = [t for t in deaths if now - t < 60] + [now]
            print(f"redis-server exited with {local.process.returncode}", file=sys.stderr, flush=True)
            if len(deaths) > RESTARTS_PER_MINUTE:
                print("redis-server keeps dying: stopping", file=sys.stderr, flush=True)
                stop(server)
                return 1
            try:
                local.restart()
                print(f"redis-server restarted, pid {local.process.pid}", file=sys.stderr, flush=True)
            except RuntimeError as error:
                print(f"redis-server restart failed: {error}", file=sys.stderr, flush=True)
        time.sleep(POLL_SECONDS)
    return status


def stop(server: subprocess.Popen) -> None:
    server.terminate()
    server.wait(timeout=30)


def run(args: argparse.Namespace) -> int:
    signal.signal(signal.SIGTERM, _interrupt)
    var = Path(args.var)
    try:
        if not os.environ.get("PALAZZO_SECRET"):
            os.environ["PALAZZO_SECRET"] = local_secret(var / "secret")
    except ServeError as error:
        print(f"palazzo serve: {error}", file=sys.stderr)
        return 2
    address = f"http://{args.host}:{args.port}"
    os.environ.setdefault("PALAZZO_BASE_URL", address)
    local = None
    if not os.environ.get("REDIS_URL"):
        local = start_redis(var / "redis")
        os.environ["REDIS_URL"] = local.url
    print(f"Palazzo API on {address}/api/v1 (spec: {address}/api/v1/openapi.json)", flush=True)
    print(f"Local mailbox on {address}/dev/mailbox (or: palazzo mail list)", flush=True)
    if args.dev or args.no_worker:
        os.environ["PALAZZO_JOBS"] = "inline"
    workers: list[subprocess.Popen] = []
    try:
        if args.dev:
            from service.app import create_app
            create_app().run(host=args.host, port=args.port, debug=True, use_reloader=False)
            return 0
        command = [sys.executable, "-m", "gunicorn", "--config", "python:service.gunicorn_conf",
                   "--workers", str(args.workers), "--bind", f"{args.host}:{args.port}"]
        server = subprocess.Popen(command, cwd=REPO)
        workers = [] if args.no_worker else [start_worker()]
        try:
            return supervise(server, local, workers)
        except KeyboardInterrupt:
            stop(server)
            return 0
    finally:
        for worker in workers:
            if worker.poll() is None:
                stop(worker)
        if local:
            local.stop()
