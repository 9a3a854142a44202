"""`palazzo admin` against a real redis-server: games created over the API, then listed, shown (no seat's
hidden part in what is shown), cancelled once, and checked for missing wakes."""
from __future__ import annotations

import json
from datetime import timedelta

import pytest
import redis
from rq import Queue

from service.cli import main
from service.followups import QUEUE
from service.store import game_key, shard_of, wake_key
from tests.conftest import bearer, leaks, make_app, new_game, wait_for
from tests.mail_games import mails, start

ANN = "ann@example.org"


@pytest.fixture
def cli(redis_url, monkeypatch, capsys):
    """`palazzo admin ARGS`: (exit status, stdout, stderr), on the test's store."""
    monkeypatch.setenv("REDIS_URL", redis_url)

    def palazzo(*args: str) -> tuple[int, str, str]:
        status = main(["admin", *args])
        out, err = capsys.readouterr()
        return status, out, err
    return palazzo


def test_games_lists_by_status(client, cli):
    running = new_game(client)["game"]["id"]
    waiting = new_game(client, start=False)["game"]["id"]
    status, out, _ = cli("games")
    assert status == 0
    lines = {line.split()[0]: line for line in out.splitlines()}
    assert set(lines) == {running, waiting}
    assert "  running  " in lines[running] and " wake 20" in lines[running]  # a deadline: a wake time
    assert "  open  " in lines[waiting] and lines[waiting].endswith("wake -")
    status, out, _ = cli("games", "--status", "open")
    assert (status, [line.split()[0] for line in out.splitlines()]) == (0, [waiting])


def test_show_tells_what_a_spectator_sees_and_the_stuck_jobs(client, cli, redis_url):
    game_id = new_game(client, "princes-of-florence", seats=3)["game"]["id"]
    state = json.loads(redis.Redis.from_url(redis_url, decode_responses=True).hget(game_key(game_id, "game"), "state"))
    assert '"private"' in json.dumps(state)  # the seats hold hidden parts, which the show must leave out
    later = Queue(QUEUE, connection=redis.Redis.from_url(redis_url))
    job = later.enqueue_in(timedelta(hours=1), "workers.bots.play", game_id, 0, 1)
    status, out, _ = cli("show", game_id)
    assert status == 0
    assert f"game {game_id}: princes-of-florence" in out and "status: running" in out
    assert "waiting for seat 1 (P0): " in out and "wake: 20" in out
    assert f"job {job.id} scheduled: workers.bots.play" in out
    view = json.loads(next(line for line in out.splitlines() if line.startswith("view: "))[len("view: "):])
    assert view and leaks(view, None) == []
    assert '"private"' not in out and "secret" not in out and "private_to" not in out


def test_cancel_once_then_refused(client, cli):
    game_id = new_game(client)["game"]["id"]
    status, out, _ = cli("cancel", game_id, "--reason", "nobody plays")
    assert (status, out) == (0, f"game {game_id} is cancelled\n")
    assert client.get(f"/api/v1/games/{game_id}").get_json()["status"] == "cancelled"
    status, out, err = cli("cancel", game_id)
    assert (status, out) == (2, "") and "cancelled already" in err


def test_unwoken_finds_a_game_whose_wake_was_deleted(client, cli, redis_url):
    healthy = new_game(client)["game"]["id"]
    lost = new_game(client)["game"]["id"]
    assert cli("unwoken") == (0, "none\n", "")
    redis.Redis.from_url(redis_url).zrem(wake_key(shard_of(lost)), lost)
    status, out, _ = cli("unwoken")
    assert status == 0 and [line.split()[0] for line in out.splitlines()] == [lost]
    assert out.rstrip().endswith("wake -") and healthy not in out


def test_bad_input_changes_nothing(client, cli, redis_url):
    created = new_game(client)
    game_id = created["game"]["id"]
    before = redis.Redis.from_url(redis_url).hgetall(game_key(game_id, "game"))
    for args, said in ((("show", "nogame"), "no game"), (("cancel", "nogame"), "no game"),
                       (("games", "--status", "sleeping"), "no status")):
        status, out, err = cli(*args)
        assert (status, out) == (2, "") and said in err, (args, err)
    assert redis.Redis.from_url(redis_url).hgetall(game_key(game_id, "game")) == before
    cancelled = client.post(f"/api/v1/games/{game_id}/cancel", headers=bearer(created["tokens"]["host"]))
    assert cancelled.status_code == 200  # by the API's host: the admin's cancel refuses it too
    status, _, err = cli("cancel", game_id)
    assert status == 2 and f"game {game_id} is cancelled already" in err


def test_resend_mails_the_decision_again(redis_url, workers, cli):
    app = make_app(redis_url, JOBS="rq", BOT_DELAY=0)
    client = app.test_client()
    game_id = start(client, [{"name": "Ann", "email": ANN}, {"name": "Bea"}, {"name": "Cy"}])["game"]["id"]
    workers(1)
    wait_for(lambda: mails(app, ANN, ("choose",)))
    for seat, said in (("0", "no seat"), ("4", "no seat"), ("one", "no seat"), ("2", "takes no decision mail")):
        status, out, err = cli("resend", game_id, seat)
        assert (status, out) == (2, "") and said in err, (seat, err)
    assert cli("resend", "nogame", "1")[0] == 2
    status, out, _ = cli("resend", game_id, "1")
    assert status == 0 and "mailed again" in out
    wait_for(lambda: len(mails(app, ANN, ("choose",))) == 2)
    first, again = mails(app, ANN, ("choose",))
    assert first["subject"] == again["subject"]
