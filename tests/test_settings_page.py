"""The settings page `/settings`: the form works without JavaScript (Chromium with JS off), a bad value
shows why and changes nothing, an unsubscribed game is taken again by a button; with JS on, the
browser's time zone is preselected while the stored one is the default. The unsubscribe page says
what it stops and links here."""
from __future__ import annotations

from urllib.parse import unquote

import pytest

from service import preferences, tokens
from service.web import unsubscribe
from tests.browser import Served
from tests.conftest import mailed_link
from tests.web_client import csrf

pytest.importorskip("engine.pof")
ANN = "ann@example.org"


def _games(client, titles: list[str]) -> list[str]:
    made = []
    for title in titles:
        created = client.post("/api/v1/games", json={"game": "princes-of-florence", "seed": 3, "title": title,
                                                     "seats": [{"name": "Ann", "email": ANN}, {"name": "B"},
                                                               {"name": "C"}]}).get_json()
        made.append(created["game"]["id"])
    return made


def _signed_in(app, client) -> None:
    link = unquote(mailed_link(app, ANN))
    signed = client.post("/sign-in", data={"link": link, "csrf": csrf(client, f"/sign-in?link={link}")})
    assert signed.status_code == 303


def _stored(app) -> dict:
    return preferences.read(app.extensions["palazzo.store"], tokens.email_hash(ANN))


def test_the_form_refuses_a_bad_value_whole_and_takes_a_good_one(app, client):
    [game_id] = _games(client, ["Ann's table"])
    assert b"sign in" in client.get("/settings").data, "a stranger is asked to sign in first"
    _signed_in(app, client)
    assert b'href="/settings"' in client.get("/").data, "the home page links to the settings"
    form = {"csrf": csrf(client, "/settings"), "time_zone": "Europe/Rome", "mail": "all", "rhythm": "digest",
            "digest_hour": "7", "reminders": "50%, 80%, 1h", "quiet_from": "23:00", "quiet_to": "07:00",
            f"mail-{game_id}": "", f"rhythm-{game_id}": "each", f"reminders-{game_id}": "", f"talk-{game_id}": "digest"}
    for bad, words in (({"reminders": "50%, 150%"}, b"no reminder step"), ({"quiet_to": "23:00"}, b"whole day"),
                       ({"time_zone": "Mars/Olympus"}, b"not a known time zone")):
        refused = client.post("/settings", data={**form, **bad})
        assert refused.status_code == 422 and words in refused.data and b"nothing was changed" in refused.data
        assert _stored(app)["time_zone"] == "UTC" and _stored(app)["rhythm"] == "each"
    assert client.post("/settings", data={**form, "csrf": "forged"}).status_code == 403
    saved = client.post("/settings", data=form)
    assert saved.status_code == 303
    stored = _stored(app)
    assert (stored["time_zone"], stored["rhythm"], stored["digest_hour"], stored["reminders"], stored["quiet"]) == \
        ("Europe/Rome", "digest", 7, ["50%", "80%", "1h"], {"from": "23:00", "to": "07:00"})
    assert stored["games"] == {game_id: {"rhythm": "each"}}
    assert preferences.talk_choice(app.extensions["palazzo.store"], tokens.email_hash(ANN), game_id) == "digest"


def test_the_unsubscribe_page_says_what_it_stops_and_a_games_link_stops_that_game_only(app, client):
    first, second = _games(client, ["First table", "Second table"])
    store, links = app.extensions["palazzo.store"], app.extensions["palazzo.links"]
    url = unsubscribe.link(links, tokens.email_hash(ANN), game=first).removeprefix(links.base_url)
    page = client.get(url).get_data(as_text=True)
    assert "First table" in page and 'href="/settings"' in page
    done = client.post(url)
    assert done.status_code == 200 and "First table" in done.get_data(as_text=True)
    stored = preferences.read(store, tokens.email_hash(ANN))
    assert stored["mail"] == "all" and preferences.effective(stored, first)["mail"] == "none"
    assert preferences.effective(stored, second)["mail"] == "all"
    one_click = client.post(url, data={"List-Unsubscribe": "One-Click"})
    assert one_click.status_code == 200 and preferences.read(store, tokens.email_hash(ANN))["mail"] == "all", \
        "a decision mail's one-click stops that game's mail only"


def test_the_settings_page_in_chromium_without_javascript(app, client, chromium):
    kept, dropped = _games(client, ["Kept table", "Dropped table"])
    store = app.extensions["palazzo.store"]
    preferences.set_game(store, tokens.email_hash(ANN), dropped, mail="none")
    link = unquote(mailed_link(app, ANN))
    with Served(app) as served:
        context = chromium.new_context(java_script_enabled=False, timezone_id="Asia/Tokyo")
        page = context.new_page()
        page.goto(f"{served.base}/sign-in?link={link}")
        page.get_by_role("button", name="Sign in").click()
        page.goto(f"{served.base}/settings")
        assert page.locator("#time_zone").input_value() == "UTC", "without JS the stored zone is selected"
        page.select_option("#time_zone", "America/New_York")
        page.check("#rhythm-digest")
        page.fill("#quiet_from", "22:30")
        page.fill("#quiet_to", "06:45")
        page.fill("#reminders", "50%, 50%")
        page.get_by_role("button", name="Save").click()
        assert "Not saved, nothing was changed" in page.locator("[role=alert]").inner_text()
        assert "twice" in page.locator("[role=alert]").inner_text()
        assert _stored(app)["time_zone"] == "UTC" and _stored(app)["quiet"] is None
        page.fill("#reminders", "50%, 80%, 1h")
        page.select_option("#time_zone", "America/New_York")
        page.check("#rhythm-digest")
        page.fill("#quiet_from", "22:30")
        page.fill("#quiet_to", "06:45")
        page.get_by_role("button", name="Save").click()
        assert "saved" in page.locator("[role=status]").inner_text()
        stored = _stored(app)
        assert (stored["time_zone"], stored["rhythm"], stored["quiet"], stored["reminders"]) == \
            ("America/New_York", "digest", {"from": "22:30", "to": "06:45"}, ["50%", "80%", "1h"])
        assert page.locator("#time_zone").input_value() == "America/New_York"
        listed = page.locator(f".unsubscribed li[data-game='{dropped}']")
        assert "Dropped table" in listed.inner_text()
        assert not page.locator(f".unsubscribed li[data-game='{kept}']").count()
        listed.get_by_role("button", name="Subscribe again").click()
        assert not page.locator(".unsubscribed").count()
        assert preferences.effective(_stored(app), dropped)["mail"] == "all"
        context.close()


def test_with_javascript_the_browsers_zone_is_preselected_while_the_stored_one_is_the_default(app, client, chromium):
    _games(client, ["Zoned table"])
    link = unquote(mailed_link(app, ANN))
    with Served(app) as served:
        context = chromium.new_context(timezone_id="Asia/Tokyo")
        page = context.new_page()
        page.goto(f"{served.base}/sign-in?link={link}")
        page.get_by_role("button", name="Sign in").click()
        page.goto(f"{served.base}/settings")
        assert page.locator("#time_zone").input_value() == "Asia/Tokyo"
        assert _stored(app)["time_zone"] == "UTC", "chosen on the page, kept only when he saves"
        page.get_by_role("button", name="Save").click()
        assert _stored(app)["time_zone"] == "Asia/Tokyo"
        preferences.write(app.extensions["palazzo.store"], tokens.email_hash(ANN), {"time_zone": "Europe/Rome"})
        page.goto(f"{served.base}/settings")
        assert page.locator("#time_zone").input_value() == "Europe/Rome", "a zone he chose stays chosen"
        context.close()


def test_webhooks_are_added_shown_once_with_their_secret_refused_inside_and_removed(app, client):
    from service.channels import webhooks
    [game_id] = _games(client, ["Ann's table"])
    _signed_in(app, client)
    token = csrf(client, "/settings")
    refused = client.post("/settings/webhooks", data={"csrf": token, "url": "https://127.0.0.1/hook", "format": "json"})
    assert refused.status_code == 422 and b"loopback" in refused.data
    store = app.extensions["palazzo.store"]
    assert webhooks.of_owner(store, tokens.email_hash(ANN)) == []
    added = client.post("/settings/webhooks", data={"csrf": token, "url": "https://93.184.216.34/hook",
                                                   "game": game_id, "format": "discord", "events": ["game_over"]})
    [hook] = webhooks.of_owner(store, tokens.email_hash(ANN))
    assert added.status_code == 201 and hook.secret.encode() in added.data
    assert (hook.game, hook.format, hook.events) == (game_id, "discord", ("game_over",))
    page = client.get("/settings").data
    assert b"93.184.216.34/hook" in page and hook.secret.encode() not in page, "the secret is shown once"
    assert client.post("/settings/webhooks/remove", data={"csrf": "forged", "id": hook.id}).status_code == 403
    assert client.post("/settings/webhooks/remove", data={"csrf": token, "id": hook.id}).status_code == 303
    assert webhooks.of_owner(store, tokens.email_hash(ANN)) == []
