"""Mail the provider refused shows to the host as when, to whom, what kind and why, in our words and
status codes: never its subject, and never the provider's answer, which may quote the mail.

The provider (tests/provider_stub.py, through the real sendgrid library) refuses the answer to a reply
that kept three professions: the very mail whose subject ("Done: Keep ...") once reached the host."""
from __future__ import annotations

import logging

import pytest

from service import counters, preferences, tokens
from service.inbound import address
from service.mail import undelivered
from service.mail.message import Mail
from tests.conftest import bearer, make_app, new_game
from tests.provider_stub import Provider
from tests.test_inbound import DOMAIN, SECRET, parse_fields, post_inline
from tests.web_client import enter_host, table
from tests.web_leaks import shows

pytest.importorskip("engine.pof")

ANN = "ann@example.org"


def _refusing_answers(payload: dict) -> int:
    return 400 if payload["categories"][1].startswith("reply_") else 202


def test_the_host_sees_no_subject_or_provider_text_of_a_refused_mail(redis_url, monkeypatch):
    with Provider(_refusing_answers) as provider:
        for name, value in {**provider.env(), "PALAZZO_MAIL_DOMAIN": DOMAIN}.items():
            monkeypatch.setenv(name, value)
        app = make_app(redis_url, INBOUND_SECRET=SECRET)
        client = app.test_client()
        created = client.post("/api/v1/games", json={"game": "princes-of-florence", "seed": 5, "seats": [
            {"name": "Ann", "email": ANN}, {"name": "Bot", "bot": "random"}, {"name": "Cy", "bot": "greedy"}],
            "deadlines": {"setup": 3600}}).get_json()
        game_id, host = created["game"]["id"], bearer(created["tokens"]["host"])
        assert client.post(f"/api/v1/games/{game_id}/start", headers=host).status_code == 200
        reply_to = address.reply_for(app.extensions["palazzo.links"], table(app, game_id), 0, DOMAIN)["address"]
        dealt = table(app, game_id).state["pending"][0]["private"]["dealt"]
        hidden = [card for card in dealt[:3] if not shows("", card) and shows(card.replace("_", " "), card)]
        assert post_inline(app, parse_fields(ANN, reply_to, "keep " + " ".join(dealt[:3])))["status"] == "applied"
        [answer] = [m for m in provider.mails if m["categories"][1] == "reply_done"]
        assert hidden and all(shows(answer["subject"], card) for card in hidden), answer["subject"]

        seen = client.get(f"/api/v1/games/{game_id}", headers=host).get_json()["undelivered"]
        enter_host(app, client, game_id)
        page = client.get(f"/games/{game_id}/host").get_data(as_text=True)
        for text in (str(seen), page):
            assert not [card for card in hidden if shows(text, card)] and "refused '" not in text, text
        assert seen == [{"at": seen[0]["at"], "seat": 0, "to": ANN, "kind": "reply_done",
                         "reason": "the provider refused it (400)"}]
        assert app.extensions["palazzo.store"].redis.hgetall(counters.MAILS_FAILED) == {"reply_done": "1"}
        shown = page.split("Mail that did not arrive")[1].split("</section>")[0]
        assert "an answer to a reply to Ann, ann@example.org (the provider refused it (400))" in shown

def test_a_failed_send_logs_and_keeps_no_word_of_the_provider(redis_url, monkeypatch, caplog):
    """The send job (workers.mailing, as RQ runs it) against a provider whose refusal quotes the mail."""
    from workers import context, mailing
    game_id = new_game(make_app(redis_url).test_client(), emails=True)["game"]["id"]  # a real seat, due its mail
    with Provider(lambda payload: 400) as provider:
        for name, value in {**provider.env(), "REDIS_URL": redis_url}.items():
            monkeypatch.setenv(name, value)
        context.forget()
        mail = Mail(to="p0@example.org", subject="Done: Keep jurist, painter, map maker", text="You keep the jurist.",
                    kind="reply_done", game=game_id, seat=0, holder=0)
        with caplog.at_level(logging.INFO):
            assert mailing.send(mail.to_json()) == ""
        logged = "\n".join(record.getMessage() for record in caplog.records)
        assert "refused it (400)" in logged and "jurist" not in logged
        kept = undelivered.listed(context.store().redis, game_id)
        assert [m["reason"] for m in kept] == ["the provider refused it (400)"]
        context.forget()


def test_a_bounce_keeps_its_kind_and_codes_not_the_servers_words(redis_url):
    app = make_app(redis_url, MAIL_EVENTS_SECRET="hook-secret")
    event = {"email": ANN, "event": "bounce", "game": "g1", "seat": "0", "kind": "reply_done", "status": "5.7.1",
             "reason": "550 5.7.1 <ann@example.org>: message 'Done: Keep jurist' rejected as spam"}
    assert app.test_client().post("/hooks/sendgrid/hook-secret", json=[event]).status_code == 204
    assert preferences.read(app.extensions["palazzo.store"], tokens.email_hash(ANN))["bounced"] == "bounce: 550 5.7.1"
    [kept] = undelivered.listed(app.extensions["palazzo.store"].redis, "g1")
    assert {**kept, "at": None} == {"at": None, "seat": 0, "to": ANN, "kind": "reply_done",
                                    "reason": "bounce: 550 5.7.1"}
