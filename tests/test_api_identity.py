"""Who may act for a seat: only whoever proved the address (a mailed, signed, single-use link)."""
from __future__ import annotations

import pytest
import redis
from itsdangerous import URLSafeTimedSerializer

from service import counters, mailbox, tokens
from service.app import create_app
from service.config import Config
from tests.conftest import SECRET, bearer, mailed_link, make_app, sign_in

GAME = {"game": "toy-count", "seed": 1}


def _create(client, *seats: dict) -> dict:
    response = client.post("/api/v1/games", json={**GAME, "seats": list(seats)})
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def test_naming_an_address_gives_the_creator_no_token_for_that_seat(app, client):
    created = _create(client, {"name": "Mallory"}, {"name": "Victim", "email": "victim@example.org"},
                      {"name": "Bot", "bot": "random"})
    assert [entry["seat"] for entry in created["tokens"]["seats"]] == [0]
    assert "players" not in created["tokens"]
    [invitation] = [m for m in mailbox.outbox(app.extensions["palazzo.store"]) if m["to"] == "victim@example.org"]
    assert created["game"]["id"] in invitation["text"]
    game_id = created["game"]["id"]
    mallory = bearer(created["tokens"]["seats"][0]["token"])
    assert client.get(f"/api/v1/games/{game_id}", headers=mallory).get_json()["you"]["seat"] == 0
    victim = bearer(sign_in(app, client, "victim@example.org"))
    assert client.get(f"/api/v1/games/{game_id}", headers=victim).get_json()["you"] == {"role": "seat", "seat": 1}


def test_a_second_game_naming_the_victim_hands_over_nothing(app, client):
    first = _create(client, {"name": "V", "email": "Victim@Example.org"}, {"name": "A"}, {"name": "B"})
    victim = bearer(sign_in(app, client, "Victim@example.org"))
    second = _create(client, {"name": "M"}, {"name": "V", "email": "victim@example.org"}, {"name": "B"})
    assert all(entry["seat"] != 1 for entry in second["tokens"]["seats"])
    for created, seat in ((first, 0), (second, 1)):
        you = client.get(f"/api/v1/games/{created['game']['id']}", headers=victim).get_json()["you"]
        assert you == {"role": "seat", "seat": seat}
    squatter = bearer(second["tokens"]["seats"][0]["token"])
    assert client.get(f"/api/v1/games/{first['game']['id']}", headers=squatter).status_code == 403


def test_one_address_holds_one_seat_of_a_game(client):
    response = client.post("/api/v1/games", json={**GAME, "seats": [
        {"name": "A", "email": "a@example.org"}, {"name": "B", "email": "A@example.org"}, {"name": "C"}]})
    assert response.status_code == 422 and response.get_json()["code"] == "duplicate_email"


def test_the_app_refuses_to_start_without_a_real_secret(redis_url, monkeypatch):
    monkeypatch.delenv("PALAZZO_SECRET", raising=False)
    with pytest.raises(RuntimeError, match="PALAZZO_SECRET"):
        create_app(Config.from_env().but(redis_url=redis_url))
    with pytest.raises(RuntimeError, match="PALAZZO_SECRET"):
        create_app(Config.from_env().but(redis_url=redis_url, secret_key="short"))
    monkeypatch.setenv("PALAZZO_SECRET", SECRET)
    assert create_app(Config.from_env().but(redis_url=redis_url)).config["SECRET_KEY"] == SECRET


def test_a_link_signed_with_another_secret_is_refused(app, client):
    _create(client, {"name": "V", "email": "v@example.org"}, {"name": "A"}, {"name": "B"})
    for secret in ("dev-only-secret-change-me", SECRET + "-other"):
        forged = URLSafeTimedSerializer(secret, salt="palazzo:sign-in").dumps(
            {"e": tokens.email_hash("v@example.org"), "n": "n1"})
        response = client.post("/api/v1/sign-in/redeem", json={"link": forged})
        assert response.status_code == 403 and response.get_json()["code"] == "bad_link"
    link_for_another_purpose = URLSafeTimedSerializer(SECRET, salt="palazzo:other").dumps(
        {"e": tokens.email_hash("v@example.org"), "n": "n2"})
    assert client.post("/api/v1/sign-in/redeem", json={"link": link_for_another_purpose}).status_code == 403


def test_mailed_links_use_the_configured_base_url_never_the_host_header(redis_url):
    app = make_app(redis_url, BASE_URL="https://palazzo.example")
    client = app.test_client()
    _create(client, {"name": "V", "email": "v@example.org"}, {"name": "A"}, {"name": "B"})
    client.post("/api/v1/sign-in", json={"email": "v@example.org"}, headers={"Host": "evil.example"})
    texts = [m["text"] for m in mailbox.outbox(app.extensions["palazzo.store"])]
    assert len(texts) == 2 and all("https://palazzo.example/sign-in?link=" in text for text in texts)
    assert not any("evil.example" in text for text in texts)


def test_a_sign_in_link_works_once(app, client):
    _create(client, {"name": "V", "email": "v@example.org"}, {"name": "A"}, {"name": "B"})
    link = mailed_link(app, "v@example.org")
    assert client.post("/api/v1/sign-in/redeem", json={"link": link}).status_code == 201
    again = client.post("/api/v1/sign-in/redeem", json={"link": link})
    assert again.status_code == 403 and again.get_json()["code"] == "link_used"


def test_the_link_page_signs_in_on_post_only(app, client):
    _create(client, {"name": "V", "email": "v@example.org"}, {"name": "A"}, {"name": "B"})
    link = mailed_link(app, "v@example.org")
    page = client.get(f"/sign-in?link={link}")
    assert page.status_code == 200 and b'method="post"' in page.data
    assert client.get(f"/sign-in?link={link}").status_code == 200  # a mail scanner's second look uses nothing
    csrf = page.get_data(as_text=True).split('name="csrf" value="')[1].split('"')[0]
    signed_in = client.post("/sign-in", data={"link": link, "csrf": csrf})
    assert signed_in.status_code == 303 and signed_in.headers["Cache-Control"] == "no-store"
    assert "HttpOnly" in signed_in.headers["Set-Cookie"]  # a session for the pages, no token shown
    assert client.post("/sign-in", data={"link": link, "csrf": csrf}).status_code == 403


def test_sign_in_mails_are_limited_per_address_silently(app, client):
    _create(client, {"name": "V", "email": "v@example.org"}, {"name": "A"}, {"name": "B"})
    store = app.extensions["palazzo.store"]
    before = len(mailbox.outbox(store))
    answers = [client.post("/api/v1/sign-in", json={"email": "v@example.org"}) for _ in range(10)]
    unknown = client.post("/api/v1/sign-in", json={"email": "nobody@example.org"})
    assert {(a.status_code, a.get_data()) for a in answers + [unknown]} == {(202, unknown.get_data())}
    assert len(mailbox.outbox(store)) - before == 3


def _made(keys: redis.Redis) -> int:
    """The keys in the store but the host's counters (a refusal adds to one of a fixed few)."""
    return sum(1 for key in keys.scan_iter() if not counters.is_counter(key.decode()))


def test_forged_tokens_share_their_senders_limit_and_make_no_keys(redis_url):
    app = make_app(redis_url, RATE_LIMIT="5 per minute")
    client = app.test_client()
    keys = redis.Redis.from_url(redis_url)
    before = _made(keys)
    statuses = [client.get("/api/v1/me/turns", headers=bearer(f"forged{n}.secret{n}")).status_code for n in range(20)]
    assert statuses == [401] * 5 + [429] * 15
    assert _made(keys) - before <= 1


def test_the_limit_is_a_moving_window_not_a_fixed_one(redis_url):
    """Requests straddling a window boundary: a fixed window lets both bursts through, this does not."""
    import time
    app = make_app(redis_url, RATE_LIMIT="4 per 2 second")
    client = app.test_client()
    while not 1.6 < time.time() % 2 < 1.8:
        time.sleep(0.02)
    first = [client.get("/api/v1/games/none").status_code for _ in range(4)]
    while time.time() % 2 > 1:
        time.sleep(0.02)
    second = [client.get("/api/v1/games/none").status_code for _ in range(4)]
    assert first == [404] * 4 and second == [429] * 4
    limited = client.get("/api/v1/games/none")
    assert limited.get_json()["code"] == "rate_limited" and 1 <= int(limited.headers["Retry-After"]) <= 2
