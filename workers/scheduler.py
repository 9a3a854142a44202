"""RQ's scheduler, run one tick at a time inside the worker's own process.

RQ's worker forks its scheduler as a process of its own: a Redis restart kills it, and only RQ's
maintenance pass, every ten minutes, starts it again (every bot move, mail retry and reminder
waited meanwhile), and a worker killed with SIGKILL leaves it running as an orphan. Here the
worker's tick thread calls `tick` every second instead: the tick after Redis is back simply works
again, and nothing outlives the worker. Several workers still share the work through RQ's own
scheduler locks, one per queue: a tick tries for the locks this worker lacks, and RQ's heartbeat
refreshes those it holds, so when the worker holding one dies, another takes it over at its first
tick after the lock lapses (RQ's lease: a minute), not after RQ's own ten-minute fallback.
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
        self.queues = set(queues)
        self.born = False

    def tick(self) -> None:
        """One pass of RQ's scheduler loop (`RQScheduler.work`): its hash written once, the locks it
        lacks tried for, RQ's heartbeat (the hash's and the held locks' TTLs, a lock another scheduler
        took over let go), the due jobs of the queues it holds. A Redis error propagates, and the
        next tick tries again (writing the hash too, if that was what failed)."""
        if not self.born:
            self.rq.register_birth()
            self.born = True
        if self.rq.acquired_locks != self.queues:
            self.rq.acquire_locks()
        self.rq.heartbeat()
        self.rq.enqueue_scheduled_jobs()

    def stop(self) -> None:
        """Give the locks back, so another worker takes over at once; unreachable, they lapse."""
        try:
            self.rq.release_locks()
            self.rq.register_death()
        except redis.RedisError:
            pass
