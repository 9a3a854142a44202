"""Creating, reading and playing a game over HTTP against a real redis-server."""
from __future__ import annotations

from tests.conftest import assert_replays, bearer, leaks, new_game, seat_tokens


def test_create_returns_tokens_once_and_the_game_opens(client):
    created = new_game(client, start=False)
    tokens = created["tokens"]
    assert len(tokens["seats"]) == 3 and tokens["host"]
    game = client.get(f"/api/v1/games/{created['game']['id']}").get_json()
    assert game["status"] == "open" and game["version"] == 1 and "tokens" not in game
    assert all(seat["email"] is None for seat in game["seats"] if "email" in seat)


def test_read_as_seat_shows_own_private_only_and_etag(client):
    created = new_game(client)
    game_id = created["game"]["id"]
    for seat, token in seat_tokens(created).items():
        response = client.get(f"/api/v1/games/{game_id}", headers=bearer(token))
        body = response.get_json()
        assert response.headers["ETag"].startswith(f'"{body["version"]}.')
        assert body["you"] == {"role": "seat", "seat": seat}
        assert body["view"]["players"][seat]["private"]["number"] >= 1
        assert leaks(body, seat) == []
    spectator = client.get(f"/api/v1/games/{game_id}").get_json()
    assert spectator["you"]["role"] == "spectator" and leaks(spectator, None) == []


def test_legal_moves_have_labels_and_a_move_advances_the_version(client, app):
    created = new_game(client)
    game_id, token = created["game"]["id"], seat_tokens(created)[0]
    legal = client.get(f"/api/v1/games/{game_id}/moves", headers=bearer(token)).get_json()
    assert [m["label"] for m in legal["moves"]] == ["pick 1", "pick 2", "pick 3"]
    response = client.post(f"/api/v1/games/{game_id}/moves", headers={**bearer(token), "If-Match": f'"{legal["version"]}"'},
                           json={"move": legal["moves"][1]["move"]})
    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    assert body["version"] == legal["version"] + 1 and body["label"] == "pick 2"
    assert body["events"][0]["private"] == {"value": 2}
    assert_replays(app, game_id)


def test_stale_version_gets_409_with_current_version(client):
    created = new_game(client)
    game_id, tokens = created["game"]["id"], seat_tokens(created)
    version = client.get(f"/api/v1/games/{game_id}").get_json()["version"]
    ok = client.post(f"/api/v1/games/{game_id}/moves", headers=bearer(tokens[0]),
                     json={"move": {"type": "pick", "value": 1}, "version": version})
    assert ok.status_code == 200
    stale = client.post(f"/api/v1/games/{game_id}/moves", headers=bearer(tokens[0]),
                        json={"move": {"type": "pick", "value": 2}, "version": version})
    assert stale.status_code == 409
    assert stale.content_type == "application/problem+json"
    assert stale.get_json()["code"] == "stale_version" and stale.get_json()["current_version"] == version + 1


def test_illegal_move_gets_422_with_engine_code(client):
    created = new_game(client)
    game_id, token = created["game"]["id"], seat_tokens(created)[0]
    version = client.get(f"/api/v1/games/{game_id}").get_json()["version"]
    response = client.post(f"/api/v1/games/{game_id}/moves", headers=bearer(token),
                           json={"move": {"type": "add", "amount": 1}, "version": version})
    assert response.status_code == 422 and response.get_json()["code"] == "not_legal"


def test_strict_input_rejects_floats_unknown_fields_and_missing_version(client):
    created = new_game(client)
    game_id, token = created["game"]["id"], seat_tokens(created)[0]
    url, auth = f"/api/v1/games/{game_id}/moves", bearer(token)
    cases = [
        ({"move": {"type": "pick", "value": 1.0}, "version": 2}, 422, "invalid_move"),
        ({"move": {"type": "pick", "value": 1, "extra": 1}, "version": 2}, 422, "invalid_move"),
        ({"move": {"type": "pick", "value": 1}, "version": 2.5}, 422, "invalid_request"),
        ({"move": {"type": "pick", "value": 1}, "version": 2, "x": 1}, 422, "invalid_request"),
        ({"move": {"type": "pick", "value": 1}}, 428, "version_required"),
    ]
    for body, status, code in cases:
        response = client.post(url, headers=auth, json=body)
        assert (response.status_code, response.get_json()["code"]) == (status, code), body


def test_errors_are_problem_documents(client):
    created = new_game(client)
    game_id = created["game"]["id"]
    checks = [
        (client.get("/api/v1/games/nope"), 404, "game_not_found"),
        (client.get("/api/v1/nowhere"), 404, "not_found"),
        (client.delete("/api/v1/games"), 405, "method_not_allowed"),
        (client.get(f"/api/v1/games/{game_id}/moves"), 401, "token_required"),
        (client.get(f"/api/v1/games/{game_id}", headers=bearer("abc.def")), 401, "bad_token"),
        (client.get(f"/api/v1/games/{game_id}/moves", headers=bearer(created["tokens"]["host"])), 403, "not_a_seat"),
        (client.post(f"/api/v1/games/{game_id}/start", headers=bearer(seat_tokens(created)[0])), 403, "host_only"),
    ]
    for response, status, code in checks:
        assert response.status_code == status
        assert response.content_type == "application/problem+json"
        assert response.get_json()["code"] == code
    assert "POST" in client.delete("/api/v1/games").headers["Allow"]


def test_whole_game_with_bots_ends_with_result_and_replays(client, app):
    created = new_game(client, bots={1: "random", 2: "random"})
    game_id, token = created["game"]["id"], seat_tokens(created)[0]
    while True:
        game = client.get(f"/api/v1/games/{game_id}", headers=bearer(token)).get_json()
        if game["status"] == "finished":
            break
        legal = client.get(f"/api/v1/games/{game_id}/moves", headers=bearer(token)).get_json()
        response = client.post(f"/api/v1/games/{game_id}/moves", headers=bearer(token),
                               json={"move": legal["moves"][-1]["move"], "version": legal["version"]})
        assert response.status_code == 200, response.get_json()
    assert game["result"]["ranking"]
    assert_replays(app, game_id)


def test_shuffled_seats_follow_the_drawn_order(app, client):
    from engine.pof import GAME
    options = GAME.normalize_options({"seats": 4, "shuffle_seats": True})
    seed = next(s for s in range(100) if GAME.make_setup(options, s)["seat_order"] != [0, 1, 2, 3])
    order = GAME.make_setup(options, seed)["seat_order"]
    listed = [{"name": "Ann"}, {"name": "Bob", "email": "bob@example.org"}, {"name": "Cy", "bot": "random"},
              {"name": "Dee"}]
    response = client.post("/api/v1/games", json={"game": "princes-of-florence", "seed": seed,
                                                  "options": {"shuffle_seats": True}, "seats": listed})
    created = response.get_json()
    assert response.status_code == 201, created
    assert [seat["name"] for seat in created["game"]["seats"]] == [listed[i]["name"] for i in order]
    assert created["game"]["seats"][order.index(2)]["bot"] == "random"
    for seat, token in seat_tokens(created).items():
        assert listed[order[seat]]["name"] in ("Ann", "Dee") and "email" not in listed[order[seat]]
        you = client.get(f"/api/v1/games/{created['game']['id']}", headers=bearer(token)).get_json()["you"]
        assert you == {"role": "seat", "seat": seat}
    assert created["game"]["seats"][order.index(1)]["email"] == "bob@example.org"
