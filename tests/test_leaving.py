"""Leaving and substitutes, on a real redis-server: a player leaves by the API, his seat page or a `leave`
reply, each only once he confirms; from then on nothing of his (seat token, player token, browser
session, seat link, one-click link, reply address) acts for the seat or shows its hidden part. The
host removes a player at once with a reason the table reads; a substitute gets a fresh deadline. The
stand-in at the deadlines, removal after missed decisions and the welcome mail run on a real worker."""
from __future__ import annotations

import json
from urllib.parse import unquote

import pytest

from engine.pof.data import ECONOMY
from engine.pof.words import name
from service import deadlines, games, tokens
from service.games import STAND_IN
from service.inbound import address, inbox
from service.store import dumps, game_key
from service.mailed_links import answer_links
from tests.conftest import bearer, leaks, make_app, new_game, seat_tokens, wait_for
from tests.mail_games import mails, start
from tests.test_inbound import SECRET, multipart, parse_fields
from tests.web_client import csrf, enter_seat, path

ANN, DEE = "ann@example.org", "dee@example.org"
SEATS = [{"name": "Ann", "email": ANN}, {"name": "Bob"}, {"name": "Cy", "bot": "random"}]
DOMAIN = "127.0.0.1"  # the reply addresses' domain: the host of PALAZZO_BASE_URL


@pytest.fixture
def app(redis_url):
    """The app without workers, taking replies by mail too (played inside the request)."""
    return make_app(redis_url, INBOUND_SECRET=SECRET)


def _store(app):
    return app.extensions["palazzo.store"]


def _table(app, game_id: str) -> games.Table:
    return games.load(_store(app), game_id)


def _events(client, game_id: str, kind: str) -> list[dict]:
    feed = client.get(f"/api/v1/games/{game_id}/events?limit=500").get_json()
    return [entry["event"] for entry in feed["events"] if entry["event"]["type"] == kind]


def _redeem_invitation(client, to: str) -> dict[str, str]:
    """The player token of `to`, from the sign-in link of the invitation mailed to him."""
    [invitation] = mails(client.application, to, ("invitation",))
    link = unquote(invitation["text"].split("link=")[1].split()[0])
    redeemed = client.post("/api/v1/sign-in/redeem", json={"link": link})
    assert redeemed.status_code == 201, redeemed.get_json()
    return bearer(redeemed.get_json()["token"])


def _post_reply(client, fields: dict) -> dict:
    answered = client.post(f"/inbound/sendgrid/{SECRET}", data=multipart(fields),
                           content_type="multipart/form-data; boundary=xYzZY")
    assert answered.status_code == 200, answered.get_data(as_text=True)
    return answered.get_json()


def _leave(client, game_id: str, headers: dict, body: dict | None = None):
    return client.post(f"/api/v1/games/{game_id}/leave", headers=headers, json={} if body is None else body)


@pytest.fixture
def table_of_three(app, client):
    """A running game: Ann (an address, her player token), Bob (no address: his seat token), a bot."""
    created = start(client, SEATS)
    game_id = created["game"]["id"]
    return game_id, bearer(created["tokens"]["host"]), _redeem_invitation(client, ANN), \
        bearer(seat_tokens(created)[1])


def test_leaving_by_the_api_needs_its_confirmation_and_then_nothing_of_the_player_acts_for_the_seat(
        app, client, table_of_three):
    game_id, host, ann, bob = table_of_three
    links = app.extensions["palazzo.links"]
    before = _table(app, game_id)
    mailed = answer_links(links, before, 0)
    reply_to = address.address(links, game_id, 0, before.holder(0), DOMAIN)
    browser = app.test_client()
    enter_seat(app, browser, game_id, 0)
    assert browser.get(f"/games/{game_id}").status_code == 200

    for body in ({}, {"confirm": False}):
        refused = _leave(client, game_id, ann, body)
        assert refused.status_code == 422 and refused.get_json()["code"] == "confirm_required"
    assert _leave(client, game_id, ann, {"confirm": "yes"}).status_code == 422
    assert _table(app, game_id).rev == before.rev, "without the confirmation nothing changed"

    left = _leave(client, game_id, ann, {"confirm": True})
    assert left.status_code == 200, left.get_json()
    answer = left.get_json()
    assert answer["seat"] == 0 and answer["game"]["you"] == {"role": "spectator", "seat": None}
    assert not leaks(answer, None)
    seat = answer["game"]["seats"][0]
    assert seat["open"] and seat["standin"] == STAND_IN and seat["left"]["why"] == "left"
    assert _events(client, game_id, "seat_left") == [
        {"type": "seat_left", "seat": 0, "name": "Ann", "why": "left", "reason": None}]
    [told] = mails(app, ANN, ("seat_left",))
    assert "You have left “Ann's game”" in told["text"] and "/watch" in told["text"]

    after = _table(app, game_id)
    assert after.holder(0) == before.holder(0) + 1 and not after.meta["seats"][0].get("email")
    assert games.seats_held(_store(app), tokens.email_hash(ANN)) == {}, "her address is out of the seat's index"
    # her player token: no seat here any more, and the game shows her nothing hidden
    assert client.get(f"/api/v1/games/{game_id}/moves", headers=ann).get_json()["code"] == "not_a_seat"
    shown = client.get(f"/api/v1/games/{game_id}", headers=ann).get_json()
    assert shown["you"]["role"] == "spectator" and not leaks(shown, None)
    assert client.get("/api/v1/me/turns", headers=ann).get_json()["turns"] == []
    # her browser's session, her seat link and her one-click link
    assert browser.get(f"/games/{game_id}").status_code == 303
    assert browser.post(f"/games/{game_id}/play", data={"csrf": csrf(browser, "/"), "type": "keep_professions",
                                                       "version": "2"}).status_code == 403
    [dealt] = [d["private"]["dealt"] for d in before.game.view(before.state, 0)["pending"] if d["seat"] == 0]
    hidden = [f"{ECONOMY['start_cash']:,}".encode()] + [name(card).encode() for card in dealt]
    token = unquote(mailed["one_click"][0]["url"].split("t=")[1])
    for page in (client.get(path(mailed["seat"])), client.get(path(mailed["one_click"][0]["url"])),
                 client.post("/act", data={"t": token})):
        assert page.status_code == 403 and not [secret for secret in hidden if secret in page.data]
    # her reply address: the mail is refused unanswered, and nothing is played
    sent = len(mails(app, ANN))
    assert _post_reply(client, parse_fields(ANN, reply_to, "help"))["status"] == "refused"
    assert _table(app, game_id).rev == after.rev and len(mails(app, ANN)) == sent
    # leaving twice
    assert _leave(client, game_id, ann, {"confirm": True}).get_json()["code"] == "not_a_seat"

    # Bob leaves with his seat token, which dies with it
    assert _leave(client, game_id, bob, {"confirm": True}).status_code == 200
    again = _leave(client, game_id, bob, {"confirm": True})
    assert again.status_code == 401 and again.get_json()["code"] == "bad_token"
    assert _table(app, game_id).meta["seats"][1]["open"]


def test_a_leave_reply_is_answered_with_a_confirmation_and_leave_confirm_or_its_link_leaves(app, client):
    created = start(client, [{"name": "Ann", "email": ANN}, {"name": "Dee", "email": DEE},
                             {"name": "Cy", "bot": "random"}])
    game_id = created["game"]["id"]
    links = app.extensions["palazzo.links"]

    def reply(sender: str, seat: int, text: str, message_id: str | None = None) -> str:
        to = address.address(links, game_id, seat, 0, DOMAIN)
        return _post_reply(client, parse_fields(sender, to, text, message_id=message_id))["status"]

    version = _table(app, game_id).version
    assert reply(ANN, 0, "I want to leave the game\n\nThanks, Ann") == "leave_asked"
    [asked] = mails(app, ANN, ("reply_leave",))
    assert "leave confirm" in asked["text"] and "/leave?t=" in asked["text"] and "Nothing has changed" in asked["text"]
    assert reply(ANN, 0, "keep painter sculptor architect\nleave") == "refused"
    assert "a reply of its own" in mails(app, ANN, ("reply_refused",))[-1]["text"]
    assert reply(ANN, 0, "leave tomorrow") == "refused"
    assert _table(app, game_id).version == version, "neither asking nor a refusal changed anything"

    # the link in the answer: opening it asks, its button leaves; a second press does nothing
    url = path(asked["text"].split("open this page and press its button:")[1].split()[0])
    page = client.get(url)
    assert page.status_code == 200 and b"Leave the game for good" in page.data
    assert _table(app, game_id).version == version
    signed = page.get_data(as_text=True).split('name="t" value="')[1].split('"')[0]
    assert client.post("/leave", data={"t": signed}).status_code == 422, "the button sends its confirmation"
    assert client.post("/leave", data={"t": signed + "x", "confirm": "yes"}).status_code == 403
    done = client.post("/leave", data={"t": signed, "confirm": "yes"})
    assert done.status_code == 200 and b"You have left" in done.data
    assert _table(app, game_id).meta["seats"][0]["open"]
    assert client.post("/leave", data={"t": signed, "confirm": "yes"}).status_code == 403
    assert client.get(url).status_code == 403
    assert reply(ANN, 0, "help") == "refused", "her reply address names an earlier holder now"

    # Dee leaves by replying 'leave confirm': the mail saying so answers her reply
    assert reply(DEE, 1, "Leave confirm", "<dee-1@example.org>") == "left"
    [gone] = mails(app, DEE, ("seat_left",))
    assert gone["headers"]["In-Reply-To"] == "<dee-1@example.org>" and "as you asked" in gone["text"]
    assert gone["headers"]["Auto-Submitted"] == "auto-replied"
    assert [e["name"] for e in _events(client, game_id, "seat_left")] == ["Ann", "Dee"]
    notes = [n["status"] for n in inbox.noted(_store(app).redis, game_id)]
    assert notes == ["leave_asked", "refused", "refused", "refused", "left"]


def test_leaving_from_the_seat_page_asks_first(app, client):
    created = new_game(client, game="princes-of-florence", bots={1: "random", 2: "greedy"})
    game_id = created["game"]["id"]
    enter_seat(app, client, game_id, 0)
    seat_page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert f'href="/games/{game_id}/leave"' in seat_page
    confirm = client.get(f"/games/{game_id}/leave")
    assert confirm.status_code == 200 and b"Leave the game for good" in confirm.data
    version = _table(app, game_id).version
    token = csrf(client, f"/games/{game_id}/leave")
    assert client.post(f"/games/{game_id}/leave", data={"csrf": token}).status_code == 422
    assert client.post(f"/games/{game_id}/leave", data={"confirm": "yes"}).status_code == 403, "CSRF"
    assert _table(app, game_id).version == version
    left = client.post(f"/games/{game_id}/leave", data={"csrf": token, "confirm": "yes"})
    assert left.status_code == 303 and left.headers["Location"].endswith("/")
    assert b"You have left game" in client.get("/").data
    assert client.get(f"/games/{game_id}").status_code == 303, "the session holds the seat no more"
    assert client.get(f"/games/{game_id}/leave").status_code == 403
    watch = client.get(f"/games/{game_id}/watch").get_data(as_text=True)
    assert "P0 (left)" in watch and "P0 left the game. A stand-in plays seat 1" in watch


def test_the_host_removes_a_player_with_a_reason_the_table_reads(app, client, table_of_three):
    game_id, host, ann, bob = table_of_three
    before = _table(app, game_id)
    for seat, body, status, code in [(0, {}, 422, "reason_required"), (0, {"reason": "  "}, 422, "reason_required"),
                                     (7, {"reason": "x"}, 404, "seat_not_found"),
                                     (2, {"reason": "x"}, 409, "seat_is_bot"),
                                     (0, {"reason": "x\x07"}, 422, "invalid_request")]:
        refused = client.post(f"/api/v1/games/{game_id}/seats/{seat}/remove", headers=host, json=body)
        assert (refused.status_code, refused.get_json()["code"]) == (status, code), refused.get_json()
    assert client.post(f"/api/v1/games/{game_id}/seats/0/remove", headers=ann,
                       json={"reason": "x"}).get_json()["code"] == "host_only"
    assert _table(app, game_id).rev == before.rev

    removed = client.post(f"/api/v1/games/{game_id}/seats/0/remove", headers=host,
                          json={"reason": "No moves for a week."})
    assert removed.status_code == 200 and removed.get_json()["game"]["seats"][0]["left"]["reason"] == \
        "No moves for a week."
    assert client.post(f"/api/v1/games/{game_id}/seats/0/remove", headers=host,
                       json={"reason": "again"}).get_json()["code"] == "seat_open"
    [told] = mails(app, ANN, ("seat_left",))
    assert "The host's reason: No moves for a week." in told["text"]
    assert "No moves for a week" in client.get(f"/games/{game_id}/watch").get_data(as_text=True)
    assert client.get(f"/api/v1/games/{game_id}/moves", headers=ann).get_json()["code"] == "not_a_seat"

    # from the host page, the same
    from tests.web_client import enter_host
    enter_host(app, client, game_id)
    page = client.get(f"/games/{game_id}/host").get_data(as_text=True)
    assert f'action="/games/{game_id}/host/seats/1/remove"' in page
    assert f'action="/games/{game_id}/host/seats/0/remove"' not in page, "an open seat has nobody to remove"
    token = csrf(client, f"/games/{game_id}/host")
    assert client.post(f"/games/{game_id}/host/seats/1/remove", data={"csrf": token}).status_code == 422
    done = client.post(f"/games/{game_id}/host/seats/1/remove", data={"csrf": token, "reason": "Gone quiet."})
    assert done.status_code == 303
    assert "The host removed Bob: Gone quiet" in client.get(f"/games/{game_id}/watch").get_data(as_text=True)
    assert client.get(f"/api/v1/games/{game_id}", headers=bob).status_code == 401

    assert client.post(f"/api/v1/games/{game_id}/cancel", headers=host).status_code == 200
    assert client.post(f"/api/v1/games/{game_id}/seats/1/remove", headers=host,
                       json={"reason": "x"}).get_json()["code"] == "game_cancelled"


def test_a_finished_game_cannot_be_left(app, client):
    created = new_game(client, options={"turns": 1})
    game_id = created["game"]["id"]
    tokens = seat_tokens(created)
    for seat in range(3):
        version = client.get(f"/api/v1/games/{game_id}").get_json()["version"]
        client.post(f"/api/v1/games/{game_id}/moves", headers=bearer(tokens[seat]),
                    json={"move": {"type": "pick", "value": 1}, "version": version})
    for _ in range(20):
        game = client.get(f"/api/v1/games/{game_id}").get_json()
        if game["status"] == "finished":
            break
        seat = game["pending"][0]["seat"]
        client.post(f"/api/v1/games/{game_id}/moves", headers=bearer(tokens[seat]),
                    json={"move": {"type": "add", "amount": 1}, "version": game["version"]})
    refused = _leave(client, game_id, bearer(tokens[0]), {"confirm": True})
    assert (refused.status_code, refused.get_json()["code"]) == (409, "game_finished")


def test_remove_after_counts_the_timeouts_the_stand_in_answers_too(app, client):
    """`missed_turns` 1 puts the stand-in in after one timeout; `remove_after` 2 still removes the player
    at the second, which the stand-in answered (as the worker's wake job plays and checks them)."""
    from service import leaving, playing
    created = new_game(client, missed_turns=1, remove_after=2)
    game_id = created["game"]["id"]
    store, links = _store(app), app.extensions["palazzo.links"]
    for missed in (1, 2):
        table, moved = playing.default_on(store, _table(app, game_id), 0, force=True)
        assert moved and table.meta["seats"][0]["missed"] == missed and table.meta["seats"][0]["standin"]
        table = leaving.after_timeout(store, links, table, 0)
        assert games.seat_is_open(table.meta["seats"][0]) == (missed == 2)
        while table.decision_of(0) is None:  # the others' turns, by their own tokens
            seat = table.pending[0]["seat"]
            client.post(f"/api/v1/games/{game_id}/moves", headers=bearer(seat_tokens(created)[seat]),
                        json={"move": table.game.legal_moves(table.state, seat)[0], "version": table.version})
            table = _table(app, game_id)
    assert [e["why"] for e in _events(client, game_id, "seat_left")] == ["missed"]
    assert [bool(e.get("bot")) for e in _store(app).log(game_id) if e["seat"] == 0] == [False, True]


def _due_in(app, game_id: str, seat: int, seconds: int) -> None:
    """Make the seat's decision due in `seconds`, as if most of its time had passed."""
    store = _store(app)
    table = _table(app, game_id)
    soon = deadlines.stamp(deadlines.now() + deadlines.timedelta(seconds=seconds))
    pending = [{**d, "deadline_at": soon} if d["seat"] == seat else d for d in table.pending]
    store.redis.hset(game_key(game_id, "game"), "pending", dumps(pending))


def test_a_substitute_gets_a_fresh_deadline_for_the_decision_he_takes_over(app, client, table_of_three):
    game_id, host, ann, bob = table_of_three
    _due_in(app, game_id, 0, 60)
    assert _leave(client, game_id, ann, {"confirm": True}).status_code == 200
    assert _table(app, game_id).decision_of(0)["deadline_at"] <= deadlines.stamp(deadlines.now()
                                                                                  + deadlines.timedelta(seconds=60))
    since = _table(app, game_id).decision_of(0)["since"]
    handed = client.put(f"/api/v1/games/{game_id}/seats/0", headers=host, json={"name": "Dee", "email": DEE})
    assert handed.status_code == 200
    taken = _table(app, game_id)
    decision = taken.decision_of(0)
    day = deadlines.timedelta(seconds=deadlines.duration(decision, taken.meta["deadlines"]))
    assert deadlines.parse(decision["deadline_at"]) >= deadlines.now() + day - deadlines.timedelta(seconds=2)
    assert decision["since"] == since and not taken.meta["seats"][0].get("standin")
    assert not taken.meta["seats"][0].get("open") and taken.meta["seats"][0]["joined"]["after"] == "Ann"
    dee = _redeem_invitation(client, DEE)
    listed = client.get(f"/api/v1/games/{game_id}/moves", headers=dee).get_json()
    assert listed["seat"] == 0 and listed["moves"], "the seat's whole private part is his: its dealt cards"
    mine = client.get(f"/api/v1/games/{game_id}", headers=dee).get_json()
    assert "private" in mine["view"]["players"][0] and not leaks(mine, 0)

    # in a paused game the fresh deadline counts from the resume
    assert client.post(f"/api/v1/games/{game_id}/pause", headers=host, json={"hours": 1}).status_code == 200
    _due_in(app, game_id, 1, 60)
    assert client.put(f"/api/v1/games/{game_id}/seats/1", headers=host, json={"name": "Eve"}).status_code == 200
    assert client.post(f"/api/v1/games/{game_id}/resume", headers=host).status_code == 200
    resumed = _table(app, game_id).decision_of(1)
    assert deadlines.parse(resumed["deadline_at"]) >= deadlines.now() + day - deadlines.timedelta(seconds=2)


def test_the_stand_in_plays_an_open_seat_at_its_deadlines_and_a_substitute_is_welcomed(redis_url, workers):
    """On a real worker: Ann misses one decision and loses her seat (`remove_after` 1); Bea's seat, which
    the host empties at once, is played by the stand-in at its deadline; Dee, invited into it, is welcomed
    by mail with where the game stands and plays on."""
    app = make_app(redis_url, JOBS="rq", MIN_DEADLINE=1, BOT_DELAY=0)
    client = app.test_client()
    quick = {"setup": 1, "auction": 3600, "turn": 3600, "choice": 3600}
    missed = start(client, [{"name": "Ann", "email": ANN}, {"name": "Bo", "bot": "random"},
                            {"name": "Cy", "bot": "greedy"}], deadlines=quick, remove_after=1)
    emptied = start(client, [{"name": "Bea", "email": "bea@example.org"}, {"name": "Bo", "bot": "random"},
                             {"name": "Cy", "bot": "greedy"}], deadlines=quick)
    first, second = missed["game"]["id"], emptied["game"]["id"]
    host = bearer(emptied["tokens"]["host"])
    assert client.post(f"/api/v1/games/{second}/seats/0/remove", headers=host,
                       json={"reason": "Moved away."}).status_code == 200
    workers(1)
    wait_for(lambda: _events(client, first, "seat_left") and _table(app, second).decision_of(0) is not None
             and _table(app, second).decision_of(0)["kind"] != "keep_professions", 20)
    [gone] = _events(client, first, "seat_left")
    assert gone == {"type": "seat_left", "seat": 0, "name": "Ann", "why": "missed",
                    "reason": "missed 1 decision in a row"}
    wait_for(lambda: mails(app, ANN, ("seat_left",)))
    stood_in = [e for e in _store(app).log(second) if e["seat"] == 0]
    assert stood_in and all(e.get("timeout") and e.get("bot") == STAND_IN for e in stood_in)
    assert not mails(app, "bea@example.org", ("choose", "your_turn", "your_bid")), "an open seat gets no mail"

    handed = client.put(f"/api/v1/games/{second}/seats/0", headers=host, json={"name": "Dee", "email": DEE})
    assert handed.status_code == 200
    wait_for(lambda: mails(app, DEE, ("welcome",)) and mails(app, DEE, ("invitation",)))
    [welcome] = mails(app, DEE, ("welcome",))
    assert welcome["subject"].startswith("Welcome: you now play seat 1")
    assert (welcome["seat"], welcome["holder"]) == (0, 2)
    assert "taking over from Bea" in welcome["text"] and "Round 1 of 7" in welcome["text"]
    assert "It is your decision" in welcome["text"] and "/seat?t=" in welcome["text"]
    view = _table(app, second).game.view(_table(app, second).state, 0)
    assert f"{view['players'][0]['private']['cash']:,} florins" in welcome["text"]
    other = _table(app, second).state["players"][1]["private"]
    assert not [card for card in other["hand"] if card in json.dumps(welcome)]
    dee = _redeem_invitation(client, DEE)
    listed = client.get(f"/api/v1/games/{second}/moves", headers=dee).get_json()
    played = client.post(f"/api/v1/games/{second}/moves", headers=dee,
                         json={"move": listed["moves"][0]["move"], "version": listed["version"]})
    assert played.status_code == 200, played.get_json()
    assert [e for e in _store(app).log(second) if e["seat"] == 0][-1].get("bot") is None
