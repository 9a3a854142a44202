"""RQ's work loop, kept running through Redis restarts until SIGTERM or SIGINT asks it to stop.

RQ's worker retries a dequeue that cannot reach Redis, but a Redis error anywhere else in its loop
(the suspension check, a job's bookkeeping, its heartbeat) ends the loop, and its teardown then
raises the same error: the process exited 1 when Redis restarted under it. Here the loop is
started again, with a new RQ worker, once Redis answers; only a stop signal ends it.
"""
from __future__ import annotations

import logging
import signal
import threading

import redis
from rq import SimpleWorker, Worker

log = logging.getLogger(__name__)
RECONNECT_SECONDS = 1.0


class _Steady:
    """What our RQ workers add to RQ's: a stop request remembered in `stopping`, and a dequeue
    retried every second while Redis is away (RQ doubles its wait up to a minute, so a job queued
    just after Redis came back could wait that long)."""

    stopping: threading.Event
    max_connection_wait_time = RECONNECT_SECONDS

    def request_stop(self, signum, frame) -> None:
        self.stopping.set()
        super().request_stop(signum, frame)

    def _install_signal_handlers(self) -> None:
        super()._install_signal_handlers()
        if self.stopping.is_set():  # asked before RQ's handlers were in place: stop at its first check
            self._stop_requested = True


def stop_on_signals(stopping: threading.Event) -> None:
    """SIGTERM and SIGINT set `stopping` (RQ's own handlers take over while its loop runs)."""
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stopping.set())


def work(queues: list[str], connection: redis.Redis, *, fork: bool, stopping: threading.Event) -> None:
    """Run the jobs of `queues` (each in a forked process with `fork`) until `stopping` is set."""
    base = Worker if fork else SimpleWorker
    steady = type(f"Steady{base.__name__}", (_Steady, base), {"stopping": stopping})
    while not stopping.is_set():
        try:
            steady(queues, connection=connection).work()
        except redis.RedisError as error:  # its teardown could not reach Redis either
            log.warning("RQ's work loop ended: %s", error)
        finally:
            stop_on_signals(stopping)
        if not stopping.is_set():
            log.warning("RQ's work loop ended without a stop request: starting it again once Redis answers")
            _wait_for_redis(connection, stopping)


def _wait_for_redis(connection: redis.Redis, stopping: threading.Event) -> None:
    while not stopping.is_set():
        try:
            connection.ping()
            return
        except redis.RedisError:
            stopping.wait(RECONNECT_SECONDS)
