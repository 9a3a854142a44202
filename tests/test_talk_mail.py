"""Table talk by mail and by reply, end to end in one process: a real redis-server, the app over
Flask's test client, and RQ's own worker running the real jobs (posted, notify, send, replies) in
this process until the queues are empty, with the local outbox as the provider. The merge window's
flush and the day's digest, which RQ schedules for later, are run when the test says."""
from __future__ import annotations

from urllib.parse import unquote

import pytest

from service import mailbox, messages, tokens
from service.mail import headers, sending
from tests.conftest import SECRET as APP_SECRET
from tests.conftest import bearer, make_app, mailed_link
from tests.test_inbound import ANSWER_KINDS, DOMAIN, SECRET, listed, parse_fields

ANN, BEA, CY = "ann@example.org", "bea@example.org", "cy@example.org"
SEATS = [{"name": "Ann", "email": ANN}, {"name": "Bea", "email": BEA}, {"name": "Cy", "email": CY}, {"name": "Di"}]
DECISIONS = ("choose", "your_turn", "your_bid")


class Table:
    """A started four-seat game (three players with addresses, one with a seat token), its host, and
    RQ's worker to run what the last request queued."""

    def __init__(self, app) -> None:
        self.app, self.client = app, app.test_client()
        self.store = app.extensions["palazzo.store"]
        created = self.client.post("/api/v1/games", json={"game": "princes-of-florence", "seed": 5, "seats": SEATS}
                                   ).get_json()
        self.id, self.host = created["game"]["id"], created["tokens"]["host"]
        self.di = created["tokens"]["seats"][0]["token"]
        assert self.client.post(f"/api/v1/games/{self.id}/start", headers=bearer(self.host)).status_code == 200
        self.work()
        self.tokens: dict[str, str] = {}

    def work(self) -> None:
        from rq import SimpleWorker
        followups = self.store.followups
        SimpleWorker([followups.queue, followups.replies], connection=followups.connection).work(burst=True)

    def token(self, email: str) -> str:
        """A player token, got as a player gets one: the link mailed to him, redeemed."""
        if email not in self.tokens:
            assert self.client.post("/api/v1/sign-in", json={"email": email}).status_code == 202
            self.work()
            redeemed = self.client.post("/api/v1/sign-in/redeem", json={"link": unquote(mailed_link(self.app, email))})
            self.tokens[email] = redeemed.get_json()["token"]
        return self.tokens[email]

    def say(self, who: str, text: str, to: int | None = None) -> dict:
        token = self.host if who == "host" else self.di if who == "di" else self.token(who)
        answer = self.client.post(f"/api/v1/games/{self.id}/messages", headers=bearer(token),
                                  json={"text": text, "to": to})
        assert answer.status_code == 201, answer.get_json()
        return answer.get_json()

    def mails(self, to: str, kinds: tuple[str, ...] | None = None) -> list[dict]:
        return [m for m in mailbox.outbox(self.store) if m["to"] == to and (kinds is None or m["kind"] in kinds)]

    def reply(self, sender: str, mail: dict, text: str) -> None:
        fields = parse_fields(sender, mail["headers"]["Reply-To"], text, answering=mail["headers"]["Message-ID"])
        posted = self.client.post(f"/inbound/sendgrid/{SECRET}", data=fields, content_type="multipart/form-data")
        assert posted.status_code == 200, posted.get_json()
        self.work()

    def texts(self) -> list[tuple[int | None, int | None, str]]:
        """Every message kept, as (by, to, text)."""
        return [(m["by"], m["to"], m["text"]) for m in messages.since(self.store, self.id, 0)]


@pytest.fixture
def opened(redis_url, monkeypatch):
    """Open a table whose mails wait `merge` seconds for others (0: they leave at once)."""
    from workers import context

    def table_with(merge: int = 0) -> Table:
        for name, value in {"REDIS_URL": redis_url, "PALAZZO_SECRET": APP_SECRET, "PALAZZO_INBOUND_SECRET": SECRET,
                            "PALAZZO_MAIL_DOMAIN": DOMAIN, "PALAZZO_MAIL_MERGE_SECONDS": str(merge)}.items():
            monkeypatch.setenv(name, value)
        context.forget()
        return Table(make_app(redis_url, JOBS="rq", BOT_DELAY=0, INBOUND_SECRET=SECRET))
    yield table_with
    context.forget()


@pytest.fixture
def table(opened):
    return opened()


def test_each_reader_gets_a_message_by_itself_in_the_games_thread_as_text(table):
    table.say(ANN, "<b>Good luck</b>, see https://example.com/rules\nsecond line")
    table.say(ANN, "Bea, a word", to=1)
    table.work()
    assert not table.mails(ANN, ("talk",)), "no mail of one's own messages"
    [to_cy] = table.mails(CY, ("talk",))
    first, second = table.mails(BEA, ("talk",))
    assert "Bea, a word" not in to_cy["text"] + to_cy["html"] + to_cy["subject"]
    assert first["subject"].startswith("Ann to the table") and second["subject"].startswith("Ann to you alone")
    assert "  | <b>Good luck</b>, see https://example.com/rules\n  | second line" in first["text"]
    assert "&lt;b&gt;Good luck&lt;/b&gt;" in first["html"] and "<b>Good luck" not in first["html"]
    assert 'href="https://example.com' not in first["html"], "a link in a message is not made one"
    root = headers.root_id(table.id, "127.0.0.1")
    assert first["headers"]["In-Reply-To"] == root and root in first["headers"]["References"]
    assert headers.talk_in(first["headers"]["Message-ID"]) == (table.id, 1, 1)
    assert first["headers"]["Reply-To"].startswith(f"play+{table.id}-1-0-")
    assert "Reply to this mail to write to the table" in first["text"]
    assert "Reply to this mail to write to Ann alone" in second["text"]
    unsubscribe = first["headers"]["List-Unsubscribe"].strip("<>").removeprefix("http://127.0.0.1:8000")
    assert table.client.post(unsubscribe, data={"List-Unsubscribe": "One-Click"}).status_code == 200
    table.say(CY, "anyone?")
    table.work()
    assert len(table.mails(BEA, ("talk",))) == 2 and table.mails(ANN, ("talk",)), \
        "one click stopped this game's talk mail to Bea, and only that"


def test_a_message_and_a_decision_due_in_the_same_window_come_as_one_mail(opened):
    from workers import notify
    table = opened(merge=30)
    assert not table.mails(BEA, DECISIONS + ("talk",)), "the decision mails wait for the window"
    table.say(ANN, "Shall we keep the jugglers cheap?")
    table.work()
    assert notify.flush(tokens.email_hash(BEA)) == 2
    table.work()
    [mail] = table.mails(BEA)[-1:]
    assert mail["kind"] == "choose" and [p["kind"] for p in mail["parts"]] == ["choose", "talk"]
    assert "Shall we keep the jugglers cheap?" in mail["text"] and "keep " in mail["text"]
    assert headers.decision_in(mail["headers"]["Message-ID"]), "a reply to it answers the decision"
    assert len(table.mails(BEA, DECISIONS + ("talk", "merged"))) == 1

    ann = bearer(table.token(ANN))  # Ann answers her decision before her window ends: the talk goes alone
    listed_moves = table.client.get(f"/api/v1/games/{table.id}/moves", headers=ann).get_json()
    table.client.post(f"/api/v1/games/{table.id}/moves", headers=ann,
                      json={"move": listed_moves["moves"][0]["move"], "version": listed_moves["version"]})
    table.say(CY, "Ann, you were quick", to=0)
    table.work()
    notify.flush(tokens.email_hash(ANN))
    table.work()
    [alone] = table.mails(ANN, DECISIONS + ("talk", "merged"))
    assert alone["kind"] == "talk" and [p["kind"] for p in alone["parts"]] == ["talk"]


def test_a_message_hidden_before_its_mail_leaves_is_not_sent(opened):
    from workers import notify
    table = opened(merge=30)
    table.say(ANN, "something rude")
    table.work()
    assert table.client.post(f"/api/v1/games/{table.id}/messages/1/hide", headers=bearer(table.host)).status_code == 200
    notify.flush(tokens.email_hash(BEA))
    table.work()
    [mail] = table.mails(BEA, DECISIONS + ("talk", "merged"))
    assert mail["kind"] == "choose" and not mail["parts"] and "something rude" not in mail["text"] + mail["html"], \
        "the decision it waited with leaves alone"
    table.say(ANN, "rude again")
    table.work()
    table.client.post(f"/api/v1/games/{table.id}/messages/2/hide", headers=bearer(table.host))
    notify.flush(tokens.email_hash(BEA))
    table.work()
    assert len(table.mails(BEA, DECISIONS + ("talk", "merged"))) == 1
    assert int(table.store.redis.hget(sending.DROPPED, "talk") or 0) == 1


def test_a_daily_digest_lists_the_days_messages_and_none_means_none(table):
    from service import timers
    from workers import digest, talk
    early = table.say(ANN, "before the digest was chosen")
    assert early["seq"] == 1
    table.work()
    for email, choice in ((BEA, "digest"), (CY, "none")):
        chosen = table.client.put("/api/v1/me/settings", headers=bearer(table.token(email)),
                                  json={"talk": {table.id: choice}})
        assert chosen.get_json()["talk"] == {table.id: choice}
    table.say(ANN, "for the table")
    table.say(ANN, "for Bea alone", to=1)
    table.say(CY, "for Ann alone", to=0)
    table.say(BEA, "my own")
    table.work()
    assert [m["subject"] for m in table.mails(BEA, ("talk",))] == [table.mails(BEA, ("talk",))[0]["subject"]], \
        "Bea got the first message one by one, before she chose the digest, and none after"
    assert len(table.mails(CY, ("talk",))) == 1 and len(table.mails(ANN, ("talk",))) == 1 + 1
    bea = tokens.email_hash(BEA)
    assert timers.pending_at(table.store, digest.JOB, bea, job_id=f"pz-digest-{bea}"), "her digest is coming"
    assert table.client.put("/api/v1/me/settings", headers=bearer(table.token(BEA)),
                            json={"talk": {table.id: "digest"}}).status_code == 200, "chosen again: nothing skipped"
    assert talk.digest(tokens.email_hash(BEA)) == 2
    table.work()
    [digest] = table.mails(BEA, ("digest",))
    assert "  | for the table" in digest["text"] and "  | for Bea alone" in digest["text"]
    assert all(text not in digest["text"] + digest["html"]
               for text in ("before the digest", "for Ann alone", "my own"))
    assert f"<game-{table.id}@" in digest["headers"]["References"], "one game's digest is in its thread"
    assert talk.digest(tokens.email_hash(BEA)) == 0 and len(table.mails(BEA, ("digest",))) == 1, "since the last one"
    assert talk.digest(tokens.email_hash(CY)) == 0 and not table.mails(CY, ("digest",))


def test_say_and_tell_lines_in_a_reply_are_messages_beside_its_commands(table):
    [first] = table.mails(ANN, ("choose",))
    command = listed(first)[0]
    table.reply(ANN, first, f"Hi all,\n{command}\nsay Good luck, everyone!\ntell bea: keep the lake for me\n"
                            f"tell Zed hello\ntell seat 4 you too\n\nThanks,\nAnn\n\n"
                            f"On Tue, 2 Dec 2025 at 18:00, Palazzo <palazzo@{DOMAIN}> wrote:\n> say quoted, not mine\n")
    [answer] = table.mails(ANN, ANSWER_KINDS)
    assert answer["kind"] == "reply_done", answer["text"]
    assert 'Posted to the table: "Good luck, everyone!"' in answer["text"]
    assert 'Posted to Bea alone: "keep the lake for me"' in answer["text"]
    assert 'Posted to Di alone: "you too"' in answer["text"]
    assert 'Not posted: your line "tell Zed hello": no player at this table is called so' in answer["text"]
    [unread] = [line for line in answer["text"].splitlines() if "not read as commands" in line]
    assert '"Thanks,", "Ann"' in unread and "say" not in unread and "tell" not in unread, "no talk line is unreadable"
    assert table.texts() == [(0, None, "Good luck, everyone!"), (0, 1, "keep the lake for me"), (0, 3, "you too")]
    assert len([e for e in table.store.log(table.id) if e["seat"] == 0]) == 1, "and the command was played"
    talked = table.mails(BEA, ("talk",))
    assert [m["subject"].split(" ·")[0] for m in talked] == ["Ann to the table", "Ann to you alone"]
    assert [m["subject"].split(" ·")[0] for m in table.mails(CY, ("talk",))] == ["Ann to the table"]


def test_a_reply_to_a_message_mail_is_a_message_back_where_it_came_from(table):
    table.say(ANN, "Bea, shall we share the lake?", to=1)
    table.say(CY, "Hello table")
    table.work()
    private, public = table.mails(BEA, ("talk",))
    table.reply(BEA, private, "Yes, gladly.\nLet us talk tomorrow.\n\n-- \nBea's phone")
    table.reply(BEA, public, "Hello Cy")
    assert table.texts()[2:] == [(1, 0, "Yes, gladly.\nLet us talk tomorrow."), (1, None, "Hello Cy")]
    answers = table.mails(BEA, ANSWER_KINDS)
    assert [a["kind"] for a in answers] == ["reply_said", "reply_said"]
    assert 'Posted to Ann alone: "Yes, gladly. Let us talk tomorrow."' in answers[0]["text"]
    assert len(table.store.log(table.id)) == 0 or all(e["seat"] != 1 for e in table.store.log(table.id)), "no move"
    table.say("host", "Bea, the host here", to=1)
    table.work()
    from_host = table.mails(BEA, ("talk",))[-1]
    assert "cannot reach him" in from_host["text"]
    table.reply(BEA, from_host, "Thanks, host")
    assert len(table.texts()) == 5 and "cannot reach him" in table.mails(BEA, ANSWER_KINDS)[-1]["text"]


def test_bad_talk_by_mail_is_answered_and_nothing_is_kept(table):
    [first] = table.mails(ANN, ("choose",))
    table.reply(ANN, first, "say " + "x" * 2001)
    [answer] = table.mails(ANN, ANSWER_KINDS)
    assert answer["kind"] == "reply_said" and "at most 2,000 characters" in answer["text"]
    table.reply(ANN, first, "tell Ann myself")
    assert "another seat than your own" in table.mails(ANN, ANSWER_KINDS)[-1]["text"]
    [cy] = table.mails(CY, ("choose",))
    handed = table.client.put(f"/api/v1/games/{table.id}/seats/2", headers=bearer(table.host),
                              json={"name": "Cy", "email": "cyrus@example.org"})
    assert handed.status_code == 200
    table.reply(CY, cy, "say I am still here")
    assert table.texts() == [] and not table.mails(CY, ANSWER_KINDS), "an earlier holder's reply posts nothing"
