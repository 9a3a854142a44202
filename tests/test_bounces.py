"""Bounces of mail sent through SMTP: a delivery report (RFC 3464) that quotes a mail we sent to the address
it says failed stops mail to that address, as SendGrid's bounce event does; nothing else does. Real games
on a real redis-server, the local outbox as the provider (it records each sent mail as SMTP's does)."""
from __future__ import annotations

import pytest

from service import preferences, tokens
from service.config import Config
from service.inbound import bounces
from service.mail import sending, undelivered
from tests.conftest import make_app
from tests.delivery_reports import report
from tests.mail_games import decision_mail, start

ANN, BEA = "ann@example.org", "bea@example.org"
SEATS = [{"name": "Ann", "email": ANN}, {"name": "Bea", "email": BEA}, {"name": "Cy"}]
US = "palazzo@palazzo.example"


@pytest.fixture
def sent(redis_url):
    """A started game whose decision mail to Ann has left: (app, store, game id, that mail)."""
    app = make_app(redis_url)
    store = app.extensions["palazzo.store"]
    game_id = start(app.test_client(), SEATS)["game"]["id"]
    mail = decision_mail(app, game_id, 0)
    assert sending.send(store, mail, Config.from_env().mail).startswith("outbox-")
    return app, store, game_id, mail


def bounced(store, address: str) -> str | None:
    return preferences.read(store, tokens.email_hash(address))["bounced"]


def test_a_report_quoting_our_mail_to_the_failed_address_stops_its_mail_and_shows_the_host(sent):
    app, store, game_id, mail = sent
    reminder = decision_mail(app, game_id, 0, reminder=True)  # made before the report, sent after it
    for whole in (False, True):
        assert bounces.take(store, report(US, "Ann@Example.org", mail.message_id, whole=whole)) == 1
    assert bounced(store, ANN) == "bounce: 5.1.1"
    [shown, _] = undelivered.listed(store.redis, game_id)
    assert (shown["seat"], shown["to"], shown["kind"], shown["reason"]) == (
        0, "Ann@Example.org", "choose", "bounce: 5.1.1")
    assert sending.send(store, reminder, Config.from_env().mail) == "", "no more mail to an address that bounced"
    assert bounced(store, BEA) is None


def test_a_report_that_names_another_address_or_no_mail_of_ours_or_a_delay_changes_nothing(sent):
    _, store, game_id, mail = sent
    assert bounces.take(store, report(US, BEA, mail.message_id)) == 0, "Ann's mail does not vouch for Bea"
    assert bounces.take(store, report(US, ANN, "<made.up@palazzo.example>")) == 0
    assert bounces.take(store, report(US, ANN, mail.message_id, action="delayed", status="4.4.7")) == 0
    assert bounces.take(store, report(US, ANN, mail.message_id, status="4.2.2")) == 0, "a full mailbox may empty"
    assert bounced(store, ANN) is None and bounced(store, BEA) is None
    assert undelivered.listed(store.redis, game_id) == []


def test_only_a_delivery_status_report_is_read_as_one():
    raw = report(US, ANN, "<a@b>")
    assert bounces.is_report(raw)
    assert not bounces.is_report(raw.replace(b"report-type=delivery-status", b"report-type=disposition-notification"))
    assert not bounces.is_report(b"From: ann@example.org\r\nTo: play+x@palazzo.example\r\n\r\nbid 7\r\n")
    assert bounces.failures(raw.replace(b"Message-ID: <a@b>", b"X-Nothing: here")) == [], "quotes no mail"
