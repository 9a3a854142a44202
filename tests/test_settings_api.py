"""GET/PUT /me/settings: the mail's rhythm, digest hour, reminder steps, quiet hours and each game's
own settings, all checked before anything is written."""
from __future__ import annotations

import pytest

from service import games, preferences, tokens
from tests.conftest import bearer, new_game, sign_in

P0 = "p0@example.org"


@pytest.fixture
def player(app, client):
    game_id = new_game(client, emails=True)["game"]["id"]
    return game_id, bearer(sign_in(app, client, P0))


def test_a_player_sets_his_rhythm_reminders_quiet_hours_and_a_games_own_mail(client, player):
    game_id, headers = player
    body = {"rhythm": "digest", "digest_hour": 7, "reminders": ["50%", "80%", "1h"],
            "quiet": {"from": "23:00", "to": "07:00"}, "games": {game_id: {"rhythm": "each", "mail": "none"}}}
    changed = client.put("/api/v1/me/settings", headers=headers, json=body)
    assert changed.status_code == 200, changed.get_json()
    assert {key: changed.get_json()[key] for key in body} == body
    assert client.get("/api/v1/me/settings", headers=headers).get_json() == changed.get_json()
    dropped = client.put("/api/v1/me/settings", headers=headers, json={"games": {game_id: {}}, "quiet": None})
    assert dropped.get_json()["games"] == {} and dropped.get_json()["quiet"] is None
    assert dropped.get_json()["reminders"] == ["50%", "80%", "1h"], "what a PUT leaves out stays"


@pytest.mark.parametrize("bad, code", [
    ({"reminders": ["100%"]}, "bad_reminders"), ({"reminders": ["0%"]}, "bad_reminders"),
    ({"reminders": ["50%", "50%"]}, "bad_reminders"), ({"reminders": ["1h", "60m"]}, "bad_reminders"),
    ({"reminders": ["1%", "2%", "3%", "4%", "5%", "6%"]}, "bad_reminders"), ({"reminders": ["soon"]}, "bad_reminders"),
    ({"quiet": {"from": "07:00", "to": "07:00"}}, "bad_quiet_hours"), ({"quiet": {"from": "25:00", "to": "07:00"}},
                                                                     "bad_quiet_hours"),
    ({"quiet": {"from": "7", "to": "8"}}, "bad_quiet_hours"), ({"digest_hour": 24}, "invalid_request"),
    ({"rhythm": "weekly"}, "invalid_request"), ({"time_zone": "Mars/Olympus"}, "invalid_request"),
    ({"games": {"0" * 16: {"mail": "none"}}}, "not_a_seat"), ({"games": {"GAME": {"reminders": ["120%"]}}},
                                                              "bad_reminders"),
])
def test_a_bad_setting_is_refused_whole_and_changes_nothing(app, client, player, bad, code):
    game_id, headers = player
    bad = {"mail": "none", "time_zone": "Europe/Rome", **{k: ({game_id: v["GAME"]} if k == "games" and "GAME" in v
                                                              else v) for k, v in bad.items()}}
    refused = client.put("/api/v1/me/settings", headers=headers, json=bad)
    assert refused.status_code == (403 if code == "not_a_seat" else 422) and refused.get_json()["code"] == code
    assert refused.get_json()["detail"] and refused.get_json()["errors"]
    stored = preferences.read(app.extensions["palazzo.store"], tokens.email_hash(P0))
    assert (stored["mail"], stored["time_zone"], stored["reminders"], stored["quiet"]) == ("all", "UTC", ["80%"], None)


def test_effective_settings_put_a_games_own_over_his_and_his_mail_none_over_all():
    settings = {**preferences.DEFAULTS, "rhythm": "digest", "games": {"g": {"rhythm": "each", "reminders": ["1h"]},
                                                                       "h": {"mail": "none"}}}
    assert preferences.effective(settings, "g")["rhythm"] == "each"
    assert preferences.effective(settings, "g")["reminders"] == ["1h"]
    assert preferences.effective(settings, "other")["rhythm"] == "digest"
    assert preferences.effective(settings, "h")["mail"] == "none" and preferences.unsubscribed(settings) == ["h"]
    stopped = {**settings, "mail": "none", "games": {"g": {"mail": "all"}}}
    assert preferences.effective(stopped, "g")["mail"] == "none", "unsubscribed from everything holds everywhere"


def test_a_change_of_quiet_hours_or_zone_reaches_every_seat_he_holds(app, client, player):
    """Written against part A's service.time_off.apply_quiet, which copies them into each seat entry."""
    game_id, headers = player
    store = app.extensions["palazzo.store"]
    changed = client.put("/api/v1/me/settings", headers=headers, json={"quiet": {"from": "23:00", "to": "07:00"}})
    assert changed.status_code == 200
    seat = games.load(store, game_id).meta["seats"][0]
    assert seat["quiet"] == {"zone": "UTC", "from": "23:00", "to": "07:00"}
    assert client.put("/api/v1/me/settings", headers=headers, json={"time_zone": "Europe/Rome"}).status_code == 200
    assert games.load(store, game_id).meta["seats"][0]["quiet"]["zone"] == "Europe/Rome"
    assert client.put("/api/v1/me/settings", headers=headers, json={"quiet": None}).status_code == 200
    assert "quiet" not in games.load(store, game_id).meta["seats"][0]
