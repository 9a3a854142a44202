"""The SendGrid backend through the real sendgrid library, against a stub of POST /v3/mail/send on loopback."""
from __future__ import annotations

import json
import os
import signal
import socket
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import fakeredis
import pytest

from service.mail import render
from service.mail.backends import PermanentMailError, RetryableMailError, deliver
from service.mail.message import Mail
from service.mail.settings import MailSettings
from tests.test_mail_render import ROOT, TABLE, decision_mail

KEY = "SG.test-key.not-a-real-one"
DOMAIN = "palazzo.example"


class Stub:
    """What the stub answers next, and every request it got. It answers once `answer` is set (a test
    clears it to hold a request while it changes the world), after calling `before_answer`."""

    def __init__(self) -> None:
        self.status = 202
        self.delay = 0.0
        self.requests: list[dict] = []
        self.answer = threading.Event()
        self.answer.set()
        self.before_answer: Callable[[], None] | None = None


@pytest.fixture
def stub():
    state = Stub()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            state.requests.append({"path": self.path, "headers": dict(self.headers), "json": json.loads(body)})
            state.answer.wait()
            if state.before_answer is not None:
                state.before_answer()
            time.sleep(state.delay)
            answer = b"" if state.status == 202 else json.dumps({"errors": [{"message": "stub says no"}]}).encode()
            self.send_response(state.status)
            self.send_header("X-Message-Id", "sg-stub-id-1")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *args) -> None:
            pass

    class Server(ThreadingHTTPServer):
        def handle_error(self, request, client_address) -> None:
            pass  # a client that gave up (the timeout test) is no error of the stub's

    server = Server(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    yield state
    server.shutdown()
    server.server_close()


def settings(host: str, timeout: float = 5.0) -> MailSettings:
    return MailSettings(backend="sendgrid", sendgrid_api_key=KEY, sendgrid_host=host,
                        sender="Palazzo <palazzo@palazzo.example>", base_url=f"https://{DOMAIN}", timeout=timeout)


def game_mail() -> Mail:
    """A real bid mail of a game played by bots: threaded, with an unsubscribe link."""
    return decision_mail("bid")[2]


def invitation() -> Mail:
    return render.invitation("ann@example.org", "Ann", 0, TABLE.game_id, f"https://{DOMAIN}/sign-in?link=a", "a",
                             DOMAIN, title=TABLE.title, played="Princes of Florence")


def test_deliver_posts_the_v3_payload_with_our_headers_and_returns_sendgrids_id(stub):
    mail = game_mail()
    assert deliver(mail, settings(stub.url), fakeredis.FakeRedis(decode_responses=True)) == "sg-stub-id-1"
    [request] = stub.requests
    assert request["path"] == "/v3/mail/send"
    assert request["headers"]["Authorization"] == f"Bearer {KEY}"
    sent = request["json"]
    assert sent["from"] == {"email": "palazzo@palazzo.example", "name": "Palazzo"}
    assert sent["personalizations"] == [{"to": [{"email": mail.to}]}]
    assert sent["subject"] == mail.subject
    assert sent["content"] == [{"type": "text/plain", "value": mail.text}, {"type": "text/html", "value": mail.html}]
    assert sent["headers"] == mail.headers
    assert sent["headers"]["In-Reply-To"] == sent["headers"]["References"] == ROOT
    assert sent["headers"]["List-Unsubscribe"] == f"<https://palazzo.example/unsubscribe?s={mail.seat}&x=1>"
    assert sent["headers"]["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert sent["headers"]["Message-ID"].endswith("@palazzo.example>")
    assert sent["categories"] == ["palazzo", "your_bid"]
    assert sent["custom_args"] == {"kind": "your_bid", "game": TABLE.game_id, "seat": str(mail.seat)}


def test_a_rendered_mail_whose_text_starts_like_a_key_still_goes(stub):
    mail = render.sign_in("x@example.org", "https://palazzo.example/sign-in?link=SG.ab.cd", "SG.ab.cd", DOMAIN)
    mail = Mail(**{**mail.to_json(), "text": "SG.ab.cd is your link"})
    assert deliver(mail, settings(stub.url), None) == "sg-stub-id-1"
    assert stub.requests[0]["json"]["content"][0]["value"] == "SG.ab.cd is your link"


@pytest.mark.parametrize("status, error", [
    (500, RetryableMailError), (503, RetryableMailError), (429, RetryableMailError),
    (400, PermanentMailError), (401, PermanentMailError), (403, PermanentMailError), (413, PermanentMailError),
])
def test_failures_are_classified_for_the_job_that_retries(stub, status, error):
    stub.status = status
    with pytest.raises(error) as raised:
        deliver(game_mail(), settings(stub.url), None)
    assert raised.value.status == status and "stub says no" not in str(raised.value)  # its body may quote the mail
    assert len(stub.requests) == 1  # deliver never retries by itself


def test_an_unreachable_or_silent_sendgrid_is_worth_retrying(stub):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}"
    with pytest.raises(RetryableMailError, match="unreachable"):
        deliver(game_mail(), settings(closed), None)
    stub.delay = 0.6
    with pytest.raises(RetryableMailError, match="unreachable"):
        deliver(game_mail(), settings(stub.url, timeout=0.1), None)


def test_settings_come_from_the_environment():
    default = MailSettings.from_env({})
    assert (default.backend, default.sender, default.domain) == ("outbox", "Palazzo <palazzo@localhost>", "127.0.0.1")
    assert default.sendgrid_host == "https://api.sendgrid.com"
    configured = MailSettings.from_env({"PALAZZO_MAIL_BACKEND": "sendgrid", "SENDGRID_API_KEY": KEY,
                                        "PALAZZO_SENDGRID_HOST": "http://127.0.0.1:9", "PALAZZO_MAIL_FROM": "P <p@x.org>",
                                        "PALAZZO_BASE_URL": "https://play.palazzo.example:8443/"})
    assert (configured.backend, configured.sendgrid_api_key, configured.sendgrid_host, configured.sender) == (
        "sendgrid", KEY, "http://127.0.0.1:9", "P <p@x.org>")
    assert configured.domain == "play.palazzo.example"
    with pytest.raises(ValueError, match="SENDGRID_API_KEY"):
        MailSettings.from_env({"PALAZZO_MAIL_BACKEND": "sendgrid"})
    with pytest.raises(ValueError, match="outbox, sendgrid, smtp"):
        MailSettings.from_env({"PALAZZO_MAIL_BACKEND": "pigeon"})
    with pytest.raises(ValueError, match="PALAZZO_SMTP_HOST"):
        MailSettings.from_env({"PALAZZO_MAIL_BACKEND": "smtp"})


def test_the_send_job_retries_a_5xx_and_keeps_a_4xx_as_undelivered(stub, redis_url, monkeypatch):
    """The RQ job around deliver, run by RQ's worker on the real Redis, against the stub."""
    import redis
    from rq import SimpleWorker

    from service.followups import Queued
    from service.mail import undelivered
    from workers import context
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv("PALAZZO_MAIL_BACKEND", "sendgrid")
    monkeypatch.setenv("SENDGRID_API_KEY", KEY)
    monkeypatch.setenv("PALAZZO_SENDGRID_HOST", stub.url)
    monkeypatch.setenv("PALAZZO_MAIL_RETRY_SECONDS", "0,0")
    context.forget()
    sender = Queued(redis.Redis.from_url(redis_url), mail_waits=(0, 0))
    queue = sender.queue
    mail = invitation()  # an account mail: no game in this Redis to check it against

    def run_queued() -> None:
        SimpleWorker([queue], connection=queue.connection).work(burst=True)

    stub.status = 503
    sender.send_mail(context.store(), mail)
    run_queued()
    assert len(stub.requests) >= 2, "a 5xx is tried again"
    stub.status = 202
    run_queued()
    assert len(stub.requests) == 3 and "503" in undelivered.listed(context.store().redis, mail.game)[-1]["reason"], \
        "after the last retry the mail is kept as undelivered"
    assert len(undelivered.listed(context.store().redis, mail.game)) == 1, "once, not after every failed try"
    stub.status, before = 400, len(stub.requests)
    sender.send_mail(context.store(), mail)
    run_queued()
    assert len(stub.requests) == before + 1, "a 4xx is not retried"
    kept = undelivered.listed(context.store().redis, mail.game)
    assert kept and kept[-1]["to"] == mail.to and "400" in kept[-1]["reason"]
    context.forget()


def test_sign_in_mail_goes_out_through_the_configured_backend(stub, redis_url, monkeypatch):
    """Not only decision mails: a sign-in link reaches SendGrid too (here without workers: at once)."""
    from tests.conftest import make_app
    monkeypatch.setenv("PALAZZO_MAIL_BACKEND", "sendgrid")
    monkeypatch.setenv("SENDGRID_API_KEY", KEY)
    monkeypatch.setenv("PALAZZO_SENDGRID_HOST", stub.url)
    client = make_app(redis_url).test_client()
    created = client.post("/api/v1/games", json={"game": "toy-count", "seats": [
        {"name": "A", "email": "a@example.org"}, {"name": "B"}, {"name": "C"}]})
    assert created.status_code == 201
    assert client.post("/api/v1/sign-in", json={"email": "a@example.org"}).status_code == 202
    sent = [r["json"] for r in stub.requests]
    assert [m["personalizations"][0]["to"][0]["email"] for m in sent] == ["a@example.org"] * 2
    assert "/sign-in?link=" in sent[-1]["content"][0]["value"]


def _on_sendgrid(stub) -> dict[str, str]:
    """A worker's settings for mail through the stub, retried at once."""
    return {"PALAZZO_MAIL_BACKEND": "sendgrid", "SENDGRID_API_KEY": KEY, "PALAZZO_SENDGRID_HOST": stub.url,
            "PALAZZO_MAIL_RETRY_SECONDS": "0,0"}


@pytest.mark.parametrize("change", ["unsubscribed", "bounced", "answered"])
def test_a_mail_waiting_on_its_retry_is_checked_again_and_not_sent(stub, redis_url, workers, monkeypatch, change):
    """A real worker tries a decision mail and SendGrid fails it (503); before its retry, the player
    unsubscribes, his address bounces, or he answers the decision on the web: the retry sends nothing.
    (The stub holds the first try's answer until the change is made.)"""
    import redis

    from service import tokens
    from service.followups import Queued
    from service.mail import sending
    from service.web import unsubscribe
    from tests.conftest import make_app, wait_for
    from tests.mail_games import answer, decision_mail, player, start
    monkeypatch.setenv("PALAZZO_MAIL_RETRY_SECONDS", "0,0")
    app = make_app(redis_url, MAIL_EVENTS_SECRET="hook")
    client, store, links = app.test_client(), app.extensions["palazzo.store"], app.extensions["palazzo.links"]
    ann = "ann@example.org"
    game_id = start(client, [{"name": "Ann", "email": ann}, {"name": "Bea"}, {"name": "Cy"}])["game"]["id"]
    token = player(app, client, ann)
    mail = decision_mail(app, game_id, 0)
    workers(1, **_on_sendgrid(stub))
    stub.status = 503
    stub.answer.clear()
    Queued(redis.Redis.from_url(redis_url), mail_waits=(0, 0)).send_mail(store, mail)
    wait_for(lambda: len(stub.requests) == 1)
    if change == "unsubscribed":
        path = unsubscribe.link(links, tokens.email_hash(ann)).removeprefix(links.base_url)
        assert client.post(path, data={"List-Unsubscribe": "One-Click"}).status_code == 200
    elif change == "bounced":
        assert client.post("/hooks/sendgrid/hook", json=[{"email": ann, "event": "bounce", "reason": "550"}]
                           ).status_code == 204
    else:
        answer(client, token, game_id)
    stub.answer.set()  # the first try fails (503) now: its retry finds the world changed
    wait_for(lambda: int(store.redis.hget(sending.DROPPED, mail.kind) or 0) == 1)
    assert len(stub.requests) == 1, "the retry sent nothing"
    assert not store.redis.exists(sending.sent_key(mail))


def test_a_send_job_run_again_after_its_worker_was_killed_sends_nothing(stub, redis_url, workers_on, tmp_path,
                                                                       monkeypatch):
    """SendGrid accepts the mail; the worker is killed -9 before RQ has marked the job done (RQ's own
    Redis is paused from the moment the stub answers, so the worker cannot get that far). RQ later
    takes the job for abandoned and runs it again on a new worker: the mail is not sent twice."""
    import redis
    from rq import Queue
    from rq.job import Job, JobStatus
    from rq.registry import StartedJobRegistry

    from service.connection import connect
    from service.followups import QUEUE, Queued
    from service.localredis import LocalRedis
    from service.mail import sending
    from tests.conftest import wait_for
    monkeypatch.setenv("PALAZZO_MAIL_RETRY_SECONDS", "0,0")
    with LocalRedis(tmp_path / "queue", extra=["--appendonly", "no", "--save", ""]) as queue_server:
        queue = redis.Redis.from_url(queue_server.url)
        env = {**_on_sendgrid(stub), "PALAZZO_QUEUE_URL": queue_server.url}
        stub.before_answer = lambda: queue.execute_command("CLIENT", "PAUSE", "60000", "WRITE")
        [worker] = workers_on(redis_url, 1, **env)
        store = connect(redis_url)
        mail = render.sign_in("ann@example.org", f"https://{DOMAIN}/sign-in?link=a", "a", DOMAIN)
        Queued(queue, mail_waits=(0, 0)).send_mail(None, mail)
        wait_for(lambda: store.exists(sending.sent_key(mail)))
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(timeout=10)
        stub.before_answer = None
        queue.execute_command("CLIENT", "UNPAUSE")
        registry = StartedJobRegistry(QUEUE, connection=queue)
        [job_id] = [entry.decode().split(":")[0] for entry in queue.zrange(registry.key, 0, -1)]
        assert Job.fetch(job_id, connection=queue).get_status() == JobStatus.STARTED, "killed mid-job"
        registry.cleanup(time.time() + 3600)  # what RQ does once the dead worker's heartbeat has lapsed
        assert Job.fetch(job_id, connection=queue).get_status() == JobStatus.QUEUED, "RQ runs it again"
        workers_on(redis_url, 1, **env)
        wait_for(lambda: not Job.exists(job_id, connection=queue))  # finished: RQ keeps no record of it
        assert job_id not in Queue(QUEUE, connection=queue).failed_job_registry.get_job_ids()
        assert len(stub.requests) == 1, "sent once"
        assert Queue(QUEUE, connection=queue).count == 0
