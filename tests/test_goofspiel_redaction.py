"""Nobody sees a Goofspiel bid before the round is revealed, on any channel: the API (the game, its
feed, its moves), the seat and spectator pages and the log, the mails and the webhook notices.

A card is a bare number that every hand shows, so a leak cannot be found by searching for it. The test
plays two games from the same seed, identical but for seat 0's bid (1 in one, 4 in the other), and
holds that everything the other seats, the host and a spectator read of the two is the same, once the
game's id, tokens and times are blanked: what differs is only what the bid changed. After the round's
last bid, the same readers see seat 0's card.
"""
from __future__ import annotations

import json
import re

from service import games, mailbox
from service.channels import notices
from tests.conftest import bearer, jobs_idle, make_app, wait_for
from tests.mail_games import player
from tests.web_client import enter_seat

GAMES = ["goofspiel", "princes-of-florence"]
EMAILS = ["ann@example.org", "bea@example.org", "cy@example.org"]
BIDS = (1, 4)  # seat 0's bid in game A and in game B
BLANKS = [
    (re.compile(r"\d{4}-\d\d-\d\dT[\d:.]+(?:Z|[+-]\d\d:\d\d)?"), "TIME"),
    (re.compile(r"\b\d\d:\d\d(?::\d\d)?\b"), "CLOCK"),
    (re.compile(r'name="(csrf|key|t)" value="[^"]*"'), r'name="\1" value=""'),
    (re.compile(r"[?&]t=[\w.\-]+"), "?t=LINK"),
    (re.compile(r'(link=|link\\?": \\?")[\w.\-]+'), r"\1LINK"),
    (re.compile(r"[\w.\-]+@[\w.\-]+\.example\.org"), "REPLY"),
    (re.compile(r"<[\w.\-]+@[\w.\-]+>"), "<ID>"),
]


def create(client) -> tuple[str, dict]:
    response = client.post("/api/v1/games", json={
        "game": "goofspiel", "seed": 11, "options": {"seats": 3, "cards": 4},
        "seats": [{"name": name, "email": email} for name, email in zip(("Ann", "Bea", "Cy"), EMAILS)]})
    assert response.status_code == 201, response.get_json()
    created = response.get_json()
    game_id = created["game"]["id"]
    assert client.post(f"/api/v1/games/{game_id}/start", headers=bearer(created["tokens"]["host"])).status_code == 200
    return game_id, created


def blank(text: str, created: dict) -> str:
    """The text with what differs between two games of one seed anyway: ids, tokens, times, links."""
    text = text.replace(created["game"]["id"], "GAME")
    text = text.replace(created["tokens"]["host"], "TOKEN")
    for pattern, replacement in BLANKS:
        text = pattern.sub(replacement, text)
    return text


def bid(client, created: dict, players: list[dict], seat: int, card: int) -> None:
    game_id = created["game"]["id"]
    version = client.get(f"/api/v1/games/{game_id}").get_json()["version"]
    played = client.post(f"/api/v1/games/{game_id}/moves", headers=players[seat],
                         json={"move": {"type": "bid", "card": card}, "version": version})
    assert played.status_code == 200, played.get_json()


def readings(app, created: dict, players: list[dict]) -> dict[str, str]:
    """Everything seats 1 and 2, the host and a spectator can read of the game now, by channel."""
    game_id = created["game"]["id"]
    client = app.test_client()
    store = app.extensions["palazzo.store"]
    found: dict[str, str] = {}
    readers = {"seat 1": players[1], "seat 2": players[2],
               "host": bearer(created["tokens"]["host"]), "spectator": {}}
    for reader, headers in readers.items():
        for what in ("", "/events", "/moves", "/messages"):
            response = client.get(f"/api/v1/games/{game_id}{what}", headers=headers)
            found[f"{reader} GET {what or '/'}"] = f"{response.status_code} {json.dumps(response.get_json(), sort_keys=True)}"
    for seat in (1, 2):
        browser = app.test_client()
        enter_seat(app, browser, game_id, seat)
        for page in ("", "/log", "/watch"):
            found[f"seat {seat} page {page or '/'}"] = browser.get(f"/games/{game_id}{page}").get_data(as_text=True)
    found["spectator page /watch"] = client.get(f"/games/{game_id}/watch").get_data(as_text=True)
    for email in EMAILS[1:]:
        sent = [m for m in mailbox.outbox(store) if m["to"] == email and m.get("game") == game_id]
        found[f"mail to {email}"] = json.dumps([[m["subject"], m["text"], m["html"]] for m in sent])
    table = games.load(store, game_id)
    for seat in (1, 2, None):
        found[f"notices of {seat}"] = json.dumps([notice.text for notice in notices.of(store, table, seat)] +
                                                 [notice.data for notice in notices.of(store, table, seat)],
                                                 sort_keys=True, default=str)
    return {where: blank(text, created) for where, text in found.items()}


def decisions(store, game_id: str) -> list[dict]:
    return [m for m in mailbox.outbox(store) if m.get("game") == game_id and m["kind"] == "your_turn"]


def decided(store, game_id: str) -> set[str]:
    """The addresses that have had a decision mail of the game."""
    return {m["to"] for m in decisions(store, game_id)}


def settled(app) -> None:
    """Every job the commits queued (mails) has run."""
    store = app.extensions["palazzo.store"]
    wait_for(lambda: jobs_idle(store.followups.queue.connection))


def test_a_bid_is_hidden_from_everyone_else_on_every_channel_until_the_round_is_revealed(redis_url, workers):
    app = make_app(redis_url, JOBS="rq", GAMES=GAMES, BOT_DELAY=0)
    workers(1, PALAZZO_GAMES=",".join(GAMES))
    client = app.test_client()
    made = [create(client)[1] for _ in BIDS]
    store = app.extensions["palazzo.store"]
    players = [player(app, client, email) for email in EMAILS]
    for created in made:  # every seat has its first decision mail before seat 0 bids
        wait_for(lambda: decided(store, created["game"]["id"]) >= set(EMAILS))
    for created, card in zip(made, BIDS):
        bid(client, created, players, 0, card)
    settled(app)
    hidden = [readings(app, created, players) for created in made]
    assert hidden[0].keys() == hidden[1].keys()
    differ = {where for where in hidden[0] if hidden[0][where] != hidden[1][where]}
    assert not differ, f"seat 0's bid shows in: {sorted(differ)}"
    own = client.get(f"/api/v1/games/{made[0]['game']['id']}", headers=players[0]).get_json()
    assert own["view"]["players"][0]["private"]["bid"] == BIDS[0], "its own seat sees it"

    for created in made:  # the round's last bids: all are revealed
        bid(client, created, players, 1, 3)
        bid(client, created, players, 2, 2)
    settled(app)
    for created, card in zip(made, BIDS):
        game_id = created["game"]["id"]
        wait_for(lambda: len([m for m in decisions(store, game_id) if m["to"] == EMAILS[1]]) == 2)
        shown = readings(app, created, players)
        first_round = {"seat": 0, "card": card}
        for reader in ("seat 1", "seat 2", "host", "spectator"):
            view = json.loads(shown[f"{reader} GET /"].split(" ", 1)[1])["view"]
            assert first_round in view["history"][0]["bids"], reader
            feed = json.loads(shown[f"{reader} GET /events"].split(" ", 1)[1])
            assert any(first_round in (entry["event"].get("bids") or []) for entry in feed["events"]), reader
        said = f"Ann {card}"
        for where in ("seat 1 page /", "seat 2 page /", "seat 1 page /log", "spectator page /watch",
                      f"mail to {EMAILS[1]}"):
            assert said in shown[where], where
