"""`palazzo worker`: RQ's worker, a tick each second for deadlines and scheduled jobs, a process each for
replies and for bots.

Jobs run in the worker's own process (RQ's SimpleWorker): they are short, and forking a process
for each held a worker to about 20 jobs a second (`--fork` restores it). The tick runs in a thread:
it polls the wake index and queues what is due (`workers.deadlines.poll`), queues the timers due
on the service's clock (`service.timers`: reminders, digests), moves RQ's scheduled
jobs onto their queues when due (`workers.scheduler`: bot moves a moment later, mail retries,
reminders), and restarts the replies' or the bots' process if it died. Each step that cannot reach
Redis is simply tried again at the next tick. Replies run in a child process of their own, and bots
think in another (`workers.queue_process`), so that a slow reply or a bot thinking for seconds never
holds up a deadline or a mail; each dies with the worker. With PALAZZO_IMAP_HOST set, a thread reads
replies from that mailbox (`workers.imap`) and queues them for that process. RQ's work loop is started
again whenever it ends for any reason but a stop request (`workers.work_loop`), so a Redis restart
never stops the worker: SIGTERM or SIGINT does, with status 0. Several workers may run at once: each
polls, a due game is claimed so that it is queued once, RQ's scheduler locks share the scheduled
jobs, and a job that runs twice moves once.

RQ runs on the queue Redis (PALAZZO_QUEUE_URL, a plain Redis); the games, and the wake index the
poll reads, on REDIS_URL, which may be a Redis Cluster. A setting it cannot run with stops it at
once with status 2 and a message saying what to set.
"""
from __future__ import annotations

import argparse
import logging
import sys
import threading
from collections.abc import Callable

import redis

from service import logs
from service.followups import BOT_QUEUE, QUEUE, REPLY_QUEUE, Queued
from workers import work_loop
from workers.imap import Reader
from workers.queue_process import QueueProcess, child_of, die_with_parent
from workers.scheduler import Scheduler

log = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--poll", type=float, default=None,
                        help="seconds between ticks: looks at the wake index for games due, and at RQ's "
                             "scheduled jobs (default 1, PALAZZO_POLL_SECONDS)")
    parser.add_argument("--fork", action="store_true",
                        help="run each job in a forked process (RQ's default; about 10x slower for short jobs)")


def _tick_forever(every: float, stop: threading.Event, steps: list[Callable[[], object]]) -> None:
    """Run each step every `every` seconds; a step that fails is tried again at the next tick, and
    an unreachable Redis is logged once until it answers again."""
    unreachable = False
    while not stop.wait(every):
        failed = False
        for step in steps:
            try:
                step()
            except (redis.ConnectionError, redis.TimeoutError) as error:
                failed = True
                if not unreachable:
                    log.warning("Redis unreachable (%s): trying again every %s s", error, every)
            except Exception:
                log.exception("%s failed", getattr(step, "__qualname__", step))
        if unreachable and not failed:
            log.info("Redis answers again")
        unreachable = failed


def run(args: argparse.Namespace) -> int:
    from workers import context, deadlines
    stopping = threading.Event()
    work_loop.stop_on_signals(stopping)
    try:
        logs.configure(context.config().log_format, text_default=True)  # reads the configuration, once
        child = child_of(context.config().worker_child)  # a queue's own process (`workers.queue_process`)
        if child is not None:
            die_with_parent(child[1])
        store = context.store()
        every = context.config().poll_seconds if args.poll is None else args.poll
    except (RuntimeError, ValueError) as error:  # a setting it cannot run with (a cluster and no queue URL)
        print(f"palazzo worker: {error}", file=sys.stderr)
        return 2
    if not isinstance(store.followups, Queued):
        print("palazzo worker: PALAZZO_JOBS=inline runs no jobs; a worker needs PALAZZO_JOBS=rq", file=sys.stderr)
        return 2
    mailbox = context.config().imap
    connection = store.followups.connection  # the queue Redis: plain, even when the store is a cluster
    if child is not None:
        work_loop.work([child[0]], connection, fork=args.fork, stopping=stopping)
        return 0
    scheduler = Scheduler([QUEUE, REPLY_QUEUE, BOT_QUEUE], connection, every)
    children = [QueueProcess(REPLY_QUEUE), QueueProcess(BOT_QUEUE)]
    reader = Reader(mailbox) if mailbox.host else None
    stop_ticks = threading.Event()
    ticks = threading.Thread(target=_tick_forever, args=(every, stop_ticks, [
        deadlines.poll, deadlines.poll_timers, scheduler.tick, *(c.keep_up for c in children)]), name="tick",
        daemon=True)
    ticks.start()
    try:
        work_loop.work([QUEUE], connection, fork=args.fork, stopping=stopping)
    finally:
        stop_ticks.set()
        ticks.join(timeout=10)
        scheduler.stop()
        for process in children:
            process.stop()
        if reader is not None:
            reader.stop()
    return 0
