"""Mail at the rhythm each player chose, with real `palazzo worker` processes and a clock the test
moves: reminders on his schedule, each step once, and the daily digest at his hour, with everything
due and nothing stale."""
from __future__ import annotations

import re
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from service import clock, timers, tokens
from tests.conftest import bearer, jobs_idle, make_app, wait_for
from tests.mail_games import answer, mails, player

ANN = "ann@example.org"
ACT = re.compile(r"(http://\S+/act\?t=[\w.\-]+)")
HOUR = 3600


@pytest.fixture
def queued_app(moving_clock, redis_url):
    return make_app(redis_url, JOBS="rq", MIN_DEADLINE=1, BOT_DELAY=0)


def _create(client, title: str, seconds: int) -> dict:
    """A Princes of Florence game with Ann at seat 0 and two seats without address, not started yet."""
    made = client.post("/api/v1/games", json={"game": "princes-of-florence", "seed": 4, "title": title,
                                              "deadlines": {"setup": seconds},
                                              "seats": [{"name": "Ann", "email": ANN}, {"name": "Bo"}, {"name": "Cy"}]})
    assert made.status_code == 201, made.get_json()
    return made.get_json()


def _start(client, created: dict) -> None:
    started = client.post(f"/api/v1/games/{created['game']['id']}/start", headers=bearer(created["tokens"]["host"]))
    assert started.status_code == 200, started.get_json()


def _settled(app) -> None:
    """Every job the last move of the clock set going has run, and no timer is due."""
    store = app.extensions["palazzo.store"]
    wait_for(lambda: not timers.due(store) and jobs_idle(store.followups.connection))


def test_a_reminder_schedule_sends_each_step_once_while_the_decision_is_his(queued_app, workers, moving_clock):
    client = queued_app.test_client()
    created = _create(client, "Reminded", 10 * HOUR)
    workers(1)
    ann = player(queued_app, client, ANN)
    chosen = client.put("/api/v1/me/settings", headers=ann, json={"reminders": ["50%", "80%", "1h"]})
    assert chosen.status_code == 200, chosen.get_json()
    _start(client, created)
    game_id = created["game"]["id"]
    wait_for(lambda: mails(queued_app, ANN, ("choose",)))
    begun = clock.now()  # a little after the decision mail: every step falls a little before begun + its hours
    for step, hours in enumerate((5, 8, 9), start=1):
        moving_clock.to(begun + timedelta(hours=hours, minutes=1))
        wait_for(lambda step=step: len(mails(queued_app, ANN, ("reminder",))) == step)
        _settled(queued_app)
        assert len(mails(queued_app, ANN, ("reminder",))) == step, f"step {step} is mailed once"
    moving_clock.to(begun + timedelta(hours=9, minutes=59))
    _settled(queued_app)
    reminders = mails(queued_app, ANN, ("reminder",))
    assert len(reminders) == 3 and all(r["game"] == game_id and r["subject"].startswith("Reminder") for r in reminders)
    assert not timers.due(queued_app.extensions["palazzo.store"], clock.time() + 30 * 86400), "no step is left"


def test_a_reminder_is_not_sent_for_a_decision_answered_before_its_step(queued_app, workers, moving_clock):
    client = queued_app.test_client()
    created = _create(client, "Answered", 10 * HOUR)
    workers(1)
    ann = player(queued_app, client, ANN)
    assert client.put("/api/v1/me/settings", headers=ann, json={"reminders": ["50%"]}).status_code == 200
    _start(client, created)
    wait_for(lambda: mails(queued_app, ANN, ("choose",)))
    begun = clock.now()
    answer(client, ann, created["game"]["id"])
    moving_clock.to(begun + timedelta(hours=5, minutes=1))
    _settled(queued_app)
    assert not mails(queued_app, ANN, ("reminder",))


def test_digest_mode_sends_one_mail_a_day_with_everything_due_and_nothing_stale(queued_app, workers, moving_clock):
    client = queued_app.test_client()
    answered, waiting = _create(client, "Answered table", 3 * 86400), _create(client, "Waiting table", 3 * 86400)
    workers(1)
    ann = player(queued_app, client, ANN)
    chosen = client.put("/api/v1/me/settings", headers=ann, json={
        "rhythm": "digest", "digest_hour": 9, "time_zone": "Europe/Rome", "talk": {waiting["game"]["id"]: "digest"}})
    assert chosen.status_code == 200, chosen.get_json()
    for created in (answered, waiting):
        _start(client, created)
    store = queued_app.extensions["palazzo.store"]
    ann_hash = tokens.email_hash(ANN)
    wait_for(lambda: timers.pending_at(store, "workers.digest.daily", ann_hash, job_id=f"pz-digest-{ann_hash}"))
    _settled(queued_app)
    assert not mails(queued_app, ANN, ("choose", "merged")), "no decision mail at once"
    answer(client, ann, answered["game"]["id"])
    bo = bearer(waiting["tokens"]["seats"][0]["token"])
    said = client.post(f"/api/v1/games/{waiting['game']['id']}/messages", headers=bo, json={"text": "zq-good-luck"})
    assert said.status_code == 201, said.get_json()
    due = timers.pending_at(store, "workers.digest.daily", ann_hash, job_id=f"pz-digest-{ann_hash}")
    local = datetime.fromtimestamp(due, ZoneInfo("Europe/Rome"))
    assert (local.hour, local.minute) == (9, 0), "at his hour in his zone"
    _settled(queued_app)
    moving_clock.to(local + timedelta(minutes=1))
    wait_for(lambda: mails(queued_app, ANN, ("digest",)))
    _settled(queued_app)
    [first] = mails(queued_app, ANN, ("digest",))
    assert "Waiting table" in first["text"] and "Answered table" not in first["text"] + first["html"]
    assert ACT.search(first["text"]) and ACT.search(first["html"]), "with its one-click answers"
    assert "zq-good-luck" in first["text"], "the day's talk of a game he takes as a digest"
    moving_clock.to(local + timedelta(days=1, minutes=1))
    wait_for(lambda: len(mails(queued_app, ANN, ("digest",))) == 2)
    _settled(queued_app)
    second = mails(queued_app, ANN, ("digest",))[1]
    assert "Waiting table" in second["text"] and "zq-good-luck" not in second["text"], "the talk since the last"
    answer(client, ann, waiting["game"]["id"])
    moving_clock.to(local + timedelta(days=2, minutes=1))
    _settled(queued_app)
    assert len(mails(queued_app, ANN, ("digest",))) == 2, "nothing waits: no mail"
    assert not mails(queued_app, ANN, ("choose", "merged", "your_turn"))


def test_a_deadline_moved_later_moves_its_reminder_steps(queued_app, workers, moving_clock):
    """A pause of an hour moves the deadline an hour later: the 50% step comes half an hour later."""
    client = queued_app.test_client()
    created = _create(client, "Paused", 10 * HOUR)
    workers(1)
    ann = player(queued_app, client, ANN)
    assert client.put("/api/v1/me/settings", headers=ann, json={"reminders": ["50%"]}).status_code == 200
    _start(client, created)
    game_id, host = created["game"]["id"], bearer(created["tokens"]["host"])
    wait_for(lambda: mails(queued_app, ANN, ("choose",)))
    begun = clock.now()
    assert client.post(f"/api/v1/games/{game_id}/pause", headers=host, json={"hours": 1}).status_code == 200
    moving_clock.to(begun + timedelta(hours=1, minutes=1))
    wait_for(lambda: client.get(f"/api/v1/games/{game_id}").get_json()["status"] == "running")
    moving_clock.to(begun + timedelta(hours=5, minutes=10))
    _settled(queued_app)
    assert not mails(queued_app, ANN, ("reminder",)), "its step moved with the deadline"
    moving_clock.to(begun + timedelta(hours=5, minutes=32))
    wait_for(lambda: len(mails(queued_app, ANN, ("reminder",))) == 1)
    _settled(queued_app)
    assert len(mails(queued_app, ANN, ("reminder",))) == 1
