"""What a commit sets in motion: the game's next deadline indexed and queued, bot moves queued.

Every commit that changes a game calls `after` with the game as committed. The game's earliest
deadline goes into the deadline index (`DeadlineIndex`: sorted sets scored by time, kept with the
games), which the workers' sweep reads, and an RQ job is scheduled at it; a bot (or a stand-in for
a player who keeps missing his turns) gets a job a moment later; a game with addresses gets a job
that mails whoever is now due a mail.
Job ids are derived from what they act on, so a rescheduled deadline replaces its job, and every
job re-checks the game before it acts: a stale job is a no-op. `send_mail` is how every mail leaves.

`Inline` runs bots at once in the caller's process instead and schedules nothing: for tests and
tools that run no worker.
"""
from __future__ import annotations

import os
import threading
import zlib
from datetime import datetime, timedelta
from typing import Any, Callable

import redis
from rq import Callback, Queue, Retry

from service import deadlines
from service.mail import undelivered
from service.mail.backends import MailError, deliver
from service.mail.message import Mail
from service.mail.settings import MailSettings

QUEUE = "palazzo"
DEADLINE_INDEX = "pz:deadlines"  # the shards' prefix; unsharded, the index of earlier versions (see `adopt`)
DEADLINE_SHARDS = 16  # part of the key layout: changing it strands the entries of the old shards
BOT_JOB = "workers.bots.move"
MAIL_JOB, MAIL_GAVE_UP = "workers.mailing.send", "workers.mailing.gave_up"


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


def _text(member: str | bytes) -> str:
    return member.decode() if isinstance(member, bytes) else member


class DeadlineIndex:
    """When each game next needs a worker (its earliest deadline, or the end of its pause), kept with
    the games and read by the workers' sweep.

    It is sharded into `DEADLINE_SHARDS` sorted sets, ``pz:deadlines:{0}`` to ``pz:deadlines:{15}``,
    each with its own hash tag, so that on a Redis Cluster the shards, and the writes of every
    commit, spread over the masters instead of loading the one that would own a single set. A game
    goes to shard crc32(game id) % 16 (crc32, not Python's salted `hash`: every process must agree).
    The sweep asks every shard for what is due in one pipelined round trip per node; each shard
    answers in O(log n + due), so its cost still depends on the games due, not on those waiting.
    The sets live in the store's Redis (append-only, like the games), so they survive a restart and
    the loss of the queue Redis: the sweep then queues again every deadline whose job was lost.

    `client` is the store's client, or the queue connection when both are one Redis (its writes then
    join the jobs' pipeline).
    """

    def __init__(self, client: Any, shards: int = DEADLINE_SHARDS):
        self.client = client
        self.keys = [f"{DEADLINE_INDEX}:{{{number}}}" for number in range(shards)]

    def key(self, game_id: str) -> str:
        return self.keys[zlib.crc32(game_id.encode()) % len(self.keys)]

    def put(self, target: Any, game_id: str, at: float | None) -> None:
        """Index the game at `at` (None: nothing due, drop it), through `target`: the index's client,
        or a pipeline to its Redis."""
        if at is None:
            target.zrem(self.key(game_id), game_id)
        else:
            target.zadd(self.key(game_id), {game_id: at})

    def due(self, now: float, batch: int = 500) -> list[tuple[str, float]]:
        """The `batch` earliest entries at or before `now`, earliest first: (game id, when)."""
        with self.client.pipeline(transaction=False) as pipe:
            for key in self.keys:
                pipe.zrangebyscore(key, "-inf", now, start=0, num=batch, withscores=True)
            found = [(_text(member), float(at)) for shard in pipe.execute() for member, at in shard]
        return sorted(found, key=lambda entry: entry[1])[:batch]

    def earliest(self) -> tuple[str, float] | None:
        with self.client.pipeline(transaction=False) as pipe:
            for key in self.keys:
                pipe.zrange(key, 0, 0, withscores=True)
            found = [(_text(member), float(at)) for shard in pipe.execute() for member, at in shard]
        return min(found, key=lambda entry: entry[1]) if found else None

    def size(self) -> int:
        with self.client.pipeline(transaction=False) as pipe:
            for key in self.keys:
                pipe.zcard(key)
            return sum(pipe.execute())

    def adopt(self, legacy: Any, batch: int = 500) -> int:
        """Move entries of the single unsharded set of earlier versions (`pz:deadlines`, which they
        kept on the queue Redis, `legacy`) into their shards; returns how many moved.

        The workers' sweep calls it each time, so entries written by processes of an earlier version
        during a rolling upgrade are picked up too. An entry keeps the earlier of its two times (an
        early enforcement finds nothing due and indexes the game again, a late one would be late).
        """
        entries = legacy.zrange(DEADLINE_INDEX, 0, batch - 1, withscores=True)
        if not entries:
            return 0
        with self.client.pipeline(transaction=False) as pipe:
            for member, at in entries:
                pipe.zadd(self.key(_text(member)), {_text(member): at}, lt=True)
            pipe.execute()
        legacy.zrem(DEADLINE_INDEX, *[member for member, _ in entries])
        return len(entries)


class Queued:
    """Followups for a real deployment: RQ jobs that workers (`palazzo worker`) run.

    `connection` is the queue Redis (plain, bytes); `index` the deadline index, by default on the
    queue Redis too (one Redis for everything).
    """

    def __init__(self, connection: redis.Redis, *, bot_delay: float = 1.0, index: DeadlineIndex | None = None):
        self.connection = connection
        self.queue = Queue(QUEUE, connection=connection)
        self.bot_delay = bot_delay
        self.index = index if index is not None else DeadlineIndex(connection)

    def after(self, store: Any, table: Any, everything: bool = False) -> None:
        """Index and queue what this committed game needs next (one round trip when one Redis holds all).

        A bot gets a job for a decision new at this version; `everything` (after a host action such
        as a resume) queues one for every decision a bot holds. Jobs due at once go through
        `enqueue_many`, the one RQ call that joins a pipeline already holding commands.

        When the deadline index is on another Redis than the queues (a cluster store, or a separate
        queue Redis), it is written first, in its own round trip: a crash before the jobs are queued
        then leaves the index, and the sweep queues the enforcement the lost job would have run.
        """
        due = next_deadline(table)
        at = due.timestamp() if due is not None else None
        bots = [d for d in table.pending if table.bot_for(d["seat"]) and (everything or d["since"] == table.version)
                ] if table.status == "running" else []
        now_jobs: list[Any] = []
        joined = self.index.client is self.connection
        if not joined:
            self.index.put(self.index.client, table.id, at)
        with self.connection.pipeline(transaction=False) as pipe:
            if joined:
                self.index.put(pipe, table.id, at)
            if due is not None and due > deadlines.now():  # one past is the running enforcement's, or the sweep's
                self.queue.enqueue_at(due, "workers.deadlines.enforce", table.id,
                                      job_id=deadline_job_id(table.id, at), pipeline=pipe)
            for decision in bots:
                args = (table.id, decision["seat"], decision["since"])
                if self.bot_delay > 0:
                    self.queue.enqueue_in(timedelta(seconds=self.bot_delay), BOT_JOB, *args,
                                          job_id=bot_job_id(*args), pipeline=pipe)
                else:
                    now_jobs.append(Queue.prepare_data(BOT_JOB, args, job_id=bot_job_id(*args)))
            if any(seat.get("email") for seat in table.meta["seats"]):
                now_jobs.append(Queue.prepare_data("workers.notify.game", (table.id,),
                                                   job_id=f"pz-notify-{table.id}-{table.version}"))
            if now_jobs:
                self.queue.enqueue_many(now_jobs, pipeline=pipe)
            pipe.execute()


    def send_mail(self, store: Any, mail: Mail) -> None:
        """Queue the mail's sending: its own job, retried with backoff (PALAZZO_MAIL_RETRY_SECONDS),
        kept as undelivered for the host after the last try."""
        waits = [int(w) for w in os.environ.get("PALAZZO_MAIL_RETRY_SECONDS", "10,30,120,600,1800").split(",")]
        self.queue.enqueue(MAIL_JOB, mail.to_json(), retry=Retry(max=len(waits), interval=waits),
                           on_failure=Callback(MAIL_GAVE_UP))


class Inline:
    """Followups without workers: bots move at once in the caller's process; deadlines wait; mail
    goes out at once, through the configured backend, with no retry."""

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

    def send_mail(self, store: Any, mail: Mail) -> None:
        try:
            deliver(mail, MailSettings.from_env(), store.redis)
        except MailError as error:
            undelivered.keep(store.redis, mail, str(error))
