"""`palazzo worker`: RQ's worker with its scheduler, plus the deadline sweep every few seconds.

The sweep runs in a thread of the worker's main process and only reads the deadline index and
queues jobs; the jobs themselves run in RQ's forked work horses like any other. Several workers
may run at once: each sweeps, and a game queued twice is still enforced once.
"""
from __future__ import annotations

import argparse
import logging
import os
import threading

from rq import Worker

from service.followups import QUEUE

log = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--sweep", type=float, default=float(os.environ.get("PALAZZO_SWEEP_SECONDS", "5")),
                        help="seconds between sweeps for overdue deadlines (default 5, PALAZZO_SWEEP_SECONDS)")
    parser.add_argument("--burst", action="store_true", help="run the jobs queued now, then stop (tests)")


def _sweep_forever(every: float, stop: threading.Event) -> None:
    from workers import deadlines
    while not stop.wait(every):
        try:
            deadlines.sweep()
        except Exception:  # a sweep that fails is tried again at the next tick
            log.exception("sweep failed")


def run(args: argparse.Namespace) -> int:
    from workers import context
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    connection = context.store().followups.connection
    stop = threading.Event()
    threading.Thread(target=_sweep_forever, args=(args.sweep, stop), name="sweep", daemon=True).start()
    try:
        Worker([QUEUE], connection=connection).work(with_scheduler=True, burst=args.burst)
    finally:
        stop.set()
    return 0
