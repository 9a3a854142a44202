"""What a commit sets in motion: the game's next deadline indexed and queued, bot moves queued.

Every commit that changes a game calls `after` with the game as committed. The game's earliest
deadline goes into one sorted set (`pz:deadlines`, scored by time), which the workers' sweep reads,
and an RQ job is scheduled at it; a bot (or a stand-in for a player who keeps missing his turns)
gets a job a moment later; a game with addresses gets a job that mails whoever is now due a mail. Job ids are derived from what they act on, so a rescheduled
deadline replaces its job, and every job re-checks the game before it acts: a stale job is a no-op.

`Inline` runs bots at once in the caller's process instead and schedules nothing: for tests and
tools that run no worker.
"""
from __future__ import annotations

import threading
from datetime import datetime, timedelta
from typing import Any, Callable

import redis
from rq import Queue

from service import deadlines

QUEUE = "palazzo"
DEADLINE_INDEX = "pz:deadlines"


def deadline_job_id(game_id: str, due: float) -> str:
    """One job per game and deadline: a moved deadline gets a new job, and the old one finds nothing due."""
    return f"pz-deadline-{game_id}-{int(due)}"


def bot_job_id(game_id: str, seat: int, since: int) -> str:
    return f"pz-bot-{game_id}-{seat}-{since}"


def next_deadline(table: Any) -> datetime | None:
    """When the game next needs a worker: its earliest pending deadline, or the end of its pause."""
    if table.status == "paused":
        return deadlines.parse(table.meta["paused_until"])
    if table.status != "running":
        return None
    due = [deadlines.parse(d["deadline_at"]) for d in table.pending if d.get("deadline_at")]
    return min(due) if due else None


class Queued:
    """Followups for a real deployment: RQ jobs that workers (`palazzo worker`) run."""

    def __init__(self, connection: redis.Redis, *, bot_delay: float = 1.0):
        self.connection = connection
        self.queue = Queue(QUEUE, connection=connection)
        self.bot_delay = bot_delay

    def after(self, store: Any, table: Any, everything: bool = False) -> None:
        """Index and queue what this committed game needs next, in one round trip.

        A bot gets a job for a decision new at this version; `everything` (after a host action such
        as a resume) queues one for every decision a bot holds.
        """
        due = next_deadline(table)
        with self.connection.pipeline(transaction=False) as pipe:
            if due is None:
                pipe.zrem(DEADLINE_INDEX, table.id)
            else:
                pipe.zadd(DEADLINE_INDEX, {table.id: due.timestamp()})
                if due > deadlines.now():  # a deadline already past is the running enforcement's, or the sweep's
                    self.queue.enqueue_at(due, "workers.deadlines.enforce", table.id,
                                          job_id=deadline_job_id(table.id, due.timestamp()), pipeline=pipe)
            bots = [d for d in table.pending if table.status == "running" and table.bot_for(d["seat"])
                    and (everything or d["since"] == table.version)]
            if self.bot_delay > 0:
                for decision in bots:
                    self.queue.enqueue_in(timedelta(seconds=self.bot_delay), *self._bot_job(table.id, decision),
                                          job_id=bot_job_id(table.id, decision["seat"], decision["since"]),
                                          pipeline=pipe)
            pipe.execute()
        if self.bot_delay <= 0:  # RQ queues at once only outside a pipeline it did not start
            for decision in bots:
                self.queue.enqueue(*self._bot_job(table.id, decision),
                                   job_id=bot_job_id(table.id, decision["seat"], decision["since"]))
        if any(seat.get("email") for seat in table.meta["seats"]):
            self.queue.enqueue("workers.notify.game", table.id, job_id=f"pz-notify-{table.id}-{table.version}")

    @staticmethod
    def _bot_job(game_id: str, decision: dict[str, Any]) -> tuple:
        return "workers.bots.move", game_id, decision["seat"], decision["since"]


class Inline:
    """Followups without workers: bots move at once in the caller's process; deadlines wait."""

    def __init__(self, run_bots: Callable[[Any, Any], Any]):
        self.run_bots = run_bots
        self._local = threading.local()

    def after(self, store: Any, table: Any, everything: bool = False) -> None:
        """A commit made by the bots themselves does not start another loop."""
        if getattr(self._local, "busy", False):
            return
        self._local.busy = True
        try:
            self.run_bots(store, table)
        finally:
            self._local.busy = False
