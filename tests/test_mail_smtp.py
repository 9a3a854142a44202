"""PALAZZO_MAIL_BACKEND=smtp against real SMTP servers on loopback (aiosmtpd, `tests/mail_servers.py`):
STARTTLS with AUTH, implicit TLS and plain; the message as received is the one SendGrid is given,
headers and parts; a 4xx is retried by the send job and a 5xx kept as undelivered for the host."""
from __future__ import annotations

import pytest

from service.mail import headers, sendgrid_api, undelivered
from service.mail.backends import PermanentMailError, RetryableMailError, deliver
from service.mail.message import Mail
from service.mail.settings import MailSettings
from tests import mail_games
from tests.conftest import make_app, wait_for
from tests.mail_servers import SmtpServer, certificate

DOMAIN = "palazzo.example"
REPLY_TO = "play+0123456789abcdef-1-0-abcdefghijklmnopqrstuvwxyz@palazzo.example"


@pytest.fixture(scope="module")
def cert(tmp_path_factory):
    return certificate(tmp_path_factory.mktemp("cert"))


def a_mail(to: str = "ann@example.org") -> Mail:
    """A decision mail as the notify job makes it: in the game's thread, with a reply address and
    one-click unsubscribe, a text part with non-ASCII words and long lines, and an HTML part."""
    found = headers.build(DOMAIN, "0123456789abcdef", "https://palazzo.example/u/abc", decision=(1, 7),
                          reply_to=REPLY_TO)
    text = "Your bid, Ann: the jester’s auction stands at 300 Florins.\n" + "Answer by mail: " + "bid 400 " * 20
    return Mail(to=to, subject="Your bid: the jester — 300 Florins", text=text,
                html="<p>Your bid, Ann: the jester&rsquo;s auction</p>", headers=found, kind="your_bid",
                game="0123456789abcdef", seat=1, holder=0, since=7)


def settings_of(server: SmtpServer, security: str, **more) -> MailSettings:
    environ = {**server.settings(security), "PALAZZO_MAIL_FROM": "Palazzo <palazzo@palazzo.example>", **more}
    return MailSettings.from_env(environ)


def test_through_starttls_and_auth_the_server_gets_the_message_sendgrid_is_given(cert, monkeypatch):
    monkeypatch.setenv("SSL_CERT_FILE", str(cert[0]))  # trust the test's own certificate
    mail = a_mail()
    with SmtpServer("starttls", cert) as server:
        assert deliver(mail, settings_of(server, "starttls"), None) == ""
        [received] = server.keeper.messages("ann@example.org")
    assert server.keeper.logins == [(b"palazzo", b"submission-secret")]
    given = sendgrid_api.payload(mail, settings_of(server, "starttls"))
    assert received["From"] == "Palazzo <palazzo@palazzo.example>" and received["To"] == mail.to
    assert received["Subject"] == mail.subject and received["Date"]
    assert received["Reply-To"] == given["reply_to"]["email"] == REPLY_TO
    for name, value in given["headers"].items():
        assert received[name] == value, name
    assert {"Message-ID", "In-Reply-To", "References", "List-Unsubscribe", "List-Unsubscribe-Post"} <= set(given["headers"])
    assert received.get_content_type() == "multipart/alternative"
    parts = [received.get_body((kind,)).get_content().replace("\r\n", "\n").rstrip("\n") for kind in ("plain", "html")]
    assert parts == [part["value"] for part in given["content"]], "lines end in CRLF on the wire"


def test_through_implicit_tls_and_only_to_a_server_whose_certificate_is_trusted(cert, monkeypatch):
    with SmtpServer("tls", cert) as server:
        settings = settings_of(server, "tls")
        with pytest.raises(RetryableMailError, match="unreachable"):
            deliver(a_mail(), settings, None)  # a self-signed certificate nobody said to trust
        assert not server.keeper.received
        monkeypatch.setenv("SSL_CERT_FILE", str(cert[0]))
        deliver(a_mail(), settings, None)
        assert len(server.keeper.messages()) == 1


def test_the_servers_answers_are_told_apart_as_sendgrids_are(cert, monkeypatch):
    monkeypatch.setenv("SSL_CERT_FILE", str(cert[0]))
    with SmtpServer("none") as server:
        server.keeper.refuse["gone@example.org"] = "550 5.1.1 no such user gone@example.org"
        server.keeper.refuse["full@example.org"] = "452 4.2.2 mailbox full"
        server.keeper.later.add("busy@example.org")
        settings = settings_of(server, "none")
        with pytest.raises(PermanentMailError) as refused:
            deliver(a_mail("gone@example.org"), settings, None)
        assert refused.value.status == 550 and "gone@" not in str(refused.value), "the code, never the server's text"
        with pytest.raises(RetryableMailError) as full:
            deliver(a_mail("full@example.org"), settings, None)
        assert full.value.status == 452
        with pytest.raises(RetryableMailError) as busy:
            deliver(a_mail("busy@example.org"), settings, None)
        assert busy.value.status == 451
        deliver(a_mail("busy@example.org"), settings, None)
        assert len(server.keeper.messages("busy@example.org")) == 1
    with SmtpServer("starttls", cert) as server:
        with pytest.raises(PermanentMailError) as denied:
            deliver(a_mail(), settings_of(server, "starttls", PALAZZO_SMTP_PASSWORD="wrong"), None)
        assert denied.value.status == 535 and not server.keeper.received
        with pytest.raises(PermanentMailError, match="does not offer"):
            deliver(a_mail(), settings_of(server, "none", PALAZZO_SMTP_USER="palazzo",
                                          PALAZZO_SMTP_PASSWORD="submission-secret"), None)  # AUTH only after STARTTLS
    with pytest.raises(RetryableMailError, match="unreachable") as closed:
        deliver(a_mail(), settings_of(server, "none"), None)  # nobody listens there any more
    assert closed.value.status is None
    assert undelivered.reason_of(closed.value) == "the provider could not be reached"
    assert undelivered.reason_of(refused.value) == "the provider refused it (550)"


def test_the_worker_retries_a_451_and_keeps_a_550_as_undelivered_for_the_host(redis_url, workers):
    """Real `palazzo worker` processes sending a real game's mail through the SMTP server."""
    with SmtpServer("none") as server:
        server.keeper.later.add("ann@example.org")
        server.keeper.refuse["bea@example.org"] = "550 5.1.1 no such user"
        workers(1, PALAZZO_MAIL_RETRY_SECONDS="1,1,1", PALAZZO_MAIL_FROM="Palazzo <palazzo@palazzo.example>",
                **server.settings("none"))
        app = make_app(redis_url, JOBS="rq")
        created = mail_games.start(app.test_client(), [{"name": "Ann", "email": "ann@example.org"},
                                                       {"name": "Bea", "email": "bea@example.org"},
                                                       {"name": "Cy", "bot": "random"}])
        game_id = created["game"]["id"]
        redis = app.extensions["palazzo.store"].redis
        def bea() -> list[dict]:
            return [e for e in undelivered.listed(redis, game_id) if e["to"] == "bea@example.org"]
        wait_for(lambda: [e for e in bea() if e["seat"] == 1])  # her decision mail; her invitation has no seat
        wait_for(lambda: server.keeper.messages("ann@example.org"))
        ann = server.keeper.messages("ann@example.org")
        assert server.keeper.tries["ann@example.org"] == len(ann) + 1, "the first try was answered 451, and retried"
        assert len({m["Message-ID"] for m in ann}) == len(ann), "each mail once"
        assert {e["reason"] for e in bea()} == {"the provider refused it (550)"}, "kept at once, not retried"
        assert not server.keeper.messages("bea@example.org")
