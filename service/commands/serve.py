"""Run Palazzo locally (`palazzo up`, also `palazzo serve`): gunicorn, one worker, its own redis-server.

Local state lives under --var (default ./var): `secret`, made once, signs the links the API mails
(PALAZZO_SECRET wins when set), and without REDIS_URL a private redis-server keeps its data in
`redis/` with the repository's redis.conf (AOF, fsync always), so games survive a restart.
gunicorn, the worker and that redis-server are each started again when they die; one that dies
more than RESTARTS_PER_MINUTE times in a minute stops everything with status 1. The port and every
setting are checked before anything starts, so a port in use or a setting that cannot be read is
one line and status 2, not a traceback from each process. Ctrl-C or SIGTERM (to it, or to its whole
process group) stops it all, quietly, the redis-server last: the others need it until they stop.

This module writes the environment, which every other module leaves to `service.config`: the
secret, base URL, job mode and Redis URL it chooses must reach gunicorn and the worker, separate
processes that read their `Config` from the environment when they start, so it sets them there
before it starts them (and before it checks them, reading them back as those processes will).
"""
from __future__ import annotations

import argparse
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from service.localredis import LocalRedis

REPO = Path(__file__).resolve().parents[2]
URL_FILE = "redis.url"  # where `palazzo outbox` finds the private redis-server of a running serve
POLL_SECONDS = 0.5
RESTARTS_PER_MINUTE = 3
STOP_SECONDS = 30


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


def check_port(host: str, port: int) -> None:
    """Refuse a port something else listens on, before anything starts (gunicorn would retry, then
    exit with a traceback). SO_REUSEADDR as gunicorn binds, so a port left in TIME_WAIT is free."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as error:
            raise ServeError(f"cannot listen on {host}:{port} ({error.strerror}): stop what uses it, "
                             "or give another port with --port") from None


def check_settings() -> None:
    """Build here, once, what gunicorn and the worker build from the environment: a setting they
    cannot read is then one line (which variable, what is wrong) before either starts."""
    from service.app import create_app
    from service.config import Config
    try:
        create_app(Config.from_env())
    except (RuntimeError, ValueError) as error:
        raise ServeError(f"cannot start with this setting: {error}") from None


def start_redis(data_dir: Path, port: int) -> LocalRedis:
    from service.localredis import LocalRedis

    conf = REPO / "redis.conf"
    local = LocalRedis(data_dir.resolve(), conf=conf if conf.exists() else None, port=port)
    (data_dir.parent / URL_FILE).write_text(local.url + "\n")
    _started_redis(local, data_dir)
    return local


def _started_redis(local: LocalRedis, data_dir: Path) -> None:
    print(f"redis-server pid {local.process.pid} on {local.url} (data in {data_dir})", flush=True)


def start_worker() -> subprocess.Popen:
    worker = subprocess.Popen([sys.executable, "-m", "service.cli", "worker"], cwd=REPO)
    print(f"palazzo worker pid {worker.pid} (deadlines, bots, mail)", flush=True)
    return worker


def start_gunicorn(args: argparse.Namespace) -> subprocess.Popen:
    command = [sys.executable, "-m", "gunicorn", "--config", "python:service.gunicorn_conf",
               "--workers", str(args.workers), "--bind", f"{args.host}:{args.port}"]
    server = subprocess.Popen(command, cwd=REPO, start_new_session=True)  # its workers share its group
    print(f"gunicorn pid {server.pid} on {args.host}:{args.port}", flush=True)
    return server


@dataclass
class Child:
    """A process `palazzo up` keeps running: `start` starts it (again) and returns it."""

    name: str
    start: Callable[[], subprocess.Popen]
    process: subprocess.Popen | None = None
    deaths: list[float] = field(default_factory=list)

    def died_again(self) -> bool:
        """Count a death; True when it is more than RESTARTS_PER_MINUTE within a minute."""
        now = time.monotonic()
        self.deaths = [at for at in self.deaths if now - at < 60] + [now]
        return len(self.deaths) > RESTARTS_PER_MINUTE


def supervise(children: list[Child]) -> int:
    """Start each child again when it dies, until one keeps dying (status 1) or a signal stops us."""
    while True:
        for child in children:
            if child.process.poll() is None:
                continue
            if child.died_again():
                print(f"{child.name} exited with {child.process.returncode} and keeps dying: stopping",
                      file=sys.stderr, flush=True)
                return 1
            print(f"{child.name} exited with {child.process.returncode}; starting another", file=sys.stderr,
                  flush=True)
            reap(child.process)
            try:
                child.process = child.start()
            except RuntimeError as error:  # a redis-server that does not answer counts as dying again
                print(f"{child.name} did not start: {error}", file=sys.stderr, flush=True)
        time.sleep(POLL_SECONDS)


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    reap(process)


def reap(process: subprocess.Popen) -> None:
    """Stop what a dead child leaves in its own process group, and wait until it is gone: a gunicorn
    master killed with -9 leaves its workers, which leave by themselves only once they notice (within
    a second) and have finished their requests, holding the port the next gunicorn binds until then.
    A group named by the child's pid is the child's own; one started in ours has none, and this does
    nothing."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return
    deadline = time.monotonic() + STOP_SECONDS
    while time.monotonic() < deadline:
        try:
            os.killpg(process.pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def run(args: argparse.Namespace) -> int:
    signal.signal(signal.SIGTERM, _interrupt)
    var = Path(args.var)
    local: LocalRedis | None = None
    children: list[Child] = []
    try:
        check_port(args.host, args.port)
        if not os.environ.get("PALAZZO_SECRET"):
            os.environ["PALAZZO_SECRET"] = local_secret(var / "secret")
        address = f"http://{args.host}:{args.port}"
        os.environ.setdefault("PALAZZO_BASE_URL", address)
        if args.dev or args.no_worker:
            os.environ["PALAZZO_JOBS"] = "inline"
        from service.localredis import free_port
        own_redis = None if os.environ.get("REDIS_URL") else free_port()
        if own_redis:  # the settings are checked with the URL it will have, before it starts
            os.environ["REDIS_URL"] = f"redis://127.0.0.1:{own_redis}/0"
        check_settings()
        if own_redis:
            local = start_redis(var / "redis", own_redis)
        print(f"Palazzo on {address}/", flush=True)
        print(f"API on {address}/api/v1 (spec: {address}/api/v1/openapi.json)", flush=True)
        print(f"Local mailbox on {address}/dev/mailbox (or: palazzo mail list)", flush=True)
        if args.dev:
            from service.app import create_app
            create_app().run(host=args.host, port=args.port, debug=True, use_reloader=False)
            return 0
        children = [Child("gunicorn", lambda: start_gunicorn(args))]
        if not args.no_worker:
            children.append(Child("palazzo worker", start_worker))
        for child in children:
            child.process = child.start()
        redis_server = [Child("redis-server", lambda: _restarted(local, var / "redis"), local.process)] if local else []
        return supervise(children + redis_server)
    except ServeError as error:
        print(f"palazzo up: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 0
    finally:
        for signum in (signal.SIGTERM, signal.SIGINT):  # stopping already: a second signal changes nothing
            signal.signal(signum, signal.SIG_IGN)
        for child in children:
            if child.process is not None:
                stop(child.process)
        if local:
            local.stop()


def _restarted(local: LocalRedis, data_dir: Path) -> subprocess.Popen:
    local.restart()
    _started_redis(local, data_dir)
    return local.process
