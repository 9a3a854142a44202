"""A whole Goofspiel game played only by replying to mails: each of three players answers every
decision mail he finds in the outbox with one of the bids it lists, written as people write it ("bid 7",
"7", "play 7", "bid seven"), top-posted above the quoted mail; the replies go through the Inbound Parse
endpoint of the app served on loopback, and real `palazzo worker` processes play them. Every decision
mail carries a one-click link per card of the hand; at the end each player is mailed the result. Deadlines are an hour, so every bid is a reply."""
from __future__ import annotations

import random
import re
import time

import pytest

from engine.goofspiel.grammar import NUMBERS
from tests.browser import Served
from tests.test_inbound import DOMAIN, SECRET, game, listed, moves_by, outbox, parse_fields, post, quoting
from tests.conftest import bearer, make_app, wait_for

GAMES = ["goofspiel", "princes-of-florence"]
PLAYERS = {"ann@example.org": 0, "bea@example.org": 1, "cy@example.org": 2}
CARDS = 5
ACT = re.compile(r"http://\S+/act\?t=[\w.\-]+")
WORDS = {value: word for word, value in NUMBERS.items()}


@pytest.fixture
def live(redis_url):
    with Served(make_app(redis_url, JOBS="rq", MIN_DEADLINE=1, BOT_DELAY=0, INBOUND_SECRET=SECRET,
                         GAMES=GAMES)) as served:
        yield served


def written(command: str, rng: random.Random) -> str:
    """A listed command ("bid 7") as one of the ways a player writes it."""
    card = int(command.split()[1])
    return rng.choice([command, str(card), f"play {card}", f"bid {WORDS[card]}", f"I bid {card} please"])


def test_three_players_play_a_whole_goofspiel_game_only_by_replying(live, workers):
    client = live.app.test_client()
    created = client.post("/api/v1/games", json={
        "game": "goofspiel", "seed": 8, "options": {"seats": 3, "cards": CARDS}, "deadlines": {"bid": 3600},
        "seats": [{"name": email.split("@")[0].title(), "email": email} for email in PLAYERS]}).get_json()
    game_id = created["game"]["id"]
    assert client.post(f"/api/v1/games/{game_id}/start", headers=bearer(created["tokens"]["host"])).status_code == 200
    workers(2, PALAZZO_GAMES=",".join(GAMES), PALAZZO_INBOUND_SECRET=SECRET, PALAZZO_MAIL_DOMAIN=DOMAIN)
    rng = random.Random(4)
    answered: set[str] = set()
    deadline = time.monotonic() + 240
    while game(live, game_id)["status"] != "finished":
        assert time.monotonic() < deadline, "the game did not reach its end"
        for mail in outbox(live.app, kinds=("your_turn",)):
            message_id = mail["headers"]["Message-ID"]
            if message_id in answered or mail["game"] != game_id:
                continue
            answered.add(message_id)
            commands = listed(mail)
            hand = CARDS - len(moves_by(live, game_id, PLAYERS[mail["to"]]))
            assert commands and all(c.startswith("bid ") for c in commands) and len(commands) == hand, mail["text"]
            assert len(set(ACT.findall(mail["text"]))) == hand, "a one-click link per card"
            assert "Your hand: " in mail["text"] and "the prize is the " in mail["text"]
            reply = written(rng.choice(commands), rng)
            fields = parse_fields(mail["to"], mail["headers"]["Reply-To"], quoting(mail, reply), answering=message_id,
                                  subject=f"Re: {mail['subject']}", from_name=mail["to"].split("@")[0].title())
            assert post(live, fields)[0] == 200
        time.sleep(0.05)
    answers = [m for m in outbox(live.app) if m["kind"].startswith("reply_")]
    assert answers and {m["kind"] for m in answers} == {"reply_done"}, [m["text"] for m in answers]
    assert not [m["text"] for m in outbox(live.app, kinds=("your_turn", "reply_done")) if "Princes of Florence" in m["text"] or "prestige" in m["text"]]
    assert len(answered) == (CARDS - 1) * len(PLAYERS), "one mail per seat per round but the last"
    for seat in PLAYERS.values():
        moves = moves_by(live, game_id, seat)
        assert len(moves) == CARDS - 1 and not [m for m in moves if m.get("timeout") or m.get("bot")]
    wait_for(lambda: {m["to"] for m in outbox(live.app, kinds=("game_over",))} == set(PLAYERS))
    for mail in outbox(live.app, kinds=("game_over",)):
        assert "is over." in mail["text"] and "Game over: " in mail["text"] and "(you)" in mail["text"], mail["text"]
    result = game(live, game_id)["result"]
    assert sum(score["points"] for score in result["scores"]) <= CARDS * (CARDS + 1) // 2
