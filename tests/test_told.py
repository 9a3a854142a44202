"""Every player told what was done for him: on real `palazzo worker` processes, a clock moved past a
deadline and the local outbox, a timeout mails what the deadline played (once, in the game's words, from
his own view only), the stand-in's takeover is mailed to him and told to the table, his decision mails
then name the stand-in, and his own move ends it; his seat page and the host's page say so at the top."""
from __future__ import annotations

import json
from datetime import timedelta

import redis

from service import clock, games, playing, timers, tokens, told
from service.games import STAND_IN
from service.store import email_key
from service.web.seat_link import seat_url
from tests.browser import Served, screenshot
from tests.conftest import bearer, jobs_idle, make_app, seat_tokens, wait_for
from tests.mail_games import answer, mails, player, start
from tests.web_client import enter_host, enter_seat
from tests.web_leaks import POF, exposed, full_view

ANN, BEA, DEE = "ann@example.org", "bea@example.org", "dee@example.org"
HOURS = {"setup": 3600, "auction": 86400, "turn": 86400, "choice": 86400}
DECISIONS = ("your_turn", "your_bid", "choose")


def _table(app, game_id: str) -> games.Table:
    return games.load(app.extensions["palazzo.store"], game_id)


def _events(client, game_id: str, kind: str) -> list[dict]:
    feed = client.get(f"/api/v1/games/{game_id}/events?limit=500").get_json()
    return [entry["event"] for entry in feed["events"] if entry["event"]["type"] == kind]


def _told(app, to: str) -> list[dict]:
    """The mails to `to` that carry what a deadline played for him: a notice alone or before a decision."""
    return [m for m in mails(app, to) if "time ran out on your decision" in m["text"]]


def _settled(redis_url: str) -> None:
    """Every job queued so far has run (the queue's Redis, as RQ reads it: bytes)."""
    queues = redis.Redis.from_url(redis_url)
    wait_for(lambda: jobs_idle(queues))


def test_a_timeout_is_mailed_once_with_the_move_played_and_nothing_of_the_others(redis_url, moving_clock, workers):
    app = make_app(redis_url, JOBS="rq", MIN_DEADLINE=1, BOT_DELAY=0)
    client = app.test_client()
    created = start(client, [{"name": "Bea", "email": BEA}, {"name": "Ann", "email": ANN},
                             {"name": "Cy", "bot": "greedy"}], deadlines=HOURS)
    game_id = created["game"]["id"]
    workers(1)
    wait_for(lambda: mails(app, BEA, ("choose",)) and _table(app, game_id).decision_of(2) is None)
    answer(client, player(app, client, BEA), game_id)
    table = _table(app, game_id)
    label = table.game.describe(table.game.default_move(table.state, 1))
    before = full_view(POF, table.state)
    assert not _told(app, ANN)

    moving_clock.advance(timedelta(hours=2))
    wait_for(lambda: _told(app, ANN))
    assert client.put(f"/api/v1/games/{game_id}/title", headers=bearer(created["tokens"]["host"]),
                      json={"title": "Ann's slow game"}).status_code == 200  # one more mail job looks
    wait_for(lambda: _table(app, game_id).version > table.version + 1)
    _settled(redis_url)
    [mail] = _told(app, ANN)
    assert f"so Palazzo played the default for you: {label}." in mail["text"] and label in mail["html"]
    assert "your decision to keep professions" in mail["text"]
    assert "That is 1 missed decision in a row; your own next move resets the count. After 2 more" in mail["text"]
    assert (mail["kind"], mail["seat"], mail["holder"]) == ("defaulted", 1, 0), "Bea opens the auction: a mail alone"
    assert mail["subject"] == "Time ran out: Palazzo played for you · Bea's game"
    assert "Nothing waits for you now; a mail comes when it is your decision again." in mail["text"]
    assert "/seat?t=" in mail["text"] and "/act?t=" not in mail["text"]
    assert not exposed(mail["subject"] + mail["text"] + mail["html"], before, 1), "another seat's secret"
    assert not _told(app, BEA), "Bea answered herself"
    assert _table(app, game_id).meta["seats"][1]["timed_out"]["by"] == told.DEFAULT


def test_the_stand_in_is_mailed_told_to_the_table_named_in_decision_mails_and_ended_by_his_move(
        redis_url, moving_clock, workers):
    app = make_app(redis_url, JOBS="rq", MIN_DEADLINE=1, BOT_DELAY=0)
    client = app.test_client()
    created = start(client, [{"name": "Dee", "email": DEE}, {"name": "Bo", "bot": "random"},
                             {"name": "Cy", "bot": "greedy"}], deadlines=HOURS, missed_turns=1)
    game_id = created["game"]["id"]
    workers(1, PALAZZO_MAIL_MERGE_SECONDS="1")  # the notice and the decision wait as parts, then leave as one mail
    wait_for(lambda: mails(app, DEE, ("choose",)))
    moving_clock.advance(timedelta(hours=2))
    wait_for(lambda: _events(client, game_id, "standin_started"))
    assert _events(client, game_id, "standin_started") == [{"type": "standin_started", "seat": 0, "bot": STAND_IN,
                                                            "missed": 1}]
    wait_for(lambda: _told(app, DEE))
    [notice] = _told(app, DEE)
    assert f"from now on a stand-in, the {STAND_IN} bot, answers for you at each of your deadlines" in notice["text"]
    assert notice["kind"] in ("standin", *DECISIONS)
    if notice["kind"] != "standin":  # her next decision came with it: one mail, the notice above the decision
        assert notice["text"].index("time ran out") < notice["text"].index("Answer by")
        assert [p["kind"] for p in notice["parts"]][1:] == ["standin"]

    wait_for(lambda: _table(app, game_id).decision_of(0) is not None and any(
        m["since"] == _table(app, game_id).decision_of(0)["since"] for m in mails(app, DEE, DECISIONS)))
    decided = [m for m in mails(app, DEE, DECISIONS) if m["since"] == _table(app, game_id).decision_of(0)["since"]]
    assert f"the stand-in ({STAND_IN} bot) answers for you" in decided[-1]["text"]
    assert "Palazzo plays for you" not in decided[-1]["text"]

    sentences = client.get(f"/api/v1/games/{game_id}/events?limit=500").get_json()["events"]
    assert any(e["event"]["type"] == "standin_started" for e in sentences)
    answer(client, player(app, client, DEE), game_id)
    assert _events(client, game_id, "standin_ended") == [{"type": "standin_ended", "seat": 0, "bot": STAND_IN}]
    seat = _table(app, game_id).meta["seats"][0]
    assert seat["standin"] is None and seat["missed"] == 0 and seat["timed_out"] is None


def test_no_notice_or_decision_mail_leaves_after_he_moved_inside_the_merge_window(redis_url, moving_clock, workers):
    """The notice waits beside Dee's next decision in the merge window; she moves meanwhile: when the
    mail leaves, neither part is true any more (the stand-in has ended, the decision is answered), so
    nothing of it leaves; her mails after that know nothing of it."""
    app = make_app(redis_url, JOBS="rq", MIN_DEADLINE=1, BOT_DELAY=0)
    client = app.test_client()
    created = start(client, [{"name": "Dee", "email": DEE}, {"name": "Bo", "bot": "random"},
                             {"name": "Cy", "bot": "greedy"}], deadlines=HOURS, missed_turns=1)
    game_id = created["game"]["id"]
    workers(1, PALAZZO_MAIL_MERGE_SECONDS="3")
    dee = player(app, client, DEE)
    queues = redis.Redis.from_url(redis_url)
    held = email_key(tokens.email_hash(DEE), "held")
    wait_for(lambda: mails(app, DEE, ("choose",)))
    missed = _table(app, game_id).decision_of(0)["since"]
    moving_clock.advance(timedelta(hours=2))
    wait_for(lambda: queues.llen(held) >= 2)  # her next decision's part and the notice, waiting together
    waiting = [json.loads(entry)["part"] for entry in queues.lrange(held, 0, -1)]
    answered = answer(client, dee, game_id)["since"]
    assert [(p["kind"] in DECISIONS, p["since"]) for p in waiting] == [(True, answered), (False, missed)]
    wait_for(lambda: not queues.exists(held, f"{held}:flush") and jobs_idle(queues))
    assert _events(client, game_id, "standin_ended") and not _told(app, DEE)
    stale = [m for m in mails(app, DEE) if m["since"] == answered or any(
        p["kind"] in DECISIONS and p["since"] == answered for p in m["parts"])]
    assert not stale, "no mail for the decision she answered inside the window"


def test_a_player_who_takes_a_daily_digest_reads_it_there_once(redis_url, moving_clock, workers):
    """Ann's rhythm is the digest: what the deadline played waits for her digest, beside her decision."""
    app = make_app(redis_url, JOBS="rq", MIN_DEADLINE=1, BOT_DELAY=0)
    client = app.test_client()
    created = start(client, [{"name": "Ann", "email": ANN}, {"name": "Bo", "bot": "random"},
                             {"name": "Cy", "bot": "greedy"}], deadlines=HOURS)
    workers(1)
    ann = player(app, client, ANN)
    chosen = client.put("/api/v1/me/settings", headers=ann, json={"rhythm": "digest", "digest_hour": 9})
    assert chosen.status_code == 200, chosen.get_json()
    moving_clock.advance(timedelta(hours=2))
    wait_for(lambda: _table(app, created["game"]["id"]).meta["seats"][0].get("timed_out"))
    store, ann_hash = app.extensions["palazzo.store"], tokens.email_hash(ANN)
    wait_for(lambda: timers.pending_at(store, "workers.digest.daily", ann_hash, job_id=f"pz-digest-{ann_hash}"))
    _settled(redis_url)
    assert not _told(app, ANN), "nothing at once"
    due = timers.pending_at(store, "workers.digest.daily", ann_hash, job_id=f"pz-digest-{ann_hash}")
    moving_clock.advance(due - clock.time() + 60)
    wait_for(lambda: mails(app, ANN, ("digest",)))
    [digest] = _told(app, ANN)
    assert digest["kind"] == "digest" and "so Palazzo played the default for you: Keep" in digest["text"]
    assert "1 decision played for you" in digest["subject"]
    assert digest["text"].index("time ran out") < digest["text"].index("Answer by"), "above her decision"
    moving_clock.advance(timedelta(days=1))
    wait_for(lambda: len(mails(app, ANN, ("digest",))) == 2)
    again = [m for m in mails(app, ANN) if "your decision to keep professions" in m["text"]]
    assert again == [digest], "told once (the next digest tells only a later deadline's move)"


def test_the_seat_page_and_the_host_page_say_it_at_the_top(app, client):
    """Without workers: the deadlines' moves played as the wake job plays them (`default_on`)."""
    created = start(client, [{"name": "Ann"}, {"name": "Bea"}, {"name": "Cy"}], deadlines=HOURS, missed_turns=2)
    game_id = created["game"]["id"]
    store = app.extensions["palazzo.store"]
    table = _table(app, game_id)
    label = table.game.describe(table.game.default_move(table.state, 0))
    playing.default_on(store, table, 0, force=True)
    enter_seat(app, client, game_id, 0)
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    top = page.split('id="decision"')[0]
    assert f"Your last decision (to keep professions) was played for you at the deadline: {label}." in top
    assert "1 more missed in a row and the stand-in answers for you" in top
    host = client.application.test_client()
    enter_host(app, host, game_id)
    host_top = host.get(f"/games/{game_id}/host").get_data(as_text=True).split('id="you-h"')[0]
    assert "Ann let a decision run out (to keep professions" in host_top and label not in host_top

    tokens = seat_tokens(created)

    def to_anns_next() -> games.Table:
        """The others play on to Ann's next decision (past the professions she has kept)."""
        table = _table(app, game_id)
        while table.decision_of(0) is None or table.decision_of(0)["kind"] == "keep_professions":
            seat = next(d["seat"] for d in table.pending if d["seat"] != 0)
            assert client.post(f"/api/v1/games/{game_id}/moves", headers=bearer(tokens[seat]),
                               json={"move": table.game.legal_moves(table.state, seat)[0],
                                     "version": table.version}).status_code == 200
            table = _table(app, game_id)
        return table

    playing.default_on(store, to_anns_next(), 0, force=True)
    assert _table(app, game_id).meta["seats"][0]["standin"] == STAND_IN
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    top = page.split('id="decision"')[0]
    assert f"The stand-in ({STAND_IN}) is answering for you since" in top and "your next move ends it" in top
    assert f"Ann (you) let 2 decisions in a row run out: from now on a stand-in, the {STAND_IN} bot" in page  # the log
    assert playing.default_on(store, to_anns_next(), 0, force=True)[1]  # the stand-in answers her next deadline
    assert f"; the stand-in ({STAND_IN}) played." in client.get(f"/games/{game_id}/log").get_data(as_text=True)
    host_top = host.get(f"/games/{game_id}/host").get_data(as_text=True).split('id="you-h"')[0]
    assert f"the {STAND_IN} stand-in answers for Ann at the deadlines since" in host_top


def test_the_seat_page_notice_as_chromium_shows_it(app, client, chromium):
    """The stand-in's notice at the top of the seat page, without JavaScript; a screenshot for the artefacts."""
    created = start(client, [{"name": "Ann"}, {"name": "Bea"}, {"name": "Cy"}], deadlines=HOURS, missed_turns=1)
    game_id = created["game"]["id"]
    table = _table(app, game_id)
    label = table.game.describe(table.game.default_move(table.state, 0))
    playing.default_on(app.extensions["palazzo.store"], table, 0, force=True)
    with Served(app):
        context = chromium.new_context(java_script_enabled=False, viewport={"width": 900, "height": 900})
        page = context.new_page()
        page.goto(seat_url(app.extensions["palazzo.links"], _table(app, game_id), 0))
        page.locator("form[action='/seat'] button").click()
        page.wait_for_url(f"**/games/{game_id}*")
        notice = page.locator("#told").inner_text()
        assert f"was played for you at the deadline: {label}." in notice
        assert f"The stand-in ({STAND_IN}) is answering for you since" in notice and "your next move ends it" in notice
        assert page.locator("#told").bounding_box()["y"] < page.locator("#decision").bounding_box()["y"]
        screenshot(page, "seat-told", height=700)
        context.close()
