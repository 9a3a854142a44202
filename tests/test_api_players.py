"""Host actions, the player's turn list, sign-in by email, deadlines, timeouts and rate limits."""
from __future__ import annotations

import re

from service import games, mailbox, playing
from tests.conftest import assert_replays, bearer, make_app, new_game, seat_tokens, sign_in


def test_host_pauses_resumes_cancels_and_pauses_are_bounded(client):
    created = new_game(client)
    game_id, host = created["game"]["id"], bearer(created["tokens"]["host"])
    token = seat_tokens(created)[0]
    before = client.get(f"/api/v1/games/{game_id}").get_json()["pending"]
    paused = client.post(f"/api/v1/games/{game_id}/pause", headers=host, json={"hours": 2}).get_json()
    assert paused["status"] == "paused" and paused["pauses_left"] == 2
    blocked = client.post(f"/api/v1/games/{game_id}/moves", headers=bearer(token),
                          json={"move": {"type": "pick", "value": 1}, "version": paused["version"]})
    assert blocked.status_code == 409 and blocked.get_json()["code"] == "game_paused"
    resumed = client.post(f"/api/v1/games/{game_id}/resume", headers=host).get_json()
    assert resumed["status"] == "running"
    assert all(d["deadline_at"] >= b["deadline_at"] for d, b in zip(resumed["pending"], before))
    for _ in range(2):
        client.post(f"/api/v1/games/{game_id}/pause", headers=host, json={"hours": 1})
        client.post(f"/api/v1/games/{game_id}/resume", headers=host)
    refused = client.post(f"/api/v1/games/{game_id}/pause", headers=host, json={"hours": 1})
    assert refused.status_code == 409 and refused.get_json()["code"] == "pause_limit"
    assert client.post(f"/api/v1/games/{game_id}/pause", headers=host, json={"hours": 500}).status_code == 422
    cancelled = client.post(f"/api/v1/games/{game_id}/cancel", headers=host).get_json()
    assert cancelled["status"] == "cancelled"


def test_replacing_a_seat_revokes_the_old_token_and_a_bot_takes_over(client, app):
    created = new_game(client)
    game_id, host, old = created["game"]["id"], bearer(created["tokens"]["host"]), seat_tokens(created)[2]
    response = client.put(f"/api/v1/games/{game_id}/seats/2", headers=host, json={"name": "Robo", "bot": "random"})
    assert response.status_code == 200, response.get_json()
    assert client.get(f"/api/v1/games/{game_id}", headers=bearer(old)).status_code == 401
    game = client.get(f"/api/v1/games/{game_id}").get_json()
    assert all(d["seat"] != 2 for d in game["pending"])
    by_hand = client.put(f"/api/v1/games/{game_id}/seats/2", headers=host, json={"name": "Cy"}).get_json()["token"]
    assert client.get(f"/api/v1/games/{game_id}", headers=bearer(by_hand)).get_json()["you"]["seat"] == 2
    human = client.put(f"/api/v1/games/{game_id}/seats/2", headers=host, json={"name": "Dee", "email": "dee@example.org"})
    assert human.get_json()["token"] is None, "a seat with an address is reached by mail only"
    assert client.get(f"/api/v1/games/{game_id}", headers=bearer(by_hand)).status_code == 401
    dee = bearer(sign_in(app, client, "dee@example.org"))
    assert client.get(f"/api/v1/games/{game_id}", headers=dee).get_json()["you"]["seat"] == 2
    assert_replays(app, game_id)


def test_my_turns_span_games_most_urgent_first(client, app):
    slow = new_game(client, deadlines={"pick": 7200}, emails=True)
    fast = new_game(client, deadlines={"pick": 600}, emails=True)
    assert slow["tokens"]["seats"] == fast["tokens"]["seats"] == []
    player = sign_in(app, client, "p0@example.org")
    turns = client.get("/api/v1/me/turns", headers=bearer(player)).get_json()["turns"]
    assert [t["game_id"] for t in turns] == [fast["game"]["id"], slow["game"]["id"]]
    assert all(t["seat"] == 0 and t["kind"] == "pick" for t in turns)
    by_player = client.get(f"/api/v1/games/{fast['game']['id']}/moves", headers=bearer(player))
    assert by_player.status_code == 200 and by_player.get_json()["seat"] == 0


def test_sign_in_mails_a_link_that_gives_a_player_token_and_reveals_nothing(client, app):
    new_game(client, emails=True)
    store = app.extensions["palazzo.store"]
    invitations = len(mailbox.outbox(store))
    known = client.post("/api/v1/sign-in", json={"email": "P1@example.org"})
    unknown = client.post("/api/v1/sign-in", json={"email": "nobody@example.org"})
    assert known.status_code == unknown.status_code == 202 and known.get_json() == unknown.get_json()
    [message] = mailbox.outbox(store)[invitations:]
    assert message["to"] == "p1@example.org"
    link = re.search(r"link=(\S+)", message["text"]).group(1)
    token = client.post("/api/v1/sign-in/redeem", json={"link": link}).get_json()["token"]
    assert client.get("/api/v1/me/turns", headers=bearer(token)).get_json()["turns"][0]["seat"] == 1
    forged = client.post("/api/v1/sign-in/redeem", json={"link": link[:-2] + "xx"})
    assert forged.status_code == 403 and forged.get_json()["code"] == "bad_link"


def test_the_default_move_plays_an_overdue_seat_as_a_timeout(client, app):
    created = new_game(client)
    game_id = created["game"]["id"]
    store = app.extensions["palazzo.store"]

    def play_default(force: bool = False) -> bool:
        return playing.default_on(store, games.load(store, game_id), 0, force=force)[1]

    assert play_default() is False, "not overdue yet"
    assert play_default(force=True) is True
    assert play_default(force=True) is False, "the seat has nothing pending any more"
    [entry] = store.log(game_id)
    assert entry["timeout"] is True and entry["move"] == {"type": "pick", "value": 1}
    assert_replays(app, game_id)


def test_rate_limit_answers_429_with_retry_after(redis_url):
    client = make_app(redis_url, RATE_LIMIT="3 per minute").test_client()
    statuses = [client.get("/api/v1/games/none").status_code for _ in range(4)]
    assert statuses == [404, 404, 404, 429]
    limited = client.get("/api/v1/games/none")
    assert limited.get_json()["code"] == "rate_limited" and int(limited.headers["Retry-After"]) >= 1
