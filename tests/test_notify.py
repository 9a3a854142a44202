"""Mail as players get it: real `palazzo worker` processes send decision mails to the local outbox,
once per decision, and a game is played to its end only through the one-click links they carry."""
from __future__ import annotations

import re
import time
from urllib.parse import parse_qs, urlsplit

from service import mailbox
from tests.conftest import make_app, wait_for

ACT = re.compile(r"(http://\S+/act\?t=[\w.\-]+)")


def _mails(app, to: str | None = None) -> list[dict]:
    return [m for m in mailbox.outbox(app.extensions["palazzo.store"]) if to is None or m["to"] == to]


def _create(client, seats: list[dict], **extra) -> dict:
    response = client.post("/api/v1/games", json={"game": "princes-of-florence", "seed": 4, "seats": seats, **extra})
    assert response.status_code == 201, response.get_json()
    created = response.get_json()
    assert client.post(f"/api/v1/games/{created['game']['id']}/start",
                       headers={"Authorization": f"Bearer {created['tokens']['host']}"}).status_code == 200
    return created


def test_each_seat_gets_one_mail_per_decision_with_its_answers(redis_url, workers):
    app = make_app(redis_url, JOBS="rq", MIN_DEADLINE=1, BOT_DELAY=0)
    client = app.test_client()
    created = _create(client, [{"name": "Ann", "email": "ann@example.org"}, {"name": "Bea", "email": "bea@example.org"},
                               {"name": "Cy", "bot": "random"}])
    game_id = created["game"]["id"]
    workers(2)
    wait_for(lambda: all(any(m["kind"] == "choose" for m in _mails(app, to))
                         for to in ("ann@example.org", "bea@example.org")))
    time.sleep(2)  # a second job or sweep would have sent a second mail by now
    for to in ("ann@example.org", "bea@example.org"):
        [mail] = [m for m in _mails(app, to) if m["kind"] == "choose"]
        assert mail["game"] == game_id and ACT.search(mail["text"]) and ACT.search(mail["html"])
        assert mail["headers"]["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        assert f"<game-{game_id}@" in mail["headers"]["References"]
        other = "bea" if to.startswith("ann") else "ann"
        assert other + "@example.org" not in mail["text"]


def test_a_whole_game_played_through_mailed_one_click_links(redis_url, workers):
    """Two players only click links from their mail (or let 2-second deadlines pass); three bots."""
    app = make_app(redis_url, JOBS="rq", MIN_DEADLINE=1, BOT_DELAY=0)
    client = app.test_client()
    humans = ["ann@example.org", "bea@example.org"]
    created = _create(client, [{"name": "Ann", "email": humans[0]}, {"name": "Bea", "email": humans[1]},
                               {"name": "Cy", "bot": "random"}, {"name": "Di", "bot": "greedy"},
                               {"name": "Ed", "bot": "random"}], deadlines={key: 2 for key in ("setup", "auction", "turn", "choice")})
    game_id = created["game"]["id"]
    workers(2)
    clicked: set[str] = set()
    deadline = time.monotonic() + 420
    while client.get(f"/api/v1/games/{game_id}").get_json()["status"] != "finished":
        assert time.monotonic() < deadline, "the game did not reach its end"
        for mail in _mails(app):
            links = ACT.findall(mail["text"])
            if mail["to"] in humans and links and links[0] not in clicked:
                clicked.add(links[0])
                parts = urlsplit(links[0])
                token = parse_qs(parts.query)["t"][0]
                assert client.get(f"{parts.path}?{parts.query}").status_code in (200, 409, 410)  # the confirm page
                client.post(parts.path, data={"t": token})  # its button; a stale link acts on nothing
        time.sleep(0.1)
    game = client.get(f"/api/v1/games/{game_id}").get_json()
    assert game["result"] is not None and clicked
    log = app.extensions["palazzo.store"].log(game_id)
    by_link = [e for e in log if e["seat"] in (0, 1) and not e.get("timeout") and not e.get("bot")]
    assert by_link, "some human moves came through the links"
    wait_for(lambda: all(any(m["kind"] == "game_over" for m in _mails(app, to)) for to in humans))
    assert all(len([m for m in _mails(app, to) if m["kind"] == "game_over"]) == 1 for to in humans)


def test_decisions_of_several_games_waiting_on_one_player_come_as_one_mail(redis_url, workers):
    app = make_app(redis_url, JOBS="rq", MIN_DEADLINE=1, BOT_DELAY=0)
    client = app.test_client()
    games = [_create(client, [{"name": "Ann", "email": "ann@example.org"}, {"name": f"B{n}"}, {"name": f"C{n}"}])
             for n in range(3)]
    workers(1, PALAZZO_MAIL_MERGE_SECONDS="2")
    wait_for(lambda: any(m["kind"] == "merged" for m in _mails(app, "ann@example.org")))
    time.sleep(3)
    [merged] = _mails(app, "ann@example.org")[-1:]
    assert merged["kind"] == "merged" and len([m for m in _mails(app, "ann@example.org") if m["kind"] != "invitation"]) == 1
    assert all(created["game"]["id"] in merged["text"] for created in games)
    assert len(ACT.findall(merged["text"])) >= 3, "each game's one-click answers are in it"
