"""Bots think on a queue and in a process of their own, with a time budget per job; the bot that stands
in for a player who keeps missing is the game's setting; a practice game (one person, bots in every
other seat) plays to its end. Real redis-server and real `palazzo worker` processes; the slow bot is
the toy game's own, slowed in the workers only (tests/slow_bots.py)."""
from __future__ import annotations

import json
import os
import signal

import pytest
import redis
from rq import Queue
from rq.registry import StartedJobRegistry

from service import counters, games, playing
from service.followups import BOT_QUEUE
from service.store import dumps, game_key
from tests.conftest import assert_replays, bearer, make_app, new_game, seat_tokens, wait_for
from tests.web_client import csrf


@pytest.fixture
def queued_app(redis_url):
    return make_app(redis_url, JOBS="rq", MIN_DEADLINE=1, BOT_DELAY=0)


def _log(app, game_id: str) -> list[dict]:
    return app.extensions["palazzo.store"].log(game_id)


def _timeouts(app, game_id: str) -> list[dict]:
    return [entry for entry in _log(app, game_id) if entry.get("timeout")]


def _thinking(connection: redis.Redis, prefix: str) -> bool:
    """A job whose id starts with `prefix` is running on the bots' queue."""
    started = StartedJobRegistry(BOT_QUEUE, connection=connection).get_job_ids()
    return any(job_id.startswith(prefix) for job_id in started)


def _silent_game(client, **extra) -> dict:
    """A toy game whose three players never move, so that every decision waits out its deadline."""
    return new_game(client, seats=3, deadlines={"pick": 1, "add": 1}, **extra)


def test_a_thinking_stand_in_holds_up_no_other_games_deadline(queued_app, workers, redis_url):
    """The deadline's job used to choose the stand-in's move itself, in the process that plays every
    game's deadlines: a bot thinking for seconds held them all up."""
    connection = redis.Redis.from_url(redis_url, decode_responses=True)
    client = queued_app.test_client()
    slow = _silent_game(client, missed_turns=1, stand_in="random")["game"]["id"]
    [worker] = workers(1, PALAZZO_TEST_SLOW_BOT="random 60", PALAZZO_BOT_SECONDS="120")
    wait_for(lambda: _thinking(connection, f"pz-standin-{slow}-"), 30)
    other = _silent_game(client)["game"]["id"]
    wait_for(lambda: len(_timeouts(queued_app, other)) == 3, 20)
    assert _thinking(connection, f"pz-standin-{slow}-"), "all that while the stand-in was still thinking"
    assert len(_timeouts(queued_app, slow)) == 3, "the slow game's stand-in has not answered yet"
    assert not any(entry.get("bot") for entry in _timeouts(queued_app, other))
    os.killpg(worker.pid, signal.SIGKILL)  # not the fixture's SIGTERM, which would wait on the thinking bot
    worker.wait(timeout=10)


def test_a_bot_out_of_time_plays_the_default_move_and_the_game_goes_on(redis_url, workers):
    app = make_app(redis_url, JOBS="rq", MIN_DEADLINE=1, BOT_DELAY=0, BOT_SECONDS=1)
    client = app.test_client()
    created = new_game(client, seats=3, bots={0: "random", 1: "greedy", 2: "greedy"}, options={"turns": 1})
    game_id = created["game"]["id"]
    workers(1, PALAZZO_TEST_SLOW_BOT="random 30", PALAZZO_BOT_SECONDS="1")
    wait_for(lambda: client.get(f"/api/v1/games/{game_id}").get_json()["status"] == "finished", 60)
    slow = [entry for entry in _log(app, game_id) if entry["seat"] == 0]
    table = games.load(app.extensions["palazzo.store"], game_id)
    assert [entry["move"] for entry in slow] == [{"type": "pick", "value": 1}, {"type": "add", "amount": 1}], \
        "the default move, in the random bot's name"
    assert all(entry.get("bot") == "random" and not entry.get("timeout") for entry in slow)
    assert table.meta["seats"][0]["bot"] == "random"
    assert_replays(app, game_id)


def test_a_stand_in_out_of_time_plays_the_default_move_at_the_deadline(redis_url, workers):
    app = make_app(redis_url, JOBS="rq", MIN_DEADLINE=1, BOT_DELAY=0, BOT_SECONDS=1)
    client = app.test_client()
    game_id = _silent_game(client, missed_turns=1, stand_in="random", options={"turns": 1})["game"]["id"]
    workers(1, PALAZZO_TEST_SLOW_BOT="random 30", PALAZZO_BOT_SECONDS="1")
    wait_for(lambda: client.get(f"/api/v1/games/{game_id}").get_json()["status"] == "finished", 60)
    timeouts = _timeouts(app, game_id)
    assert [entry["move"]["type"] for entry in timeouts] == ["pick"] * 3 + ["add"] * 3
    assert not any(entry.get("bot") for entry in timeouts), "the default move, not the stand-in's"
    assert [seat["standin"] for seat in client.get(f"/api/v1/games/{game_id}").get_json()["seats"]] == ["random"] * 3
    assert_replays(app, game_id)


def test_a_bot_seats_lost_job_is_queued_again_at_its_deadline_and_its_bot_moves(queued_app, workers, redis_url):
    """The deadline of a bot's decision is no default move: it is the bot's job, queued again."""
    client = queued_app.test_client()
    game_id = new_game(client, seats=3, bots={1: "random", 2: "random"}, deadlines={"pick": 1})["game"]["id"]
    Queue(BOT_QUEUE, connection=redis.Redis.from_url(redis_url)).empty()  # the queue Redis lost their jobs
    workers(1)
    wait_for(lambda: {entry["seat"] for entry in _log(queued_app, game_id)} == {0, 1, 2}, 30)
    picks = {entry["seat"]: entry for entry in _log(queued_app, game_id)}
    assert picks[0].get("timeout") and not picks[0].get("bot"), "the person's deadline plays his default"
    assert all(picks[seat].get("bot") == "random" and not picks[seat].get("timeout") for seat in (1, 2))


def test_the_games_stand_in_answers_at_the_deadlines(queued_app, workers):
    client = queued_app.test_client()
    created = _silent_game(client, missed_turns=1, stand_in="random", options={"turns": 2})
    game_id = created["game"]["id"]
    assert client.get(f"/api/v1/games/{game_id}").get_json()["stand_in"] == "random"
    workers(1)
    wait_for(lambda: client.get(f"/api/v1/games/{game_id}").get_json()["status"] == "finished", 60)
    timeouts = _timeouts(queued_app, game_id)
    assert [entry.get("bot") for entry in timeouts[:3]] == [None] * 3, "the first miss plays the default"
    assert len(timeouts) == 9 and all(entry.get("bot") == "random" for entry in timeouts[3:])
    seats = client.get(f"/api/v1/games/{game_id}").get_json()["seats"]
    assert [seat["standin"] for seat in seats] == ["random"] * 3
    assert_replays(queued_app, game_id)


def test_a_game_stands_in_with_the_default_unless_it_names_another(app, client):
    game_id = new_game(client)["game"]["id"]
    assert client.get(f"/api/v1/games/{game_id}").get_json()["stand_in"] == games.STAND_IN == "search"
    assert games.load(app.extensions["palazzo.store"], game_id).meta["stand_in"] == games.STAND_IN


def test_a_game_stored_before_the_setting_stands_in_with_greedy(app, client, monkeypatch):
    monkeypatch.setattr(games, "STAND_IN", "random")  # a new default changes no game stored before the setting
    created = new_game(client, missed_turns=1, deadlines={"pick": 60})
    game_id, store = created["game"]["id"], app.extensions["palazzo.store"]
    meta = json.loads(store.redis.hget(game_key(game_id, "game"), "meta"))
    del meta["stand_in"]
    store.redis.hset(game_key(game_id, "game"), "meta", dumps(meta))
    assert client.get(f"/api/v1/games/{game_id}").get_json()["stand_in"] == "greedy"
    for seat in range(3):
        playing.default_on(store, games.load(store, game_id), seat, force=True)
    assert [seat["standin"] for seat in client.get(f"/api/v1/games/{game_id}").get_json()["seats"]] == ["greedy"] * 3
    assert "stand_in" not in games.load(store, game_id).meta, "a read leaves the stored game as it was"


def _kept(app) -> dict:
    keys = app.extensions["palazzo.store"].redis
    return {key: keys.dump(key) for key in sorted(keys.keys("*"))
            if not key.startswith("pz:rate:") and not counters.is_counter(key)}


@pytest.mark.parametrize("stand_in", ["nobody", None, 3, "", "Greedy"])
def test_a_stand_in_that_is_no_bot_is_refused_and_creates_nothing(app, client, stand_in):
    before = _kept(app)
    answer = client.post("/api/v1/games", json={"game": "toy-count", "stand_in": stand_in,
                                                "seats": [{"name": f"P{n}"} for n in range(3)]})
    assert answer.status_code == 422 and answer.content_type == "application/problem+json"
    assert answer.get_json()["code"] == "invalid_request" and "stand_in" in answer.get_json()["errors"]["json"]
    assert _kept(app) == before


def _create_page(client, **fields):
    form = {"csrf": csrf(client, "/new"), "game": "toy-count", "name0": "Ann", "player0": "human",
            "name1": "Robo", "player1": "random", "name2": "Greta", "player2": "greedy", "start": "true", **fields}
    return client.post("/new", data=form)


def test_the_create_page_names_the_stand_in_and_refuses_what_is_no_bot(app, client):
    page = client.get("/new?game=toy-count").get_data(as_text=True)
    assert f'<option value="{games.STAND_IN}" selected>' in page.split('name="stand_in"')[1].split("</select>")[0]
    refused = _create_page(client, stand_in="nobody")
    assert refused.status_code == 422 and "stand in" in refused.get_data(as_text=True).lower()
    assert not list(app.extensions["palazzo.store"].redis.scan_iter(match="pz:{*}:*:game"))
    made = _create_page(client, stand_in="random")
    assert made.status_code == 303
    game_id = made.headers["Location"].split("/games/")[1].split("/")[0]
    assert games.load(app.extensions["palazzo.store"], game_id).meta["stand_in"] == "random"
    host = client.get(made.headers["Location"]).get_data(as_text=True)
    assert 'data-stand-in="random"' in host


def test_a_practice_game_from_the_api_plays_to_its_end_with_bots_answering(queued_app, workers):
    """One person and bots in every other seat, started in one request: the bots answer each of his moves."""
    client = queued_app.test_client()
    created = client.post("/api/v1/games", json={
        "game": "toy-count", "seed": 3, "options": {"turns": 3}, "start_when_full": True,
        "seats": [{"name": "Ann"}, {"name": "Robo", "bot": "random"}, {"name": "Greta", "bot": "greedy"}]})
    assert created.status_code == 201, created.get_json()
    game_id, token = created.get_json()["game"]["id"], seat_tokens(created.get_json())[0]
    me = bearer(token)
    assert client.get(f"/api/v1/games/{game_id}").get_json()["status"] == "running"
    workers(1)
    moves = 0
    while True:
        wait_for(lambda: (lambda g: g["status"] == "finished" or any(d["seat"] == 0 for d in g["pending"]))(
            client.get(f"/api/v1/games/{game_id}", headers=me).get_json()), 30)
        game = client.get(f"/api/v1/games/{game_id}", headers=me).get_json()
        if game["status"] == "finished":
            break
        kind = next(d["kind"] for d in game["pending"] if d["seat"] == 0)
        move = {"type": "pick", "value": 2} if kind == "pick" else {"type": "add", "amount": 2}
        answer = client.post(f"/api/v1/games/{game_id}/moves", headers=me, json={"move": move,
                                                                                 "version": game["version"]})
        assert answer.status_code == 200, answer.get_json()
        moves += 1
    log = _log(queued_app, game_id)
    assert moves == 4 and [entry["seat"] for entry in log if not entry.get("bot")] == [0] * 4
    assert {entry["seat"] for entry in log if entry.get("bot")} == {1, 2}
    assert not any(entry.get("timeout") for entry in log)
    assert game["result"] is not None
    assert_replays(queued_app, game_id)


def test_a_practice_game_from_the_create_page_starts_at_once_with_its_bots(queued_app, workers):
    client = queued_app.test_client()
    made = _create_page(client)
    assert made.status_code == 303
    game_id = made.headers["Location"].split("/games/")[1].split("/")[0]
    table = games.load(queued_app.extensions["palazzo.store"], game_id)
    assert table.status == games.RUNNING
    assert [seat.get("bot") for seat in table.meta["seats"]] == [None, "random", "greedy"]
    workers(1)
    wait_for(lambda: {entry["seat"] for entry in _log(queued_app, game_id)} == {1, 2}, 30)  # their picks
