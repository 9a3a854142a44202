"""Asking for a sign-in link does the same work whatever the address: the request queues one job, and
a real `palazzo worker` decides whether the address plays here and is under its limit, and mails.

What the request does is read off the real redis-server with MONITOR, so the comparison is of the
commands themselves, never of times (benchmarks/sign_in.py times it)."""
from __future__ import annotations

import re
import threading

import redis

from service import counters, mailbox
from tests.conftest import jobs_idle, make_app, wait_for
from tests.web_client import csrf

KNOWN, UNKNOWN = "ann@example.org", "nobody@example.org"
IDS = re.compile(r"[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}")


class Monitor:
    """Every command the Redis server runs between two marks, as (command, first argument)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.commands: list[tuple[str, ...]] = []
        self.ready = threading.Event()

    def __enter__(self) -> "Monitor":
        self.thread = threading.Thread(target=self._listen, daemon=True)
        self.thread.start()
        assert self.ready.wait(10)
        redis.Redis.from_url(self.url).echo("palazzo-test-start")
        return self

    def _listen(self) -> None:
        with redis.Redis.from_url(self.url).monitor() as monitor:
            self.ready.set()
            started = False
            for line in monitor.listen():
                words = line["command"].split(" ")
                if words[:2] == ["ECHO", "palazzo-test-start"]:
                    started = True
                elif words[:2] == ["ECHO", "palazzo-test-end"]:
                    return
                elif started and not (len(words) > 1 and counters.is_counter(words[1])):  # the host's tallies
                    self.commands.append(tuple(IDS.sub("<id>", word) for word in words[:2]))

    def __exit__(self, *exc) -> None:
        redis.Redis.from_url(self.url).echo("palazzo-test-end")
        self.thread.join(10)


def _seated(app) -> None:
    created = app.test_client().post("/api/v1/games", json={"game": "toy-count", "seats": [
        {"name": "Ann", "email": KNOWN}, {"name": "B"}, {"name": "C"}]})
    assert created.status_code == 201


def _commands(redis_url: str, ask) -> list[tuple[str, ...]]:
    with Monitor(redis_url) as seen:
        assert ask() in (200, 202)
    assert seen.commands, "the monitor saw the request"
    return seen.commands


def test_a_known_and_an_unknown_address_cost_the_request_the_same_redis_commands(redis_url):
    app = make_app(redis_url, JOBS="rq")
    _seated(app)
    client = app.test_client()
    api = {address: _commands(redis_url, lambda: client.post("/api/v1/sign-in", json={"email": address}).status_code)
           for address in (KNOWN, UNKNOWN, KNOWN.upper())}
    assert api[KNOWN] == api[UNKNOWN] == api[KNOWN.upper()]
    assert ("RPUSH", "rq:queue:palazzo") in api[KNOWN], "the request queued the job that decides"
    token = csrf(client)
    page = {address: _commands(redis_url, lambda: client.post("/sign-in/mail", data={"email": address, "csrf": token})
                               .status_code) for address in (KNOWN, UNKNOWN)}
    assert page[KNOWN] == page[UNKNOWN]
    assert not [m for m in mailbox.outbox(app.extensions["palazzo.store"]) if m["kind"] == "sign_in"], \
        "nothing was mailed by the requests themselves"


def test_a_worker_mails_a_known_address_its_link_within_its_limit_and_nobody_else(redis_url, workers):
    app = make_app(redis_url, JOBS="rq")
    _seated(app)
    workers(1)
    client = app.test_client()
    store = app.extensions["palazzo.store"]
    queue_redis = redis.Redis.from_url(redis_url)

    def sign_in_mails() -> list[dict]:
        return [m for m in mailbox.outbox(store) if m["kind"] == "sign_in"]

    assert client.post("/api/v1/sign-in", json={"email": UNKNOWN}).status_code == 202
    assert client.post("/sign-in/mail", data={"email": "Ann@Example.org", "csrf": csrf(client)}).status_code == 200
    wait_for(lambda: len(sign_in_mails()) == 1)
    for _ in range(4):
        assert client.post("/api/v1/sign-in", json={"email": KNOWN}).status_code == 202
    wait_for(lambda: len(sign_in_mails()) == 3)
    wait_for(lambda: jobs_idle(queue_redis))
    mails = sign_in_mails()
    assert [m["to"] for m in mails] == [KNOWN] * 3, "3 per address in 15 minutes, and none to an unknown address"
    assert all("/sign-in?link=" in m["text"] for m in mails)
