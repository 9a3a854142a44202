"""One whole table of people, end to end: a real redis-server, real `palazzo worker` processes, the
local outbox, the app served on a loopback port with its jobs on RQ, and Debian's Chromium with
JavaScript off.

The host creates a public game with four open seats that starts when full; Ann, Bea and Cid find it
in the lobby, sign in by the mailed links and join in their browsers; the host gives the last seat to
a bot and the game starts. They talk by the page (Ann), the API (Bea, later Dee) and replies (Cid's
`say` and `tell Ann`). Bea leaves by replying `leave`, then `leave confirm`; from then on her mailed
one-click link, her reply address and her browser session are refused. Dee takes the seat by the join
link and plays on. Each outbox then shows exactly the messages its reader may see.
"""
from __future__ import annotations

import re
from urllib.parse import unquote

import pytest

from service import games, mailbox, messages
from service.inbound import inbox
from tests.browser import Served
from tests.conftest import bearer, jobs_idle, make_app, wait_for
from tests.mail_games import mails
from tests.test_inbound import SECRET, listed, multipart, parse_fields
from tests.web_client import path

sync_api = pytest.importorskip("playwright.sync_api")
pytest.importorskip("engine.pof")

ANN, BEA, CID, DEE, HOST = "ann@example.org", "bea@example.org", "cid@example.org", "dee@example.org", \
    "host@example.org"
TITLE = "Florence by the fire"
DECISIONS = ("choose", "your_turn", "your_bid")
# Each message: who must find it in a talk mail (the seated players but its writer who held a seat
# when it was posted; a private one's reader), and who must find it in no mail at all (anyone else a
# private one's reader; the players who held no seat then). The writer may find his own words in the
# answer to his reply, and the host the table's messages; neither is checked.
SAID = {
    "ann-page-public": ({BEA, CID}, {DEE}),
    "bea-api-public": ({ANN, CID}, {DEE}),
    "cid-reply-say": ({ANN, BEA}, {DEE}),
    "cid-reply-tell-ann": ({ANN}, {BEA, DEE, HOST}),
    "ann-page-while-open": ({CID}, {BEA, DEE}),
    "dee-api-public": ({ANN, CID}, {BEA}),
    "ann-page-to-dee": ({DEE}, {BEA, CID, HOST}),
}


@pytest.fixture
def served(redis_url):
    with Served(make_app(redis_url, JOBS="rq", BOT_DELAY=0, INBOUND_SECRET=SECRET)) as running:
        yield running


@pytest.fixture
def browse(chromium, served):
    """A browser context per person, closed before the server stops."""
    opened = []

    def context():
        opened.append(chromium.new_context(java_script_enabled=False))
        return opened[-1].new_page()
    yield context
    for each in opened:
        each.close()


def _click(page, role: str, name: str) -> None:
    with page.expect_navigation():
        page.get_by_role(role, name=name, exact=True).click()


def _join_in_the_browser(page, app, base: str, game_id: str, email: str, name: str, seat: int) -> None:
    """Lobby, join page, the mailed sign-in link, the join form: as a stranger takes a seat."""
    page.goto(base)
    _click(page, "link", "Lobby")
    entry = page.locator(f'[data-game="{game_id}"]')
    assert entry.get_by_role("heading", name=TITLE).is_visible()
    assert entry.get_by_text(f"{4 - seat} open").is_visible()
    with page.expect_navigation():
        entry.get_by_role("link", name=f"Join {TITLE}").click()
    page.get_by_label("Your address").fill(email)
    _click(page, "button", "Mail me a sign-in link")
    wait_for(lambda: mails(app, email, ("sign_in",)))
    link = re.search(r"link=(\S+)", mails(app, email, ("sign_in",))[-1]["text"]).group(1)
    page.goto(f"{base}/sign-in?link={link}")
    _click(page, "button", "Sign in")
    assert page.url.startswith(f"{base}/join?link=")
    page.get_by_label("Your name at this table").fill(name)
    page.get_by_label("Seat").select_option(str(seat))
    _click(page, "button", "Take a seat")
    assert page.url == f"{base}/games/{game_id}"
    assert page.get_by_text(f"You have taken seat {seat + 1}.").is_visible()


def _say_on_the_page(page, base: str, game_id: str, text: str, to: str = "") -> None:
    page.goto(f"{base}/games/{game_id}")
    page.get_by_label("Your message").fill(text)
    page.get_by_label("To", exact=True).select_option(to)
    _click(page, "button", "Send")
    assert page.get_by_text("Your message was posted.").is_visible()


def _reply(app, sender: str, mail: dict, text: str) -> str:
    """Reply to a mail through the inbound endpoint, and wait for the worker's verdict on it."""
    fields = parse_fields(sender, mail["headers"]["Reply-To"], text, answering=mail["headers"]["Message-ID"],
                          from_name=sender.split("@")[0].title())
    posted = app.test_client().post(f"/inbound/sendgrid/{SECRET}", data=multipart(fields),
                                    content_type="multipart/form-data; boundary=xYzZY")
    assert posted.status_code == 200, posted.get_data(as_text=True)
    answer = posted.get_json()
    if answer["status"] != inbox.QUEUED:
        return answer["status"]
    redis = app.extensions["palazzo.store"].redis
    wait_for(lambda: inbox.state(redis, answer["message"]).get("status") not in (inbox.QUEUED, "received"))
    return inbox.state(redis, answer["message"])["status"]


def _player(app, client, email: str, join: str | None = None) -> dict[str, str]:
    """A player token, from the sign-in link mailed (by a worker) for the address."""
    before = len(mails(app, email, ("sign_in",)))
    asked = client.post("/api/v1/sign-in", json={"email": email, **({"join": join} if join else {})})
    assert asked.status_code == 202, asked.get_json()
    wait_for(lambda: len(mails(app, email, ("sign_in",))) > before)
    link = re.search(r"link=(\S+)", mails(app, email, ("sign_in",))[-1]["text"]).group(1)
    redeemed = client.post("/api/v1/sign-in/redeem", json={"link": unquote(link)})
    assert redeemed.status_code == 201, redeemed.get_json()
    return bearer(redeemed.get_json()["token"])


def _shown(mail: dict) -> str:
    return mail["subject"] + mail["text"] + mail.get("html", "") + str(mail.get("parts", ""))


def test_a_table_of_people_joins_talks_loses_one_and_plays_on_with_a_substitute(served, browse, workers):
    app, base = served.app, served.base
    client, store = app.test_client(), app.extensions["palazzo.store"]
    workers(2, PALAZZO_INBOUND_SECRET=SECRET, PALAZZO_BASE_URL=base)

    created = client.post("/api/v1/games", json={
        "game": "princes-of-florence", "seed": 11, "public": True, "start_when_full": True, "title": TITLE,
        "host_email": HOST, "seats": [{"open": True}] * 4})
    assert created.status_code == 201, created.get_json()
    game_id, host = created.get_json()["game"]["id"], bearer(created.get_json()["tokens"]["host"])

    ann, bea, cid = browse(), browse(), browse()
    for page, email, name, seat in ((ann, ANN, "Ann", 0), (bea, BEA, "Bea", 1), (cid, CID, "Cid", 2)):
        _join_in_the_browser(page, app, base, game_id, email, name, seat)
    assert games.load(store, game_id).status == games.OPEN
    filled = client.put(f"/api/v1/games/{game_id}/seats/3", headers=host, json={"name": "Robo", "bot": "greedy"})
    assert filled.status_code == 200, filled.get_json()
    assert filled.get_json()["game"]["status"] == "running", "the last seat started it"

    wait_for(lambda: all(mails(app, email, DECISIONS) for email in (ANN, BEA, CID)))
    [bea_decision] = mails(app, BEA, DECISIONS)
    one_click = re.search(r"https?://\S+/act\?t=\S+", bea_decision["text"]).group(0)
    bea_page = f"{base}/games/{game_id}"
    bea.goto(bea_page)
    assert bea.locator("main").get_attribute("data-page") == "seat" and bea.locator("section.mine").count() == 1

    # table talk by the page, the API and a reply (a command, a say line and a tell line)
    _say_on_the_page(ann, base, game_id, "ann-page-public")
    bea_token = _player(app, client, BEA)
    posted = client.post(f"/api/v1/games/{game_id}/messages", headers=bea_token, json={"text": "bea-api-public"})
    assert posted.status_code == 201, posted.get_json()
    [cid_decision] = mails(app, CID, DECISIONS)
    command = listed(cid_decision)[0]
    assert _reply(app, CID, cid_decision, f"{command}\nsay cid-reply-say\ntell Ann cid-reply-tell-ann\n") \
        == "applied"
    assert [(m["by"], m["to"]) for m in messages.since(store, game_id, 0)] == [(0, None), (1, None), (2, None),
                                                                               (2, 0)]

    # Bea leaves by replying to her decision mail, and confirms
    assert _reply(app, BEA, bea_decision, "leave") == "leave_asked"
    wait_for(lambda: mails(app, BEA, ("reply_leave",)))
    before = games.load(store, game_id)
    assert not before.meta["seats"][1].get("open")
    assert _reply(app, BEA, bea_decision, "leave confirm") == "left"
    left = games.load(store, game_id)
    assert left.meta["seats"][1]["open"] and left.holder(1) == before.holder(1) + 1

    # from that moment nothing of hers acts for the seat or shows its hidden part
    for answer in (client.get(path(one_click)), client.post("/act", data={"t": unquote(one_click.split("t=")[1])})):
        assert answer.status_code == 403 and b'class="mine"' not in answer.data
    assert _reply(app, BEA, bea_decision, "say bea-after-leaving") == "refused"
    bea.goto(bea_page)
    assert bea.url == f"{bea_page}/watch" and bea.locator("section.mine").count() == 0, "her session is a spectator's"
    assert client.get(f"/api/v1/games/{game_id}/moves", headers=bea_token).get_json()["code"] == "not_a_seat"
    assert games.load(store, game_id).rev == left.rev, "none of it changed anything"

    _say_on_the_page(ann, base, game_id, "ann-page-while-open")

    # Dee takes the open seat by the join link, and plays on
    link = client.get(f"/api/v1/games/{game_id}/join-link", headers=host).get_json()
    assert link["joinable"] and link["open_seats"] == 1
    dee = _player(app, client, DEE, join=link["link"])
    joined = client.post(f"/api/v1/games/{game_id}/join", headers=dee, json={"link": link["link"], "name": "Dee"})
    assert joined.status_code == 200 and joined.get_json()["you"] == {"role": "seat", "seat": 1}, joined.get_json()
    hers = client.get(f"/api/v1/games/{game_id}/moves", headers=dee).get_json()
    assert hers["seat"] == 1 and hers["moves"]
    played = client.post(f"/api/v1/games/{game_id}/moves", headers=dee,
                         json={"move": hers["moves"][0]["move"], "version": hers["version"]})
    assert played.status_code == 200, played.get_json()
    assert [e for e in store.log(game_id) if e["seat"] == 1][-1].get("bot") is None, "Dee moved, not a stand-in"
    posted = client.post(f"/api/v1/games/{game_id}/messages", headers=dee, json={"text": "dee-api-public"})
    assert posted.status_code == 201, posted.get_json()
    _say_on_the_page(ann, base, game_id, "ann-page-to-dee", to="1")

    # each outbox shows exactly the messages its reader may see
    everyone = (ANN, BEA, CID, DEE, HOST)
    wait_for(lambda: all(any(text in _shown(m) for m in mails(app, email))
                         for text, (must, _) in SAID.items() for email in must))
    wait_for(lambda: jobs_idle(store.redis))
    for text, (must, never) in SAID.items():
        for email in everyone:
            found = [m["kind"] for m in mails(app, email) if text in _shown(m)]
            if email in must:
                assert found == ["talk"], (text, email, found)
            elif email in never:
                assert not found, (text, email, found)
    assert not [m for m in mailbox.outbox(store) if "bea-after-leaving" in _shown(m)]
