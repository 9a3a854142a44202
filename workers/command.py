"""`palazzo worker`: RQ's worker with its scheduler, plus a poll of the games' wake index each second.

Jobs run in the worker's own process (RQ's SimpleWorker): they are short, and forking a process
for each held a worker to about 20 jobs a second (`--fork` restores it). The poll runs in a thread
and only reads the wake index and queues jobs (`workers.deadlines.poll`). Several workers may run at
once: each polls, a due game is claimed so that it is queued once, and a job that runs twice moves once.

RQ runs on the queue Redis (PALAZZO_QUEUE_URL, a plain Redis); the games, and the wake index the
poll reads, on REDIS_URL, which may be a Redis Cluster. A setting it cannot run with stops it at
once with status 2 and a message saying what to set.
"""
from __future__ import annotations

import argparse
import logging
import os
import sys
import threading

from rq import SimpleWorker, Worker

from service.followups import QUEUE, Queued

log = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--poll", type=float, default=float(os.environ.get("PALAZZO_POLL_SECONDS", "1")),
                        help="seconds between looks at the wake index for games due (default 1, PALAZZO_POLL_SECONDS)")
    parser.add_argument("--burst", action="store_true", help="run the jobs queued now, then stop (tests)")
    parser.add_argument("--fork", action="store_true",
                        help="run each job in a forked process (RQ's default; about 10x slower for short jobs)")


def _poll_forever(every: float, stop: threading.Event) -> None:
    from workers import deadlines
    while not stop.wait(every):
        try:
            deadlines.poll()
        except Exception:  # a poll that fails is tried again at the next tick
            log.exception("poll failed")


def run(args: argparse.Namespace) -> int:
    from workers import context
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    try:
        store = context.store()
    except RuntimeError as error:  # a setting it cannot run with (e.g. a cluster store and no PALAZZO_QUEUE_URL)
        print(f"palazzo worker: {error}", file=sys.stderr)
        return 2
    if not isinstance(store.followups, Queued):
        print("palazzo worker: PALAZZO_JOBS=inline runs no jobs; a worker needs PALAZZO_JOBS=rq", file=sys.stderr)
        return 2
    connection = store.followups.connection  # the queue Redis: plain, even when the store is a cluster
    stop = threading.Event()
    threading.Thread(target=_poll_forever, args=(args.poll, stop), name="poll", daemon=True).start()
    try:
        worker_class = Worker if args.fork else SimpleWorker
        worker_class([QUEUE, store.followups.reply_queue], connection=connection).work(with_scheduler=True, burst=args.burst)
    finally:
        stop.set()
    return 0
