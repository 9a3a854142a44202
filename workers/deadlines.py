"""Deadlines: the default move for every overdue decision, exactly once, whoever comes first.

`enforce` runs as the RQ job scheduled at a game's earliest deadline and from the sweep; it plays
each overdue decision's default through `service.playing.default_on`, which re-checks the decision
and commits under the game's revision check, so a job that runs early, late or twice never moves twice.
"""
from __future__ import annotations

import logging
import time

from service import deadlines, followups, games, playing
from service.store import Store
from workers import context

log = logging.getLogger(__name__)
MAX_DEFAULTS = 50  # defaults one job plays for one game before it hands over to the next job
EARLY = 2.0  # seconds: RQ's scheduler keeps whole seconds, so a job may start this much early
LATE = 3.0  # seconds past a deadline after which the sweep stops waiting for the scheduled job
CLAIM_SECONDS = 60  # a swept game is not swept again for this long (its job may wait in a backlog)


def enforce(game_id: str) -> int:
    """Play the default move of every overdue decision of the game; returns how many were played.

    Loading the game also ends a pause that has run out. Each default's commit queues what follows;
    when the last step committed nothing, the game's next deadline is indexed and queued again here,
    so a job that came early (RQ may run one a second early) reschedules.
    """
    store = context.store()
    table = games.load(store, game_id)
    due = followups.next_deadline(table)
    early = due.timestamp() - time.time() if due else 0
    if 0 < early <= EARLY:
        time.sleep(early + 0.05)
        table = games.load(store, game_id)  # now due: a pause that ended resumes here
    played, moved = 0, False
    for _ in range(MAX_DEFAULTS):
        decisions = playing.overdue(table)
        if not decisions:
            break
        table, moved = playing.default_on(store, table, decisions[0]["seat"], decisions[0]["since"])
        played += moved
    if not moved:
        store.followups.after(store, table)
    return played


def due_games(store: Store, now: float | None = None, batch: int = 500) -> list[tuple[str, float]]:
    """Games whose indexed deadline has passed, with it, earliest first: one ZRANGEBYSCORE per shard
    of the index (O(log n + due) each), pipelined, whatever the number of games not yet due."""
    return store.followups.index.due(time.time() if now is None else now, batch)


def sweep(grace: float = LATE, claim_for: int = CLAIM_SECONDS) -> int:
    """Queue enforcement for every game whose deadline passed more than `grace` seconds ago (its
    scheduled job should have run by then); returns how many were queued.

    Each (game, deadline) is claimed for `claim_for` seconds first (a key on the queue Redis, next
    to the jobs), so neither this worker's next sweep nor another worker's queues it again while the
    job waits in a backlog. Entries of the unsharded index of earlier versions are moved into the
    shards first (`DeadlineIndex.adopt`).
    """
    store = context.store()
    connection = store.followups.connection
    store.followups.index.adopt(connection)
    due = due_games(store, time.time() - grace)
    if not due:
        return 0
    with connection.pipeline(transaction=False) as pipe:
        for game_id, at in due:
            pipe.set(f"pz:swept:{game_id}:{int(at)}", "1", nx=True, ex=claim_for)
        claimed = [entry for entry, fresh in zip(due, pipe.execute()) if fresh]
    for game_id, at in claimed:
        store.followups.queue.enqueue("workers.deadlines.enforce", game_id,
                                      job_id=f"{followups.deadline_job_id(game_id, at)}-swept")
    if claimed:
        log.info("sweep queued %d overdue games at %s", len(claimed), deadlines.stamp(deadlines.now()))
    return len(claimed)
