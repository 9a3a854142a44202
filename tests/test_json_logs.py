"""PALAZZO_LOG_FORMAT=json: each line one JSON object carrying the request's id (the caller's
X-Request-Id when well formed, else a new one, echoed in the answer) and the game's, in requests and
in a worker's jobs; the default stays plain text."""
from __future__ import annotations

import io
import json
import logging
import sys
from datetime import datetime, timedelta

import pytest

from service import logs
from service.config import Config, ConfigError
from tests.conftest import make_app, new_game


@pytest.fixture
def json_lines():
    """The app's JSON handler, made to write into a buffer; the test process's logging restored after."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    buffer = io.StringIO()

    def read() -> list[dict]:
        ours = [h for h in root.handlers if isinstance(h.formatter, logs.JsonFormatter)]
        assert len(ours) == 1, "configure installs one JSON handler on the root logger"
        ours[0].setStream(buffer)
        return [json.loads(line) for line in buffer.getvalue().splitlines()]

    yield read
    root.handlers[:] = handlers
    root.setLevel(level)


def test_the_setting_is_text_or_json():
    assert Config.from_env({}).log_format == "text"
    assert Config.from_env({"PALAZZO_LOG_FORMAT": "json"}).log_format == "json"
    with pytest.raises(ConfigError, match="PALAZZO_LOG_FORMAT"):
        Config.from_env({"PALAZZO_LOG_FORMAT": "yaml"})


def test_a_game_request_logs_json_lines_with_its_request_and_game_ids(redis_url, json_lines):
    app = make_app(redis_url, LOG_FORMAT="json")
    client = app.test_client()
    json_lines()  # the handler now writes into the buffer
    game_id = new_game(client)["game"]["id"]

    given = client.get(f"/api/v1/games/{game_id}", headers={"X-Request-Id": "proxy-42.a_b"})
    assert given.status_code == 200 and given.headers["X-Request-Id"] == "proxy-42.a_b"
    made = client.get(f"/api/v1/games/{game_id}")
    generated = made.headers["X-Request-Id"]
    assert len(generated) == 32 and int(generated, 16) >= 0, "a uuid4 in hex"

    lines = json_lines()
    mine = [line for line in lines if line["request_id"] == "proxy-42.a_b"]
    assert mine and all(line["game_id"] == game_id for line in mine)
    assert mine[0]["logger"] == "service.app" and mine[0]["message"] == "GET games.get_game 200"
    assert mine[0]["level"] == "INFO" and mine[0]["job_id"] is None
    assert datetime.fromisoformat(mine[0]["time"]).utcoffset() == timedelta(0)
    assert [line["game_id"] for line in lines if line["request_id"] == generated] == [game_id]
    creation = next(line for line in lines if line["message"] == "POST games.create_game 201")
    assert creation["game_id"] is None, "no game in the URL"
    assert len({line["request_id"] for line in lines}) == len(lines), "one line a request, each its own id"


@pytest.mark.parametrize("header", ["x" * 65, "a b", "id;forged=1", "../etc", "é", "<script>", ""])
def test_a_bad_request_id_is_replaced_not_echoed(redis_url, header, json_lines):
    client = make_app(redis_url, LOG_FORMAT="json").test_client()
    answer = client.get("/api/v1/health", headers={"X-Request-Id": header})
    echoed = answer.headers["X-Request-Id"]
    assert echoed != header and len(echoed) == 32 and int(echoed, 16) >= 0


def test_an_exception_is_in_its_line():
    record = logging.LogRecord("x", logging.ERROR, __file__, 1, "it broke %s", ("here",), None)
    try:
        raise ValueError("boom")
    except ValueError:
        record.exc_info = sys.exc_info()
    logs.Context().filter(record)
    line = json.loads(logs.JsonFormatter().format(record))
    assert line["message"] == "it broke here" and "ValueError: boom" in line["exception"]
    assert line["request_id"] is None and line["game_id"] is None


@pytest.mark.parametrize("through_rq", [False, True])
def test_a_worker_job_for_a_game_logs_with_its_game_id(redis_url, moving_clock, monkeypatch, json_lines, through_rq):
    """Called in-process, and run by an RQ worker (in this process), which adds the job's id."""
    from rq import SimpleWorker

    from workers import context, deadlines
    app = make_app(redis_url, LOG_FORMAT="json", JOBS="rq")
    client, store = app.test_client(), app.extensions["palazzo.store"]
    game_id = new_game(client, seats=3, deadlines={"bid": 3600})["game"]["id"]
    json_lines()
    moving_clock.advance(timedelta(hours=2))
    monkeypatch.setattr(context, "store", lambda: store)
    monkeypatch.setattr(context, "config", lambda: app.extensions["palazzo.config"])

    if through_rq:
        store.followups.queue.enqueue(deadlines.WAKE_JOB, game_id, job_id="pz-test-wake")
        assert SimpleWorker([store.followups.queue], connection=store.followups.connection).work(burst=True)
    else:
        assert deadlines.wake(game_id) >= 1
    lines = [line for line in json_lines() if line["logger"] == "workers.deadlines"]
    assert lines and lines[0]["game_id"] == game_id and lines[0]["request_id"] is None
    assert lines[0]["job_id"] == ("pz-test-wake" if through_rq else None)
    assert logs.game_id.get() is None, "the job's game is not left on the thread"


def test_plain_text_is_the_default(redis_url):
    root = logging.getLogger()
    before = list(root.handlers)
    client = make_app(redis_url).test_client()
    assert root.handlers == before, "the app leaves logging as it was"
    assert not any(isinstance(h.formatter, logs.JsonFormatter) for h in root.handlers)
    assert len(client.get("/api/v1/health").headers["X-Request-Id"]) == 32, "the id is echoed either way"
