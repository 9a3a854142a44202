"""Deadlines and bots off the request path, with a real redis-server and real `palazzo worker`
processes (RQ's worker, its scheduler and the poll of the wake index). Waits are bounded polls, never fixed sleeps
that a result depends on."""
from __future__ import annotations

import os
import signal
import time
from datetime import timedelta

import pytest
import redis
from rq import Queue, Worker
from rq.registry import ScheduledJobRegistry

from service import deadlines, followups
from service.games import STAND_IN
from service.localredis import LocalRedis
from service.store import game_key, shard_of, wake_key, woken_key
from tests.conftest import assert_replays, bearer, make_app, new_game, process_group, seat_tokens, wait_for
from tests.test_mail_sendgrid import KEY, stub  # noqa: F401  (the SendGrid stub fixture)


@pytest.fixture
def queued_app(redis_url):
    return make_app(redis_url, JOBS="rq", MIN_DEADLINE=1, BOT_DELAY=0)


def _log(app, game_id: str) -> list[dict]:
    return app.extensions["palazzo.store"].log(game_id)


def _timeouts(app, game_id: str) -> list[tuple[int, str]]:
    return [(entry["seat"], entry["move"]["type"]) for entry in _log(app, game_id) if entry.get("timeout")]


def test_starting_a_game_with_bots_returns_at_once_and_a_worker_plays_them(queued_app, workers):
    client = queued_app.test_client()
    created = new_game(client, game="princes-of-florence", seats=3, bots={0: "random", 1: "random", 2: "greedy"})
    game_id = created["game"]["id"]
    assert client.get(f"/api/v1/games/{game_id}").get_json()["status"] == "running"
    assert _log(queued_app, game_id) == [], "the start request played no bot move"
    workers(2)
    wait_for(lambda: client.get(f"/api/v1/games/{game_id}").get_json()["status"] == "finished", 120)
    moves = _log(queued_app, game_id)
    assert moves and all(entry.get("bot") for entry in moves)
    assert_replays(queued_app, game_id)


def test_a_deadline_is_enforced_once_with_two_workers(queued_app, workers):
    client = queued_app.test_client()
    created = new_game(client, seats=3, deadlines={"pick": 2})
    game_id = created["game"]["id"]
    workers(2)
    wait_for(lambda: len(_timeouts(queued_app, game_id)) == 3)
    time.sleep(3)  # give any second job or poll the chance to double a move
    assert sorted(_timeouts(queued_app, game_id)) == [(0, "pick"), (1, "pick"), (2, "pick")]
    feed = client.get(f"/api/v1/games/{game_id}/events").get_json()["events"]
    assert sorted(e["event"]["seat"] for e in feed if e["event"]["type"] == "timeout") == [0, 1, 2]


def test_an_answered_decision_never_times_out(queued_app, workers):
    client = queued_app.test_client()
    created = new_game(client, seats=3, deadlines={"pick": 3})
    game_id, tokens = created["game"]["id"], seat_tokens(created)
    version = client.get(f"/api/v1/games/{game_id}").get_json()["version"]
    assert client.post(f"/api/v1/games/{game_id}/moves", headers=bearer(tokens[1]),
                       json={"move": {"type": "pick", "value": 3}, "version": version}).status_code == 200
    workers(1)
    wait_for(lambda: len(_timeouts(queued_app, game_id)) == 2)
    time.sleep(2)
    assert sorted(_timeouts(queued_app, game_id)) == [(0, "pick"), (2, "pick")]


def test_the_commit_itself_indexes_when_the_game_next_needs_a_worker(queued_app, redis_url):
    client = queued_app.test_client()
    created = new_game(client, seats=3, deadlines={"pick": 30})
    game_id, store = created["game"]["id"], queued_app.extensions["palazzo.store"]
    game = client.get(f"/api/v1/games/{game_id}").get_json()
    earliest = min(deadlines.parse(d["deadline_at"]).timestamp() for d in game["pending"])
    assert store.wake_at(game_id) == pytest.approx(earliest, abs=0.01)
    connection = redis.Redis.from_url(redis_url)
    assert not [k for k in connection.keys("rq:*") if game_id.encode() in k], "no job is scheduled for a deadline"
    assert client.post(f"/api/v1/games/{game_id}/cancel", headers=bearer(created["tokens"]["host"])).status_code == 200
    assert store.wake_at(game_id) is None, "a cancelled game needs no worker"


def test_a_lost_wake_job_is_queued_again_once_its_claim_lapses(queued_app, workers, redis_url, monkeypatch):
    from workers import context
    from workers import deadlines as wake
    client = queued_app.test_client()
    created = new_game(client, seats=3, deadlines={"pick": 1})
    game_id, store = created["game"]["id"], queued_app.extensions["palazzo.store"]
    monkeypatch.setattr(context, "store", lambda: store)
    wait_for(lambda: bool(store.due(time.time())), 10)
    assert wake.poll() == 1 and wake.poll() == 0, "claimed: queued once"
    queue = Queue(followups.QUEUE, connection=redis.Redis.from_url(redis_url))
    queue.empty()  # the queue Redis lost the job
    assert wake.poll() == 0, "still claimed"
    store.redis.delete(woken_key(shard_of(game_id)))
    assert wake.poll() == 1, "the claim lapsed: queued again"
    workers(1)
    wait_for(lambda: len(_timeouts(queued_app, game_id)) == 3)
    time.sleep(2)
    assert len(_timeouts(queued_app, game_id)) == 3


def test_a_killed_worker_leaves_the_deadline_to_the_other(queued_app, workers, redis_url):
    client = queued_app.test_client()
    created = new_game(client, seats=3, deadlines={"pick": 3})
    game_id = created["game"]["id"]
    first, _ = workers(2)
    wait_for(lambda: len([w for w in Worker.all(connection=redis.Redis.from_url(redis_url))
                          if followups.QUEUE in w.queue_names()]) == 2, 20)  # both listening
    os.killpg(first.pid, signal.SIGKILL)
    wait_for(lambda: len(_timeouts(queued_app, game_id)) == 3)
    time.sleep(2)
    assert len(_timeouts(queued_app, game_id)) == 3


def test_a_seat_that_keeps_missing_gets_a_stand_in_until_its_player_moves(queued_app, workers):
    client = queued_app.test_client()
    created = new_game(client, seats=3, deadlines={"pick": 1, "add": 3}, options={"turns": 6}, missed_turns=2)
    game_id, tokens = created["game"]["id"], seat_tokens(created)
    version = client.get(f"/api/v1/games/{game_id}").get_json()["version"]
    for seat in (1, 2):  # they answer the pick; seat 0 stays silent, and later nobody answers
        client.post(f"/api/v1/games/{game_id}/moves", headers=bearer(tokens[seat]),
                    json={"move": {"type": "pick", "value": 1}, "version": version})
    workers(1)

    def seat_zero() -> dict:
        return client.get(f"/api/v1/games/{game_id}", headers=bearer(tokens[0])).get_json()["seats"][0]

    wait_for(lambda: seat_zero()["standin"] == STAND_IN)
    assert seat_zero()["missed"] == 2
    wait_for(lambda: any(e["seat"] == 0 and e.get("bot") == STAND_IN and e.get("timeout")
                         for e in _log(queued_app, game_id)), 20)
    assert seat_zero()["missed"] >= 3, "a decision the stand-in answered timed out too (remove_after counts it)"

    def my_decision() -> list[dict]:
        return [d for d in client.get(f"/api/v1/games/{game_id}").get_json()["pending"] if d["seat"] == 0]

    wait_for(lambda: bool(my_decision()), 20)
    back = client.post(f"/api/v1/games/{game_id}/moves", headers=bearer(tokens[0]),
                       json={"move": {"type": "add", "amount": 2}, "version": my_decision()[0]["since"]})
    assert back.status_code == 200, back.get_json()
    assert seat_zero()["missed"] == 0 and seat_zero()["standin"] is None, "his own move takes the seat back"


def test_a_pause_holds_the_deadline_and_resume_gives_the_time_back(queued_app, workers):
    client = queued_app.test_client()
    created = new_game(client, seats=3, deadlines={"pick": 3})
    game_id, host = created["game"]["id"], bearer(created["tokens"]["host"])
    before = deadlines.parse(client.get(f"/api/v1/games/{game_id}").get_json()["pending"][0]["deadline_at"])
    assert client.post(f"/api/v1/games/{game_id}/pause", headers=host, json={"hours": 1}).status_code == 200
    workers(1)
    time.sleep(4)  # past the first deadline, while paused
    assert _timeouts(queued_app, game_id) == [], "a paused game's deadlines do not run"
    resumed = client.post(f"/api/v1/games/{game_id}/resume", headers=host).get_json()
    assert all(deadlines.parse(d["deadline_at"]) >= before + timedelta(seconds=3) for d in resumed["pending"]), \
        "the time the game stood still is given back"
    wait_for(lambda: len(_timeouts(queued_app, game_id)) == 3)


@pytest.fixture
def aof_redis(tmp_path):
    """A redis-server of its own that keeps its data across a restart, as redis.conf's does."""
    with LocalRedis(tmp_path / "aof", extra=["--appendonly", "yes", "--appendfsync", "always", "--save", ""]) as server:
        yield server


def test_a_redis_restart_between_scheduling_and_the_deadline_loses_nothing(aof_redis, workers_on):
    app = make_app(aof_redis.url, JOBS="rq", MIN_DEADLINE=1, BOT_DELAY=0)
    client = app.test_client()
    created = new_game(client, seats=3, deadlines={"pick": 4})
    game_id = created["game"]["id"]
    aof_redis.restart()
    workers_on(aof_redis.url, 1)
    wait_for(lambda: len(_timeouts(app, game_id)) == 3)


def test_a_worker_rides_out_a_redis_restart_and_its_scheduled_jobs_go_on_at_once(
        aof_redis, workers_on, stub, monkeypatch):  # noqa: F811  (stub: the imported fixture)
    """kill -9 of the redis-server under a real worker: RQ's forked scheduler died with it and nothing
    restarted it for ten minutes. Here a bot move queued for a second later, a mail sent now and the
    retry of a mail that failed before the restart all go through within seconds of Redis coming back."""
    stub.status = 503
    monkeypatch.setenv("PALAZZO_MAIL_RETRY_SECONDS", "3")  # read where the mail is queued: here
    app = make_app(aof_redis.url, JOBS="rq", MIN_DEADLINE=1, BOT_DELAY=1)
    client, store = app.test_client(), app.extensions["palazzo.store"]
    (worker,) = workers_on(aof_redis.url, 1, PALAZZO_MAIL_BACKEND="sendgrid", SENDGRID_API_KEY=KEY,
                           PALAZZO_SENDGRID_HOST=stub.url)
    created = client.post("/api/v1/games", json={"game": "princes-of-florence", "seed": 3, "seats": [
        {"name": "Ann", "email": "ann@example.org"}, {"name": "B", "bot": "random"}, {"name": "C", "bot": "random"}]})
    game_id, host = created.get_json()["game"]["id"], created.get_json()["tokens"]["host"]
    retries = ScheduledJobRegistry(followups.QUEUE, connection=store.followups.connection)
    wait_for(lambda: len(stub.requests) == 1 and retries.count == 1, 20)  # Ann's invitation failed; retried in 3 s
    stub.status = 202
    aof_redis.process.kill()
    aof_redis.process.wait()
    aof_redis.restart()

    assert client.post(f"/api/v1/games/{game_id}/start", headers=bearer(host)).status_code == 200
    wait_for(lambda: {entry["seat"] for entry in store.log(game_id) if entry.get("bot")} == {1, 2}, 10)
    kinds = lambda: [request["json"]["custom_args"]["kind"] for request in stub.requests[1:]]  # noqa: E731
    wait_for(lambda: "invitation" in kinds() and "choose" in kinds(), 10)
    assert worker.poll() is None, "the worker rode out the restart"
    os.killpg(worker.pid, signal.SIGTERM)
    assert worker.wait(timeout=30) == 0, "asked to stop, it stops with status 0"
    assert not process_group(worker.pid), "and nothing it started is left"


def test_a_killed_worker_leaves_no_process_behind(redis_url, workers_on):
    """SIGKILL to `palazzo worker`: RQ's forked scheduler lived on as an orphan for minutes."""
    (worker,) = workers_on(redis_url, 1)
    connection = redis.Redis.from_url(redis_url)
    wait_for(lambda: connection.exists(f"rq:scheduler-lock:{followups.QUEUE}") and len(process_group(worker.pid)) >= 2, 20)
    os.kill(worker.pid, signal.SIGKILL)
    worker.wait()
    wait_for(lambda: not process_group(worker.pid), 10)


def test_a_finished_game_is_compacted_by_a_worker_and_still_replays(redis_url, workers_on):
    app = make_app(redis_url, JOBS="rq", MIN_DEADLINE=1, BOT_DELAY=0, COMPACT_AFTER=1)
    client = app.test_client()
    created = new_game(client, seats=3, bots={0: "greedy", 1: "greedy", 2: "greedy"})
    game_id, store = created["game"]["id"], app.extensions["palazzo.store"]
    workers_on(redis_url, 1, PALAZZO_COMPACT_AFTER="1")
    wait_for(lambda: store.redis.exists(game_key(game_id, "archive")) == 1, 30)
    assert not store.redis.exists(game_key(game_id, "log"), game_key(game_id, "events"))
    assert store.wake_at(game_id) is None
    assert client.get(f"/api/v1/games/{game_id}").get_json()["status"] == "finished"
    assert_replays(app, game_id)


def test_a_pause_that_runs_out_is_resumed_by_the_worker(queued_app, workers, redis_url):
    """The API's shortest pause is an hour: this one is shortened to 2 s in the store, as time would."""
    import json
    from service.store import dumps, game_key
    client = queued_app.test_client()
    created = new_game(client, seats=3, deadlines={"pick": 3600})
    game_id, host = created["game"]["id"], bearer(created["tokens"]["host"])
    client.post(f"/api/v1/games/{game_id}/pause", headers=host, json={"hours": 1})
    store = queued_app.extensions["palazzo.store"]
    until = deadlines.now() + timedelta(seconds=2)
    meta = json.loads(store.redis.hget(game_key(game_id, "game"), "meta"))
    store.redis.hset(game_key(game_id, "game"), "meta", dumps({**meta, "paused_until": deadlines.stamp(until)}))
    store.redis.zadd(wake_key(shard_of(game_id)), {game_id: until.timestamp()})
    workers(1)
    wait_for(lambda: store.head(game_id)["status"] == "running", 20)
    feed = client.get(f"/api/v1/games/{game_id}/events").get_json()["events"]
    assert feed[-1]["event"]["type"] == "game_resumed"


def test_a_slow_reply_holds_up_no_deadline_bot_or_mail(queued_app, workers, redis_url):
    """Replies have their own queue and process: one reply job took 16 s on the queue of everything else."""
    from service import mailbox
    connection = redis.Redis.from_url(redis_url)
    slow = followups.Jobs(followups.REPLY_QUEUE, connection=connection).enqueue("time.sleep", 60)
    [worker] = workers(1)
    wait_for(lambda: slow.get_status(refresh=True) == "started", 20)
    client, store = queued_app.test_client(), queued_app.extensions["palazzo.store"]
    created = client.post("/api/v1/games", json={"game": "toy-count", "seed": 7, "deadlines": {"pick": 1}, "seats": [
        {"name": "P0", "email": "p0@example.org"}, {"name": "P1", "bot": "random"}, {"name": "P2"}]}).get_json()
    game_id = created["game"]["id"]
    assert client.post(f"/api/v1/games/{game_id}/start", headers=bearer(created["tokens"]["host"])).status_code == 200
    wait_for(lambda: any(entry.get("bot") for entry in _log(queued_app, game_id))
             and len(_timeouts(queued_app, game_id)) == 2
             and "invitation" in [mail["kind"] for mail in mailbox.outbox(store)], 15)  # and, since any game
    # gets mail, P0's plain decision mails
    assert slow.get_status(refresh=True) == "started", "all that while the reply was still running"
    os.killpg(worker.pid, signal.SIGKILL)  # not the fixture's SIGTERM, which would wait on the sleeping reply
    worker.wait(timeout=10)


def test_jobs_leave_no_record_once_done_and_a_failed_one_a_day(queued_app, workers, redis_url):
    """RQ kept every finished job 500 s (89% of the data mid-run) and a failed one a year."""
    from rq.registry import FinishedJobRegistry
    client, store = queued_app.test_client(), queued_app.extensions["palazzo.store"]
    created = new_game(client, seats=3, bots={0: "random", 1: "random", 2: "random"})
    game_id = created["game"]["id"]
    workers(1)
    wait_for(lambda: client.get(f"/api/v1/games/{game_id}").get_json()["status"] == "finished", 60)
    failed = store.followups.queue.enqueue("workers.bots.move", "no-such-game", 0, 1)
    wait_for(lambda: failed.get_status(refresh=True) == "failed", 20)
    connection = redis.Redis.from_url(redis_url, decode_responses=True)
    wait_for(lambda: connection.keys("rq:job:*") == [failed.key], 10)
    assert FinishedJobRegistry(followups.QUEUE, connection=connection).count == 0
    kept = [failed.key, *connection.keys("rq:results:*")]
    assert all(0 < connection.ttl(key) <= followups.FAILURE_TTL for key in kept), \
        [(key, connection.ttl(key)) for key in kept]
