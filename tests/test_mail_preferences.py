"""A player's mail settings, and the unsubscribe link every mail carries (RFC 8058 one-click)."""
from __future__ import annotations

from service import preferences, tokens
from service.web import unsubscribe
from tests.conftest import bearer, new_game, sign_in


def test_a_player_sets_his_time_zone_and_mail_choice(app, client):
    game_id = new_game(client, emails=True)["game"]["id"]
    player = bearer(sign_in(app, client, "p0@example.org"))
    rest = {"rhythm": "each", "digest_hour": 18, "reminders": ["80%"], "quiet": None, "games": {}}
    assert client.get("/api/v1/me/settings", headers=player).get_json() == {"time_zone": "UTC", "mail": "all",
                                                                           "talk": {game_id: "each"}, **rest}
    changed = client.put("/api/v1/me/settings", headers=player, json={"time_zone": "Europe/Rome", "mail": "decisions"})
    assert changed.status_code == 200 and changed.get_json() == {"time_zone": "Europe/Rome", "mail": "decisions",
                                                                 "talk": {game_id: "each"}, **rest}
    talk = client.put("/api/v1/me/settings", headers=player, json={"talk": {game_id: "digest"}})
    assert talk.status_code == 200 and talk.get_json()["talk"] == {game_id: "digest"}
    stranger = client.put("/api/v1/me/settings", headers=player, json={"mail": "none", "talk": {"0" * 16: "none"}})
    assert stranger.status_code == 403 and stranger.get_json()["code"] == "not_a_seat"
    assert client.get("/api/v1/me/settings", headers=player).get_json()["mail"] == "decisions", "nothing changed"
    for bad in ({"time_zone": "Mars/Olympus"}, {"mail": "some"}, {"time_zone": "../../etc/passwd"},
                {"talk": {game_id: "sometimes"}}):
        refused = client.put("/api/v1/me/settings", headers=player, json=bad)
        assert refused.status_code == 422, bad
    assert client.get("/api/v1/me/settings", headers=player).get_json()["time_zone"] == "Europe/Rome"
    seat = new_game(client)["tokens"]["seats"][0]["token"]
    assert client.get("/api/v1/me/settings", headers=bearer(seat)).status_code == 401


def test_the_unsubscribe_link_asks_on_get_and_stops_mail_on_post(app, client):
    store, links = app.extensions["palazzo.store"], app.extensions["palazzo.links"]
    digest = tokens.email_hash("p1@example.org")
    url = unsubscribe.link(links, digest)
    path = url.removeprefix(links.base_url)
    page = client.get(path)
    assert page.status_code == 200 and b'method="post"' in page.data
    assert preferences.read(store, digest)["mail"] == "all", "opening the link changes nothing"
    one_click = client.post(path, data={"List-Unsubscribe": "One-Click"})
    assert one_click.status_code == 200 and preferences.read(store, digest)["mail"] == "none"
    other = tokens.email_hash("p2@example.org")
    forged = client.post(path.replace("t=", "t=x"), data={})
    assert forged.status_code == 403 and preferences.read(store, other)["mail"] == "all"


def test_a_bounce_stops_mail_to_the_address_and_the_host_sees_it(redis_url):
    from tests.conftest import make_app
    app = make_app(redis_url, MAIL_EVENTS_SECRET="hook-secret")
    client = app.test_client()
    created = client.post("/api/v1/games", json={"game": "toy-count", "seats": [
        {"name": "A", "email": "a@example.org"}, {"name": "B"}, {"name": "C"}]}).get_json()
    game_id, host = created["game"]["id"], bearer(created["tokens"]["host"])
    events = [{"email": "a@example.org", "event": "bounce", "reason": "550 no such user", "game": game_id,
               "kind": "your_turn"}, {"email": "b@example.org", "event": "delivered"}]
    assert client.post("/hooks/sendgrid/wrong", json=events).status_code == 404
    assert preferences.read(app.extensions["palazzo.store"], tokens.email_hash("a@example.org"))["bounced"] is None
    assert client.post("/hooks/sendgrid/hook-secret", json=events).status_code == 204
    seen_by_host = client.get(f"/api/v1/games/{game_id}", headers=host).get_json()
    assert seen_by_host["seats"][0]["bounced"].startswith("bounce: 550")
    assert seen_by_host["undelivered"][0]["to"] == "a@example.org"
    public = client.get(f"/api/v1/games/{game_id}").get_json()
    assert "undelivered" not in public and "bounced" not in public["seats"][0]
    assert preferences.read(app.extensions["palazzo.store"], tokens.email_hash("b@example.org"))["bounced"] is None
