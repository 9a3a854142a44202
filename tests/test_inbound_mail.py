"""The pieces of replying by mail, without workers: reply addresses, reading Inbound Parse posts, the
SPF/DKIM check, the kept mail, and the mails that carry commands and answer replies (rendered from a
seat's own view only)."""
from __future__ import annotations

import json
from email.message import EmailMessage

import fakeredis
import pytest

from engine.pof import GAME
from service.games import RUNNING, Table
from service.inbound import address, inbox, message
from service.links import Links
from service.mail import headers, render
from service.mail.sendgrid_api import payload
from service.mail.settings import MailSettings
from tests.test_mail_render import NOW, TABLE, links, play_until, waiting

LINKS = Links("k" * 40, "https://palazzo.example")
GAME_ID = "e1f24b4c321c85fa"


def test_a_reply_address_names_its_seat_and_holder_and_cannot_be_made_without_the_secret():
    made = address.address(LINKS, GAME_ID, 3, 0, "palazzo.example")
    local = made.split("@")[0]
    assert local.startswith(f"play+{GAME_ID}-3-0-") and local == local.lower()
    assert address.seat_of(LINKS, [made]) == (GAME_ID, 3, 0)
    assert address.seat_of(LINKS, ["Ann <ann@example.org>", made.upper()]) == (GAME_ID, 3, 0), "case does not matter"
    assert address.seat_of(LINKS, [made.replace("-3-", "-2-")]) is None
    assert address.seat_of(LINKS, [made.replace(GAME_ID, "e1f24b4c321c85fb")]) is None
    assert address.seat_of(LINKS, [made.replace("-3-0-", "-3-1-")]) is None, "a holder's address names no other holder"
    assert address.seat_of(Links("o" * 40, "https://palazzo.example"), [made]) is None, "another server's secret"
    assert address.seat_of(LINKS, ["play@palazzo.example", "play+x@palazzo.example", ""]) is None
    later = address.address(LINKS, GAME_ID, 12, 999_999, "palazzo.example")
    assert address.seat_of(LINKS, [later]) == (GAME_ID, 12, 999_999) and len(later.split("@")[0]) <= 64


def test_an_address_made_before_holders_were_counted_reads_as_the_first_holders():
    made = address.address(LINKS, GAME_ID, 3, 0, "palazzo.example")
    before = made.replace("-3-0-", "-3-")  # play+<game>-<seat>-<tag>, as decision mails carried it then
    assert address.seat_of(LINKS, [before]) == (GAME_ID, 3, 0)
    assert address.seat_of(LINKS, [address.address(LINKS, GAME_ID, 3, 1, "p.example").replace("-3-1-", "-3-")]) is None


def test_decision_mails_name_their_decision_in_their_message_id():
    made = headers.decision_id("palazzo.example", GAME_ID, 2, 41)
    assert headers.decision_in(made) == (GAME_ID, 2, 41)
    assert headers.decision_in(headers.message_id("palazzo.example")) is None
    built = headers.build("palazzo.example", GAME_ID, decision=(2, 41), reply_to="play+x@palazzo.example",
                          answering="<theirs@example.org>")
    assert headers.decision_in(built["Message-ID"]) == (GAME_ID, 2, 41)
    assert built["In-Reply-To"] == "<theirs@example.org>" and built["References"].endswith("<theirs@example.org>")
    assert built["Reply-To"] == "play+x@palazzo.example"


def parsed_post(**fields: str | bytes) -> dict[str, bytes]:
    """A post in parsed mode as the endpoint keeps it (bytes); str fields are written in UTF-8."""
    base = {"from": "Ann <Ann@Example.org>", "to": "play+a-0-x@palazzo.example, Bea <bea@example.org>",
            "cc": "cid@example.org", "text": "bid 300",
            "envelope": json.dumps({"to": ["play+a-0-x@palazzo.example"], "from": "bounce@mail.example.org"}),
            "headers": "Message-ID: <m1@example.org>\nIn-Reply-To: <d2@palazzo.example>\n"
                       "References: <root@palazzo.example> <d1@palazzo.example> <d2@palazzo.example>\n",
            "SPF": "pass", "dkim": "{@example.org : pass}"}
    return {name: value.encode() if isinstance(value, str) else value for name, value in {**base, **fields}.items()}


def test_a_post_in_parsed_mode_is_read():
    mail = message.read(parsed_post())
    assert mail.sender == "Ann@Example.org" and message.text(parsed_post()) == "bid 300"
    assert mail.recipients == ["play+a-0-x@palazzo.example", "play+a-0-x@palazzo.example", "bea@example.org",
                               "cid@example.org"]
    assert mail.message_id == "<m1@example.org>"
    assert mail.answers == ["<d2@palazzo.example>", "<d2@palazzo.example>", "<d1@palazzo.example>",
                            "<root@palazzo.example>"]
    html_only = parsed_post(text="", html="<p>bid&nbsp;400</p><blockquote>bid 300</blockquote>")
    assert message.text(html_only) == "bid 400" and not mail.automatic


@pytest.mark.parametrize("header", ["Auto-Submitted: auto-replied", "Precedence: bulk", "X-Autoreply: yes"])
def test_a_mail_sent_by_a_program_is_known_as_such(header):
    assert message.read(parsed_post(headers=f"Message-ID: <ooo@example.org>\n{header}\n")).automatic
    assert not message.read(parsed_post(headers="Auto-Submitted: no\n")).automatic


def test_a_post_in_raw_mode_is_read():
    raw = EmailMessage()
    raw["From"], raw["To"], raw["Subject"] = "Ann <ann@example.org>", "play+a-0-x@palazzo.example", "Re: turn"
    raw["Message-ID"], raw["In-Reply-To"] = "<raw@example.org>", "<d@palazzo.example>"
    raw.set_content("build tower at A1 B1 C1\n\n> quoted\n")
    raw.add_alternative("<p>ignored: the text part wins</p>", subtype="html")
    post = {"email": raw.as_bytes(), "SPF": b"pass"}
    mail = message.read(post)
    assert message.text(post).startswith("build tower at A1 B1 C1") and mail.sender == "ann@example.org"
    assert mail.recipients == ["play+a-0-x@palazzo.example"] and mail.answers == ["<d@palazzo.example>"]
    assert mail.message_id == "<raw@example.org>"


def test_a_posts_fields_are_read_as_the_bytes_sent_only_those_asked_for_each_capped():
    from io import BytesIO

    from service.inbound import form
    body = (b'--xYz\r\nContent-Disposition: form-data; name="text"\r\n\r\nGr\xfc\xdfe\xa0bid 300\r\n'
            b'--xYz\r\nContent-Disposition: form-data; name="attachment1"; filename="photo.jpg"\r\n'
            b'Content-Type: image/jpeg\r\n\r\n' + b"\xff\xd8" * 5000 + b'\r\n'
            b'--xYz\r\nContent-Disposition: form-data; name="spam_report"\r\n\r\nnot kept\r\n'
            b'--xYz\r\nContent-Disposition: form-data; name="html"\r\n\r\n' + b"<p>x</p>" * 100 + b'\r\n'
            b'--xYz--\r\n')
    read = form.fields(BytesIO(body), "multipart/form-data; boundary=xYz", message.FIELDS, 80)
    assert read == {"text": b"Gr\xfc\xdfe\xa0bid 300", "html": b"<p>x</p>" * 10}
    with pytest.raises(ValueError):
        form.fields(BytesIO(body[:300]), "multipart/form-data; boundary=xYz", message.FIELDS, 80)
    with pytest.raises(ValueError):
        form.fields(BytesIO(b"text=bid"), "application/x-www-form-urlencoded", message.FIELDS, 80)


def test_text_is_read_in_its_charset_and_a_charset_nobody_knows_is_unreadable():
    assert message.text(parsed_post(text="bid\xa0300 Grüße".encode("cp1252"),
                                    charsets=json.dumps({"text": "windows-1252"}))) == "bid\xa0300 Grüße"
    with pytest.raises(message.UnreadableMail, match=r"character set I do not know \(x-martian\)"):
        message.text(parsed_post(charsets=json.dumps({"text": "x-martian"})))
    odd_from = parsed_post(charsets=json.dumps({"from": "x-martian"}))
    assert message.read(odd_from).sender == "Ann@Example.org", "addresses are read whatever their charset"


def test_of_a_mails_text_at_most_max_lines_lines_and_max_chars_characters_are_read():
    """The work a reply can cause is bounded: a megabyte of lines that nearly start like a command
    kept the grammar busy for 12 s; what a person writes, quotes and all, fits in easily."""
    flood = message.text(parsed_post(text="bidd 300\n" * 100_000))
    assert flood.count("\n") == message.MAX_LINES - 1 and len(flood) <= message.MAX_CHARS
    assert "bid 300" not in message.text(parsed_post(text="\n" * message.MAX_LINES + "bid 300"))
    assert len(message.text(parsed_post(text="bid 300 " * 100_000))) == message.MAX_CHARS
    assert message.text(parsed_post(text="bid 300\n\n> quoted\n" * 20)) == "bid 300\n\n> quoted\n" * 20


@pytest.mark.parametrize("spf, dkim, envelope_from, expected", [
    (None, None, None, None),  # the post says nothing: not checked
    ("pass", None, "ann@example.org", True),
    ("pass", None, "bounce@mail.example.org", True),  # a subdomain of the sender's is aligned
    ("pass", None, "bounce@evil.example", False),  # SPF vouches for another domain
    ("pass", None, None, False),  # no envelope sender: SPF vouched for nobody
    ("pass", None, "", False),  # an empty one (a bounce's <>), likewise
    ("pass", "{@evil.example : pass}", "", False),
    ("pass", "{@example.org : pass}", "", True),  # DKIM still vouches
    ("softfail", "{@example.org : pass}", None, True),
    ("pass", None, "ann@Example.ORG", True),
    ("fail", "{@example.org : fail}", None, False),
    ("none", "{@evil.example : pass}", None, False),
    (None, "{@evil.example : pass, @example.org : pass}", None, True),
    ("neutral", "none", None, False),
])
def test_spf_or_dkim_must_pass_for_the_senders_domain_when_the_post_says(spf, dkim, envelope_from, expected):
    mail = message.Inbound(sender="ann@example.org", recipients=[], spf=spf, dkim=dkim, envelope_from=envelope_from)
    assert message.authenticated(mail) is expected


def test_a_mail_is_kept_once_by_its_message_id_with_its_bytes_as_posted():
    redis = fakeredis.FakeRedis(decode_responses=True)
    latin = {"text": "bid 300\n\nGrüße".encode("latin-1"), "from": b"ann@example.org"}
    key = inbox.key_of("<m1@example.org>", latin)
    assert key == inbox.key_of("<m1@example.org>", {"text": b"other fields of a second post"})
    assert key != inbox.key_of(None, {"text": b"bid 300"}) != inbox.key_of(None, {"text": b"bid 400"})
    assert inbox.keep(redis, key, latin) == "received" == inbox.state(redis, key)["status"]
    assert 0 < redis.ttl(f"pz:inbound:{{{key}}}:raw") <= inbox.TTL
    inbox.update(redis, key, status="applied", plan={"moves": [{"type": "end_turn"}]})
    assert inbox.state(redis, key) == {"status": "applied", "plan": {"moves": [{"type": "end_turn"}]}}
    assert inbox.keep(redis, key, {"text": b"again"}) == "applied", "a second post finds what became of the mail"
    assert inbox.fields(redis, key) == latin, "the bytes come back exactly"
    assert inbox.claim(redis, key, "answer") and not inbox.claim(redis, key, "answer")


def reply_of(state: dict, seat: int) -> render.Reply:
    """How the seat answers by mail in a game at `state`, as the mails that carry commands say it."""
    table = Table(GAME_ID, 9, 9, RUNNING, {"seats": [{}, {}, {"holder": 2}, {}, {}]}, state, [], game=GAME)
    reply = address.reply_for(LINKS, table, seat, "palazzo.example")
    assert reply is not None and address.seat_of(LINKS, [reply["address"]]) == (GAME_ID, seat, table.holder(seat))
    return reply


@pytest.mark.parametrize("kind", ["keep_professions", "open_auction", "bid", "action", "place_landscape",
                                  "choose_card", "split_payout"])
def test_a_decision_mail_lists_the_commands_of_the_seats_own_options(kind):
    state, _ = play_until(waiting(kind))
    pending = {**GAME.pending(state)[0], "deadline_at": "2025-12-02T17:00:00Z", "since": 9}
    seat = pending["seat"]
    to = render.Recipient(f"p{seat}@example.org", "Ann", seat)
    reply = reply_of(state, seat)
    mail = render.decision(GAME.view(state, seat), pending, TABLE, to, links(seat), NOW,
                           GAME.default_move(state, seat), reply)
    assert mail.headers["Reply-To"] == reply["address"] and headers.decision_in(mail.headers["Message-ID"])[1:] == (seat, 9)
    for line, _ in reply["commands"]:
        assert f"\n  {line}" in mail.text and line in mail.html
    assert "rows 1-7 from the top" in mail.text and reply["address"] in mail.text
    if kind in ("place_landscape", "action"):
        assert "A B C D E F G" in mail.text and "A B C D E F G" in mail.html
    plain = render.decision(GAME.view(state, seat), pending, TABLE, to, links(seat), NOW)
    assert "Reply-To" not in plain.headers and "Answer by mail" not in plain.text


def test_an_answer_is_rendered_from_the_seats_own_view_only():
    state, _ = play_until(waiting("bid"))
    pending = {**GAME.pending(state)[0], "deadline_at": "2025-12-02T17:00:00Z", "since": 9}
    seat = pending["seat"]
    to = render.Recipient(f"p{seat}@example.org", "Ann", seat)
    outcome = {"kind": "refused", "reason": "the next bid must be exactly 400", "line": "bid 900",
               "message_id": "<theirs@example.org>", "ignored": ["Thanks"]}
    mail = render.answer(GAME.view(state, seat), pending, TABLE, to, links(seat), NOW, outcome, reply_of(state, seat))
    assert mail.kind == "reply_refused" and mail.subject.startswith("Not played: bid 900")
    assert "the next bid must be exactly 400" in mail.text and '"Thanks"' in mail.text
    assert mail.headers["In-Reply-To"] == "<theirs@example.org>" and mail.headers["Reply-To"]
    assert mail.headers["Auto-Submitted"] == "auto-replied", "so that an out-of-office program leaves it alone"
    with pytest.raises(ValueError):
        render.answer(state, pending, TABLE, to, links(seat), NOW, outcome)
    with pytest.raises(ValueError):
        render.answer(GAME.view(state, (seat + 1) % 3), pending, TABLE, to, links(seat), NOW, outcome)
    for kind in ("done", "stale", "help", "closed", "not_yours", "unverified"):
        answer = render.answer(GAME.view(state, seat), None, TABLE, to, links(seat), NOW,
                               {"kind": kind, "done": ["Bid 400"], "reason": "why"})
        assert answer.kind == f"reply_{kind}" and "Nothing waits for you now" in answer.text


def test_an_answer_says_which_line_needed_no_move():
    """The example turn ends with 'end' after two actions, which end the turn by themselves: the answer
    says so, rather than leaving the player to wonder whether his 'end' was read."""
    state, _ = play_until(waiting("bid"))
    seat = GAME.pending(state)[0]["seat"]
    to = render.Recipient(f"p{seat}@example.org", "Ann", seat)
    outcome = {"kind": "done", "done": ["Buy the freedom of travel", "Buy a profession"],
               "settled": [["end", "your turn had ended by itself after its second action"]]}
    mail = render.answer(GAME.view(state, seat), None, TABLE, to, links(seat), NOW, outcome)
    said = 'Your line "end" needed no move: your turn had ended by itself after its second action.'
    assert said in mail.text and "<code>end</code> needed no move" in mail.html


def test_a_mail_the_job_gave_up_on_stays_kept_for_the_host():
    from service.inbound.replies import Replies
    from service.store import Store
    store = Store(fakeredis.FakeRedis(decode_responses=True))
    inbox.keep(store.redis, "k1", {"text": b"bid 300"})
    inbox.update(store.redis, "k1", game=GAME_ID, seat=2)
    Replies(store, LINKS, MailSettings()).failed("k1", "RuntimeError: boom")
    assert inbox.state(store.redis, "k1")["status"] == "failed" and inbox.fields(store.redis, "k1")
    [kept] = inbox.noted(store.redis, GAME_ID)
    assert (kept["message"], kept["seat"], kept["status"], kept["detail"]) == ("k1", 2, "failed", "RuntimeError: boom")


def test_sendgrid_gets_the_reply_address_in_its_own_field():
    mail = render.Mail(to="ann@example.org", subject="s", text="t",
                       headers={"Message-ID": "<m@x>", "Reply-To": "play+g-0-x@palazzo.example"})
    body = payload(mail, MailSettings(backend="sendgrid", sendgrid_api_key="SG.x.y"))
    assert body["reply_to"] == {"email": "play+g-0-x@palazzo.example"} and body["headers"] == {"Message-ID": "<m@x>"}


def test_replies_are_taken_only_with_an_inbound_secret_and_go_to_the_mail_domain():
    assert not MailSettings.from_env({}).replies
    settings = MailSettings.from_env({"PALAZZO_INBOUND_SECRET": "s", "PALAZZO_BASE_URL": "https://play.example"})
    assert settings.replies and settings.reply_domain == "play.example"
    assert MailSettings.from_env({"PALAZZO_MAIL_DOMAIN": "In.Palazzo.Example"}).reply_domain == "in.palazzo.example"
