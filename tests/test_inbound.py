"""Replies by mail end to end: real multipart bodies, as SendGrid's Inbound Parse posts them, sent over
HTTP to the app served on loopback, with a real redis-server and real `palazzo worker` processes that
play them and mail the answers to the local outbox."""
from __future__ import annotations

import json
import re
import threading
import time
import urllib.error
import urllib.request
import uuid
from base64 import b64encode
from email.message import EmailMessage
from typing import Any

import pytest

from service import mailbox, preferences, tokens
from service.inbound import inbox
from tests.browser import Served
from tests.conftest import bearer, make_app, wait_for

SECRET = "inbound-" + "s" * 32
DOMAIN = "palazzo.example"
BOUNDARY = "xYzZY"  # the boundary Inbound Parse uses
LONG = {key: 3600 for key in ("setup", "auction", "turn", "choice")}
ANSWER_KINDS = ("reply_done", "reply_refused", "reply_stale", "reply_help", "reply_closed", "reply_not_yours",
                "reply_unverified")


@pytest.fixture
def live(redis_url):
    """The app served over HTTP on a loopback port, in threads, as gunicorn would serve it."""
    with Served(make_app(redis_url, JOBS="rq", MIN_DEADLINE=1, BOT_DELAY=0, INBOUND_SECRET=SECRET)) as served:
        yield served


@pytest.fixture
def mail_workers(workers):
    """Workers that send decision mails with a reply address and play replies."""
    return lambda count=1: workers(count, PALAZZO_INBOUND_SECRET=SECRET, PALAZZO_MAIL_DOMAIN=DOMAIN)


def multipart(fields: dict[str, str]) -> bytes:
    """A multipart/form-data body as Inbound Parse sends it: one part per field, UTF-8."""
    parts = [f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'
             for name, value in fields.items()]
    return ("".join(parts) + f"--{BOUNDARY}--\r\n").encode()


def parse_fields(sender: str, to: str, text: str | None, *, answering: str | None = None, subject: str = "Re: Palazzo",
                 message_id: str | None = None, spf: str = "pass", dkim: str | None = None,
                 html: str | None = None, from_name: str = "Ann") -> dict[str, str]:
    """The fields of a post in Inbound Parse's default mode, for a mail `sender` wrote to `to`."""
    message_id = message_id or f"<{uuid.uuid4().hex}@mail.example.org>"
    threading_headers = f"In-Reply-To: {answering}\nReferences: {answering}\n" if answering else ""
    headers = (f"Received: from mail.example.org by mx.sendgrid.net\nDKIM-Signature: v=1; a=rsa-sha256; d=example.org\n"
               f"From: {from_name} <{sender}>\nTo: {to}\nSubject: {subject}\nMessage-ID: {message_id}\n"
               f"{threading_headers}Date: Tue, 2 Dec 2025 18:05:00 +0100\nMIME-Version: 1.0\n")
    fields = {"headers": headers, "dkim": dkim or f"{{@{sender.rpartition('@')[2]} : pass}}", "content-ids": "{}",
              "to": to, "from": f"{from_name} <{sender}>", "sender_ip": "203.0.113.5", "spam_report": "",
              "envelope": json.dumps({"to": [to], "from": sender}), "attachments": "0", "subject": subject,
              "spam_score": "0.1", "charsets": json.dumps({"to": "UTF-8", "html": "UTF-8", "subject": "UTF-8",
                                                           "from": "UTF-8", "text": "UTF-8"}), "SPF": spf}
    if text is not None:
        fields["text"] = text
    if html is not None:
        fields["html"] = html
    return fields


def post(live: Served, fields: dict[str, str], path: str = f"/inbound/sendgrid/{SECRET}",
         **headers: str) -> tuple[int, dict]:
    """Post the fields over HTTP as Inbound Parse does: (status, the JSON body, with a problem's headers)."""
    request = urllib.request.Request(live.base + path, data=multipart(fields), method="POST",
                                     headers={"Content-Type": f"multipart/form-data; boundary={BOUNDARY}", **headers})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, {"content_type": error.headers.get("Content-Type"),
                            "www_authenticate": error.headers.get("WWW-Authenticate"),
                            **json.loads(error.read() or b"{}")}


def outbox(app, to: str | None = None, kinds: tuple[str, ...] | None = None) -> list[dict]:
    return [m for m in mailbox.outbox(app.extensions["palazzo.store"])
            if (to is None or m["to"] == to) and (kinds is None or m["kind"] in kinds)]


def listed(mail: dict) -> list[str]:
    """The commands a mail offers: the lines under "Answer by mail", without their notes."""
    lines = mail["text"].split("Answer by mail:", 1)[1].split("\n")[1:]
    commands = []
    for line in lines:
        if not line.startswith("  "):
            break
        commands.append(re.sub(r"\s+\(.*\)$", "", line.strip()))
    return commands


def quoting(mail: dict, reply: str) -> str:
    """A top-posted reply: the command, a sign-off, and the mail quoted below it."""
    quoted = "\n".join(f"> {line}" for line in mail["text"].splitlines())
    return f"{reply}\n\nThanks,\nAnn\n\nOn Tue, 2 Dec 2025 at 18:00, Palazzo <palazzo@{DOMAIN}> wrote:\n{quoted}\n"


def create(live: Served, seats: list[dict], **extra) -> str:
    client = live.app.test_client()
    response = client.post("/api/v1/games", json={"game": "princes-of-florence", "seed": 5, "seats": seats,
                                                  "deadlines": LONG, **extra})
    assert response.status_code == 201, response.get_json()
    created = response.get_json()
    assert client.post(f"/api/v1/games/{created['game']['id']}/start",
                       headers=bearer(created["tokens"]["host"])).status_code == 200
    live.__dict__.setdefault("hosts", {})[created["game"]["id"]] = created["tokens"]["host"]
    return created["game"]["id"]


def game(live: Served, game_id: str) -> dict:
    return live.app.test_client().get(f"/api/v1/games/{game_id}").get_json()


def game_state(live: Served, game_id: str) -> dict:
    from service import games
    return games.load(live.app.extensions["palazzo.store"], game_id).state


def moves_by(live: Served, game_id: str, seat: int) -> list[dict]:
    return [e for e in live.app.extensions["palazzo.store"].log(game_id) if e["seat"] == seat]


def decision_mail(live: Served, to: str, after: int = 0) -> dict:
    """The newest decision mail to `to` once there are more than `after` of them."""
    kinds = ("choose", "your_turn", "your_bid")
    wait_for(lambda: len(outbox(live.app, to, kinds)) > after)
    return outbox(live.app, to, kinds)[-1]


def answer_to(live: Served, to: str, count: int = 1) -> dict:
    wait_for(lambda: len(outbox(live.app, to, ANSWER_KINDS)) >= count)
    return outbox(live.app, to, ANSWER_KINDS)[count - 1]


ANN = "ann@example.org"
SEATS = [{"name": "Ann", "email": "Ann@Example.org"}, {"name": "Bot", "bot": "random"}, {"name": "Cy", "bot": "greedy"}]


def test_a_reply_plays_the_move_and_a_refused_or_stale_one_plays_nothing(live, mail_workers):
    game_id = create(live, SEATS)
    mail_workers(1)
    first = decision_mail(live, "Ann@example.org")
    reply_to = first["headers"]["Reply-To"]
    assert re.fullmatch(rf"play\+{game_id}-0-[a-z2-7]{{26}}@{DOMAIN}", reply_to) and len(reply_to.split("@")[0]) <= 64
    assert "Answer by mail" in first["html"] and reply_to in first["text"]
    commands = listed(first)
    assert len(commands) == 4 and all(c.startswith("keep ") for c in commands)

    # refused: a command that is no answer to this decision; nothing changes
    version = game(live, game_id)["version"]
    status, body = post(live, parse_fields(ANN, reply_to, "build tower at A1 B1 C1", answering=first["headers"]["Message-ID"]))
    assert status == 200 and body["status"] == "queued"
    refused = answer_to(live, "Ann@example.org")
    assert refused["kind"] == "reply_refused" and "build tower at A1 B1 C1" in refused["text"]
    assert "Answer by mail" in refused["text"] and listed(refused) == commands, "the legal moves, in the grammar"
    assert game(live, game_id)["version"] == version and not moves_by(live, game_id, 0)

    # accepted: a command the mail listed, top-posted above the quoted mail, sender in another case
    status, body = post(live, parse_fields("ANN@example.ORG", reply_to, quoting(first, commands[2].upper()),
                                           answering=first["headers"]["Message-ID"]))
    assert status == 200
    done = answer_to(live, "Ann@example.org", 2)
    assert done["kind"] == "reply_done" and done["subject"].startswith("Done: Keep ")
    assert "These lines were not read as commands" in done["text"] and '"Thanks,"' in done["text"]
    [played] = moves_by(live, game_id, 0)
    assert "keep " + " ".join(played["move"]["professions"]) == commands[2]
    assert not played.get("bot") and not played.get("timeout")
    assert done["headers"]["In-Reply-To"].startswith("<") and done["headers"]["Reply-To"] == reply_to
    hidden = [card for seat in (1, 2) for card in game_state(live, game_id)["players"][seat]["private"]["hand"]]
    assert hidden and not [card for card in hidden if card != "architect" and card in done["text"] + done["html"]]

    # stale: the first mail's decision is gone; another reply to it is answered, not played
    post(live, parse_fields(ANN, reply_to, commands[0], answering=first["headers"]["Message-ID"]))
    stale = answer_to(live, "Ann@example.org", 3)
    assert stale["kind"] == "reply_stale" and "moved on" in stale["text"]
    assert len(moves_by(live, game_id, 0)) == 1
    kept = inbox.noted(live.app.extensions["palazzo.store"].redis, game_id)
    assert [entry["status"] for entry in kept] == ["refused", "applied", "stale"]
    hosted = live.app.test_client().get(f"/api/v1/games/{game_id}", headers=bearer(live.hosts[game_id])).get_json()
    assert [(r["seat"], r["status"]) for r in hosted["replies"]] == [(0, "refused"), (0, "applied"), (0, "stale")]
    assert "build tower" not in json.dumps(hosted), "the host sees what became of a reply, never its text"
    assert "replies" not in game(live, game_id), "nor does anyone but the host"


def test_a_forged_address_a_wrong_sender_or_failed_spf_and_dkim_play_nothing(live, mail_workers):
    game_id = create(live, SEATS)
    mail_workers(1)
    first = decision_mail(live, "Ann@example.org")
    reply_to, command = first["headers"]["Reply-To"], listed(first)[0]
    answering = first["headers"]["Message-ID"]
    store = live.app.extensions["palazzo.store"]
    forged = reply_to.replace(reply_to.split("-")[-1].split("@")[0], "a" * 26)
    other_seat = reply_to.replace(f"{game_id}-0-", f"{game_id}-1-")
    for to in (forged, other_seat, f"play@{DOMAIN}"):
        status, body = post(live, parse_fields(ANN, to, command, answering=answering))
        assert status == 200
        wait_for(lambda: inbox.state(store.redis, body["message"]).get("status") == "ignored")
    post(live, parse_fields("eve@example.net", reply_to, command, answering=answering, from_name="Eve"))
    notice = answer_to(live, "Ann@example.org")
    assert notice["kind"] == "reply_not_yours" and "another address" in notice["text"]
    assert not outbox(live.app, "eve@example.net"), "nothing is sent to whoever forged the sender"
    post(live, parse_fields(ANN, reply_to, command, answering=answering, spf="fail", dkim="{@example.org : fail}"))
    post(live, parse_fields(ANN, reply_to, command, answering=answering, spf="softfail", dkim="{@evil.example : pass}"))
    wait_for(lambda: [e["status"] for e in inbox.noted(store.redis, game_id)] == ["refused"] * 3)
    assert not moves_by(live, game_id, 0)
    assert len(outbox(live.app, "Ann@example.org", ANSWER_KINDS)) == 1, "one notice an hour at most"
    post(live, parse_fields(ANN, reply_to, command, answering=answering, spf="fail", dkim="{@example.org : pass}"))
    wait_for(lambda: len(moves_by(live, game_id, 0)) == 1)  # DKIM alone vouches for the sender


def test_the_same_mail_posted_twice_is_played_once(live, mail_workers):
    game_id = create(live, SEATS)
    mail_workers(2)
    first = decision_mail(live, "Ann@example.org")
    fields = parse_fields(ANN, first["headers"]["Reply-To"], listed(first)[1], answering=first["headers"]["Message-ID"])
    answers: list[tuple[int, dict]] = []
    posts = [threading.Thread(target=lambda: answers.append(post(live, fields))) for _ in range(3)]
    for thread in posts:
        thread.start()
    for thread in posts:
        thread.join()
    assert [status for status, _ in answers] == [200] * 3
    assert sorted(body["status"] for _, body in answers).count("duplicate") >= 2
    wait_for(lambda: len(outbox(live.app, "Ann@example.org", ANSWER_KINDS)) >= 1)
    assert post(live, fields) == (200, {"status": "duplicate", "message": answers[0][1]["message"]})
    time.sleep(1.5)  # a second job would have played and answered by now
    assert len(moves_by(live, game_id, 0)) == 1
    assert [m["kind"] for m in outbox(live.app, "Ann@example.org", ANSWER_KINDS)] == ["reply_done"]


def test_the_endpoint_takes_its_secret_in_the_path_or_as_basic_auth(live, redis_url):
    fields = parse_fields(ANN, f"play+0123456789abcdef-0-{'a' * 26}@{DOMAIN}", "help")
    status, body = post(live, fields, "/inbound/sendgrid/not-the-secret")
    assert status == 404 and body["code"] == "not_found" and body["content_type"] == "application/problem+json"
    status, body = post(live, fields, "/inbound/sendgrid")
    assert status == 401 and body["code"] == "unauthorized" and body["www_authenticate"].startswith("Basic")
    wrong = "Basic " + b64encode(b"sendgrid:wrong").decode()
    assert post(live, fields, "/inbound/sendgrid", Authorization=wrong)[0] == 401
    right = "Basic " + b64encode(f"sendgrid:{SECRET}".encode()).decode()
    status, body = post(live, fields, "/inbound/sendgrid", Authorization=right)
    assert status == 200 and body["status"] == "queued"
    status, body = post(live, {"subject": "no sender"}, f"/inbound/sendgrid/{SECRET}")
    assert status == 422 and body["code"] == "bad_inbound"
    with Served(make_app(redis_url, JOBS="rq")) as off:
        status, body = post(off, fields)
    assert status == 404 and body["code"] == "not_found", "without a secret set there is no endpoint"


def inline_game(redis_url: str, monkeypatch) -> tuple[Any, str, str]:
    """An app without workers (PALAZZO_JOBS=inline: bots move and replies are played inside requests)
    and a game of SEATS started on it: (the app, the game's id, seat 0's reply address)."""
    from service.inbound import address
    monkeypatch.setenv("PALAZZO_MAIL_DOMAIN", DOMAIN)
    app = make_app(redis_url, INBOUND_SECRET=SECRET)
    client = app.test_client()
    created = client.post("/api/v1/games", json={"game": "princes-of-florence", "seed": 5, "seats": SEATS}).get_json()
    game_id = created["game"]["id"]
    client.post(f"/api/v1/games/{game_id}/start", headers=bearer(created["tokens"]["host"]))
    return app, game_id, address.address(app.extensions["palazzo.links"], game_id, 0, DOMAIN)


def answers_in(app) -> list[dict]:
    return [m for m in mailbox.outbox(app.extensions["palazzo.store"]) if m["kind"] in ANSWER_KINDS]


def post_inline(app, fields: dict[str, str]) -> dict:
    """Post the fields to the app in this process (it plays them inside the request): the JSON body."""
    return app.test_client().post(f"/inbound/sendgrid/{SECRET}", content_type="multipart/form-data",
                                  data=fields).get_json()


def test_without_workers_a_reply_is_played_in_the_request_even_in_raw_mime_and_html_only(redis_url, monkeypatch):
    app, game_id, reply_to = inline_game(redis_url, monkeypatch)
    client = app.test_client()
    raw = EmailMessage()
    raw["From"], raw["To"], raw["Subject"] = f"Ann <{ANN}>", reply_to, "Re: your choice"
    raw["Message-ID"] = "<raw-1@mail.example.org>"
    raw.set_content("<div>help</div><blockquote>keep painter poet doctor</blockquote>", subtype="html")
    response = client.post(f"/inbound/sendgrid/{SECRET}", content_type="multipart/form-data",
                           data={"email": raw.as_string(), "envelope": json.dumps({"to": [reply_to], "from": ANN}),
                                 "SPF": "pass", "dkim": "{@example.org : pass}"})
    assert response.status_code == 200 and response.get_json()["status"] == "help"
    [helped] = [m for m in mailbox.outbox(app.extensions["palazzo.store"]) if m["kind"] == "reply_help"]
    assert helped["headers"]["In-Reply-To"] == "<raw-1@mail.example.org>" and listed(helped)
    html = "<p>" + listed(helped)[0].upper() + "</p><p>--<br>Ann</p>"
    response = client.post(f"/inbound/sendgrid/{SECRET}", content_type="multipart/form-data",
                           data=parse_fields(ANN, reply_to, None, html=html))
    assert response.get_json()["status"] == "applied"
    assert [e["move"]["type"] for e in app.extensions["palazzo.store"].log(game_id) if e["seat"] == 0][:1] == [
        "keep_professions"]


@pytest.mark.parametrize("choice, notices", [({}, 1), ({"mail": "none"}, 0), ({"bounced": "bounce: 550"}, 0)],
                         ids=["takes mail", "chose none", "bounced"])
def test_a_notice_of_mail_not_played_goes_only_to_a_player_who_takes_mail(redis_url, monkeypatch, choice, notices):
    """Anyone can make us write to a seat's address by forging mail for it: the notice, like every
    other mail, skips an address whose player chose no mail or that bounced."""
    app, _, reply_to = inline_game(redis_url, monkeypatch)
    preferences.write(app.extensions["palazzo.store"], tokens.email_hash(ANN), choice)
    forged = parse_fields("eve@example.net", reply_to, "help", from_name="Eve")
    assert post_inline(app, forged)["status"] == "refused"
    assert [m["kind"] for m in answers_in(app)] == ["reply_not_yours"] * notices


def test_mail_from_the_seats_own_address_that_spf_and_dkim_do_not_vouch_for_is_told_as_such(redis_url, monkeypatch):
    app, _, reply_to = inline_game(redis_url, monkeypatch)
    unvouched = parse_fields(ANN, reply_to, "help", spf="fail", dkim="{@example.org : fail}")
    assert post_inline(app, unvouched)["status"] == "refused"
    [notice] = answers_in(app)
    assert notice["kind"] == "reply_unverified" and notice["subject"].startswith("Not played: a reply in your name")
    assert "SPF and DKIM failed" in notice["text"] and "another address" not in notice["subject"] + notice["text"]


def test_a_reply_whose_job_fails_is_retried_and_plays_once_or_stays_kept_as_failed(redis_url, monkeypatch):
    """RQ's own worker, in this process (so that a failure can be injected), on the real Redis: a job
    that fails after playing the move is tried again and plays nothing twice; one that keeps failing
    leaves the mail kept, marked failed for the host."""
    from rq import SimpleWorker

    from service import followups
    from service.inbound import replies
    from tests.conftest import SECRET as APP_SECRET
    from workers import context
    for name, value in {"REDIS_URL": redis_url, "PALAZZO_SECRET": APP_SECRET, "PALAZZO_INBOUND_SECRET": SECRET,
                        "PALAZZO_MAIL_DOMAIN": DOMAIN, "PALAZZO_MAIL_MERGE_SECONDS": "0"}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(followups, "REPLY_RETRY_SECONDS", [0, 0, 0])
    context.store.cache_clear()
    context.links.cache_clear()
    app = make_app(redis_url, JOBS="rq", BOT_DELAY=0, INBOUND_SECRET=SECRET)
    client, store = app.test_client(), app.extensions["palazzo.store"]

    def work() -> None:
        queues = [store.followups.queue, store.followups.replies]
        SimpleWorker(queues, connection=store.followups.connection).work(burst=True)

    created = client.post("/api/v1/games", json={"game": "princes-of-florence", "seed": 5, "seats": SEATS,
                                                  "deadlines": LONG}).get_json()
    game_id = created["game"]["id"]
    client.post(f"/api/v1/games/{game_id}/start", headers=bearer(created["tokens"]["host"]))
    work()
    first = outbox(app, "Ann@example.org", ("choose",))[-1]
    answer = replies.Replies._answer
    failures = iter([RuntimeError("the mail queue is down")])

    def flaky(self, *args, **kwargs):
        error = next(failures, None)
        if error is not None:
            raise error
        return answer(self, *args, **kwargs)

    monkeypatch.setattr(replies.Replies, "_answer", flaky)
    fields = parse_fields(ANN, first["headers"]["Reply-To"], listed(first)[0], answering=first["headers"]["Message-ID"])
    key = client.post(f"/inbound/sendgrid/{SECRET}", data=fields, content_type="multipart/form-data").get_json()["message"]
    work()
    assert inbox.state(store.redis, key)["status"] == "applied"
    assert len([e for e in store.log(game_id) if e["seat"] == 0]) == 1, "the retry played nothing twice"
    assert [m["kind"] for m in outbox(app, "Ann@example.org", ANSWER_KINDS)] == ["reply_done"]

    monkeypatch.setattr(replies.Replies, "handle", lambda self, key: 1 / 0)
    fields = parse_fields(ANN, first["headers"]["Reply-To"], "help")
    key = client.post(f"/inbound/sendgrid/{SECRET}", data=fields, content_type="multipart/form-data").get_json()["message"]
    work()
    assert inbox.state(store.redis, key)["status"] == "failed" and inbox.fields(store.redis, key)["text"] == "help"
    context.store.cache_clear()
    context.links.cache_clear()


def test_lines_that_make_one_turn_are_followed_up_once_not_after_each_line(redis_url, monkeypatch):
    """A reply of two lines (an action, then 'end') tells the followups once, after both: after each,
    a worker would mail the seat the decision between them, already answered when he reads it."""
    from rq import Queue

    from engine.pof import writing
    from service import games, playing
    from service.followups import QUEUE
    from service.inbound import address, message
    from service.inbound.replies import Replies
    from service.mail.settings import MailSettings
    monkeypatch.setenv("PALAZZO_MAIL_DOMAIN", DOMAIN)
    app = make_app(redis_url, JOBS="rq", INBOUND_SECRET=SECRET)
    store, links = app.extensions["palazzo.store"], app.extensions["palazzo.links"]
    created = app.test_client().post("/api/v1/games", json={"game": "princes-of-florence", "seed": 5, "seats": SEATS})
    table = games.start(store, games.load(store, created.get_json()["game"]["id"]))
    while not (table.decision_of(0) or {}).get("kind") == "action":  # everyone's defaults up to Ann's first turn
        seat = table.pending[0]["seat"]
        table = playing.play(store, table, seat, table.game.default_move(table.state, seat)).table
    action = next(m for m in table.game.legal_moves(table.state, 0) if m["type"] not in ("end_turn", "sell_prestige"))
    queue = Queue(QUEUE, connection=store.followups.connection)
    queue.empty()
    fields = parse_fields(ANN, address.address(links, table.id, 0, DOMAIN), f"{writing.write(action)}\nend")
    key = inbox.key_of(message.message_id_of(fields), fields)
    inbox.keep(store.redis, key, fields)
    assert Replies(store, links, MailSettings.from_env()).handle(key) == "applied"
    notified = [job for job in queue.get_jobs() if job.func_name == "workers.notify.game"]
    assert len(notified) == 1 and notified[0].id.endswith(f"-{games.load(store, table.id).version}")
