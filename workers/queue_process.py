"""A queue's own process: a child of `palazzo worker` that serves one queue alone (the replies', the bots').

A reply job can take many seconds (one took 16), and a bot may think for seconds; in the worker's own
process either held up every deadline, mail and other job queued behind it. The child is the parent's
own command line again (so it has whatever the parent registered before it ran the worker: a test's
toy game, say), told by PALAZZO_WORKER_CHILD (the queue, the pipe), which this module writes into
the child's environment and the child's `Config` reads, what it is; it must never
outlive its parent: it holds the read end of a pipe whose write end only the parent has, and when
the parent dies, however it dies, the kernel closes that end and the child kills itself at once. A
job it was running is then RQ's abandoned job, retried like any failed try.
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
CHILD = "PALAZZO_WORKER_CHILD"  # "<queue> <pipe>" in a child's environment; set by its parent only
RESTART_SECONDS = 5.0  # a child that keeps dying is started again at most this often
STOP_SECONDS = 30.0  # how long a stopping parent waits for the child's current job


def child_of(told: str) -> tuple[str, int] | None:
    """The queue this process serves and its pipe, from its PALAZZO_WORKER_CHILD (`Config.worker_child`),
    when it is a child (none: the parent itself)."""
    words = told.split()
    return (words[0], int(words[1])) if len(words) == 2 else None


def die_with_parent(pipe: int) -> None:
    """Kill this process the moment the parent's end of `pipe` closes (a thread waits on it)."""
    def watch() -> None:
        while os.read(pipe, 1):
            pass
        os.kill(os.getpid(), signal.SIGKILL)
    threading.Thread(target=watch, name="parent", daemon=True).start()


def own_command() -> list[str]:
    """This process's command line, to start it again (`python -m service.cli worker`, `palazzo worker`,
    or a test's `python -c`)."""
    return [sys.executable, *sys.orig_argv[1:]]


class QueueProcess:
    """Starts the child that serves `queue`, starts it again when it dies (`keep_up`, from the
    worker's tick), stops it."""

    def __init__(self, queue: str):
        self.queue = queue
        self.command = own_command()
        self.read_end, self.write_end = os.pipe()  # the write end stays here, never inherited
        self.process = self._start()

    def _start(self) -> subprocess.Popen:
        self.started = time.monotonic()
        process = subprocess.Popen(self.command, pass_fds=[self.read_end],
                                   env={**os.environ, CHILD: f"{self.queue} {self.read_end}"})
        log.info("%s served by pid %d", self.queue, process.pid)
        return process

    def keep_up(self) -> None:
        if self.process.poll() is not None and time.monotonic() - self.started >= RESTART_SECONDS:
            log.warning("the process of %s exited with %s; starting another", self.queue, self.process.returncode)
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
