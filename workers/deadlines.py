"""What a game needs from a worker when its wake time comes: the default move of every overdue
decision, the end of a pause or of a player's vacation that has run out, and, some time after it
finished, compaction.

Every commit writes the game's wake time into its shard's wake index in the same atomic step
(`service.store`). `poll` runs in every worker (a thread of `palazzo worker`, every
PALAZZO_POLL_SECONDS): it reads the index, claims each due (game, wake time) so that one job is
queued for it whichever worker sees it first, and queues `wake`. `wake` re-reads the game and acts
only on what is due. It thinks for no seat: a decision a stand-in answers (a player who keeps missing
them, or left) is handed to a job on the bots' queue (`workers.bots.stand_in`), so that a bot that
thinks for seconds holds up no other game's deadline, and a bot seat's overdue decision to its bot's
job (queued again if it was lost), never to the default move. Defaults, that job's too, go through
`service.playing.default_on`, which re-checks the decision
and commits under the game's revision check, so a job that runs late or twice never moves twice; a
player who has now missed the game's `remove_after` decisions in a row loses his seat (`leaving`).
A claim expires, so a job lost with the queue Redis is queued again by the next poll after it.
"""
from __future__ import annotations

import logging

from rq import Queue

from service import clock, games, leaving, logs, playing, timers, vacation
from service.store import Store, shard_of, woken_key
from workers import context

log = logging.getLogger(__name__)
WAKE_JOB = "workers.deadlines.wake"
MAX_DEFAULTS = 50  # defaults one job plays for one game before it hands over to the next job
CLAIM_SECONDS = 60  # a claimed wake is not queued again for this long (its job may wait in a backlog)


@logs.game_job
def wake(game_id: str) -> int:
    """Do what the game is due for now; returns how many default moves were played.

    Loading the game ends a pause that has run out. Each default's commit indexes the next wake
    time; a finished game whose wake time has come is compacted.
    """
    store = context.store()
    table = games.load(store, game_id)
    if table.status == games.FINISHED:
        at = store.wake_at(game_id)
        if at is not None and at <= clock.time():
            store.compact(game_id)
        return 0
    table = vacation.end_due(store, table)
    played, handed = 0, set()
    for _ in range(MAX_DEFAULTS):
        decisions = [d for d in playing.overdue(table) if d["seat"] not in handed]
        if not decisions:
            break
        seat, since = decisions[0]["seat"], decisions[0]["since"]
        if (table.bot_for(seat) or table.stand_in(seat)) and store.followups.think(store, table, seat, since):
            handed.add(seat)
            continue
        table, moved = playing.default_on(store, table, seat, since)
        if moved:
            table = leaving.after_timeout(store, context.links(), table, seat)
        played += moved
    if played or handed:
        log.info("played %d default move(s) of overdue decisions; handed %d to the bots' queue", played,
                 len(handed))
    return played


def poll(batch: int = 500, claim_for: int = CLAIM_SECONDS) -> int:
    """Queue a `wake` job for every game whose wake time has come; returns how many were queued.

    Each (game, wake time) is claimed for `claim_for` seconds first, in its shard's claims (lapsed
    ones are dropped in the same round trip), so that neither this worker's next poll nor another
    worker's queues it again while the job waits.
    """
    store = context.store()
    now = clock.time()
    due = store.due(now, batch)
    if not due:
        return 0
    shards = sorted({shard_of(game_id) for game_id, _ in due})
    with store.redis.pipeline(transaction=False) as pipe:
        for shard in shards:
            pipe.zremrangebyscore(woken_key(shard), "-inf", now)
        for game_id, at in due:
            pipe.zadd(woken_key(shard_of(game_id)), {f"{game_id}:{at:.3f}": now + claim_for}, nx=True)
        claimed = [entry for entry, fresh in zip(due, pipe.execute()[len(shards):]) if fresh]
    if claimed:
        store.followups.queue.enqueue_many([
            Queue.prepare_data(WAKE_JOB, (game_id,), job_id=f"pz-wake-{game_id}-{int(at * 1000)}")
            for game_id, at in claimed])
    return len(claimed)


def release(store: Store, game_id: str) -> None:
    """Drop the claim on the game's current wake time, so that the next poll queues it even if it was
    claimed already: a stand-in's move handed to the bots' queue may leave the game due at the very
    time its deadline's job was claimed for (the seat's next decision of the same kind keeps the
    running deadline, `service.deadlines.schedule`)."""
    at = store.wake_at(game_id)
    if at is not None:
        store.redis.zrem(woken_key(shard_of(game_id)), f"{game_id}:{at:.3f}")


def poll_timers() -> int:
    """Queue the jobs of the timers due on the service's clock (`service.timers`)."""
    return timers.poll(context.store())
