"""Deadlines: the default move for every overdue decision, exactly once, whoever comes first.

`enforce` runs as the RQ job scheduled at a game's earliest deadline and from the sweep; it plays
each overdue decision's default through `service.games.play_default`, which re-reads the game and
commits under its revision check, so a job that runs early, late or twice never moves twice.
"""
from __future__ import annotations

import logging
import time

from service import deadlines, followups, games
from workers import context

log = logging.getLogger(__name__)
MAX_DEFAULTS = 50  # defaults one job plays for one game before it hands over to the next job
EARLY = 2.0  # seconds: RQ's scheduler keeps whole seconds, so a job may start this much early


def enforce(game_id: str) -> int:
    """Play the default move of every overdue decision of the game; returns how many were played.

    Loading the game also ends a pause that has run out. Whatever happens, the game's next deadline
    is indexed and queued again, so a job that came early (RQ may run one a second early) reschedules.
    """
    store = context.store()
    due = followups.next_deadline(games.load(store, game_id))
    early = due.timestamp() - time.time() if due else 0
    if 0 < early <= EARLY:
        time.sleep(early + 0.05)
    played = 0
    for _ in range(MAX_DEFAULTS):
        table = games.load(store, game_id)
        due = games.overdue(table)
        if not due:
            break
        if games.play_default(store, game_id, due[0]["seat"], due[0]["since"]):
            played += 1
    store.followups.after(store, games.load(store, game_id))
    return played


def due_games(store, now: float | None = None, batch: int = 500) -> list[tuple[str, float]]:
    """Games whose indexed deadline has passed, with it: O(log n + due), whatever the number not yet due."""
    now = time.time() if now is None else now
    due = store.followups.connection.zrangebyscore(followups.DEADLINE_INDEX, "-inf", now, start=0, num=batch,
                                                   withscores=True)
    return [(game_id.decode(), at) for game_id, at in due]


def sweep() -> int:
    """Queue enforcement for every game whose deadline has passed; returns how many were queued.

    The job id is the one the scheduled job has, so a game already queued is queued once.
    """
    store = context.store()
    due = due_games(store)
    queue = store.followups.queue
    with store.followups.connection.pipeline(transaction=False) as pipe:
        for game_id, at in due:
            queue.enqueue("workers.deadlines.enforce", game_id, job_id=followups.deadline_job_id(game_id, at),
                          pipeline=pipe)
        pipe.execute()
    if due:
        log.info("sweep queued %d overdue games at %s", len(due), deadlines.stamp(deadlines.now()))
    return len(due)
