"""Every answer of whole games, played over the API by seat, host, player and anonymous callers, is
what the OpenAPI document declares for its operation and status, under a strict OpenAPI 3.0 validator.

Each answer is checked against the app's own document (it serves the toy game and Princes of
Florence) and, for Princes of Florence, against the committed openapi/openapi.json, which is what
clients are generated from. Problem documents are checked too, and so is the declared security of
every operation that refuses an anonymous caller.
"""
from __future__ import annotations

import json
import random
import re
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
from openapi_schema_validator import OAS30Validator

from service import mailbox
from service.inbound import inbox
from service.mail import undelivered
from service.mail.errors import PermanentMailError
from service.mail.message import Mail
from tests.conftest import make_app, mailed_link

pytest.importorskip("engine.pof")

COMMITTED = json.loads((Path(__file__).resolve().parent.parent / "openapi" / "openapi.json").read_text())
MAX_MOVES = 3000


class Document:
    """One OpenAPI document: the operation a request reached, and a validator per declared answer."""

    def __init__(self, spec: dict[str, Any]):
        self.spec = spec
        self.routes = [(re.compile(re.sub(r"\{[^}]+\}", "[^/]+", path) + "$"), path) for path in spec["paths"]]
        self.validators: dict[str, OAS30Validator] = {}

    def operation(self, method: str, url: str) -> dict[str, Any]:
        path = urlsplit(url).path
        matched = [template for pattern, template in self.routes if pattern.match(path)]
        assert matched, f"no operation for {path}"
        template = min(matched, key=lambda t: t.count("{"))  # /games/{id}/moves before /games/{id}/{x}
        operation = self.spec["paths"][template].get(method.lower())
        assert operation is not None, f"{method} {template} is not in the document"
        return operation

    def check(self, method: str, url: str, answer: Any) -> str:
        """Hold the answer to the document; returns the operation's id."""
        operation = self.operation(method, url)
        status = str(answer.status_code)
        declared = operation["responses"].get(status)
        assert declared is not None, f"{operation['operationId']} answered an undocumented {status}"
        if not answer.data:
            assert "content" not in declared or status == "304", (operation["operationId"], status)
            return operation["operationId"]
        assert answer.mimetype in declared.get("content", {}), (operation["operationId"], status, answer.mimetype)
        schema = declared["content"][answer.mimetype]["schema"]
        key = json.dumps(schema, sort_keys=True)
        if key not in self.validators:
            self.validators[key] = OAS30Validator({**schema, "components": self.spec["components"]})
        body = answer.get_json()
        errors = sorted(self.validators[key].iter_errors(body), key=lambda e: list(e.absolute_path))
        assert not errors, (operation["operationId"], status,
                            [(list(e.absolute_path), e.message[:300]) for e in errors[:5]])
        if status == "401" and body["code"] == "token_required":
            assert operation["security"] == [{"token": []}], operation["operationId"]
        return operation["operationId"]


class Checked:
    """The test client, with every answer held to each document; counts (operation, status) seen."""

    def __init__(self, client, *documents: Document):
        self.client, self.documents, self.seen = client, documents, Counter()

    def __call__(self, method: str, url: str, token: str | None = None, **kwargs) -> Any:
        headers = {**kwargs.pop("headers", {}), **({"Authorization": f"Bearer {token}"} if token else {})}
        answer = self.client.open(url, method=method, headers=headers, **kwargs)
        for document in self.documents:
            operation = document.check(method, url, answer)
        self.seen[(operation, answer.status_code)] += 1
        return answer


@pytest.fixture
def own(app) -> Document:
    return Document(app.test_client().get("/api/v1/openapi.json").get_json())


def _seat_of(game: dict, token_of: dict[int, str]) -> list[int]:
    return [d["seat"] for d in game["pending"] if d["seat"] in token_of]


def _play(call: Checked, game_id: str, token_of: dict[int, str], rng: random.Random, during=None) -> dict:
    """Answer every human decision with a random listed move until the game ends; `during(n)` runs
    beside the n-th move (reads by other callers, orders, pauses)."""
    for number in range(MAX_MOVES):
        game = call("GET", f"/api/v1/games/{game_id}").get_json()
        if game["status"] == "finished":
            return game
        assert game["status"] == "running", game["status"]
        seat = _seat_of(game, token_of)[0]
        listing = call("GET", f"/api/v1/games/{game_id}/moves", token_of[seat]).get_json()
        choice = rng.choice(listing["moves"])
        played = call("POST", f"/api/v1/games/{game_id}/moves", token_of[seat],
                      headers={"If-Match": f'"{listing["version"]}"', "Idempotency-Key": f"k{number}"},
                      json={"move": choice["move"]})
        assert played.status_code == 200, played.get_json()
        if during:
            during(number, seat)
    raise AssertionError("the game did not end")


def _refusals(call: Checked, game_id: str, seat_token: str, host: str, move: dict, version: int) -> None:
    """Problem documents of every kind a client meets, each held to its operation's declared answer."""
    moves = f"/api/v1/games/{game_id}/moves"
    assert call("GET", "/api/v1/games/0000000000000000").status_code == 404
    assert call("POST", moves, json={"move": move, "version": version}).status_code == 401
    assert call("POST", moves, "not-a-token").status_code == 401
    assert call("GET", moves, host).status_code == 403
    assert call("POST", moves, seat_token, json={"move": move}).status_code == 428
    assert call("POST", moves, seat_token, json={"move": move, "version": 1}).status_code == 409
    assert call("POST", moves, seat_token, json={"move": {"type": "teleport"}, "version": version}).status_code == 422
    assert call("POST", moves, seat_token, data="{", content_type="application/json").status_code == 400
    assert call("POST", moves, seat_token, data="move", content_type="text/plain").status_code == 415
    assert call("POST", moves, seat_token, data=" " * 70_000, content_type="application/json").status_code == 413
    assert call("POST", moves, seat_token, headers={"If-Match": '"²"'}, json={"move": move}).status_code == 422
    assert call("GET", f"/api/v1/games/{game_id}/events?limit=0").status_code == 422
    assert call("POST", f"/api/v1/games/{game_id}/pause", host, json={"hours": 500}).status_code == 422
    assert call("PUT", "/api/v1/me/settings", seat_token, json={"time_zone": "UTC"}).status_code == 401


def _open_seats(app, call: Checked) -> None:
    """A public game with open seats: the lobby, the host's join link, and joining by it."""
    created = call("POST", "/api/v1/games", json={"public": True, "start_when_full": True, "seats": [
        {"name": "Ann", "bot": "random"}, {"open": True}, {"open": True}]}).get_json()
    game_id, host = created["game"]["id"], created["tokens"]["host"]
    assert call("GET", "/api/v1/lobby?limit=1").get_json()["games"][0]["id"] == game_id
    assert call("GET", "/api/v1/lobby?after=x").status_code == 422
    assert call("GET", f"/api/v1/games/{game_id}/join-link", host).status_code == 200
    old = created["join"]["link"]
    link = call("POST", f"/api/v1/games/{game_id}/join-link", host).get_json()["link"]
    assert call("POST", "/api/v1/sign-in", json={"email": "jo@example.org", "join": old}).status_code == 410
    assert call("POST", "/api/v1/sign-in", json={"email": "jo@example.org", "join": link}).status_code == 202
    jo = call("POST", "/api/v1/sign-in/redeem", json={"link": unquote(mailed_link(app, "jo@example.org"))}).get_json()
    joined = call("POST", f"/api/v1/games/{game_id}/join", jo["token"], json={"link": link, "name": "Jo", "seat": 2})
    assert joined.status_code == 200 and joined.get_json()["you"]["seat"] == 2
    assert call("POST", f"/api/v1/games/{game_id}/join", jo["token"], json={"link": link, "name": "Jo"}).status_code == 409
    assert call("DELETE", f"/api/v1/games/{game_id}/join-link", host).get_json()["link"] is None


def test_every_answer_of_a_princes_of_florence_game_is_as_the_spec_declares(app, client, own):
    call = Checked(client, own, Document(COMMITTED))
    rng = random.Random(5)
    assert call("GET", "/api/v1/health").status_code == 200
    created = call("POST", "/api/v1/games", json={
        "game": "princes-of-florence", "seed": 5, "options": {"bidding": "open", "auction_pass": True},
        "deadlines": {"bid": 3600}, "missed_turns": 2,
        "seats": [{"name": "Ann", "email": "ann@example.org"}, {"name": "Bea"}, {"name": "Robo", "bot": "greedy"}]})
    assert created.status_code == 201
    game_id, tokens = created.get_json()["game"]["id"], created.get_json()["tokens"]
    host, bea = tokens["host"], tokens["seats"][0]["token"]
    assert call("POST", "/api/v1/sign-in", json={"email": "ann@example.org"}).status_code == 202
    redeemed = call("POST", "/api/v1/sign-in/redeem", json={"link": unquote(mailed_link(app, "ann@example.org"))})
    ann = redeemed.get_json()["token"]
    assert call("POST", "/api/v1/sign-in/redeem", json={"link": "forged"}).status_code == 403
    settings = {"time_zone": "Europe/Rome", "mail": "decisions"}
    assert call("PUT", "/api/v1/me/settings", ann, json=settings).status_code == 200
    assert call("GET", "/api/v1/me/settings", ann).status_code == 200
    hook = call("POST", "/api/v1/me/webhooks", ann, json={"url": "https://93.184.216.34/hook", "game": game_id,
                                                          "format": "slack"})  # an address literal: no lookup
    assert hook.status_code == 201
    assert call("POST", "/api/v1/me/webhooks", ann, json={"url": "https://10.0.0.1/x"}).status_code == 422
    assert call("GET", "/api/v1/me/webhooks", ann).status_code == 200
    assert call("POST", f"/api/v1/me/webhooks/{hook.get_json()['id']}/enable", ann).status_code == 200
    assert call("DELETE", f"/api/v1/me/webhooks/{hook.get_json()['id']}", ann).status_code == 204
    assert call("DELETE", f"/api/v1/me/webhooks/{hook.get_json()['id']}", ann).status_code == 404
    assert call("POST", "/api/v1/sign-in", json={"email": "ann@example.org"}).status_code == 202
    spare = call("POST", "/api/v1/sign-in/redeem", json={"link": unquote(mailed_link(app, "ann@example.org"))})
    listed = call("GET", "/api/v1/me/tokens", ann).get_json()["tokens"]
    assert len(listed) == 2 and {entry["kind"] for entry in listed} == {"api"}
    spare_id = spare.get_json()["token"].split(".")[0]
    assert call("DELETE", f"/api/v1/me/tokens/{spare_id}", ann).status_code == 204
    assert call("DELETE", f"/api/v1/me/tokens/{spare_id}", ann).status_code == 404
    assert call("POST", f"/api/v1/games/{game_id}/start", host).status_code == 200
    assert call("POST", f"/api/v1/games/{game_id}/start", host).status_code == 409
    assert call("POST", f"/api/v1/games/{game_id}/host-link", host, json={"email": "host@example.org"}).status_code == 202
    token_of = {0: ann, 1: bea}

    game = call("GET", f"/api/v1/games/{game_id}", ann)
    held = {"If-None-Match": game.headers["ETag"]}
    assert call("GET", f"/api/v1/games/{game_id}", ann, headers=held).status_code == 304
    listing = call("GET", f"/api/v1/games/{game_id}/moves", bea).get_json()
    _refusals(call, game_id, bea, host, listing["moves"][0]["move"], listing["version"])

    def during(number: int, seat: int) -> None:
        if number % 7 == 0:
            for token in (None, ann, bea, host):
                call("GET", f"/api/v1/games/{game_id}", token)
                call("GET", f"/api/v1/games/{game_id}/events?after={max(0, number * 2 - 10)}&limit=20", token)
            call("GET", "/api/v1/me/turns", ann)
            call("GET", "/api/v1/me/turns", bea)
            call("GET", "/api/v1/me/games", ann)
        if number == 3:
            assert call("PUT", f"/api/v1/games/{game_id}/orders", ann,
                        json={"limits": {"juggler": 700, "lake": 300}, "step_out_otherwise": True}).status_code == 200
            assert call("GET", f"/api/v1/games/{game_id}/orders", ann).get_json()["orders"]["limits"]["juggler"] == 700
            assert call("GET", f"/api/v1/games/{game_id}/orders", bea).get_json()["orders"] is None
        if number == 5:
            assert call("DELETE", f"/api/v1/games/{game_id}/orders", ann).status_code == 200
            talk = f"/api/v1/games/{game_id}/messages"
            assert call("POST", talk, ann, json={"text": "Good luck"}).status_code == 201
            assert call("POST", talk, bea, json={"text": "Ann, a word", "to": 0}).status_code == 201
            assert call("POST", talk, bea, json={"text": "\x00"}).status_code == 422
            listed = call("GET", talk, ann)
            running = call("GET", f"/api/v1/games/{game_id}/record", bea).get_json()
            assert running["setup"] is None and running["moves"] is None and len(running["messages"]) == 2
            assert call("GET", talk, ann, headers={"If-None-Match": listed.headers["ETag"]}).status_code == 304
            assert call("POST", f"{talk}/1/hide", host).status_code == 200
            assert call("POST", f"{talk}/2/hide", host).status_code == 404
            assert call("PUT", "/api/v1/me/settings", ann, json={"talk": {game_id: "digest"}}).status_code == 200
            vacation = f"/api/v1/games/{game_id}/vacation"
            assert call("POST", vacation, bea, json={"days": 1}).status_code == 200
            assert call("POST", vacation, bea, json={"hours": 1}).status_code == 409
            assert call("POST", vacation, ann, json={"hours": 1, "days": 1}).status_code == 422
            assert call("DELETE", vacation, bea).status_code == 200
            assert call("DELETE", vacation, bea).status_code == 409
        if number == 9:
            assert call("POST", f"/api/v1/games/{game_id}/pause", host, json={"hours": 1}).status_code == 200
            assert call("POST", f"/api/v1/games/{game_id}/moves", bea,
                        json={"move": {"type": "end_turn"}, "version": 1}).status_code == 409
            assert call("POST", f"/api/v1/games/{game_id}/resume", host).status_code == 200
        if number == 10:  # what the host alone sees: a mail that bounced, a reply and what became of it
            redis = app.extensions["palazzo.store"].redis
            undelivered.keep(redis, Mail(to="ann@example.org", subject="Your turn", text="", kind="your_turn",
                                         game=game_id, seat=0), PermanentMailError("refused", 400))
            inbox.note(redis, game_id, {"message": "m1", "seat": 0, "status": "played", "detail": "bid 300"})
            inbox.note(redis, game_id, {"message": "m2", "seat": None, "status": "ignored", "detail": "forged"})
            seen = call("GET", f"/api/v1/games/{game_id}", host).get_json()
            assert seen["undelivered"][0]["reason"] == "the provider refused it (400)" and [r["status"] for r in seen["replies"]] == \
                ["played", "ignored"] and "detail" not in seen["replies"][0]
        if number == 12:
            assert call("PUT", f"/api/v1/games/{game_id}/title", host, json={"title": "Ann's Friday"}).status_code == 200
            assert call("PUT", f"/api/v1/games/{game_id}/title", host, json={"title": "a\nb"}).status_code == 422
            handed = call("PUT", f"/api/v1/games/{game_id}/seats/1", host, json={"name": "Cy"})
            token_of[1] = handed.get_json()["token"]
            assert call("GET", f"/api/v1/games/{game_id}", bea).status_code == 401

    final = _play(call, game_id, token_of, rng, during)
    assert final["result"] is not None and final["pending"] == []
    everything = call("GET", f"/api/v1/games/{game_id}/events?limit=500", ann).get_json()
    # held to the committed document only: in the in-process one the toy game's set_orders also fits
    # Florence's orders with no limits (which this record lists), and the move union is a oneOf
    record = Checked(client, Document(COMMITTED))("GET", f"/api/v1/games/{game_id}/record").get_json()
    assert record["result"] == final["result"] and record["setup"] is not None and record["moves"]
    assert everything["events"] and all(isinstance(e["event"]["type"], str) for e in everything["events"])
    [mine] = call("GET", "/api/v1/me/games?limit=5", ann).get_json()["games"]
    assert mine["title"] == "Ann's Friday" and mine["result"]["rank"] in (1, 2, 3)
    assert call("POST", f"/api/v1/games/{game_id}/cancel", host).status_code == 409
    unplayed = call("POST", "/api/v1/games", json={"seats": [{"name": n} for n in ("Xu", "Yo", "Zed")]}).get_json()
    other, xu = unplayed["game"]["id"], unplayed["tokens"]["seats"][0]["token"]
    assert call("POST", f"/api/v1/games/{other}/leave", xu, json={}).status_code == 422
    assert call("POST", f"/api/v1/games/{other}/leave", xu, json={"confirm": True}).status_code == 200
    assert call("POST", f"/api/v1/games/{other}/seats/1/remove", unplayed["tokens"]["host"],
                json={"reason": "Never came."}).status_code == 200
    assert call("POST", f"/api/v1/games/{other}/seats/1/remove", unplayed["tokens"]["host"],
                json={"reason": "Again."}).status_code == 409
    assert call("POST", f"/api/v1/games/{other}/cancel", unplayed["tokens"]["host"]).status_code == 200
    assert call("PUT", f"/api/v1/games/{game_id}/orders", ann,
                json={"limits": {}, "step_out_otherwise": False}).status_code == 409
    _open_seats(app, call)
    assert call("POST", "/api/v1/me/address", ann, json={"email": "ann@example.org"}).status_code == 422
    assert call("POST", "/api/v1/games", json={"seats": [{"name": "Tess", "email": "tess@example.org"},
                                                         {"name": "Uno"}, {"name": "Vic"}]}).status_code == 201
    assert call("POST", "/api/v1/me/address", ann, json={"email": "tess@example.org"}).status_code == 409
    assert call("POST", "/api/v1/me/address", ann, json={"email": "ann.new@example.org"}).status_code == 202
    for to in ("ann.new@example.org", "ann@example.org"):
        [message] = [m for m in mailbox.outbox(app.extensions["palazzo.store"]) if m["to"] == to
                     and "/address?t=" in m["text"]]
        link = unquote(re.search(r"/address\?t=(\S+)", message["text"]).group(1))
        assert call("POST", "/api/v1/address/confirm", json={"link": link}).status_code == 200
    assert call("POST", "/api/v1/address/confirm", json={"link": link}).status_code == 403
    assert call("DELETE", "/api/v1/me", ann, json={}).status_code == 422
    assert call("DELETE", "/api/v1/me", ann, json={"confirm": True, "email": "bea@example.org"}).status_code == 403
    assert call("DELETE", "/api/v1/me", ann, json={"confirm": True}).status_code == 200

    operations = {op["operationId"] for item in COMMITTED["paths"].values() for op in item.values()
                  if isinstance(op, dict) and "operationId" in op}
    answered = {operation for (operation, status) in call.seen if status < 300}
    assert answered == operations, operations - answered
    statuses = {status for (_, status) in call.seen}
    assert {200, 201, 202, 304, 400, 401, 403, 404, 409, 413, 415, 422, 428} <= statuses, statuses


def test_every_answer_of_a_toy_game_is_as_the_spec_declares(client, own):
    call = Checked(client, own)
    created = call("POST", "/api/v1/games", json={
        "game": "toy-count", "seed": 3, "seats": [{"name": "A"}, {"name": "B"}, {"name": "C", "bot": "random"}]})
    game_id, tokens = created.get_json()["game"]["id"], created.get_json()["tokens"]
    token_of = {entry["seat"]: entry["token"] for entry in tokens["seats"]}
    assert call("POST", f"/api/v1/games/{game_id}/start", tokens["host"]).status_code == 200
    assert call("PUT", f"/api/v1/games/{game_id}/orders", token_of[0],
                json={"limits": {"x": 1}, "step_out_otherwise": True}).status_code == 200
    talk = f"/api/v1/games/{game_id}/messages"
    assert call("POST", talk, token_of[0], json={"text": "hello"}).status_code == 201
    assert call("POST", talk, tokens["host"], json={"text": "to B", "to": 1}).status_code == 201
    assert call("POST", talk, token_of[0], json={"text": "to the bot", "to": 2}).status_code == 422
    assert call("POST", f"{talk}/1/hide", tokens["host"]).status_code == 200
    assert call("POST", f"{talk}/2/hide", token_of[0]).status_code == 403
    assert call("GET", talk, token_of[1]).status_code == call("GET", f"{talk}?after=1&wait=1").status_code == 200
    final = _play(call, game_id, token_of, random.Random(3))
    assert final["result"] is not None
    assert call("GET", f"/api/v1/games/{game_id}/events", token_of[1]).status_code == 200
    assert call("GET", f"/api/v1/games/{game_id}/record", token_of[1]).get_json()["result"] == final["result"]
    cancelled = call("POST", "/api/v1/games", json={"game": "toy-count", "seats": [{"name": n} for n in "XYZ"]})
    other = cancelled.get_json()
    assert call("POST", f"/api/v1/games/{other['game']['id']}/cancel", other["tokens"]["host"]).status_code == 200


def test_limits_and_a_lost_store_answer_as_the_spec_declares(redis_url, own):
    limited = Checked(make_app(redis_url, RATE_LIMIT="3 per minute").test_client(), own)
    answers = [limited("GET", "/api/v1/games/0000000000000000").status_code for _ in range(5)]
    assert answers[:3] == [404] * 3 and answers[-1] == 429
    lost = Checked(make_app("redis://127.0.0.1:1/0").test_client(), own)
    assert lost("GET", "/api/v1/health").status_code == 503
    assert lost("GET", "/api/v1/games/0000000000000000").status_code == 503
