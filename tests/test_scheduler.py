"""RQ's scheduler as `palazzo worker` ticks it (`workers.scheduler`), on the test redis-server: the
worker holding a queue's lock moves its due jobs, and another takes the queue over at its next tick
once the first lets go."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import redis
from rq import Queue

from workers.scheduler import Scheduler

QUEUE = "scheduler-test"


def test_the_lock_holder_moves_due_jobs_and_another_takes_over_at_its_next_tick(redis_url):
    connection = redis.Redis.from_url(redis_url)
    queue = Queue(QUEUE, connection=connection)
    first, second = Scheduler([QUEUE], connection, 1), Scheduler([QUEUE], connection, 1)
    first.tick()
    second.tick()
    assert first.rq.acquired_locks == {QUEUE} and not second.rq.acquired_locks

    def due() -> None:
        queue.enqueue_at(datetime.now(timezone.utc) - timedelta(seconds=1), "os.getpid")

    due()
    second.tick()
    assert queue.count == 0, "a scheduler without the lock leaves the job where it is"
    first.tick()
    assert queue.count == 1
    first.stop()
    due()
    second.tick()
    assert second.rq.acquired_locks == {QUEUE} and queue.count == 2, "taken over at once, not after minutes"
    assert not connection.exists(first.rq.key) and connection.ttl(second.rq.key) > 0
    second.stop()
