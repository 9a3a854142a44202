"""Jobs for later on the service's clock (`service.clock`): a reminder at 50% of a day's deadline, the
daily digest at the hour a player chose.

RQ's `enqueue_at` waits on the system clock, inside RQ's scheduled-job registry; what waits here waits
on the game's clock, in one sorted set of the game store (its score the epoch second it is due), so a
test that moves the clock by a day sees the day's reminders and digests go out. Each worker's tick
calls `poll`, which queues every due timer as an RQ job under the timer's own id and then drops it:
two workers that poll at once may both queue it, and RQ keeps one job per id, and each job checks
again (a claim, or the state it acts on) before it mails anything, so a timer never acts twice.
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


# Drops each timer queued only while it is still set for a time that has come: a job that ran at once
# and set its timer again (a reminder's next step) has moved it later, and that one must stay.
_DROP_QUEUED = """
for i, member in ipairs(ARGV) do
  if i > 1 then
    local score = redis.call('ZSCORE', KEYS[1], member)
    if score and tonumber(score) <= tonumber(ARGV[1]) then redis.call('ZREM', KEYS[1], member) end
  end
end
"""


def poll(store: Store) -> int:
    """Queue the jobs of every timer now due, then drop those timers (not one set again meanwhile for
    later); returns how many were queued. A crash in between queues them again at the next poll."""
    now = clock.time()
    members = store.redis.zrangebyscore(KEY, "-inf", now, start=0, num=500)
    if not members:
        return 0
    timers = [json.loads(member) for member in members]
    store.followups.queue.enqueue_many([Queue.prepare_data(t["job"], tuple(t["args"]), job_id=t["id"])
                                        for t in timers])
    store.redis.eval(_DROP_QUEUED, 1, KEY, repr(now), *members)
    return len(timers)
