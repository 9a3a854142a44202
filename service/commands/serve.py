"""Run the REST API locally: gunicorn (or Flask's server with --dev), with its own redis-server.

Without REDIS_URL in the environment, a private redis-server starts on a free loopback port with
the repository's redis.conf (AOF, fsync always) and its data under ./var/redis, so games survive a
restart. Ctrl-C stops both.
"""
from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn worker processes (default 2)")
    parser.add_argument("--dev", action="store_true", help="Flask's reloading development server instead")
    parser.add_argument("--data", default="var/redis", help="data directory of the local redis-server")


def _interrupt(signum, frame) -> None:
    """SIGTERM stops the server and its redis-server like Ctrl-C does, instead of orphaning them."""
    raise KeyboardInterrupt


def run(args: argparse.Namespace) -> int:
    from service.localredis import LocalRedis

    signal.signal(signal.SIGTERM, _interrupt)
    local = None
    if not os.environ.get("REDIS_URL"):
        conf = REPO / "redis.conf"
        local = LocalRedis(Path(args.data).resolve(), conf=conf if conf.exists() else None)
        os.environ["REDIS_URL"] = local.url
        print(f"redis-server on {local.url} (data in {args.data})", flush=True)
    print(f"Palazzo API on http://{args.host}:{args.port}/api/v1 (spec: /api/v1/openapi.json)", flush=True)
    try:
        if args.dev:
            from service.app import create_app
            create_app().run(host=args.host, port=args.port, debug=True, use_reloader=False)
            return 0
        command = [sys.executable, "-m", "gunicorn", "--workers", str(args.workers), "--bind",
                   f"{args.host}:{args.port}", "--no-control-socket", "service.wsgi:app"]
        server = subprocess.Popen(command, cwd=REPO)
        try:
            return server.wait()
        except KeyboardInterrupt:
            server.terminate()
            server.wait(timeout=30)
            return 0
    finally:
        if local:
            local.stop()
