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
import redis

from engine.pof.writing import write
from service import counters, mailbox, preferences, tokens
from service.inbound import inbox
from tests.browser import Served
from tests.conftest import bearer, jobs_idle, make_app, wait_for

SECRET = "inbound-" + "s" * 32
DOMAIN = "palazzo.example"
BOUNDARY = "xYzZY"  # the boundary Inbound Parse uses
LONG = {key: 3600 for key in ("setup", "auction", "turn", "choice")}
ANSWER_KINDS = ("reply_done", "reply_refused", "reply_stale", "reply_help", "reply_closed", "reply_not_yours",
                "reply_unverified", "reply_said")


@pytest.fixture
def live(redis_url):
    """The app served over HTTP on a loopback port, in threads, as gunicorn would serve it."""
    with Served(make_app(redis_url, JOBS="rq", MIN_DEADLINE=1, BOT_DELAY=0, INBOUND_SECRET=SECRET)) as served:
        yield served


@pytest.fixture
def mail_workers(workers):
    """Workers that send decision mails with a reply address and play replies."""
    return lambda count=1: workers(count, PALAZZO_INBOUND_SECRET=SECRET, PALAZZO_MAIL_DOMAIN=DOMAIN)


def multipart(fields: dict[str, str | bytes], files: dict[str, tuple[str, str, bytes]] | None = None) -> bytes:
    """A multipart/form-data body as Inbound Parse sends it: one part per field, each the bytes given
    (a str in UTF-8), with no charset of its own: the post's `charsets` field names them; then the
    attachments, as files (name: filename, type, bytes)."""
    parts = [f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'.encode()
             + (value.encode() if isinstance(value, str) else value) + b"\r\n" for name, value in fields.items()]
    parts += [f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
              f'Content-Type: {kind}\r\n\r\n'.encode() + data + b"\r\n" for name, (filename, kind, data) in (files or {}).items()]
    return b"".join(parts) + f"--{BOUNDARY}--\r\n".encode()


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


def post(live: Served, fields: dict[str, str | bytes], path: str = f"/inbound/sendgrid/{SECRET}",
         files: dict[str, tuple[str, str, bytes]] | None = None, **headers: str) -> tuple[int, dict]:
    """Post the fields over HTTP as Inbound Parse does: (status, the JSON body, with a problem's headers)."""
    request = urllib.request.Request(live.base + path, data=multipart(fields, files), method="POST",
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
    assert re.fullmatch(rf"play\+{game_id}-0-0-[a-z2-7]{{26}}@{DOMAIN}", reply_to) and len(reply_to.split("@")[0]) <= 64
    assert "Answer by mail" in first["html"] and reply_to in first["text"]
    commands = listed(first)
    assert len(commands) == 4 and all(c.startswith("keep ") for c in commands)

    # refused: a command that is no answer to this decision; nothing changes (once the bots, in their own
    # process, have kept their professions too)
    wait_for(lambda: [d["seat"] for d in game(live, game_id)["pending"]] == [0])
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
    assert write(played["move"]) == commands[2]
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


def _settled(queues: redis.Redis) -> bool:
    """The worker and its replies' and bots' processes wait idle for jobs, with none queued, and its
    tick has taken RQ's scheduler locks: whatever keys a worker makes of itself are made."""
    from rq import Worker
    states = [worker.get_state() for worker in Worker.all(connection=queues)]
    return states == ["idle"] * 3 and jobs_idle(queues) and bool(queues.keys("rq:scheduler:*"))


def _kept(store) -> set[str]:
    """Every key but the lock RQ's scheduler takes again on its own every few seconds, and the host's
    counters (a request's time is tallied in one, `service.latency`)."""
    return {key for key in store.redis.keys("*") if not key.startswith("rq:scheduler-lock:")
            and not counters.is_counter(key)}


def test_a_forged_address_a_wrong_sender_or_failed_spf_and_dkim_play_nothing(live, mail_workers):
    game_id = create(live, SEATS)
    mail_workers(1)
    first = decision_mail(live, "Ann@example.org")
    reply_to, command = first["headers"]["Reply-To"], listed(first)[0]
    answering = first["headers"]["Message-ID"]
    store = live.app.extensions["palazzo.store"]
    forged = reply_to.replace(reply_to.split("-")[-1].split("@")[0], "a" * 26)
    other_seat = reply_to.replace(f"{game_id}-0-0-", f"{game_id}-1-0-")
    queues = redis.Redis.from_url(live.app.extensions["palazzo.config"].redis_url)
    wait_for(lambda: _settled(queues))  # the keys the worker makes of itself are there before `before`
    before = _kept(store)
    for to in (forged, other_seat, f"play@{DOMAIN}"):
        assert post(live, parse_fields(ANN, to, command, answering=answering)) == (200, {"status": "ignored"})
    assert _kept(store) - before == set(), "nothing is kept for an address not ours, not even a key"
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
    from service.inbound import address
    fields = parse_fields(ANN, address.address(live.app.extensions["palazzo.links"], "0123456789abcdef", 0, 0, DOMAIN),
                          "help")
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


def kept(live: Served) -> list[str]:
    """The keys of the posts the endpoint has kept."""
    return live.app.extensions["palazzo.store"].redis.keys("pz:inbound:*:raw")


def test_a_post_over_the_size_cap_is_refused_and_of_a_kept_one_only_what_a_reply_needs_stays(live):
    """Without workers running, a kept post stays as the endpoint kept it."""
    from service.inbound import address, endpoint, message
    reply_to = address.address(live.app.extensions["palazzo.links"], "0123456789abcdef", 0, 0, DOMAIN)
    huge = parse_fields(ANN, reply_to, "help\n" + "x" * 2 * 1024 * 1024)  # 2 MB: no reply anyone types
    status, body = post(live, huge)
    assert status == 413 and body["code"] == "mail_too_large" and body["content_type"] == "application/problem+json"
    assert not kept(live)
    long = parse_fields(ANN, reply_to, "help\n" + "> quoted\n" * (endpoint.FIELD_BYTES // 9 + 100))
    status, body = post(live, {**long, "attachments": "1", "attachment-info": "{}"},
                        files={"attachment1": ("photo.jpg", "image/jpeg", b"\xff\xd8" * 100_000)})
    assert status == 200 and body["status"] == "queued"
    fields = inbox.fields(live.app.extensions["palazzo.store"].redis, body["message"])
    assert set(fields) <= message.FIELDS and "spam_report" not in fields and "attachment1" not in fields
    assert len(fields["text"]) == endpoint.FIELD_BYTES and fields["text"].startswith(b"help\n> quoted\n")


def test_posts_past_the_hourly_share_of_a_seat_or_a_sender_are_answered_limited_and_not_kept(live, monkeypatch):
    from service import ratelimit
    from service.inbound import address, receiving
    monkeypatch.setattr(receiving, "SEAT_LIMIT", ratelimit.Limit(3, 3600))
    monkeypatch.setattr(receiving, "SENDER_LIMIT", ratelimit.Limit(5, 3600))
    links = live.app.extensions["palazzo.links"]
    first, second = (address.address(links, game_id, 0, 0, DOMAIN) for game_id in ("0123456789abcdef", "fedcba9876543210"))

    def sent(sender: str, to: str) -> str:
        status, body = post(live, parse_fields(sender, to, "help"))
        assert status == 200
        return body["status"]

    assert [sent(f"eve{n}@example.net", first) for n in range(4)] == ["queued"] * 3 + ["limited"], "one seat's share"
    assert [sent(ANN, second) for _ in range(5)] == ["queued"] * 3 + ["limited"] * 2
    monkeypatch.setattr(receiving, "SEAT_LIMIT", ratelimit.Limit(100, 3600))
    assert [sent(ANN, second) for _ in range(3)] == ["queued"] * 2 + ["limited"], "one sender's share"
    assert len(kept(live)) == 3 + 3 + 2, "a limited post is not kept"


def inline_game(redis_url: str, monkeypatch) -> tuple[Any, str, str, str]:
    """An app without workers (PALAZZO_JOBS=inline: bots move and replies are played inside requests)
    and a game of SEATS started on it: (the app, the game's id, seat 0's reply address, the host token)."""
    from service.inbound import address
    monkeypatch.setenv("PALAZZO_MAIL_DOMAIN", DOMAIN)
    app = make_app(redis_url, INBOUND_SECRET=SECRET)
    client = app.test_client()
    created = client.post("/api/v1/games", json={"game": "princes-of-florence", "seed": 5, "seats": SEATS}).get_json()
    game_id, host = created["game"]["id"], created["tokens"]["host"]
    client.post(f"/api/v1/games/{game_id}/start", headers=bearer(host))
    return app, game_id, address.address(app.extensions["palazzo.links"], game_id, 0, 0, DOMAIN), host


def answers_in(app) -> list[dict]:
    return [m for m in mailbox.outbox(app.extensions["palazzo.store"]) if m["kind"] in ANSWER_KINDS]


def post_inline(app, fields: dict[str, str]) -> dict:
    """Post the fields to the app in this process (it plays them inside the request): the JSON body."""
    return app.test_client().post(f"/inbound/sendgrid/{SECRET}", content_type="multipart/form-data",
                                  data=fields).get_json()


def test_without_workers_a_reply_is_played_in_the_request_even_in_raw_mime_and_html_only(redis_url, monkeypatch):
    app, game_id, reply_to, _ = inline_game(redis_url, monkeypatch)
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
    app, _, reply_to, _ = inline_game(redis_url, monkeypatch)
    preferences.write(app.extensions["palazzo.store"], tokens.email_hash(ANN), choice)
    forged = parse_fields("eve@example.net", reply_to, "help", from_name="Eve")
    assert post_inline(app, forged)["status"] == "refused"
    assert [m["kind"] for m in answers_in(app)] == ["reply_not_yours"] * notices


def test_mail_from_the_seats_own_address_that_spf_and_dkim_do_not_vouch_for_is_told_as_such(redis_url, monkeypatch):
    app, _, reply_to, _ = inline_game(redis_url, monkeypatch)
    unvouched = parse_fields(ANN, reply_to, "help", spf="fail", dkim="{@example.org : fail}")
    assert post_inline(app, unvouched)["status"] == "refused"
    [notice] = answers_in(app)
    assert notice["kind"] == "reply_unverified" and notice["subject"].startswith("Not played: a reply in your name")
    assert "SPF and DKIM failed" in notice["text"] and "another address" not in notice["subject"] + notice["text"]


def test_a_reply_to_the_address_of_a_seats_earlier_player_plays_nothing_and_tells_nobody(redis_url, monkeypatch):
    """Once the host hands Ann's seat to Nell, Ann's reply address names an earlier holder: a reply to it
    plays nothing, even from Nell's address (Ann may have passed the mail on), and nobody hears of it,
    since it is no forgery; the address of Nell's own mails plays."""
    from service import games
    from service.inbound import address
    app, game_id, ann_address, host = inline_game(redis_url, monkeypatch)
    store, links = app.extensions["palazzo.store"], app.extensions["palazzo.links"]
    nell = "nell@example.org"
    handed = app.test_client().put(f"/api/v1/games/{game_id}/seats/0", headers=bearer(host),
                                   json={"name": "Nell", "email": nell})
    assert handed.status_code == 200, handed.get_json()
    table = games.load(store, game_id)
    command = address.reply_for(links, table, 0, DOMAIN)["commands"][0][0]
    for sender in (nell, ANN):
        assert post_inline(app, parse_fields(sender, ann_address, command))["status"] == "refused"
    assert not [e for e in store.log(game_id) if e["seat"] == 0] and not answers_in(app)
    assert [e["detail"] for e in inbox.noted(store.redis, game_id)] == [
        "sent to the address of an earlier player of the seat (holder 0, now 1)"] * 2
    nell_address = address.address(links, game_id, 0, table.holder(0), DOMAIN)
    assert post_inline(app, parse_fields(nell, nell_address, command))["status"] == "applied"
    assert [m["to"] for m in answers_in(app)] == [nell]


def test_a_reply_that_spf_passed_for_an_empty_envelope_sender_is_refused_as_unverified(redis_url, monkeypatch):
    """A forger sends with an empty envelope sender (MAIL FROM:<>), for which SPF passes, and a From
    of the seat's address: SPF vouched for nobody, and without DKIM nothing is played."""
    app, game_id, reply_to, _ = inline_game(redis_url, monkeypatch)
    forged = parse_fields(ANN, reply_to, "help", dkim="none")
    forged["envelope"] = json.dumps({"to": [reply_to], "from": ""})
    assert post_inline(app, forged)["status"] == "refused"
    [notice] = answers_in(app)
    assert notice["kind"] == "reply_unverified" and notice["to"] == "Ann@example.org"
    assert inbox.noted(app.extensions["palazzo.store"].redis, game_id)[-1]["detail"] == "SPF and DKIM failed"


def served_inline_game(redis_url: str, monkeypatch):
    """`inline_game` served over HTTP on loopback, and the first command seat 0 may send: (served, game
    id, reply address, command)."""
    from service import games
    from service.inbound import address
    app, game_id, reply_to, _ = inline_game(redis_url, monkeypatch)
    table = games.load(app.extensions["palazzo.store"], game_id)
    command = address.reply_for(app.extensions["palazzo.links"], table, 0, DOMAIN)["commands"][0][0]
    return Served(app), game_id, reply_to, command


def raw_mail(reply_to: str, headers: str, body: bytes) -> bytes:
    """A mail as a mail program sends it, 8-bit bytes and all, CRLF line ends."""
    top = (f"From: Ann <{ANN}>\r\nTo: {reply_to}\r\nSubject: Re: Palazzo\r\n"
           f"Message-ID: <{uuid.uuid4().hex}@mail.example.org>\r\nMIME-Version: 1.0\r\n")
    return (top + headers).encode() + body


def test_an_8bit_raw_mail_in_latin_1_is_read_in_its_own_charset(redis_url, monkeypatch):
    """Its no-break space (byte A0) stays a space inside the command and "Grüße" stays itself: read as
    UTF-8 first, the A0 became U+FFFD and the command unreadable."""
    served, game_id, reply_to, command = served_inline_game(redis_url, monkeypatch)
    body = f"{command.replace(' ', chr(0xA0), 1)}\r\n\r\nViele Grüße, Ann\r\n".encode("latin-1")
    mail = raw_mail(reply_to, "Content-Type: text/plain; charset=iso-8859-1\r\nContent-Transfer-Encoding: 8bit\r\n\r\n",
                    body)
    fields = {"email": mail, "envelope": json.dumps({"to": [reply_to], "from": ANN}), "SPF": "pass",
              "dkim": "{@example.org : pass}"}
    with served:
        status, answer = post(served, fields)
    assert status == 200 and answer["status"] == "applied", answer
    [done] = answers_in(served.app)
    assert '"Viele Grüße, Ann"' in done["text"] and "\ufffd" not in done["text"]


@pytest.mark.parametrize("charset", ["iso-8859-1", "windows-1252"])
def test_a_parsed_post_is_read_in_the_charsets_it_names(redis_url, monkeypatch, charset):
    """Inbound Parse passes the text on in the mail's own charset and names it in `charsets`."""
    served, game_id, reply_to, command = served_inline_game(redis_url, monkeypatch)
    sign_off = "Grüße – Ann" if charset == "windows-1252" else "Grüße, Ann"
    fields: dict[str, str | bytes] = {
        **parse_fields(ANN, reply_to, None, from_name="Zoë"),
        "text": f"{command.replace(' ', chr(0xA0), 1)}\r\n\r\n{sign_off}\r\n".encode(charset),
        "html": f"<p>{command}</p><p>{sign_off}</p>".encode(charset),
        "charsets": json.dumps({"to": "UTF-8", "from": "UTF-8", "subject": "UTF-8", "text": charset, "html": charset}),
    }
    with served:
        status, answer = post(served, fields)
    assert status == 200 and answer["status"] == "applied", answer
    [done] = answers_in(served.app)
    assert f'"{sign_off}"' in done["text"]


@pytest.mark.parametrize("shape", ["unknown charset", "parts nested 2,000 deep", "parsed, unknown charset"])
def test_a_mail_the_parser_cannot_read_is_refused_once_and_not_retried(live, mail_workers, shape):
    """A real worker's job keeps it as unreadable, with the reason, at once and for good (it used to
    raise LookupError or RecursionError, three tries each); its sender passed the checks, so the seat
    hears why."""
    from rq.job import Job
    game_id = create(live, SEATS)
    mail_workers(1)
    reply_to = decision_mail(live, "Ann@example.org")["headers"]["Reply-To"]
    store = live.app.extensions["palazzo.store"]
    envelope = {"envelope": json.dumps({"to": [reply_to], "from": ANN}), "SPF": "pass", "dkim": "{@example.org : pass}"}
    if shape == "unknown charset":
        fields = {"email": raw_mail(reply_to, "Content-Type: text/plain; charset=x-martian\r\n\r\n", b"help\r\n"),
                  **envelope}
    elif shape == "parts nested 2,000 deep":
        opening = "".join(f'Content-Type: multipart/mixed; boundary="b{n}"\r\n\r\n--b{n}\r\n' for n in range(2000))
        fields = {"email": raw_mail(reply_to, opening + "Content-Type: text/plain\r\n\r\n", b"help\r\n"), **envelope}
    else:
        fields = {**parse_fields(ANN, reply_to, "help"), "charsets": json.dumps({"text": "x-martian", "from": "UTF-8"})}
    status, body = post(live, fields)
    assert status == 200 and body["status"] == "queued"
    wait_for(lambda: inbox.state(store.redis, body["message"]).get("status") == "unreadable")
    reason = inbox.state(store.redis, body["message"])["detail"]
    assert reason == ("its parts are nested too deeply to read" if "nested" in shape
                      else "it is written in a character set I do not know (x-martian)")
    job_id = f"pz-reply-{body['message']}"
    wait_for(lambda: not Job.exists(job_id, connection=store.followups.connection))  # finished: no record kept
    replies = store.followups.replies
    assert job_id not in replies.failed_job_registry.get_job_ids(), "not failed"
    assert job_id not in replies.scheduled_job_registry.get_job_ids() and job_id not in replies.job_ids, "nor retried"
    notice = answer_to(live, "Ann@example.org")
    assert notice["kind"] == "reply_refused" and f"I could not read your mail: {reason}." in notice["text"]
    assert [e["status"] for e in inbox.noted(store.redis, game_id)] == ["unreadable"]


def test_a_reply_done_keeps_only_its_state_and_that_no_longer_than_a_provider_posts_it_again(redis_url, monkeypatch):
    app, game_id, reply_to, _ = inline_game(redis_url, monkeypatch)
    store = app.extensions["palazzo.store"]
    fields = parse_fields(ANN, reply_to, "help")
    first = post_inline(app, fields)
    assert first["status"] == "help" and inbox.fields(store.redis, first["message"]) is None, "the mail's text is gone"
    state = f"pz:inbound:{{{first['message']}}}:state"
    assert 0 < store.redis.ttl(state) <= 3 * 24 * 3600 + 3600 and "plan" not in store.redis.hgetall(state)
    assert post_inline(app, fields) == {"status": "duplicate", "message": first["message"]}
    assert inbox.fields(store.redis, first["message"]) is None, "nor is it kept again"
    assert len(answers_in(app)) == 1


def test_a_reply_waits_on_its_own_queue_not_on_the_one_of_deadlines_and_bots(redis_url, monkeypatch):
    from rq import Queue

    from service.followups import QUEUE, REPLY_QUEUE
    from service.inbound import address
    monkeypatch.setenv("PALAZZO_MAIL_DOMAIN", DOMAIN)
    app = make_app(redis_url, JOBS="rq", INBOUND_SECRET=SECRET)
    connection = app.extensions["palazzo.store"].followups.connection
    reply_to = address.address(app.extensions["palazzo.links"], "0123456789abcdef", 0, 0, DOMAIN)
    key = post_inline(app, parse_fields(ANN, reply_to, "help"))["message"]
    assert Queue(REPLY_QUEUE, connection=connection).job_ids == [f"pz-reply-{key}"]
    assert Queue(QUEUE, connection=connection).job_ids == []


def test_a_reply_of_more_commands_than_a_turn_holds_plays_none_of_them(redis_url, monkeypatch):
    """Each command is a commit: a reply of a thousand standing orders would make a thousand."""
    from service import games
    from service.inbound import replies
    app, game_id, reply_to, _ = inline_game(redis_url, monkeypatch)
    store = app.extensions["palazzo.store"]
    orders = "\n".join(f"orders bid up to {300 + 10 * n} for juggler" for n in range(replies.MAX_COMMANDS + 1))
    assert post_inline(app, parse_fields(ANN, reply_to, orders))["status"] == "refused"
    table = games.load(store, game_id)
    assert not table.private_moves and not [e for e in store.log(game_id) if e["seat"] == 0]
    [refused] = answers_in(app)
    assert f"at most {replies.MAX_COMMANDS} commands" in refused["text"]
    one = "\n".join(orders.split("\n")[:replies.MAX_COMMANDS])
    assert post_inline(app, parse_fields(ANN, reply_to, one))["status"] == "applied", "a turn's worth is played"


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
    context.forget()
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
    assert inbox.state(store.redis, key)["status"] == "failed" and inbox.fields(store.redis, key)["text"] == b"help"
    context.forget()


def test_lines_that_make_one_turn_are_followed_up_once_not_after_each_line(redis_url, monkeypatch):
    """A reply of two lines (an action, then 'end') tells the followups once, after both: after each,
    a worker would mail the seat the decision between them, already answered when he reads it."""
    from rq import Queue

    from engine.pof import writing
    from service import games, playing
    from service.followups import QUEUE
    from service.inbound import address, message
    from service.inbound.replies import Replies
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
    fields = parse_fields(ANN, address.address(links, table.id, 0, 0, DOMAIN), f"{writing.write(action)}\nend")
    post = {name: value.encode() for name, value in fields.items()}
    key = inbox.key_of(message.read(post).message_id, post)
    inbox.keep(store.redis, key, post)
    assert Replies(store, links, app.extensions["palazzo.config"].mail).handle(key) == "applied"
    notified = [job for job in queue.get_jobs() if job.func_name == "workers.channels.game"]
    assert len(notified) == 1 and notified[0].id.endswith(f"-{games.load(store, table.id).version}")
