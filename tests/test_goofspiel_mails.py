"""Goofspiel brings no mails of its own, and gets every mail kind through the one mail path
(`engine.presentation.PlainMails`): a reminder, what a deadline played for a seat, a welcome for the
player taking over a seat, each from its reader's own view, on real `palazzo worker` processes.

Two games of one seed differ only in seat 0's hidden bid (1 in one, 4 in the other): the reminder
and the welcome the other seats get while that bid is hidden are the same in both (ids, links and
times blanked), so neither tells the bid; after the deadline reveals the round, the seat that let it
run out is told what was played for it.
"""
from __future__ import annotations

import re
from datetime import timedelta

from rq import Queue

from engine.goofspiel import words
from service import games, mailbox
from service.followups import QUEUE
from tests.conftest import bearer, make_app, wait_for
from tests.mail_games import mails, player
from tests.test_goofspiel_redaction import BIDS, bid, blank

GAMES = ["goofspiel", "princes-of-florence"]
ANN, BEA, CY, DEE = "ann@example.org", "bea@example.org", "cy@example.org", "dee@example.org"
RELATIVE = re.compile(r"\((?:in|within) [^)]*\)")


def _create(client) -> dict:
    response = client.post("/api/v1/games", json={
        "game": "goofspiel", "seed": 11, "options": {"seats": 3, "cards": 4}, "deadlines": {"bid": 3600},
        "seats": [{"name": name, "email": email} for name, email in zip(("Ann", "Bea", "Cy"), (ANN, BEA, CY))]})
    assert response.status_code == 201, response.get_json()
    created = response.get_json()
    started = client.post(f"/api/v1/games/{created['game']['id']}/start", headers=bearer(created["tokens"]["host"]))
    assert started.status_code == 200
    return created


def _of(app, game_id: str, to: str, kinds: tuple[str, ...]) -> list[dict]:
    return [m for m in mails(app, to, kinds) if m.get("game") == game_id]


def _same(mail: dict, created: dict) -> str:
    return RELATIVE.sub("(REL)", blank(mail["subject"] + mail["text"] + mail["html"], created))


def test_a_goofspiel_seat_gets_reminders_deadline_notices_and_a_welcome_from_its_own_view(
        redis_url, moving_clock, workers):
    app = make_app(redis_url, JOBS="rq", GAMES=GAMES, MIN_DEADLINE=1, BOT_DELAY=0)
    workers(1, PALAZZO_GAMES=",".join(GAMES))
    client = app.test_client()
    store = app.extensions["palazzo.store"]
    made = [_create(client) for _ in BIDS]
    players = [player(app, client, email) for email in (ANN, BEA)]
    for created in made:
        wait_for(lambda: all(_of(app, created["game"]["id"], to, ("your_turn",)) for to in (ANN, BEA, CY)))
    reminded, welcomed = [], []
    for created, card in zip(made, BIDS):
        game_id = created["game"]["id"]
        bid(client, created, players, 0, card)
        bid(client, created, players, 1, 2)
        since = games.load(store, game_id).decision_of(2)["since"]
        Queue(QUEUE, connection=store.redis).enqueue("workers.notify.reminder", game_id, 2, since, 0)
        wait_for(lambda: _of(app, game_id, CY, ("reminder",)))
        [reminder] = _of(app, game_id, CY, ("reminder",))
        assert reminder["text"].startswith("Reminder: Cy, it is your move in"), reminder["text"]
        assert "a game of Goofspiel: to bid a card." in reminder["text"] and "Your hand: " in reminder["text"]
        assert reminder["subject"].startswith("Reminder: Your move: to bid a card"), reminder["subject"]
        reminded.append(_same(reminder, created))
        handed = client.put(f"/api/v1/games/{game_id}/seats/1", headers=bearer(created["tokens"]["host"]),
                            json={"name": "Dee", "email": DEE})
        assert handed.status_code == 200, handed.get_json()
        wait_for(lambda: _of(app, game_id, DEE, ("welcome",)))
        [welcome] = _of(app, game_id, DEE, ("welcome",))
        assert welcome["text"].startswith("Welcome, Dee: you now play seat 2 of"), welcome["text"]
        assert "taking over from Bea" in welcome["text"] and "Waiting for Cy; nothing waits for you now." in welcome["text"]
        welcomed.append(_same(welcome, created))
    assert reminded[0] == reminded[1], "Cy's reminder tells nothing of Ann's hidden bid"
    assert welcomed[0] == welcomed[1], "Dee's welcome tells nothing of Ann's hidden bid"

    moving_clock.advance(timedelta(minutes=61))  # Cy's bid runs out: the default plays it, the round is revealed
    for created in made:
        game_id = created["game"]["id"]
        wait_for(lambda: [m for m in _of(app, game_id, CY, None) if "time ran out on your decision" in m["text"]])
        [told] = [m for m in _of(app, game_id, CY, None) if "time ran out on your decision" in m["text"]]
        table = games.load(store, game_id)
        hand = table.game.view(table.state, 2)["players"][2]["hand"]
        assert re.search(r"so Palazzo played the default for you: Bid \d\.", told["text"]), told["text"]
        assert "missed decision" in told["text"] and "Ann (bid" not in told["text"], told["text"]
        assert told["seat"] == 2 and told["to"] == CY
        if told["kind"] == "your_turn":  # with the next bid's decision, told from Cy's own view
            assert f"Your hand: {words.cards(hand)}." in told["text"], told["text"]
        else:
            assert told["kind"] == "defaulted", told["kind"]
    assert not [m for m in mailbox.outbox(store) if m["kind"] == "round_result"], "no round mails: see PlainMails"
