"""Jobs for later on the service's clock (`service.clock`): a reminder at 50% of a day's deadline, the
daily digest at the hour a player chose.

RQ's `enqueue_at` waits on the system clock, inside RQ's scheduled-job registry; what waits here waits
on the game's clock, in one sorted set of the game store (its score the epoch second it is due), so a
test that moves the clock by a day sees the day's reminders and digests go out. Each worker's tick
calls `poll`, which claims the due timers in one atomic step (it moves each a lease of LEASE_SECONDS
on, so that another worker's poll finds it not due), queues their RQ jobs, and then drops them. Two
workers polling at once therefore never both queue one timer (a job id queued twice would run twice);
a worker that dies between claim and queue leaves its timers to come due again when the lease ends.
Each job still checks again (a claim, or the state it acts on) before it mails anything.
A timer's member is its whole description, so setting the same timer twice keeps one.
"""
from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from rq import Queue

from service import clock
from service.store import PREFIX, Store

KEY = f"{PREFIX}:{{timers}}:due"


def _member(job: str, args: tuple[Any, ...], job_id: str) -> str:
    return json.dumps({"job": job, "args": list(args), "id": job_id}, separators=(",", ":"), sort_keys=True)


def at(store: Store, when: datetime, job: str, *args: Any, job_id: str) -> None:
    """Run `job(*args)` once `when` has come on the service's clock, as RQ job `job_id` (set again, the
    same timer moves to the new time)."""
    store.redis.zadd(KEY, {_member(job, args, job_id): when.timestamp()})


def pending_at(store: Store, job: str, *args: Any, job_id: str) -> float | None:
    """When that timer is set for (epoch seconds), or None when none is waiting."""
    return store.redis.zscore(KEY, _member(job, args, job_id))


def due(store: Store, now: float | None = None) -> list[dict[str, Any]]:
    """The timers whose time has come (for tests and `poll`)."""
    return [json.loads(member) for member in store.redis.zrangebyscore(KEY, "-inf", clock.time() if now is None
                                                                         else now, start=0, num=500)]


LEASE_SECONDS = 60  # a claimed timer's job is queued within this, or another poll queues it again

# Claims the due timers: each moves on to the lease's end, so only the poll that claimed it queues it.
_CLAIM = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, member in ipairs(due) do redis.call('ZADD', KEYS[1], ARGV[2], member) end
return due
"""

# Drops each timer queued only while it still waits on this claim's lease: a job that ran at once and
# set its timer again (a reminder's next step) has moved it, and that one must stay.
_DROP_QUEUED = """
for i, member in ipairs(ARGV) do
  if i > 1 and redis.call('ZSCORE', KEYS[1], member) == ARGV[1] then redis.call('ZREM', KEYS[1], member) end
end
"""


def poll(store: Store, batch: int = 500) -> int:
    """Claim and queue the jobs of the timers now due, then drop those timers (not one set again
    meanwhile); returns how many were queued. A crash in between queues them again after the lease."""
    now = clock.time()
    lease = str(int(now) + LEASE_SECONDS)  # a whole number: ZSCORE gives it back as the same string
    members = store.redis.eval(_CLAIM, 1, KEY, repr(now), lease, batch)
    if not members:
        return 0
    timers = [json.loads(member) for member in members]
    store.followups.queue.enqueue_many([Queue.prepare_data(t["job"], tuple(t["args"]), job_id=t["id"])
                                        for t in timers])
    store.redis.eval(_DROP_QUEUED, 1, KEY, lease, *members)
    return len(timers)
