"""Bad input gets a clear problem and changes nothing; a lost Redis is a 503; caching and CORS."""
from __future__ import annotations


from service.localredis import LocalRedis
from tests.conftest import bearer, long_poll_across_a_move, make_app, new_game, seat_tokens

DEEP = "[" * 1000 + "]" * 1000


def test_json_nested_a_thousand_deep_is_a_400_problem(client):
    for path in ("/api/v1/sign-in", "/api/v1/games"):
        response = client.post(path, data=DEEP, content_type="application/json")
        assert response.status_code == 400, (path, response.get_data()[:200])
        assert response.mimetype == "application/problem+json" and response.get_json()["code"] == "too_deep"


def test_bad_json_and_other_media_types_are_refused(client):
    broken = client.post("/api/v1/games", data="{", content_type="application/json")
    assert broken.status_code == 400 and broken.get_json()["code"] == "bad_json"
    form = client.post("/api/v1/sign-in", data="email=a@example.org", content_type="application/x-www-form-urlencoded")
    assert form.status_code == 415 and form.get_json()["code"] == "unsupported_media_type"


def test_a_body_over_64_kb_is_a_413_problem(client):
    body = '{"email": "' + "a" * 70_000 + '@example.org"}'
    response = client.post("/api/v1/sign-in", data=body, content_type="application/json")
    assert response.status_code == 413 and response.get_json()["code"] == "too_large"


def test_control_characters_and_bad_addresses_are_422(client):
    for seat in ({"name": "A\x00B"}, {"name": "A\nB"}, {"name": "V", "email": "not-an-address"},
                 {"name": "V", "email": "a@b@example.org"}):
        response = client.post("/api/v1/games", json={"game": "toy-count",
                                                      "seats": [seat, {"name": "B"}, {"name": "C"}]})
        assert response.status_code == 422 and response.get_json()["code"] == "invalid_request", seat


def test_unknown_deadline_keys_and_options_are_refused(client):
    for extra in ({"deadlines": {"sneeze": 600}}, {"options": {"colour": "red"}}):
        response = client.post("/api/v1/games", json={"game": "princes-of-florence", **extra,
                                                      "seats": [{"name": "A"}, {"name": "B"}, {"name": "C"}]})
        assert response.status_code == 422, (extra, response.get_json())


def test_a_lost_redis_is_503_with_retry_after_and_service_comes_back(tmp_path):
    server = LocalRedis(tmp_path / "r", extra=["--appendonly", "no", "--save", ""])
    app = make_app(server.url)
    client = app.test_client()
    created = new_game(client)
    game_id = created["game"]["id"]
    server.stop()
    try:
        for path in ("/api/v1/health", f"/api/v1/games/{game_id}"):
            down = client.get(path)
            assert down.status_code == 503 and down.mimetype == "application/problem+json", path
            assert down.get_json()["code"] == "store_unavailable" and int(down.headers["Retry-After"]) > 0
        server.restart()
        assert client.get("/api/v1/health").get_json() == {"status": "ok", "redis": "up"}
    finally:
        server.stop()


def test_if_none_match_gives_304_until_something_changes(client):
    created = new_game(client)
    game_id, token = created["game"]["id"], seat_tokens(created)[0]
    for path in (f"/api/v1/games/{game_id}", f"/api/v1/games/{game_id}/events",
                 f"/api/v1/games/{game_id}/moves"):
        first = client.get(path, headers=bearer(token))
        same = client.get(path, headers={**bearer(token), "If-None-Match": first.headers["ETag"]})
        assert same.status_code == 304 and same.data == b"", path
    etag = client.get(f"/api/v1/games/{game_id}", headers=bearer(token)).headers["ETag"]
    client.put(f"/api/v1/games/{game_id}/orders", headers=bearer(token), json={"limits": {}, "step_out_otherwise": True})
    mine = client.get(f"/api/v1/games/{game_id}", headers={**bearer(token), "If-None-Match": etag})
    assert mine.status_code == 200, "my own orders are part of what I see"
    other = client.get(f"/api/v1/games/{game_id}", headers=bearer(seat_tokens(created)[1]))
    again = client.get(f"/api/v1/games/{game_id}", headers={**bearer(seat_tokens(created)[1]),
                                                              "If-None-Match": other.headers["ETag"]})
    assert again.status_code == 304


def test_a_long_poll_returns_when_an_event_arrives(app, client):
    created = new_game(client)
    game_id, token = created["game"]["id"], seat_tokens(created)[0]
    feed, page, waited = long_poll_across_a_move(app, client, game_id, token)
    assert page["events"] and page["events"][0]["seq"] == feed["next_after"] + 1
    assert waited < 15, "the long-poll must answer as soon as the feed grows, not at the end of its wait"
    quiet = client.get(f"/api/v1/games/{game_id}/events?after={page['next_after']}&wait=1").get_json()
    assert quiet["events"] == []


def test_private_answers_are_never_cached_and_public_ones_revalidated(client):
    created = new_game(client)
    game_id = created["game"]["id"]
    assert client.get(f"/api/v1/games/{game_id}", headers=bearer(seat_tokens(created)[0])).headers["Cache-Control"] == "no-store"
    assert client.get(f"/api/v1/games/{game_id}").headers["Cache-Control"] == "no-cache"
    assert client.post("/api/v1/games", json={"game": "toy-count", "seats": [{"name": "A"}, {"name": "B"},
                                                                         {"name": "C"}]}).headers["Cache-Control"] == "no-store"


def test_cors_is_off_by_default_and_on_for_configured_origins(redis_url, client):
    assert "Access-Control-Allow-Origin" not in client.get("/api/v1/health", headers={"Origin": "https://a.example"}).headers
    app = make_app(redis_url, CORS_ORIGINS=["https://a.example"])
    cors = app.test_client()
    allowed = cors.options("/api/v1/games", headers={"Origin": "https://a.example", "Access-Control-Request-Method": "POST",
                                                     "Access-Control-Request-Headers": "Authorization, If-Match"})
    assert allowed.headers["Access-Control-Allow-Origin"] == "https://a.example"
    assert "if-match" in allowed.headers["Access-Control-Allow-Headers"].lower()
    other = cors.get("/api/v1/health", headers={"Origin": "https://evil.example"})
    assert "Access-Control-Allow-Origin" not in other.headers


def test_an_anonymous_caller_is_refused_before_his_body_is_read(client):
    created = new_game(client)
    game_id = created["game"]["id"]
    for method, path, body in (("post", f"/api/v1/games/{game_id}/pause", {"hours": 0}),
                               ("put", f"/api/v1/games/{game_id}/seats/1", {"name": ""}),
                               ("post", f"/api/v1/games/{game_id}/moves", {"move": 1})):
        response = getattr(client, method)(path, json=body)
        assert response.status_code == 401 and response.get_json()["code"] == "token_required", path
