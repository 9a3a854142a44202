"""Vacations on real `palazzo worker` processes, a real redis-server and a clock the test moves (no
sleeping for days): a player takes two days off and only his deadlines move, by exactly the time spent,
while the others play on; the worker ends it when its time has come and mails him his decision with
its deadline; his bank has run out and the default plays at his deadline. Another player comes back
early by moving, and gets the unused part back; his decision mail waited while he was away."""
from __future__ import annotations

from datetime import timedelta

import pytest
import redis

from service import deadlines, games, vacation
from service import phrases
from tests.conftest import jobs_idle, make_app, wait_for
from tests.mail_games import mails, player, start

pytest.importorskip("engine.pof")

ANN, BOB = "ann@example.org", "bob@example.org"
DECISIONS = ("choose", "your_turn", "your_bid")


@pytest.fixture
def app(redis_url, moving_clock):
    """The app queueing its jobs for the workers (started by each test after the clock is set)."""
    return make_app(redis_url, JOBS="rq", MIN_DEADLINE=1, BOT_DELAY=0)


def _table(app, game_id: str) -> games.Table:
    return games.load(app.extensions["palazzo.store"], game_id)


def _events(client, game_id: str, *kinds: str) -> list[dict]:
    feed = client.get(f"/api/v1/games/{game_id}/events?limit=500").get_json()
    return [entry["event"] for entry in feed["events"] if entry["event"]["type"] in kinds]


def _deadline(table: games.Table, seat: int):
    decision = table.decision_of(seat)
    return deadlines.parse(decision["deadline_at"]) if decision else None


def test_two_days_off_move_only_his_deadlines_until_the_worker_ends_them_and_then_the_default_plays(
        app, client, workers, moving_clock):
    created = start(client, [{"name": "Ann", "email": ANN}, {"name": "Bob", "email": BOB},
                             {"name": "Cy", "bot": "greedy"}], vacation_days=2)
    game_id = created["game"]["id"]
    workers(1)
    wait_for(lambda: _table(app, game_id).decision_of(2) is None and mails(app, BOB, DECISIONS)
             and mails(app, ANN, DECISIONS))
    bob = player(app, client, BOB)
    before = _table(app, game_id)
    ann_due, bob_due = _deadline(before, 0), _deadline(before, 1)

    taken = client.post(f"/api/v1/games/{game_id}/vacation", headers=bob, json={"days": 2})
    assert taken.status_code == 200, taken.get_json()
    until = deadlines.parse(taken.get_json()["away"]["until"])
    away = _table(app, game_id)
    assert (_deadline(away, 0), _deadline(away, 1)) == (ann_due, bob_due + timedelta(days=2))

    # Ann's deadline comes and goes: her default is played; Bob's stands still
    moving_clock.to(ann_due + timedelta(minutes=1))
    wait_for(lambda: _events(client, game_id, "timeout"))
    assert [e["seat"] for e in _events(client, game_id, "timeout")] == [0]
    meanwhile = _table(app, game_id)
    assert meanwhile.meta["seats"][1]["away"] and _deadline(meanwhile, 1) == bob_due + timedelta(days=2)
    assert len(mails(app, BOB, DECISIONS)) == 1, "nothing new for him while he is away"

    # his two days are over: the worker ends the vacation, and mails him his decision with its deadline
    moving_clock.to(until + timedelta(seconds=1))
    wait_for(lambda: _events(client, game_id, "vacation_ended"))
    assert _events(client, game_id, "vacation_ended") == [{"type": "vacation_ended", "seat": 1, "hours": 48}]
    ended = _table(app, game_id)
    assert not ended.meta["seats"][1].get("away") and vacation.hours_left(ended.meta, 1) == 0
    assert _deadline(ended, 1) == bob_due + timedelta(days=2), "moved by exactly the time spent"
    assert ended.meta["vacations"][0]["how"] == "over"
    wait_for(lambda: len(mails(app, BOB, DECISIONS)) == 2)
    assert phrases.clock(bob_due + timedelta(days=2), "UTC") in mails(app, BOB, DECISIONS)[-1]["text"]

    # the bank is spent: no more time off, and his deadline plays his default
    refused = client.post(f"/api/v1/games/{game_id}/vacation", headers=bob, json={"hours": 1})
    assert refused.status_code == 422 and refused.get_json()["code"] == "vacation_too_long"
    moving_clock.to(bob_due + timedelta(days=2, minutes=1))
    wait_for(lambda: [e["seat"] for e in _events(client, game_id, "timeout")] == [0, 1])
    [played] = [e for e in app.extensions["palazzo.store"].log(game_id) if e["seat"] == 1]
    assert played.get("timeout") and not played.get("bot")


def test_he_comes_back_early_by_moving_and_gets_the_unused_part_back(app, client, workers, moving_clock, redis_url):
    created = start(client, [{"name": "Ann", "email": ANN}, {"name": "Bob", "email": BOB},
                             {"name": "Cy", "bot": "greedy"}], deadlines={"bid": 6 * 3600})
    game_id = created["game"]["id"]
    workers(1)
    wait_for(lambda: _table(app, game_id).decision_of(2) is None)
    ann, bob = player(app, client, ANN), player(app, client, BOB)
    _first_move(client, game_id, bob)
    assert client.post(f"/api/v1/games/{game_id}/vacation", headers=bob, json={"days": 2}).status_code == 200
    until = deadlines.parse(_table(app, game_id).meta["seats"][1]["away"]["until"])

    # the others play on until the game waits on him; his new decision's clock starts when he is due back
    _first_move(client, game_id, ann)
    wait_for(lambda: (_table(app, game_id).decision_of(0) or {}).get("kind") == "open_auction")
    _first_move(client, game_id, ann)
    wait_for(lambda: _table(app, game_id).decision_of(1) is not None)
    waiting = _table(app, game_id)
    assert waiting.decision_of(1)["kind"] == "bid"
    assert _deadline(waiting, 1) == until + timedelta(hours=6)
    wait_for(lambda: jobs_idle(redis.Redis.from_url(redis_url)))  # the notify jobs of these moves have run
    assert len(mails(app, BOB, DECISIONS)) == 1, "his bid's mail waits while he is away: only his first decision's"

    moving_clock.advance(timedelta(hours=5, minutes=30))
    listed = client.get(f"/api/v1/games/{game_id}/moves", headers=bob).get_json()
    out = next(m["move"] for m in listed["moves"] if m["move"]["type"] == "step_out")
    played = client.post(f"/api/v1/games/{game_id}/moves", headers=bob,
                         json={"move": out, "version": listed["version"]})
    assert played.status_code == 200, played.get_json()
    back = _table(app, game_id)
    assert not back.meta["seats"][1].get("away") and vacation.hours_left(back.meta, 1) == 7 * 24 - 6
    assert _events(client, game_id, "vacation_ended") == [{"type": "vacation_ended", "seat": 1, "hours": 6}]
    assert back.meta["vacations"][0]["how"] == "moved"
    wait_for(lambda: jobs_idle(redis.Redis.from_url(redis_url)))
    assert len(mails(app, BOB, DECISIONS)) == 1, "no mail of the bid he answered himself"


def _first_move(client, game_id: str, headers: dict) -> None:
    listed = client.get(f"/api/v1/games/{game_id}/moves", headers=headers).get_json()
    played = client.post(f"/api/v1/games/{game_id}/moves", headers=headers,
                         json={"move": listed["moves"][0]["move"], "version": listed["version"]})
    assert played.status_code == 200, played.get_json()
