"""The replies' own process: a child of `palazzo worker` that serves REPLY_QUEUE alone.

A reply job can take many seconds (one took 16); in the worker's own process it held up every
deadline, bot move and mail queued behind it. The child is the same command with `--replies`, and
it must never outlive its parent: it holds the read end of a pipe whose write end only the parent
has, and when the parent dies, however it dies, the kernel closes that end and the child kills
itself at once. A job it was running is then RQ's abandoned job, retried like any failed try.
"""
from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
import time

log = logging.getLogger(__name__)
RESTART_SECONDS = 5.0  # a child that keeps dying is started again at most this often
STOP_SECONDS = 30.0  # how long a stopping parent waits for the child's current job


def die_with_parent(pipe: int) -> None:
    """Kill this process the moment the parent's end of `pipe` closes (a thread waits on it)."""
    def watch() -> None:
        while os.read(pipe, 1):
            pass
        os.kill(os.getpid(), signal.SIGKILL)
    threading.Thread(target=watch, name="parent", daemon=True).start()


class ReplyProcess:
    """Starts the child, starts it again when it dies (`keep_up`, from the worker's tick), stops it."""

    def __init__(self, fork: bool):
        self.command = [sys.executable, "-m", "service.cli", "worker", *(["--fork"] if fork else [])]
        self.read_end, self.write_end = os.pipe()  # the write end stays here, never inherited
        self.process = self._start()

    def _start(self) -> subprocess.Popen:
        self.started = time.monotonic()
        process = subprocess.Popen([*self.command, "--replies", str(self.read_end)], pass_fds=[self.read_end])
        log.info("replies served by pid %d", process.pid)
        return process

    def keep_up(self) -> None:
        if self.process.poll() is not None and time.monotonic() - self.started >= RESTART_SECONDS:
            log.warning("the replies' process exited with %s; starting another", self.process.returncode)
            self.process = self._start()

    def stop(self) -> None:
        """SIGTERM (RQ finishes the job it is running), then SIGKILL after STOP_SECONDS."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        os.close(self.read_end)
        os.close(self.write_end)
