"""The lean move path: a read and one write, an answer exactly as documented, limits still counted."""
from __future__ import annotations

import random

import pytest
from redis.connection import Connection

from service.schemas import MoveOut
from tests.conftest import bearer, leaks, make_app, new_game, seat_tokens

GAME = "princes-of-florence"


@pytest.fixture
def round_trips(monkeypatch):
    """Counts what the app sends to Redis: one packed send is one round trip (a pipeline is one)."""
    sent = []
    original = Connection.send_packed_command

    def counting(self, command, check_health=True):
        sent.append(command)
        return original(self, command, check_health)

    monkeypatch.setattr(Connection, "send_packed_command", counting)
    return sent


def _first_move(client, created):
    game_id, tokens = created["game"]["id"], seat_tokens(created)
    legal = client.get(f"/api/v1/games/{game_id}/moves", headers=bearer(tokens[0])).get_json()
    return game_id, tokens[0], legal


def _commands(packed: list[bytes]) -> list[bytes]:
    """The command names in one packed send (RESP arrays: each begins *n, then $len, then the name)."""
    lines = b"".join(packed).split(b"\r\n")
    return [lines[i + 2] for i, line in enumerate(lines[:-2]) if line.startswith(b"*") and lines[i + 1][:1] == b"$"]


@pytest.mark.parametrize("jobs", ["inline", "rq"])
def test_a_move_costs_one_read_and_one_write(redis_url, round_trips, jobs):
    """Token, game and rate counters in one round trip that only reads; the commit and the rate
    count in one more. With workers too: the deadline is indexed by the commit itself, and a game
    with no bot and no address queues no job."""
    client = make_app(redis_url, JOBS=jobs).test_client()
    created = new_game(client, seats=3, deadlines={"pick": 3600})
    game_id, token, legal = _first_move(client, created)
    round_trips.clear()
    response = client.post(f"/api/v1/games/{game_id}/moves", headers=bearer(token),
                           json={"move": legal["moves"][0]["move"], "version": legal["version"]})
    assert response.status_code == 200, response.get_json()
    assert len(round_trips) == 2
    first, second = (_commands(sent) for sent in round_trips)
    assert set(first) == {b"GET", b"HMGET"}
    assert second[0] == b"EVALSHA" and b"INCRBY" in second


def test_a_refused_move_is_counted_too(redis_url):
    client = make_app(redis_url, RATE_LIMIT="3 per minute").test_client()
    created = new_game(client, seats=3)
    game_id, token = created["game"]["id"], seat_tokens(created)[0]
    wrong = {"move": {"type": "bid", "amount": -5}, "version": 2}
    statuses = [client.post(f"/api/v1/games/{game_id}/moves", headers=bearer(token), json=wrong).status_code
                for _ in range(4)]
    assert statuses == [422, 422, 422, 429], "refused moves count against the limit too"


def test_the_move_answer_is_exactly_what_move_out_documents(client):
    created = new_game(client, game=GAME, seats=5, options={"bidding": "step", "auction_pass": True})
    game_id, tokens = created["game"]["id"], seat_tokens(created)
    rng = random.Random(3)
    for _ in range(40):
        game = client.get(f"/api/v1/games/{game_id}").get_json()
        seat = game["pending"][0]["seat"]
        legal = client.get(f"/api/v1/games/{game_id}/moves", headers=bearer(tokens[seat])).get_json()
        response = client.post(f"/api/v1/games/{game_id}/moves", headers=bearer(tokens[seat]),
                               json={"move": rng.choice(legal["moves"])["move"], "version": legal["version"]})
        assert response.status_code == 200 and response.mimetype == "application/json"
        body = response.get_json()
        assert MoveOut().dump(body) == body and MoveOut().validate(body) == {}
        assert response.headers["ETag"] == f'"{body["version"]}"'
        assert all(set(d) <= {"seat", "kind", "deadline", "deadline_at", "since"} for d in body["pending"])
        assert leaks(body, seat) == []
        assert "Set-Cookie" not in response.headers


def test_game_paths_still_count_against_the_rate_limit(redis_url):
    client = make_app(redis_url, RATE_LIMIT="5 per minute").test_client()
    created = new_game(client, start=False)
    game_id, host = created["game"]["id"], created["tokens"]["host"]
    statuses = [client.get(f"/api/v1/games/{game_id}", headers=bearer(host)).status_code for _ in range(6)]
    assert statuses == [200, 200, 200, 200, 200, 429]


def test_a_bad_token_on_a_game_path_is_401_and_shows_nothing(client):
    created = new_game(client)
    game_id = created["game"]["id"]
    token_id = seat_tokens(created)[0].partition(".")[0]
    response = client.post(f"/api/v1/games/{game_id}/moves", headers=bearer(f"{token_id}.wrong"),
                           json={"move": {"type": "pick", "value": 1}, "version": 2})
    assert response.status_code == 401 and response.get_json()["code"] == "bad_token"
    assert "view" not in response.get_json() and "state" not in response.get_data(as_text=True)


def test_resuming_a_game_that_is_not_paused_is_409(client):
    created = new_game(client)
    response = client.post(f"/api/v1/games/{created['game']['id']}/resume", headers=bearer(created["tokens"]["host"]))
    assert response.status_code == 409 and response.get_json()["code"] == "game_running"
