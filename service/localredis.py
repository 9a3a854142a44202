"""Start a private redis-server on a free loopback port: for `palazzo serve`, tests and benchmarks."""
from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

import redis


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LocalRedis:
    """A redis-server child process; `stop()` ends it (also as a context manager).

    It runs in a process group of its own, so that a signal to its owner's group (Ctrl-C, or
    `kill -TERM -<pgid>`) leaves it to its owner, who stops it after the clients that need it.
    """

    def __init__(self, data_dir: Path, conf: Path | None = None, extra: list[str] = (), port: int | None = None):
        binary = shutil.which("redis-server") or "/usr/bin/redis-server"
        data_dir.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.args = [binary] + ([str(conf)] if conf else [])
        self.args += ["--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(data_dir), *extra]
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._start()

    def _start(self) -> None:
        """Start the server and wait for it to answer; one that does not answer is not left running."""
        self.process = subprocess.Popen(self.args, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
                                        start_new_session=True)
        try:
            self._wait()
        except RuntimeError:
            self.stop()
            raise

    def restart(self) -> None:
        """The same server again (binary, port, data, conf), so that clients holding the URL reconnect."""
        self.stop()
        self._start()

    def _wait(self) -> None:
        client = redis.Redis.from_url(self.url)
        for _ in range(200):
            if self.process.poll() is not None:
                raise RuntimeError(f"redis-server exited with {self.process.returncode}")
            try:
                client.ping()
                return
            except redis.ConnectionError:
                time.sleep(0.02)
        raise RuntimeError("redis-server did not answer")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)

    def __enter__(self) -> "LocalRedis":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
