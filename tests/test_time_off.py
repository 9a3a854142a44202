"""Quiet hours, grace and the host's pause, on a real redis-server with real `palazzo worker` processes
and a clock the test moves (`moving_clock`): a deadline inside a player's quiet hours moves to 07:00 in
his zone, also on the night the clocks change; the game's grace extends a first missed deadline once;
the start and the end of a pause are mailed to everyone once. Without workers (the app plays bots
inline): his hours reach his seats when he changes them (`time_off.apply_quiet`) or takes a seat."""
from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

import pytest

from service import deadlines, games, playing, preferences, time_off, tokens
from tests.conftest import bearer, make_app, wait_for
from tests.mail_games import mails, start

UTC = timezone.utc
ANN, BEA, DEE = "ann@example.org", "bea@example.org", "dee@example.org"
ROME = "Europe/Rome"
NIGHT = {"from": "23:00", "to": "07:00"}
KEYS = ("setup", "auction", "turn", "choice")


def _store(app):
    return app.extensions["palazzo.store"]


def _table(app, game_id: str) -> games.Table:
    return games.load(_store(app), game_id)


def _events(app, game_id: str, kind: str) -> list[dict]:
    feed = app.test_client().get(f"/api/v1/games/{game_id}/events?limit=500").get_json()
    return [entry["event"] for entry in feed["events"] if entry["event"]["type"] == kind]


def _quiet_hours(app, email: str, zone: str = ROME, hours: dict | None = NIGHT) -> None:
    """The player's choice as the settings keep it (part of `preferences`; its page and API are elsewhere)."""
    preferences.write(_store(app), tokens.email_hash(email), {"time_zone": zone, "quiet": hours})


def _games(app) -> list[str]:
    """The keys of every game's own hash: what a game that was made leaves."""
    return sorted(_store(app).redis.keys("*:game"))


def _deadline(app, game_id: str, seat: int) -> str:
    return _table(app, game_id).decision_of(seat)["deadline_at"]


@pytest.mark.parametrize("started, first, second", [
    # a winter day: 17 hours from 12:00 UTC is 06:00 in Rome (UTC+1), inside the night: 07:00 Rome, 06:00 UTC;
    # the next decision, 17 hours after that, falls at midnight in Rome: 07:00 the day after
    (datetime(2027, 1, 15, 12, 0, tzinfo=UTC), "2027-01-16T06:00:00Z", "2027-01-17T06:00:00Z"),
    # the night the clocks go forward (28 March 2027, 02:00 CET to 03:00 CEST): 07:00 Rome is 05:00 UTC
    (datetime(2027, 3, 27, 11, 0, tzinfo=UTC), "2027-03-28T05:00:00Z", "2027-03-29T05:00:00Z"),
])
def test_a_deadline_inside_his_quiet_hours_moves_to_seven_in_his_zone(moving_clock, redis_url, workers, started,
                                                                       first, second):
    moving_clock.to(started)
    app = make_app(redis_url, JOBS="rq", MIN_DEADLINE=1, BOT_DELAY=0)
    _quiet_hours(app, ANN)
    created = start(app.test_client(), [{"name": "Ann", "email": ANN}, {"name": "Cy", "bot": "random"},
                                        {"name": "Di", "bot": "random"}], deadlines={key: 17 * 3600 for key in KEYS})
    game_id = created["game"]["id"]
    assert _table(app, game_id).meta["seats"][0]["quiet"] == {"zone": ROME, **NIGHT}
    assert _deadline(app, game_id, 0) == first, "the game's start scheduled it out of her night"
    since = _table(app, game_id).decision_of(0)["since"]
    workers(1)

    moving_clock.to(deadlines.parse(first) + timedelta(seconds=5))
    wait_for(lambda: (_table(app, game_id).decision_of(0) or {}).get("since", since) != since)
    assert [e["seat"] for e in _events(app, game_id, "timeout")] == [0], "the worker played her default at 07:00"
    # her next decision was scheduled by the worker's commit, 17 hours on: midnight in Rome, so 07:00
    wait_for(lambda: _table(app, game_id).decision_of(0) is not None)
    assert _deadline(app, game_id, 0) == second


def test_grace_extends_a_first_missed_deadline_once_and_the_next_one_plays_the_default(
        moving_clock, redis_url, workers):
    moving_clock.to(datetime(2027, 1, 15, 10, 0, tzinfo=UTC))
    app = make_app(redis_url, JOBS="rq", MIN_DEADLINE=1, BOT_DELAY=0)
    created = start(app.test_client(), [{"name": "Ann", "email": ANN}, {"name": "Cy", "bot": "random"},
                                        {"name": "Di", "bot": "random"}],
                    deadlines={key: 3600 for key in KEYS}, grace_hours=12)
    game_id = created["game"]["id"]
    assert app.test_client().get(f"/api/v1/games/{game_id}").get_json()["grace_hours"] == 12
    decision = _table(app, game_id).decision_of(0)
    missed = deadlines.parse(decision["deadline_at"])
    workers(1)

    moving_clock.to(missed + timedelta(seconds=30))
    wait_for(lambda: _events(app, game_id, "grace"))
    until = deadlines.stamp(missed + timedelta(hours=12))
    assert _events(app, game_id, "grace") == [{"type": "grace", "seat": 0, "until": until}]
    table = _table(app, game_id)
    assert table.decision_of(0)["since"] == decision["since"] and table.decision_of(0)["deadline_at"] == until
    assert table.meta["seats"][0]["grace_used"] is True
    assert not _events(app, game_id, "timeout"), "no default was played"
    wait_for(lambda: mails(app, ANN, ("grace",)))
    [told] = mails(app, ANN, ("grace",))
    assert told["since"] == decision["since"]
    assert "until Friday 15 January, 23:00 UTC" in told["text"] and "once" in told["text"]
    assert "Palazzo plays for you:" in told["text"] and "/seat?t=" in told["text"]

    moving_clock.to(deadlines.parse(until) + timedelta(seconds=30))
    wait_for(lambda: _events(app, game_id, "timeout"))
    assert [e["seat"] for e in _events(app, game_id, "timeout")] == [0], "at the grace's end the default played"
    wait_for(lambda: _table(app, game_id).decision_of(0) is not None)
    nxt = _table(app, game_id).decision_of(0)
    moving_clock.to(deadlines.parse(nxt["deadline_at"]) + timedelta(seconds=30))
    wait_for(lambda: len(_events(app, game_id, "timeout")) == 2)
    assert len(_events(app, game_id, "grace")) == 1, "one grace a seat"
    time.sleep(1.5)  # a second notify job would have mailed a second grace by now
    assert len(mails(app, ANN, ("grace",))) == 1


def test_the_start_and_the_end_of_a_pause_are_mailed_to_everyone_once(moving_clock, redis_url, workers):
    moving_clock.to(datetime(2027, 1, 15, 10, 0, tzinfo=UTC))
    app = make_app(redis_url, JOBS="rq", MIN_DEADLINE=1, BOT_DELAY=0)
    client = app.test_client()
    created = start(client, [{"name": "Ann", "email": ANN}, {"name": "Bea", "email": BEA},
                             {"name": "Cy", "bot": "random"}], deadlines={key: 6 * 3600 for key in KEYS})
    game_id, host = created["game"]["id"], bearer(created["tokens"]["host"])
    _quiet_hours(app, BEA, "America/New_York", None)
    preferences.write(_store(app), tokens.email_hash(BEA), {"mail": "decisions"})
    workers(1)
    wait_for(lambda: all(mails(app, to, ("choose",)) for to in (ANN, BEA)))
    before = _deadline(app, game_id, 0)

    assert client.post(f"/api/v1/games/{game_id}/pause", headers=host, json={"hours": 2}).status_code == 200
    wait_for(lambda: all(mails(app, to, ("paused",)) for to in (ANN, BEA)))
    [ann] = mails(app, ANN, ("paused",))
    [bea] = mails(app, BEA, ("paused",))
    assert "until Friday 15 January, 12:00 UTC" in ann["text"] and "/seat?t=" in ann["text"]
    assert "until Friday 15 January, 07:00 EST" in bea["text"], "in her zone; she takes only her decisions' mail"

    moving_clock.advance(timedelta(hours=2, seconds=30))  # the pause runs out: a worker's wake resumes the game
    wait_for(lambda: all(mails(app, to, ("resumed",)) for to in (ANN, BEA)))
    assert _table(app, game_id).status == "running"
    [ann] = mails(app, ANN, ("resumed",))
    assert "moved later by 2 hours" in ann["text"] and "It is your decision" in ann["text"]
    assert deadlines.parse(_deadline(app, game_id, 0)) - deadlines.parse(before) >= timedelta(hours=2)
    assert "/seat?t=" in ann["text"] and "/act?t=" in ann["text"], "with her seat and her answers"
    time.sleep(1.5)  # more notify jobs (the bots' moves) would have mailed them twice by now
    assert [len(mails(app, to, (kind,))) for to in (ANN, BEA) for kind in ("paused", "resumed")] == [1, 1, 1, 1]


# Without workers: the app plays the bots inline and no deadline passes by itself.

def test_new_quiet_hours_reach_every_seat_he_holds_and_move_his_deadlines_only(moving_clock, app, client):
    moving_clock.to(datetime(2027, 1, 15, 12, 0, tzinfo=UTC))  # 13:00 in Rome
    seats = [{"name": "Ann", "email": ANN}, {"name": "Bea", "email": BEA}, {"name": "Cy", "bot": "random"}]
    # 11 hours on is 23:00 UTC, midnight in Rome
    ids = [start(client, seats, deadlines={key: 11 * 3600 for key in KEYS})["game"]["id"] for _ in range(2)]
    before = {game_id: _table(app, game_id) for game_id in ids}
    assert all(table.decision_of(0)["deadline_at"] == "2027-01-15T23:00:00Z" for table in before.values())

    _quiet_hours(app, ANN)
    assert time_off.apply_quiet(_store(app), tokens.email_hash(ANN)) == 2
    for game_id in ids:
        table = _table(app, game_id)
        assert table.meta["seats"][0]["quiet"] == {"zone": ROME, **NIGHT}
        assert table.decision_of(0)["deadline_at"] == "2027-01-16T06:00:00Z", "07:00 in Rome"
        assert table.decision_of(1) == before[game_id].decision_of(1), "Bea's deadline stays"
        assert table.version == before[game_id].version + 1, "a public change: pages and mails see it"
        assert _events(app, game_id, "deadline_moved") == [
            {"type": "deadline_moved", "seat": 0, "deadline_at": "2027-01-16T06:00:00Z", "why": "quiet_hours"}]
    assert time_off.apply_quiet(_store(app), tokens.email_hash(ANN)) == 0, "nothing changed, nothing committed"

    _quiet_hours(app, ANN, hours=None)
    assert time_off.apply_quiet(_store(app), tokens.email_hash(ANN)) == 2
    table = _table(app, ids[0])
    assert "quiet" not in table.meta["seats"][0] and table.decision_of(0)["deadline_at"] == "2027-01-16T06:00:00Z", \
        "no quiet hours any more; the deadline does not move earlier"


def test_a_player_who_takes_a_seat_brings_his_quiet_hours_and_the_fresh_deadline_leaves_them(
        moving_clock, app, client):
    moving_clock.to(datetime(2027, 1, 15, 12, 0, tzinfo=UTC))
    created = start(client, [{"name": "Ann", "email": ANN}, {"name": "Bea", "email": BEA},
                             {"name": "Cy", "bot": "random"}], deadlines={key: 11 * 3600 for key in KEYS})
    game_id = created["game"]["id"]
    _quiet_hours(app, DEE)
    handed = client.put(f"/api/v1/games/{game_id}/seats/1", headers=bearer(created["tokens"]["host"]),
                        json={"name": "Dee", "email": DEE})
    assert handed.status_code == 200, handed.get_json()
    table = _table(app, game_id)
    assert table.meta["seats"][1]["quiet"] == {"zone": ROME, **NIGHT}
    assert table.decision_of(1)["deadline_at"] == "2027-01-16T06:00:00Z", "his fresh day ends at midnight: 07:00"
    assert "quiet" not in table.meta["seats"][0]


def test_a_seat_whose_stand_in_answers_gets_no_grace(app, client):
    created = start(client, [{"name": "Ann", "email": ANN}, {"name": "Bea"}, {"name": "Cy", "bot": "random"}],
                    grace_hours=12)
    game_id = created["game"]["id"]
    store = _store(app)
    table, _ = games.vacate_seat(store, _table(app, game_id), 0, games.LEFT)
    table, moved = playing.default_on(store, table, 0, force=True)
    assert moved and not _events(app, game_id, "grace"), "the stand-in answered at once"
    table, moved = playing.default_on(store, _table(app, game_id), 1, force=True)
    assert not moved and _events(app, game_id, "grace") == [
        {"type": "grace", "seat": 1, "until": _deadline(app, game_id, 1)}], "Bea, with no stand-in, gets hers"


@pytest.mark.parametrize("hours", [0, 73, -1, "12", 1.5])
def test_a_bad_grace_is_refused_and_no_game_is_made(app, client, hours):
    before = _games(app)
    answer = client.post("/api/v1/games", json={"game": "princes-of-florence", "grace_hours": hours,
                                                "seats": [{"name": "A"}, {"name": "B"}, {"name": "C"}]})
    assert answer.status_code == 422 and answer.content_type == "application/problem+json"
    assert "grace_hours" in str(answer.get_json()) and _games(app) == before
