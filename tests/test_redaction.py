"""No text that the host or another seat can read holds a seat's private facts, on any channel.

Whole games with mail on, served over HTTP with real `palazzo worker` processes that send every mail
through the real sendgrid library to a stand-in provider (tests/provider_stub.py), which keeps each
mail and refuses some (every answer to a reply, and every third mail else), so that the host's list
of undelivered mail fills. Every seat has an address; Ann plays Princes of Florence by replying to
her mails (with a help, a misspelt line, a stale reply, a stranger's and a forged one on the way),
the others over the API with the player tokens their mailed links gave them; Bea keeps standing
orders. After every move, once the workers are idle, each reader's texts are scanned for every
other seat's secrets as its own view shows them (tests/web_leaks.py): the host's game (API), page
and feed; the spectator's game; each seat's game and feed; and every new mail, subject and all, of
every kind, read by the seat it went to. The toy game is played the same way over the API.
"""
from __future__ import annotations

import json
import random
import re
import time
from itertools import count
from urllib.parse import unquote

import pytest
import redis
from rq import Queue

from engine.pof.data import AUCTION_ITEMS
from service.mail.headers import decision_in
from tests.conftest import bearer, jobs_idle, leaks, wait_for
from tests.provider_stub import Provider
from tests.test_inbound import DOMAIN, LONG, SECRET, listed, live, parse_fields, post  # noqa: F401 (fixture)
from tests.web_client import enter_host, table
from tests.web_leaks import exposed, full_view, secrets_of, text_of, told_sums

ADDRESSES = ["ann@example.org", "bea@example.org", "cy@example.org"]
LIMIT = 1730  # Bea's standing orders: no sum of money is this (every one is in hundreds)
DECISION_KINDS = ("choose", "your_turn", "your_bid")


def _refusing() -> callable:
    """Every answer to a reply is refused, and every third mail else."""
    numbers = count(1)
    return lambda payload: 400 if payload["categories"][1].startswith("reply_") or next(numbers) % 3 == 0 else 202


@pytest.fixture
def provider():
    with Provider(_refusing()) as running:
        yield running


def _mail(payload: dict) -> dict:
    """A posted mail as a player reads it: to, kind, subject, text, HTML, headers and Reply-To."""
    return {"to": payload["personalizations"][0]["to"][0]["email"], "kind": payload["categories"][1],
            "subject": payload["subject"], "text": payload["content"][0]["value"],
            "html": payload["content"][1]["value"] if len(payload["content"]) > 1 else "",
            "headers": payload.get("headers", {}), "reply_to": (payload.get("reply_to") or {}).get("email")}


class Table:
    """One game as its readers see it, and the scan of everything they can read."""

    def __init__(self, live, provider: Provider, game: str, queues: redis.Redis) -> None:
        self.live, self.provider, self.game, self.queues = live, provider, game, queues
        self.client = live.app.test_client()
        self.host_browser = live.app.test_client()
        self.tokens: dict[int, str] = {}
        self.feeds: dict[str, int] = {}
        self.read = 0  # mails scanned so far
        self.kinds: set[str] = set()
        self.checks = 0
        self.told: set = set()  # sums of florins the public feed told everyone (web_leaks.told_sums)

    def create(self, seats: list[dict], **extra) -> None:
        created = self.client.post("/api/v1/games", json={"game": self.game, "seed": 11, "seats": seats, **extra})
        assert created.status_code == 201, created.get_json()
        self.id, self.host = created.get_json()["game"]["id"], created.get_json()["tokens"]["host"]
        enter_host(self.live.app, self.host_browser, self.id)

    def start(self) -> None:
        assert self.client.post(f"/api/v1/games/{self.id}/start", headers=bearer(self.host)).status_code == 200

    def mails(self, to: str | None = None, kinds: tuple[str, ...] | None = None) -> list[dict]:
        return [m for m in map(_mail, list(self.provider.mails))
                if (to is None or m["to"] == to) and (kinds is None or m["kind"] in kinds)]

    def sign_in(self, seat: int, mail: dict) -> None:
        link = unquote(re.search(r"link=(\S+)", mail["text"]).group(1))
        redeemed = self.client.post("/api/v1/sign-in/redeem", json={"link": link})
        assert redeemed.status_code == 201, redeemed.get_json()
        self.tokens[seat] = redeemed.get_json()["token"]

    def idle(self) -> None:
        wait_for(lambda: jobs_idle(self.queues), 60)

    def state(self) -> dict:
        return table(self.live.app, self.id).state

    def _feed(self, name: str, token: str | None) -> list[dict]:
        """The reader's events since his last look."""
        events, more = [], True
        while more:
            page = self.client.get(f"/api/v1/games/{self.id}/events?after={self.feeds.get(name, 0)}&limit=500",
                                   headers=bearer(token) if token else {}).get_json()
            events += page["events"]
            self.feeds[name], more = page["next_after"], page["more"]
        return events

    def check(self) -> None:
        """Once the workers are idle: every reader's texts hold no other seat's secret."""
        self.idle()
        view = full_view(self.game, self.state())
        texts: list[tuple[int | None, str, str]] = []
        readers = {None: self.host, **{seat: token for seat, token in self.tokens.items()}}
        for reader, token in readers.items():
            for where, doc in (("game", self.client.get(f"/api/v1/games/{self.id}", headers=bearer(token)).get_json()),
                               ("feed", self._feed(str(reader), token))):
                assert leaks(doc, reader) == [], (reader, where, leaks(doc, reader))
                texts.append((reader, where, json.dumps(doc)))
                if reader is None and where == "feed":
                    self.told |= told_sums(doc)
        spectator = self.client.get(f"/api/v1/games/{self.id}").get_json()
        assert leaks(spectator, None) == [] and "undelivered" not in spectator
        texts.append((None, "spectator's game", json.dumps(spectator)))
        hosting = self.host_browser.get(f"/games/{self.id}/host")
        assert hosting.status_code == 200
        texts.append((None, "host page", text_of(hosting.get_data(as_text=True))))
        seats = {address: seat for seat, address in enumerate(ADDRESSES)}
        mails = self.mails()
        for mail in mails[self.read:]:
            self.kinds.add(mail["kind"])
            read = [mail["subject"], mail["text"], text_of(mail["html"]), json.dumps(mail["headers"])]
            texts.append((seats.get(mail["to"]), f"{mail['kind']} mail", "\n".join(read)))
        self.read = len(mails)
        for reader, where, text in texts:
            assert not exposed(text, view, reader, self.told), (reader, where, exposed(text, view, reader, self.told))
        self.checks += 1
        assert any(secrets_of(view, seat) for seat in range(len(view["players"]))), "there was something to hide"

    def play_over_the_api(self, seat: int, rng: random.Random) -> None:
        listed_moves = self.client.get(f"/api/v1/games/{self.id}/moves", headers=bearer(self.tokens[seat])).get_json()
        move = rng.choice([m["move"] for m in listed_moves["moves"] if m["move"]["type"] != "entice"])
        played = self.client.post(f"/api/v1/games/{self.id}/moves", headers=bearer(self.tokens[seat]),
                                  json={"move": move, "version": listed_moves["version"]})
        assert played.status_code == 200, played.get_json()

    def set_orders(self, seat: int, item: str) -> None:
        orders = {"limits": {item: LIMIT}, "step_out_otherwise": False}
        answer = self.client.put(f"/api/v1/games/{self.id}/orders", headers=bearer(self.tokens[seat]), json=orders)
        assert answer.status_code == 200, answer.get_json()


def _seats() -> list[dict]:
    return [{"name": name, "email": address} for name, address in zip(("Ann", "Bea", "Cy"), ADDRESSES)]


def _enter(game: Table, signed_in_by_link: int) -> None:
    """Every seat's player token, from his invitation, and one from a sign-in link asked for."""
    game.idle()
    for seat, address in enumerate(ADDRESSES):
        if seat != signed_in_by_link:
            game.sign_in(seat, game.mails(address, ("invitation",))[-1])
    assert game.client.post("/api/v1/sign-in", json={"email": ADDRESSES[signed_in_by_link]}).status_code == 202
    wait_for(lambda: game.mails(ADDRESSES[signed_in_by_link], ("sign_in",)), 60)  # its own queue: not in idle()
    game.sign_in(signed_in_by_link, game.mails(ADDRESSES[signed_in_by_link], ("sign_in",))[-1])


class Ann:
    """Seat 0, played by replying to her decision mails; once each, the replies that play nothing."""

    def __init__(self, game: Table, rng: random.Random) -> None:
        self.game, self.rng = game, rng
        self.odd = ["stranger", "forged", "help", "misspelt"]
        self.stale_sent = False

    def _post(self, mail: dict, text: str, sender: str = ADDRESSES[0], **fields) -> None:
        posted = parse_fields(sender, mail["reply_to"], text, answering=mail["headers"]["Message-ID"],
                              subject=f"Re: {mail['subject']}", **fields)
        assert post(self.game.live, posted)[0] == 200
        self.game.check()

    def play(self, since: int) -> None:
        mails = [m for m in self.game.mails(ADDRESSES[0], DECISION_KINDS) if m["reply_to"]]
        mail = next(m for m in reversed(mails) if (decision_in(m["headers"]["Message-ID"]) or ())[1:] == (0, since))
        while self.odd:
            odd = self.odd.pop()
            if odd == "stranger":
                self._post(mail, listed(mail)[0], sender="eve@example.org", from_name="Eve")
            elif odd == "forged":
                self._post(mail, listed(mail)[0], spf="fail", dkim="{@example.org : fail}")
            else:
                self._post(mail, "help" if odd == "help" else "biuld the libary")
        older = [m for m in mails if m is not mail and decision_in(m["headers"]["Message-ID"])]
        if older and not self.stale_sent:
            self.stale_sent = True
            self._post(older[0], listed(older[0])[0])
        version = table(self.game.live.app, self.game.id).version
        self._post(mail, self.rng.choice([line for line in listed(mail) if not line.startswith(("orders", "help"))]))
        assert table(self.game.live.app, self.game.id).version > version, "Ann's reply was played"


def test_no_text_the_host_or_another_seat_reads_holds_a_seats_secrets(live, provider, workers):
    workers(1, PALAZZO_INBOUND_SECRET=SECRET, PALAZZO_MAIL_DOMAIN=DOMAIN, PALAZZO_MAIL_RETRY_SECONDS="0",
            **provider.env())
    game = Table(live, provider, "princes-of-florence", redis.Redis.from_url(live.app.extensions["palazzo.config"].redis_url))
    game.create(_seats(), deadlines=LONG)
    _enter(game, signed_in_by_link=2)
    game.start()
    rng, ann, bea_decisions, rounds = random.Random(3), Ann(game, random.Random(4)), 0, set()
    deadline = time.monotonic() + 900
    while game.state()["result"] is None:
        assert time.monotonic() < deadline, "the game did not reach its end"
        game.check()
        state = game.state()
        if state["round"] not in rounds:
            rounds.add(state["round"])
            game.set_orders(1, sorted(AUCTION_ITEMS)[state["round"] % len(AUCTION_ITEMS)])
            game.check()
        decision = state["pending"][0]
        if decision["seat"] == 0:
            ann.play(table(live.app, game.id).decision_of(0)["since"])
        else:
            bea_decisions += decision["seat"] == 1
            if decision["seat"] == 1 and bea_decisions in (3, 10, 20):  # remind her now, not at 80% of an hour
                Queue("palazzo", connection=game.queues).enqueue(
                    "workers.notify.reminder", game.id, 1, table(live.app, game.id).decision_of(1)["since"])
                game.check()
            game.play_over_the_api(decision["seat"], rng)
    game.check()
    assert {"invitation", "sign_in", "your_turn", "your_bid", "choose", "reminder", "round_result", "game_over",
            "reply_done", "reply_help", "reply_refused", "reply_stale"} <= game.kinds, game.kinds
    assert {"reply_not_yours", "reply_unverified"} & game.kinds, "a notice (one an hour: the first of the two)"
    host = game.client.get(f"/api/v1/games/{game.id}", headers=bearer(game.host)).get_json()
    assert {m["kind"] for m in host["undelivered"]} >= {"reply_done", "your_turn"}, "the host's list was scanned full"
    assert game.checks > 100


def test_the_toy_game_hides_each_seats_part_from_the_host_and_the_others(live, provider, workers):
    workers(1, **provider.env())
    game = Table(live, provider, "toy-count", redis.Redis.from_url(live.app.extensions["palazzo.config"].redis_url))
    game.create(_seats(), options={"turns": 3})
    _enter(game, signed_in_by_link=0)
    game.start()
    game.set_orders(1, "jugglers")
    rng = random.Random(5)
    while game.state()["phase"] != "over":
        game.check()
        pending = [seat for seat in range(3) if game.client.get(
            f"/api/v1/games/{game.id}/moves", headers=bearer(game.tokens[seat])).get_json()["moves"]]
        game.play_over_the_api(pending[0], rng)
    game.check()
    assert {"invitation", "sign_in"} <= game.kinds and game.checks > 5
