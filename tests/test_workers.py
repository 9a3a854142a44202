"""Deadlines and bots off the request path, with a real redis-server and real `palazzo worker`
processes (RQ's worker, its scheduler and the sweep). Waits are bounded polls, never fixed sleeps
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
from tests.conftest import assert_replays, bearer, make_app, new_game, seat_tokens, wait_for

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
    time.sleep(3)  # give any second job or sweep the chance to double a move
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


def test_a_lost_deadline_job_is_caught_by_the_sweep_once(queued_app, workers, redis_url):
    client = queued_app.test_client()
    created = new_game(client, seats=3, deadlines={"pick": 2})
    game_id = created["game"]["id"]
    connection = redis.Redis.from_url(redis_url)  # RQ reads bytes
    registry = ScheduledJobRegistry(queue=Queue(followups.QUEUE, connection=connection))
    lost = [job_id for job_id in registry.get_job_ids() if game_id in job_id]
    assert lost, "the start scheduled a job at the deadline"
    for job_id in lost:
        registry.remove(job_id, delete_job=True)
    workers(2)
    wait_for(lambda: len(_timeouts(queued_app, game_id)) == 3)
    time.sleep(2)
    assert len(_timeouts(queued_app, game_id)) == 3


def test_a_killed_worker_leaves_the_deadline_to_the_other(queued_app, workers, redis_url):
    client = queued_app.test_client()
    created = new_game(client, seats=3, deadlines={"pick": 3})
    game_id = created["game"]["id"]
    first, _ = workers(2)
    wait_for(lambda: len(Worker.all(connection=redis.Redis.from_url(redis_url))) == 2, 20)  # both listening
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

    wait_for(lambda: seat_zero()["standin"] == "greedy")
    assert seat_zero()["missed"] == 2
    wait_for(lambda: any(e["seat"] == 0 and e.get("bot") == "greedy" and e.get("timeout")
                         for e in _log(queued_app, game_id)), 20)
    assert seat_zero()["missed"] == 2, "the stand-in's answers are not missed decisions"

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


def test_a_redis_restart_between_scheduling_and_the_deadline_loses_nothing(tmp_path, workers_on):
    from service.localredis import LocalRedis
    server = LocalRedis(tmp_path / "aof", extra=["--appendonly", "yes", "--appendfsync", "always", "--save", ""])
    try:
        app = make_app(server.url, JOBS="rq", MIN_DEADLINE=1, BOT_DELAY=0)
        client = app.test_client()
        created = new_game(client, seats=3, deadlines={"pick": 4})
        game_id = created["game"]["id"]
        server.stop()
        server.restart()
        workers_on(server.url, 1)
        wait_for(lambda: len(_timeouts(app, game_id)) == 3)
    finally:
        server.stop()


def test_a_worker_killed_while_it_holds_the_job_leaves_it_to_the_sweep(queued_app, workers, redis_url):
    """An enforce job that starts early waits for its deadline inside the worker: kill it then."""
    from rq.registry import StartedJobRegistry
    client = queued_app.test_client()
    created = new_game(client, seats=3, deadlines={"pick": 6})
    game_id = created["game"]["id"]
    due = deadlines.parse(client.get(f"/api/v1/games/{game_id}").get_json()["pending"][0]["deadline_at"])
    connection = redis.Redis.from_url(redis_url)
    queue = Queue(followups.QUEUE, connection=connection)
    scheduled = ScheduledJobRegistry(queue=queue)
    for job_id in [j for j in scheduled.get_job_ids() if game_id in j]:
        scheduled.remove(job_id, delete_job=True)  # only the early job and the sweep are left to act
    holder, = workers(1)
    wait_for(lambda: (due - deadlines.now()).total_seconds() < 1.5, 10)
    queue.enqueue("workers.deadlines.enforce", game_id, job_id="early-enforce")  # as RQ may, a bit early
    started = StartedJobRegistry(queue=queue)
    wait_for(lambda: "early-enforce" in started.get_job_ids(), 10)
    os.killpg(holder.pid, signal.SIGKILL)
    assert _timeouts(queued_app, game_id) == [], "killed before the deadline: nothing was played"
    workers(1)
    wait_for(lambda: len(_timeouts(queued_app, game_id)) == 3)
    time.sleep(2)
    assert sorted(_timeouts(queued_app, game_id)) == [(0, "pick"), (1, "pick"), (2, "pick")]


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
    redis.Redis.from_url(redis_url).zadd(followups.DEADLINE_INDEX, {game_id: until.timestamp()})
    workers(1)
    wait_for(lambda: store.head(game_id)["status"] == "running", 20)
    feed = client.get(f"/api/v1/games/{game_id}/events").get_json()["events"]
    assert feed[-1]["event"]["type"] == "game_resumed"
