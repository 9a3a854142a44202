"""Signed webhooks end to end: a receiver on loopback checks every signature and counts deliveries by
id while real workers play a Goofspiel game; a flaky receiver gets its retries, a dead one is disabled
and its owner mailed; chat bodies carry one line; a seat's webhook holds nothing its owner may not see;
and targets that lead inside (SSRF) are refused."""
from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from service import mailbox
from service.channels import targets, webhooks
from tests.conftest import make_app, wait_for
from tests.mail_games import player

GAMES = ("princes-of-florence", "toy-count", "goofspiel")
ANN, BEA = "ann@example.org", "bea@example.org"


class Receiver:
    """An HTTP receiver per path: answers each path's scripted statuses (then 200), verifies the
    signature with that path's secret, and keeps what it accepted."""

    def __init__(self) -> None:
        self.secrets: dict[str, str] = {}
        self.script: dict[str, list[int]] = {}
        self.always: dict[str, int] = {}
        self.seen: list[tuple[str, str, int]] = []  # (path, delivery id, status answered)
        self.accepted: dict[str, list[dict]] = {}
        self.forged: list[str] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                path, delivery = self.path, self.headers["Palazzo-Delivery"]
                if not receiver.verified(path, body, self.headers["Palazzo-Signature"]):
                    receiver.forged.append(path)
                status = receiver.answer(path)
                receiver.seen.append((path, delivery, status))
                if status == 200:
                    receiver.accepted.setdefault(path, []).append({"delivery": delivery, **json.loads(body)})
                self.send_response(status)
                self.end_headers()

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.server.server_port}"

    def answer(self, path: str) -> int:
        """The status to answer a post to `path`: its fixed one, else its next scripted one, else 200."""
        if path in self.always:
            return self.always[path]
        script = self.script.get(path)
        return script.pop(0) if script else 200

    def verified(self, path: str, body: bytes, header: str) -> bool:
        """README's verification: HMAC-SHA256 of "<t>.<body>", and t within five minutes."""
        parts = dict(item.split("=", 1) for item in header.split(","))
        expected = hmac.new(self.secrets[path].encode(), f"{parts['t']}.".encode() + body, hashlib.sha256).hexdigest()
        return hmac.compare_digest(expected, parts["v1"]) and abs(time.time() - int(parts["t"])) < 300


@pytest.fixture
def receiver():
    served = Receiver()
    yield served
    served.server.shutdown()


def register(client, headers, receiver: Receiver, path: str, **body) -> dict:
    answer = client.post("/api/v1/me/webhooks", headers=headers, json={"url": receiver.base + path, **body})
    assert answer.status_code == 201, answer.get_json()
    receiver.secrets[path] = answer.get_json()["secret"]
    return answer.get_json()


def bid(client, headers, game_id: str) -> bool:
    """Bid the seat's lowest card if it has a bid pending; whether it did."""
    listed = client.get(f"/api/v1/games/{game_id}/moves", headers=headers).get_json()
    if not listed.get("moves"):
        return False
    move = min((m["move"] for m in listed["moves"]), key=lambda m: m["card"])
    return client.post(f"/api/v1/games/{game_id}/moves", headers=headers,
                       json={"move": move, "version": listed["version"]}).status_code == 200


def test_each_notice_arrives_once_signed_retried_and_a_dead_hook_is_disabled(redis_url, workers, receiver):
    app = make_app(redis_url, JOBS="rq", MIN_DEADLINE=1, BOT_DELAY=0, GAMES=GAMES, WEBHOOK_ALLOW_PRIVATE=True)
    workers(1, PALAZZO_GAMES=",".join(GAMES), PALAZZO_WEBHOOK_ALLOW_PRIVATE="1", PALAZZO_WEBHOOK_RETRY_SECONDS="0,0")
    client = app.test_client()
    created = client.post("/api/v1/games", json={"game": "goofspiel", "seed": 3, "options": {"cards": 4},
                                                 "seats": [{"name": "Ann", "email": ANN}, {"name": "Bea", "email": BEA},
                                                           {"name": "Bot", "bot": "greedy"}]}).get_json()
    game_id = created["game"]["id"]
    ann, bea = player(app, client, ANN), player(app, client, BEA)
    receiver.script["/flaky"] = [503, 503]
    receiver.always["/dead"] = 500
    register(client, ann, receiver, "/ok")
    register(client, ann, receiver, "/flaky")
    register(client, ann, receiver, "/chat", format="discord", events=["game_over", "message"])
    dead = register(client, bea, receiver, "/dead")
    assert client.post(f"/api/v1/games/{game_id}/start", headers={"Authorization": f"Bearer {created['tokens']['host']}"}
                       ).status_code == 200
    assert client.post(f"/api/v1/games/{game_id}/messages", headers=bea, json={"text": "good luck"}).status_code == 201
    wait_for(lambda: any(d["event"] == "your_bid" for d in receiver.accepted.get("/ok", [])))  # told before she bids
    deadline = time.monotonic() + 60
    while client.get(f"/api/v1/games/{game_id}").get_json()["status"] != "finished":
        assert time.monotonic() < deadline, "the game did not end"
        if not (bid(client, ann, game_id) or bid(client, bea, game_id)):
            time.sleep(0.1)
    wait_for(lambda: any(d["event"] == "game_over" for d in receiver.accepted.get("/ok", []))
             and any(d["event"] == "game_over" for d in receiver.accepted.get("/flaky", []))
             and len(receiver.accepted.get("/chat", [])) == 2, seconds=30)
    wait_for(lambda: not [h for h in client.get("/api/v1/me/webhooks", headers=bea).get_json()["webhooks"]
                          if h["enabled"]], seconds=30)
    time.sleep(1)  # any delivery queued twice would have arrived by now
    assert not receiver.forged
    ok = receiver.accepted["/ok"]
    assert len({d["delivery"] for d in ok}) == len(ok), "each notice once"
    kinds = {d["event"] for d in ok}
    assert {"your_bid", "round_result", "game_over", "message"} <= kinds, kinds
    assert sorted(d["delivery"] for d in receiver.accepted["/flaky"]) != [] and \
        len({d["delivery"] for d in receiver.accepted["/flaky"]}) == len(receiver.accepted["/flaky"])
    refused = {delivery for path, delivery, status in receiver.seen if path == "/flaky" and status == 503}
    assert refused and refused <= {d["delivery"] for d in receiver.accepted["/flaky"]}, "each 503 retried to a 200"
    assert {d["event"] for d in receiver.accepted["/flaky"]} == kinds
    assert all(set(d) == {"delivery", "content"} for d in receiver.accepted["/chat"])
    for delivery in ok:  # Ann's seat view: nobody else's private part, not even a pending bid's card
        view = delivery["data"].get("view")
        if view:
            assert all("private" not in p for p in view["players"] if p["seat"] != 0)
            assert delivery["seat"] == 0
    assert [status for path, _, status in receiver.seen if path == "/dead"][:3] == [500, 500, 500]
    [shown] = client.get("/api/v1/me/webhooks", headers=bea).get_json()["webhooks"]
    assert shown["id"] == dead["id"] and not shown["enabled"] and shown["secret"] is None
    store = app.extensions["palazzo.store"]
    wait_for(lambda: [m for m in mailbox.outbox(store) if m["to"] == BEA and m["kind"] == "webhook_disabled"])
    again = client.post(f"/api/v1/me/webhooks/{dead['id']}/enable", headers=bea)
    assert again.status_code == 200 and again.get_json()["enabled"]
    assert client.delete(f"/api/v1/me/webhooks/{dead['id']}", headers=ann).status_code == 404, "not his"
    assert client.delete(f"/api/v1/me/webhooks/{dead['id']}", headers=bea).status_code == 204


def test_a_host_without_a_seat_hears_of_his_bots_game_as_a_spectator(redis_url, workers, receiver):
    """No seat has an address, so only the host's address makes the game's commits reach a channel."""
    app = make_app(redis_url, JOBS="rq", BOT_DELAY=0, GAMES=GAMES, WEBHOOK_ALLOW_PRIVATE=True)
    workers(1, PALAZZO_GAMES=",".join(GAMES), PALAZZO_WEBHOOK_ALLOW_PRIVATE="1")
    client = app.test_client()
    assert client.post("/api/v1/games", json={"game": "toy-count", "seats": [  # so that she may sign in
        {"name": "Ann", "email": ANN}, {"name": "B"}, {"name": "C"}]}).status_code == 201
    ann = player(app, client, ANN)
    created = client.post("/api/v1/games", headers=ann, json={
        "game": "goofspiel", "seed": 5, "options": {"cards": 3},
        "seats": [{"name": "One", "bot": "greedy"}, {"name": "Two", "bot": "random"},
                  {"name": "Three", "bot": "random"}]}).get_json()
    assert "game" in created, created
    game_id = created["game"]["id"]
    register(client, ann, receiver, "/host", game=game_id)
    host = {"Authorization": f"Bearer {created['tokens']['host']}"}
    assert client.post(f"/api/v1/games/{game_id}/start", headers=host).status_code == 200
    wait_for(lambda: any(d["event"] == "game_over" for d in receiver.accepted.get("/host", [])), seconds=30)
    told = receiver.accepted["/host"]
    assert not receiver.forged and len({d["delivery"] for d in told}) == len(told)
    assert {d["event"] for d in told} <= {"round_result", "game_over"}, "a spectator has no decisions"
    assert all(d["seat"] is None and all("private" not in p for p in d["data"]["view"]["players"]) for d in told)


@pytest.mark.parametrize("url, code", [
    ("https://127.0.0.1/hook", "webhook_target_refused"),
    ("https://[::1]/hook", "webhook_target_refused"),
    ("https://10.1.2.3/hook", "webhook_target_refused"),
    ("https://192.168.0.9/hook", "webhook_target_refused"),
    ("https://172.16.0.1/hook", "webhook_target_refused"),
    ("https://169.254.169.254/latest/meta-data", "webhook_target_refused"),
    ("https://[::ffff:127.0.0.1]/hook", "webhook_target_refused"),
    ("https://0.0.0.0/hook", "webhook_target_refused"),
    ("https://localhost/hook", "webhook_target_refused"),
    ("http://93.184.216.34/hook", "bad_webhook_url"),
    ("ftp://93.184.216.34/hook", "bad_webhook_url"),
    ("https://user:pw@93.184.216.34/hook", "bad_webhook_url"),
    ("hook", "bad_webhook_url"),
    ("https://93.184.216.34/a b", "bad_webhook_url"),
])
def test_a_target_inside_or_not_https_is_refused(url, code):
    with pytest.raises(targets.Refused) as refused:
        targets.check(url, allow_private=False)
    assert refused.value.code == code


def test_a_public_https_target_passes_and_the_setting_lets_loopback_through():
    assert targets.check("https://93.184.216.34/hook", allow_private=False).address == "93.184.216.34"  # no lookup
    assert targets.check("http://127.0.0.1:9/hook?a=1", allow_private=True) == targets.Target(
        "http", "127.0.0.1", 9, "/hook?a=1", "127.0.0.1")


def test_a_delivery_goes_to_the_checked_address_alone_and_a_redirect_is_a_failure(receiver):
    """The name is never looked up again at connect time (DNS rebinding): `.invalid` resolves nowhere,
    yet the delivery reaches the address checked, and a 3xx is not followed."""
    hook = webhooks.Registration(id="h1", owner="o", url="http://rebound.invalid/pinned", secret="whsec_k")
    receiver.secrets["/pinned"] = receiver.secrets["/moved"] = hook.secret
    pinned = targets.Target("http", "rebound.invalid", receiver.server.server_port, "/pinned", "127.0.0.1")
    assert webhooks.post(hook, pinned, b'{"a": 1}', "d1") == 200
    assert receiver.accepted["/pinned"] == [{"delivery": "d1", "a": 1}] and not receiver.forged
    receiver.always["/moved"] = 302
    with pytest.raises(webhooks.DeliveryFailed, match="302"):
        webhooks.post(hook, dataclasses.replace(pinned, path="/moved"), b"{}", "d2")


def test_a_refused_registration_is_a_problem_and_stores_nothing(redis_url, workers):
    app = make_app(redis_url, JOBS="rq")
    workers(1)
    client = app.test_client()
    assert client.post("/api/v1/games", json={"game": "toy-count", "seats": [
        {"name": "Ann", "email": ANN}, {"name": "B"}, {"name": "C"}]}).status_code == 201
    ann = player(app, client, ANN)
    answer = client.post("/api/v1/me/webhooks", headers=ann, json={"url": "https://169.254.169.254/x"})
    assert answer.status_code == 422 and answer.get_json()["code"] == "webhook_target_refused"
    assert answer.headers["Content-Type"].startswith("application/problem+json")
    bad = client.post("/api/v1/me/webhooks", headers=ann, json={"url": "https://93.184.216.34/x", "format": "irc"})
    assert bad.status_code == 422
    assert client.get("/api/v1/me/webhooks", headers=ann).get_json() == {"webhooks": []}
    assert client.post("/api/v1/me/webhooks", json={"url": "https://93.184.216.34/x"}).status_code == 401


def test_the_signature_is_hmac_sha256_over_the_timestamp_and_body():
    value = webhooks.signature("whsec_k", b'{"a":1}', at=1700000000)
    assert value == "t=1700000000,v1=" + hmac.new(b"whsec_k", b'1700000000.{"a":1}', hashlib.sha256).hexdigest()
