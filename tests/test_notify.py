"""Mail as players get it: real `palazzo worker` processes send decision mails to the local outbox,
once per decision, and a game is played to its end only through the one-click links they carry."""
from __future__ import annotations

import re
import time
from urllib.parse import parse_qs, urlsplit

from rq import Queue

from service import tokens
from service.followups import QUEUE
from service.mail import sending
from service.store import email_key
from tests.conftest import bearer, make_app, wait_for
from tests.mail_games import answer, mails, player, start

ACT = re.compile(r"(http://\S+/act\?t=[\w.\-]+)")


def test_each_seat_gets_one_mail_per_decision_with_its_answers(redis_url, workers):
    app = make_app(redis_url, JOBS="rq", MIN_DEADLINE=1, BOT_DELAY=0)
    client = app.test_client()
    created = start(client, [{"name": "Ann", "email": "ann@example.org"}, {"name": "Bea", "email": "bea@example.org"},
                               {"name": "Cy", "bot": "random"}])
    game_id = created["game"]["id"]
    workers(2)
    wait_for(lambda: all(any(m["kind"] == "choose" for m in mails(app, to))
                         for to in ("ann@example.org", "bea@example.org")))
    time.sleep(2)  # a second job or sweep would have sent a second mail by now
    for to in ("ann@example.org", "bea@example.org"):
        [mail] = [m for m in mails(app, to) if m["kind"] == "choose"]
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
    created = start(client, [{"name": "Ann", "email": humans[0]}, {"name": "Bea", "email": humans[1]},
                               {"name": "Cy", "bot": "random"}, {"name": "Di", "bot": "greedy"},
                               {"name": "Ed", "bot": "random"}], deadlines={key: 2 for key in ("setup", "auction", "turn", "choice")})
    game_id = created["game"]["id"]
    workers(2)
    clicked: set[str] = set()
    deadline = time.monotonic() + 420
    while client.get(f"/api/v1/games/{game_id}").get_json()["status"] != "finished":
        assert time.monotonic() < deadline, "the game did not reach its end"
        for mail in mails(app):
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
    wait_for(lambda: all(any(m["kind"] == "game_over" for m in mails(app, to)) for to in humans))
    assert all(len([m for m in mails(app, to) if m["kind"] == "game_over"]) == 1 for to in humans)


def test_decisions_of_several_games_waiting_on_one_player_come_as_one_mail(redis_url, workers):
    app = make_app(redis_url, JOBS="rq", MIN_DEADLINE=1, BOT_DELAY=0)
    client = app.test_client()
    games = [start(client, [{"name": "Ann", "email": "ann@example.org"}, {"name": f"B{n}"}, {"name": f"C{n}"}])
             for n in range(3)]
    workers(1, PALAZZO_MAIL_MERGE_SECONDS="2")
    wait_for(lambda: any(m["kind"] == "merged" for m in mails(app, "ann@example.org")))
    time.sleep(3)
    [merged] = mails(app, "ann@example.org")[-1:]
    assert merged["kind"] == "merged" and len([m for m in mails(app, "ann@example.org") if m["kind"] != "invitation"]) == 1
    assert all(created["game"]["id"] in merged["text"] for created in games)
    assert len(ACT.findall(merged["text"])) >= 3, "each game's one-click answers are in it"


def test_a_newcomer_to_a_seat_is_mailed_the_decision_he_takes_over(redis_url, workers):
    app = make_app(redis_url, JOBS="rq", MIN_DEADLINE=1, BOT_DELAY=0)
    client = app.test_client()
    created = start(client, [{"name": "Ann", "email": "ann@example.org"}, {"name": "Bob", "email": "bob@example.org"},
                             {"name": "Cy", "bot": "random"}])
    game_id = created["game"]["id"]
    workers(1)
    wait_for(lambda: mails(app, "bob@example.org", ("choose",)))
    handed = client.put(f"/api/v1/games/{game_id}/seats/1", headers=bearer(created["tokens"]["host"]),
                        json={"name": "Dee", "email": "dee@example.org"})
    assert handed.status_code == 200
    wait_for(lambda: mails(app, "dee@example.org", ("choose",)))
    [bobs] = mails(app, "bob@example.org", ("choose",))
    [dees] = mails(app, "dee@example.org", ("choose",))
    assert (dees["game"], dees["seat"], dees["holder"], dees["since"]) == (game_id, 1, 1, bobs["since"])
    assert bobs["holder"] == 0 and dees["text"].startswith("Dee, you have a choice to make")
    assert ACT.search(dees["text"]), "with one-click answers of his own"


def _held(app, to: str) -> int:
    return app.extensions["palazzo.store"].redis.llen(email_key(tokens.email_hash(to), "held"))


def _flush_now(app, to: str) -> None:
    """Run the flush a worker would run at the end of the merge window (set long here) now."""
    Queue(QUEUE, connection=app.extensions["palazzo.store"].followups.connection).enqueue(
        "workers.notify.flush", tokens.email_hash(to))


def test_a_held_decision_mail_answered_in_its_window_is_not_sent(redis_url, workers):
    """Ann's decision mail waits to be merged; she answers on the web first: no mail for it."""
    app = make_app(redis_url, JOBS="rq", MIN_DEADLINE=1, BOT_DELAY=0)
    client = app.test_client()
    game_id = start(client, [{"name": "Ann", "email": "ann@example.org"}, {"name": "B"}, {"name": "C"}])["game"]["id"]
    workers(1, PALAZZO_MAIL_MERGE_SECONDS="600")
    ann = player(app, client, "ann@example.org")
    wait_for(lambda: _held(app, "ann@example.org") == 1)
    answer(client, ann, game_id)
    _flush_now(app, "ann@example.org")
    redis = app.extensions["palazzo.store"].redis
    wait_for(lambda: int(redis.hget(sending.DROPPED, "choose") or 0) == 1)
    assert _held(app, "ann@example.org") == 0 and not mails(app, "ann@example.org", ("choose", "merged"))


def test_a_merged_mail_leaves_out_the_decisions_answered_while_it_was_held(redis_url, workers):
    app = make_app(redis_url, JOBS="rq", MIN_DEADLINE=1, BOT_DELAY=0)
    client = app.test_client()
    ids = [start(client, [{"name": "Ann", "email": "ann@example.org"}, {"name": f"B{n}"}, {"name": f"C{n}"}])["game"]["id"]
           for n in range(3)]
    workers(1, PALAZZO_MAIL_MERGE_SECONDS="600")
    ann = player(app, client, "ann@example.org")
    wait_for(lambda: _held(app, "ann@example.org") == 3)
    answer(client, ann, ids[0])
    _flush_now(app, "ann@example.org")
    wait_for(lambda: mails(app, "ann@example.org", ("merged",)))
    [merged] = mails(app, "ann@example.org", ("merged",))
    assert merged["subject"].startswith("2 decisions wait for you")
    assert ids[0] not in merged["text"] + merged["html"]
    assert all(game_id in merged["text"] and game_id in merged["html"] for game_id in ids[1:])
    assert merged["html"].count("<!DOCTYPE html>") == 1 and merged["html"].count("<body") == 1
    assert not mails(app, "ann@example.org", ("choose",))
