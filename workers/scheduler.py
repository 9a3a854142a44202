"""RQ's scheduler, run one tick at a time inside the worker's own process.

RQ's worker forks its scheduler as a process of its own: a Redis restart kills it, and only RQ's
maintenance pass, every ten minutes, starts it again (every bot move, mail retry and reminder
waited meanwhile), and a worker killed with SIGKILL leaves it running as an orphan. Here the
worker's tick thread calls `tick` every second instead: the tick after Redis is back simply works
again, and nothing outlives the worker. Several workers still share the work through RQ's own
scheduler locks, one per queue: each tick acquires or refreshes them, so when the worker holding
one dies, another takes it over once it lapses (RQ's lease: a minute).
"""
from __future__ import annotations

import math

import redis
from rq.scheduler import RQScheduler


class Scheduler:
    """Moves the jobs RQ holds for later (`enqueue_in`, `enqueue_at`, retries) onto their queues
    once due, for the queues whose lock this worker holds."""

    def __init__(self, queues: list[str], connection: redis.Redis, every: float):
        self.rq = RQScheduler(queues, connection=connection, interval=math.ceil(every))  # whole seconds: its TTLs

    def tick(self) -> None:
        """One pass of RQ's scheduler loop: the locks, its hash (with a TTL, as RQ's own keeps it),
        the due jobs. A Redis error propagates; the next tick starts over."""
        self.rq.acquire_locks()
        if self.rq.acquired_locks:
            self.rq.register_birth()
            self.rq.enqueue_scheduled_jobs()

    def stop(self) -> None:
        """Give the locks back, so another worker takes over at once; unreachable, they lapse."""
        try:
            self.rq.release_locks()
            self.rq.register_death()
        except redis.RedisError:
            pass
