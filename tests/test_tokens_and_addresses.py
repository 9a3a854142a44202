"""Tokens and sessions that end when unused and can be revoked, and a change of address proved from
both ends, end to end on a real redis-server (and a real `palazzo worker` where mail is sent).

Idle times are seconds here (PALAZZO_TOKEN_IDLE_DAYS as a fraction of a day) and the service's
clock is moved past them, never slept through."""
from __future__ import annotations

import re
from urllib.parse import unquote

import pytest

from service import addresses, counters, games, leaving, mailbox, sign_ins, tokens
from service.channels import webhooks
from service.mailed_links import answer_links
from tests.conftest import bearer, jobs_idle, mailed_link, make_app, sign_in, wait_for
from tests.web_client import csrf

ANN, BEA, NEW = "ann@example.org", "bea@example.org", "ann.new@example.org"
IDLE = 60  # seconds
DAYS = IDLE / 86400


@pytest.fixture
def idle_app(redis_url, moving_clock):
    return make_app(redis_url, TOKEN_IDLE_DAYS=DAYS, SESSION_IDLE_DAYS=DAYS)


def _game(client, *emails: str, start: bool = False) -> str:
    seats = [{"name": f"P{n}", "email": email} for n, email in enumerate(emails)]
    seats += [{"name": f"B{n}", "bot": "random"} for n in range(3 - len(seats))]
    created = client.post("/api/v1/games", json={"game": "toy-count", "seed": 7, "seats": seats})
    assert created.status_code == 201, created.get_json()
    game_id = created.get_json()["game"]["id"]
    if start:
        host = created.get_json()["tokens"]["host"]
        assert client.post(f"/api/v1/games/{game_id}/start", headers=bearer(host)).status_code == 200
    return game_id


def _browser_signed_in(app, to: str):
    browser = app.test_client()
    link = unquote(mailed_link(app, to))
    signed = browser.post("/sign-in", data={"link": link, "csrf": csrf(browser, f"/sign-in?link={link}")})
    assert signed.status_code == 303
    return browser


def _asked(app, client, to: str) -> None:
    assert client.post("/api/v1/sign-in", json={"email": to}).status_code == 202


def _token(app, client, to: str) -> str:
    """A fresh player token for `to`, by a sign-in link mailed on asking."""
    _asked(app, client, to)
    return sign_in(app, client, to)


def _browser(app, client, to: str):
    """A browser freshly signed in as `to`, by a sign-in link mailed on asking."""
    _asked(app, client, to)
    return _browser_signed_in(app, to)


def _keys(app) -> dict[str, object]:
    """Every key with its value (whatever its type), to compare before and after a refusal."""
    redis = app.extensions["palazzo.store"].redis
    return {key: redis.dump(key) for key in sorted(redis.keys("*")) if not key.startswith("pz:rate:") and not counters.is_counter(key)}


def test_an_unused_token_ends_with_token_expired_and_a_used_one_slides(idle_app, moving_clock):
    client = idle_app.test_client()
    _game(client, ANN)
    token = _token(idle_app, client, ANN)
    assert client.get("/api/v1/me/turns", headers=bearer(token)).status_code == 200
    for _ in range(3):  # each use within the idle time carries the token on
        moving_clock.advance(IDLE * 0.75)
        assert client.get("/api/v1/me/turns", headers=bearer(token)).status_code == 200
    moving_clock.advance(IDLE + 1)
    expired = client.get("/api/v1/me/turns", headers=bearer(token))
    assert expired.status_code == 401 and expired.get_json()["code"] == "token_expired"
    assert expired.headers["Content-Type"].startswith("application/problem+json")
    stored = idle_app.extensions["palazzo.store"].redis.ttl(f"pz:token:{token.split('.')[0]}")
    assert stored > sign_ins.KEPT - 10, "an ended token is kept a while, to say it ended"


def test_an_unused_session_shows_the_sign_in_page_and_a_used_one_stays(idle_app, moving_clock):
    client = idle_app.test_client()
    _game(client, ANN)
    browser = _browser(idle_app, client, ANN)
    assert browser.get("/settings").status_code == 200 and b'href="/settings"' in browser.get("/").data
    moving_clock.advance(IDLE * 0.75)
    assert b'href="/settings"' in browser.get("/").data, "used within the idle time: still signed in"
    moving_clock.advance(IDLE * 0.75)
    assert b'href="/settings"' in browser.get("/").data, "the last use slid its end"
    moving_clock.advance(IDLE + 1)
    ended = browser.get("/settings")
    assert ended.status_code == 401 and b"data-expired" in ended.data and b"Sign in to Palazzo" in ended.data
    again = browser.get("/")
    assert again.status_code == 200 and b'href="/settings"' not in again.data, "signed out, not stuck"


def test_a_player_lists_and_revokes_his_tokens_and_sessions_and_not_anothers(app, client):
    _game(client, ANN, BEA)
    first = sign_in(app, client, ANN)
    second = _token(app, client, ANN)
    beas = _token(app, client, BEA)
    browser = _browser(app, client, ANN)
    listed = client.get("/api/v1/me/tokens", headers=bearer(first))
    assert listed.status_code == 200
    mine = listed.get_json()["tokens"]
    assert sorted(entry["kind"] for entry in mine) == ["api", "api", "browser"]
    assert {entry["id"] for entry in mine if entry["kind"] == "api"} == {first.split(".")[0], second.split(".")[0]}
    assert all(entry["created"] and entry["last_used"] for entry in mine)
    assert first not in listed.get_data(as_text=True) and first.split(".")[1] not in listed.get_data(as_text=True)

    before = _keys(app)
    stranger = client.delete(f"/api/v1/me/tokens/{beas.split('.')[0]}", headers=bearer(first))
    assert stranger.status_code == 404 and stranger.get_json()["code"] == "token_not_found"
    assert client.delete("/api/v1/me/tokens/nothing", headers=bearer(first)).status_code == 404
    assert _keys(app) == before, "revoking another's token changes nothing"
    assert client.get("/api/v1/me/turns", headers=bearer(beas)).status_code == 200

    assert client.delete(f"/api/v1/me/tokens/{second.split('.')[0]}", headers=bearer(first)).status_code == 204
    revoked = client.get("/api/v1/me/turns", headers=bearer(second))
    assert revoked.status_code == 401 and revoked.get_json()["code"] == "bad_token"
    [session] = [entry["id"] for entry in mine if entry["kind"] == "browser"]
    assert b'href="/settings"' in browser.get("/").data
    assert client.delete(f"/api/v1/me/tokens/{session}", headers=bearer(first)).status_code == 204
    assert b'href="/settings"' not in browser.get("/").data, "the revoked session stops at once"
    assert [entry["id"] for entry in client.get("/api/v1/me/tokens", headers=bearer(first)).get_json()["tokens"]] \
        == [first.split(".")[0]]


def test_sign_out_everywhere_from_the_settings_page_ends_every_token_and_session(app, client):
    _game(client, ANN)
    token = _token(app, client, ANN)
    other = _browser(app, client, ANN)
    browser = _browser(app, client, ANN)
    page = browser.get("/settings").get_data(as_text=True)
    assert 'action="/settings/sign-out-everywhere"' in page and "api" in page
    assert browser.post("/settings/sign-out-everywhere", data={"csrf": "forged"}).status_code == 403
    assert client.get("/api/v1/me/turns", headers=bearer(token)).status_code == 200
    done = browser.post("/settings/sign-out-everywhere", data={"csrf": csrf(browser, "/settings")})
    assert done.status_code == 303
    assert client.get("/api/v1/me/turns", headers=bearer(token)).get_json()["code"] == "bad_token"
    for each in (browser, other):
        assert b'href="/settings"' not in each.get("/").data


def _links_to(app, to: str) -> list[str]:
    return [unquote(found) for message in mailbox.outbox(app.extensions["palazzo.store"]) if message["to"] == to
            for found in re.findall(r"/address\?t=(\S+)", message["text"])]


def test_a_change_of_address_proved_from_both_ends_moves_everything_and_the_old_one_plays_nothing(
        redis_url, workers):
    app = make_app(redis_url, JOBS="rq")
    workers(1)
    client = app.test_client()
    store = app.extensions["palazzo.store"]
    game_id = _game(client, ANN, start=True)
    wait_for(lambda: games.load(store, game_id).decision_of(0) is not None)
    mailed = answer_links(app.extensions["palazzo.links"], games.load(store, game_id), 0)
    leave = leaving.leave_url(app.extensions["palazzo.links"], games.load(store, game_id), 0)
    _asked(app, client, ANN)
    wait_for(lambda: any(m["to"] == ANN for m in mailbox.outbox(store)))
    token = sign_in(app, client, ANN)
    old_hash, new_hash = tokens.email_hash(ANN), tokens.email_hash(NEW)
    assert client.put("/api/v1/me/settings", headers=bearer(token), json={"time_zone": "Europe/Rome"}).status_code == 200
    hook = webhooks.register(store, old_hash, "https://hooks.example.org/x", None, ["your_turn"], "json",
                             "2026-12-03T00:00:00Z")  # as POST /me/webhooks registers it, past its target's check
    seat_link_before = games.load(store, game_id).meta["seats"][0]

    asked = client.post("/api/v1/me/address", headers=bearer(token), json={"email": NEW})
    assert asked.status_code == 202 and asked.get_json() == {"status": "accepted"}
    wait_for(lambda: _links_to(app, NEW) and _links_to(app, ANN))
    [to_new], [to_old] = _links_to(app, NEW), _links_to(app, ANN)
    assert games.load(store, game_id).meta["seats"][0]["email"] == ANN, "nothing moves before both are proved"
    page = client.get(f"/address?t={to_new}")
    assert page.status_code == 200 and b"<form" in page.data, "a mail scanner's GET changes nothing"
    assert client.post("/api/v1/address/confirm", json={"link": to_new}).get_json() == {"status": "waiting"}
    again = client.post("/api/v1/address/confirm", json={"link": to_new})
    assert again.status_code == 403 and again.get_json()["code"] == "link_used"
    assert games.load(store, game_id).meta["seats"][0]["email"] == ANN
    done = client.post("/address", data={"t": to_old})
    assert done.status_code == 200 and b"changed" in done.data

    seat = games.load(store, game_id).meta["seats"][0]
    assert (seat["email"], seat["email_hash"]) == (NEW, new_hash)
    assert seat.get("holder", 0) == seat_link_before.get("holder", 0), "the same player: no hand-over"
    assert client.get("/api/v1/me/settings", headers=bearer(token)).get_json()["time_zone"] == "Europe/Rome"
    assert [entry["game_id"] for entry in client.get("/api/v1/me/games", headers=bearer(token)).get_json()["games"]] \
        == [game_id], "the token followed its owner, and the seat its player"
    assert [h["id"] for h in client.get("/api/v1/me/webhooks", headers=bearer(token)).get_json()["webhooks"]] \
        == [hook.id]
    assert webhooks.get(store, hook.id).owner == new_hash
    base = app.extensions["palazzo.links"].base_url
    for old_link in (mailed["one_click"][0]["url"], mailed["seat"], leave):
        refused = client.get(old_link.removeprefix(base))
        assert refused.status_code == 403, (old_link, refused.status_code)
    fresh = answer_links(app.extensions["palazzo.links"], games.load(store, game_id), 0)
    assert client.get(fresh["one_click"][0]["url"].removeprefix(base)).status_code == 200, "the new address's work"
    assert not store.redis.exists(f"pz:email:{old_hash}:known"), "the old address is not known here any more"
    assert games.seats_held(store, old_hash) == {}
    assert sign_ins.listed(store, old_hash, sign_ins.Idle(3600), sign_ins.Idle(3600)) == []

    sent = len(mailbox.outbox(store))
    _asked(app, client, ANN)
    _asked(app, client, NEW)
    wait_for(lambda: jobs_idle(store.followups.queue.connection) and len(mailbox.outbox(store)) > sent)
    wait_for(lambda: jobs_idle(store.followups.queue.connection))
    after = [m["to"] for m in mailbox.outbox(store)[sent:]]
    assert after == [NEW], "a sign-in goes to the new address, none to the old"


def test_a_change_to_an_address_another_player_holds_or_a_bad_one_is_refused_and_changes_nothing(app, client):
    _game(client, ANN, BEA)
    token = _token(app, client, ANN)
    before = _keys(app)
    taken = client.post("/api/v1/me/address", headers=bearer(token), json={"email": BEA.upper()})
    assert taken.status_code == 409 and taken.get_json()["code"] == "address_taken"
    bad = client.post("/api/v1/me/address", headers=bearer(token), json={"email": "not an address"})
    assert bad.status_code == 422 and bad.get_json()["code"] == "invalid_request"
    same = client.post("/api/v1/me/address", headers=bearer(token), json={"email": ANN})
    assert same.status_code == 422 and same.get_json()["code"] == "address_unchanged"
    anonymous = client.post("/api/v1/me/address", json={"email": NEW})
    assert anonymous.status_code == 401
    forged = client.post("/api/v1/address/confirm", json={"link": "forged.link"})
    assert forged.status_code == 403 and forged.get_json()["code"] == "bad_link"
    assert _keys(app) == before, "a refused change keeps and mails nothing"


def test_an_address_taken_between_the_ask_and_the_confirmation_moves_nothing(app, client):
    game_id = _game(client, ANN)
    token = _token(app, client, ANN)
    assert client.post("/api/v1/me/address", headers=bearer(token), json={"email": NEW}).status_code == 202
    [to_new], [to_old] = _links_to(app, NEW), _links_to(app, ANN)
    _game(client, NEW)  # someone seats the new address meanwhile
    assert client.post("/api/v1/address/confirm", json={"link": to_new}).get_json() == {"status": "waiting"}
    late = client.post("/api/v1/address/confirm", json={"link": to_old})
    assert late.status_code == 409 and late.get_json()["code"] == "address_taken"
    for _ in range(2):
        assert client.post("/api/v1/me/address", headers=bearer(token), json={"email": "x@example.org"}).status_code == 202
    limited = client.post("/api/v1/me/address", headers=bearer(token), json={"email": "y@example.org"})
    assert limited.status_code == 429 and limited.get_json()["code"] == "rate_limited", "no relay of mail"
    store = app.extensions["palazzo.store"]
    assert games.load(store, game_id).meta["seats"][0]["email"] == ANN
    assert client.get("/api/v1/me/turns", headers=bearer(token)).status_code == 200


def test_after_a_change_of_address_a_reply_from_the_old_one_plays_nothing_and_one_from_the_new_plays(
        redis_url, monkeypatch):
    """The reply address is the seat's and its holder's, so it stays the same; who may use it follows
    the seat's address."""
    from service.inbound import address
    from tests.test_inbound import DOMAIN, inline_game, parse_fields, post_inline
    app, game_id, reply_to, _ = inline_game(redis_url, monkeypatch)
    store, links = app.extensions["palazzo.store"], app.extensions["palazzo.links"]
    addresses.move(store, tokens.email_hash(ANN), NEW)
    command = address.reply_for(links, games.load(store, game_id), 0, DOMAIN)["commands"][0][0]
    assert address.address(links, game_id, 0, games.load(store, game_id).holder(0), DOMAIN) == reply_to
    assert post_inline(app, parse_fields(ANN, reply_to, command))["status"] == "refused"
    assert not [entry for entry in store.log(game_id) if entry["seat"] == 0]
    assert post_inline(app, parse_fields(NEW, reply_to, command))["status"] == "applied"
    assert [entry for entry in store.log(game_id) if entry["seat"] == 0]


def test_the_settings_page_lists_revokes_and_asks_for_a_change_of_address_without_javascript(app, client):
    _game(client, ANN, BEA)
    beas = _token(app, client, BEA)
    token = _token(app, client, ANN)
    browser = _browser(app, client, ANN)
    page = browser.get("/settings").get_data(as_text=True)
    assert page.count("data-token=") == 2 and f'data-token="{token.split(".")[0]}"' in page
    form = csrf(browser, "/settings")
    before = _keys(app)
    assert browser.post("/settings/tokens/revoke", data={"csrf": form, "id": beas.split(".")[0]}).status_code == 303
    taken = browser.post("/settings/address", data={"csrf": form, "email": BEA})
    assert taken.status_code == 409 and "another player plays from that address" in taken.get_data(as_text=True)
    malformed = browser.post("/settings/address", data={"csrf": form, "email": "ann at home"})
    assert malformed.status_code == 422
    assert {key: value for key, value in _keys(app).items() if ":web:session:" not in key} == \
        {key: value for key, value in before.items() if ":web:session:" not in key}, "refusals change nothing"
    assert client.get("/api/v1/me/turns", headers=bearer(beas)).status_code == 200, "another's token lives on"
    assert browser.post("/settings/tokens/revoke", data={"csrf": form, "id": token.split(".")[0]}).status_code == 303
    assert client.get("/api/v1/me/turns", headers=bearer(token)).get_json()["code"] == "bad_token"
    asked = browser.post("/settings/address", data={"csrf": form, "email": NEW})
    assert asked.status_code == 303 and _links_to(app, NEW) and _links_to(app, ANN)


def test_a_change_a_crash_cut_short_is_finished_by_opening_a_link_again(app, client, monkeypatch):
    game_id = _game(client, ANN)
    token = _token(app, client, ANN)
    assert client.post("/api/v1/me/address", headers=bearer(token), json={"email": NEW}).status_code == 202
    [to_new], [to_old] = _links_to(app, NEW), _links_to(app, ANN)
    store, links = app.extensions["palazzo.store"], app.extensions["palazzo.links"]
    assert addresses.confirm(store, links, to_new) == "waiting"
    moving = addresses._move_in_game

    def crash(*args) -> None:
        raise ConnectionError("the worker died here")
    monkeypatch.setattr(addresses, "_move_in_game", crash)
    with pytest.raises(ConnectionError):
        addresses.confirm(store, links, to_old)
    assert games.load(store, game_id).meta["seats"][0]["email"] == ANN, "cut short before the game moved"
    monkeypatch.setattr(addresses, "_move_in_game", moving)
    assert addresses.confirm(store, links, to_new) == "changed", "either link finishes it"
    assert games.load(store, game_id).meta["seats"][0]["email"] == NEW
    assert client.get("/api/v1/me/games", headers=bearer(token)).get_json()["total"] == 1
    again = client.post("/api/v1/address/confirm", json={"link": to_old})
    assert again.status_code == 403 and again.get_json()["code"] == "link_used"


def test_in_chromium_without_javascript_a_player_moves_address_and_signs_out_everywhere(app, client, chromium):
    from tests.browser import Served
    _game(client, ANN, BEA)
    token = _token(app, client, ANN)
    _asked(app, client, ANN)
    link = unquote(mailed_link(app, ANN))
    with Served(app) as served:
        context = chromium.new_context(java_script_enabled=False)
        page = context.new_page()
        page.goto(f"{served.base}/sign-in?link={link}")
        page.get_by_role("button", name="Sign in").click()
        page.goto(f"{served.base}/settings")
        assert sorted(page.locator(".signed-in li").all_inner_texts()[n].split(" ·")[0]
                      for n in range(2)) == ["a browser", "a program (api)"]
        page.fill("#new-address", BEA)
        page.get_by_role("button", name="Change my address").click()
        assert "another player plays from that address" in page.locator(".address [role=alert]").inner_text()
        page.fill("#new-address", NEW)
        page.get_by_role("button", name="Change my address").click()
        assert "open both" in page.locator("[role=status]").inner_text()
        for each in (_links_to(app, ANN)[0], _links_to(app, NEW)[0]):
            page.goto(f"{served.base}/address?t={each}")
            page.get_by_role("button", name="Confirm").click()
        assert "Your address is changed" in page.locator("[role=status]").inner_text()
        page.goto(f"{served.base}/settings")
        assert page.locator("#new-address").count(), "this browser's session followed the player to his new address"
        page.get_by_role("button", name="Sign out everywhere").click()
        page.goto(f"{served.base}/settings")
        assert not page.locator("#new-address").count()
        context.close()
    assert client.get("/api/v1/me/turns", headers=bearer(token)).get_json()["code"] == "bad_token"
