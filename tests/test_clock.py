"""The clock tests move instead of sleeping (`service.clock`), and the timers that wait on it
(`service.timers`), read by real `palazzo worker` processes."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

import pytest

from service import clock, deadlines, timers
from tests.conftest import bearer, make_app, new_game, wait_for


@contextmanager
def queue_as(store, queue) -> Iterator[None]:
    """The store's job queue, replaced by `queue` for one poll."""
    real, store.followups.queue = store.followups.queue, queue
    try:
        yield
    finally:
        store.followups.queue = real


@pytest.fixture
def queued_app(moving_clock, redis_url):
    return make_app(redis_url, JOBS="rq", MIN_DEADLINE=1, BOT_DELAY=0)


def test_the_clock_moves_by_what_the_file_says(moving_clock):
    before = clock.time()
    moving_clock.advance(timedelta(days=2))
    assert 2 * 86400 <= clock.time() - before < 2 * 86400 + 5
    moving_clock.set(0)
    assert clock.time() - before < 5


def test_a_timer_runs_once_when_its_day_comes_on_the_moved_clock_and_not_before(queued_app, workers, moving_clock):
    store = queued_app.extensions["palazzo.store"]
    workers(2)
    timers.at(store, clock.now() + timedelta(days=1), "tests.clock_jobs.mark", "pz:test:marks", job_id="pz-test-mark")
    timers.at(store, clock.now() + timedelta(days=1), "tests.clock_jobs.mark", "pz:test:marks", job_id="pz-test-mark")
    timers.at(store, clock.now() + timedelta(days=3), "tests.clock_jobs.mark", "pz:test:later", job_id="pz-test-later")
    assert len(timers.due(store, clock.time() + 2 * 86400)) == 1, "the same timer set twice is kept once"
    moving_clock.advance(timedelta(days=1, seconds=1))
    wait_for(lambda: store.redis.get("pz:test:marks") == "1")
    wait_for(lambda: not timers.due(store))
    assert store.redis.get("pz:test:later") is None, "a timer two days further on waits"
    assert store.redis.get("pz:test:marks") == "1"


def test_a_workers_deadline_a_day_away_is_played_when_the_clock_reaches_it(queued_app, workers, moving_clock):
    client = queued_app.test_client()
    created = new_game(client, seats=3, deadlines={"pick": 86400})
    game_id = created["game"]["id"]
    due = min(deadlines.parse(d["deadline_at"]) for d in client.get(f"/api/v1/games/{game_id}").get_json()["pending"])
    workers()
    moving_clock.to(due - timedelta(minutes=1))
    log = queued_app.extensions["palazzo.store"].log
    assert not [e for e in log(game_id) if e.get("timeout")]
    moving_clock.to(due + timedelta(seconds=1))
    wait_for(lambda: any(e.get("timeout") for e in log(game_id)))
    assert client.get(f"/api/v1/games/{game_id}", headers=bearer(created["tokens"]["host"])).status_code == 200


def test_a_timer_set_again_for_later_while_its_job_is_queued_stays(queued_app, moving_clock):
    """The poll queues a due timer's job, and the job may run and set the same timer for later before
    the poll drops it (a reminder's next step): the later one must stay."""
    store = queued_app.extensions["palazzo.store"]
    when = clock.now() + timedelta(hours=1)
    timers.at(store, when, "tests.clock_jobs.mark", "pz:test:marks", job_id="pz-test-mark")
    moving_clock.advance(timedelta(hours=2))

    class Rearming:
        """The queue, as a worker that runs the job at once and sets its timer again."""

        def enqueue_many(self, jobs):
            timers.at(store, clock.now() + timedelta(days=1), "tests.clock_jobs.mark", "pz:test:marks",
                      job_id="pz-test-mark")

    with queue_as(store, Rearming()):
        assert timers.poll(store) == 1
    assert not timers.due(store), "nothing is due now"
    assert len(timers.due(store, clock.time() + 2 * 86400)) == 1, "the timer set again for tomorrow stays"


def test_two_polls_at_once_queue_a_due_timer_once(queued_app, moving_clock):
    """A second worker's poll that comes while the first is queuing finds the timer claimed: a job id
    queued twice would run twice."""
    store = queued_app.extensions["palazzo.store"]
    timers.at(store, clock.now() + timedelta(hours=1), "tests.clock_jobs.mark", "pz:test:marks", job_id="pz-test-mark")
    moving_clock.advance(timedelta(hours=2))
    queued: list[str] = []

    class Recording:
        """The queue, as seen by the first poll: another worker polls while it queues."""

        def enqueue_many(self, jobs):
            queued.extend(job.job_id for job in jobs)
            if len(queued) == 1:
                queued.append(f"second poll queued {timers.poll(store)}")

    with queue_as(store, Recording()):
        assert timers.poll(store) == 1
    assert queued == ["pz-test-mark", "second poll queued 0"]
    assert not timers.due(store, clock.time() + 86400), "the queued timer is dropped"
