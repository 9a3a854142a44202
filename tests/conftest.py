"""Fixtures: one real redis-server per session on a free loopback port, flushed between tests, and
real `palazzo worker` processes for the tests of background work.

`make test` runs the tests in parallel processes (pytest-xdist, `--dist loadgroup`): each process
is a session of its own, with its own redis-server, ports and temporary folders. The tests of a
module that share a module-scoped fixture (Chromium, a Redis Cluster) run in one process, so that
it is set up once; a test that must not run beside another one names the same `xdist_group`."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import redis
from itsdangerous import TimestampSigner, URLSafeTimedSerializer

import tests.toy_game  # noqa: F401  (registers the toy game)
from service.app import create_app
from service.config import Config
from service.localredis import LocalRedis

GAMES = ["princes-of-florence", "toy-count"]  # a game created without a name is the first


@pytest.hookimpl(tryfirst=True)  # before xdist's worker reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that uses a module-scoped fixture joins its module's group (see the module's docstring)."""
    for item in items:
        definitions = getattr(item, "_fixtureinfo", None)
        scopes = {fixture.scope for name in getattr(item, "fixturenames", ())
                  for fixture in (definitions.name2fixturedefs.get(name, ()) if definitions else ())}
        if "module" in scopes and not item.get_closest_marker("xdist_group"):
            item.add_marker(pytest.mark.xdist_group(item.module.__name__))


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    with LocalRedis(tmp_path_factory.mktemp("redis"), extra=["--appendonly", "no", "--save", ""]) as server:
        yield server


@pytest.fixture
def redis_url(redis_server):
    redis.Redis.from_url(redis_server.url).flushall()
    return redis_server.url


SECRET = "test-secret-" + "x" * 40


FLASK_SETTINGS = ("TESTING", "WEB_POLL_SECONDS")  # Flask's own, beside the service's Config


def make_app(redis_url: str, **settings):
    """The app on `redis_url`, with the environment's Config and the settings named as README's
    variables are (JOBS, BOT_DELAY, ...; SECRET_KEY for PALAZZO_SECRET)."""
    settings = {"REDIS_URL": redis_url, "GAMES": GAMES, "RATE_LIMIT": "1000000 per minute",
                "INVITE_LIMIT": "1000000 per hour", "SECRET_KEY": SECRET, "JOBS": "inline", "TESTING": True,
                **settings}
    flask = {name: settings.pop(name) for name in FLASK_SETTINGS if name in settings}
    return create_app(Config.from_env().but(**{name.lower(): value for name, value in settings.items()}), **flask)


@pytest.fixture
def app(redis_url):
    return make_app(redis_url)


@pytest.fixture
def client(app):
    return app.test_client()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def new_game(client, game: str = "toy-count", seats: int = 3, bots: dict[int, str] | None = None,
             start: bool = True, emails: bool = False, **extra) -> dict:
    """Create (and start) a game over HTTP; returns the creation body with tokens.

    Seats have no address unless `emails`, so the creator gets every human seat's token.
    """
    bots = bots or {}
    body = {"game": game, "seed": 7, **extra,
            "seats": [{"name": f"P{n}", "bot": bots.get(n), **({"email": f"p{n}@example.org"} if emails else {})}
                      for n in range(seats)]}
    response = client.post("/api/v1/games", json=body)
    assert response.status_code == 201, response.get_json()
    created = response.get_json()
    if start:
        started = client.post(f"/api/v1/games/{created['game']['id']}/start", headers=bearer(created["tokens"]["host"]))
        assert started.status_code == 200, started.get_json()
    return created


def long_poll_across_a_move(app, client, game_id: str, token: str) -> tuple[dict, dict, float]:
    """Long-poll the toy game's feed while another client makes a move half a second later:
    (the feed before, the long-poll's page, how long it waited)."""
    feed = client.get(f"/api/v1/games/{game_id}/events").get_json()
    version = client.get(f"/api/v1/games/{game_id}").get_json()["version"]

    def move_soon() -> None:
        time.sleep(0.5)
        app.test_client().post(f"/api/v1/games/{game_id}/moves", headers=bearer(token),
                               json={"move": {"type": "pick", "value": 1}, "version": version})

    mover = threading.Thread(target=move_soon)
    mover.start()
    started = time.monotonic()
    page = client.get(f"/api/v1/games/{game_id}/events?after={feed['next_after']}&wait=20").get_json()
    waited = time.monotonic() - started
    mover.join()
    return feed, page, waited


def signed_ago(purpose: str, payload: dict, age: int) -> str:
    """A link payload signed as `service.links.Links.sign` signs it, with the real secret, `age` seconds ago."""
    class Then(TimestampSigner):
        def get_timestamp(self) -> int:
            return int(time.time()) - age
    return URLSafeTimedSerializer(SECRET, salt=f"palazzo:{purpose}", signer=Then).dumps(payload)


def seat_tokens(created: dict) -> dict[int, str]:
    return {entry["seat"]: entry["token"] for entry in created["tokens"]["seats"]}


def mailed_link(app, to: str) -> str:
    """The sign-in link in the newest mail to `to` in the local outbox, as a player would click it."""
    import re
    from service import mailbox
    message = [m for m in mailbox.outbox(app.extensions["palazzo.store"]) if m["to"] == to][-1]
    return re.search(r"link=(\S+)", message["text"]).group(1)


def sign_in(app, client, to: str) -> str:
    """A player token for `to`, got the only way there is: redeeming the link mailed to him."""
    from urllib.parse import unquote
    response = client.post("/api/v1/sign-in/redeem", json={"link": unquote(mailed_link(app, to))})
    assert response.status_code == 201, response.get_json()
    return response.get_json()["token"]


def assert_replays(app, game_id: str) -> None:
    """The move log replayed from the setup gives exactly the stored state."""
    from service import games
    store = app.extensions["palazzo.store"]
    assert games.replay(store, game_id) == games.load(store, game_id).state


def leaks(doc, viewer: int | None, path: str = "$") -> list[str]:
    """Paths in `doc` that show a secret, the private part of a seat other than `viewer`, or a part
    kept whole for another seat (`private_to`): engine.core.redact's three rules, checked on what a
    reader got. `viewer` None is anyone who holds no seat: the host, a spectator."""
    found = []
    if isinstance(doc, dict):
        if "secret" in doc:
            found.append(f"{path}.secret")
        if "private" in doc and (viewer is None or doc.get("seat") != viewer):
            found.append(f"{path}.private")
        if "private_to" in doc and doc["private_to"] != viewer:
            found.append(f"{path}.private_to")
        for key, value in doc.items():
            found += leaks(value, viewer, f"{path}.{key}")
    elif isinstance(doc, list):
        for index, value in enumerate(doc):
            found += leaks(value, viewer, f"{path}[{index}]")
    return found


REPO = Path(__file__).resolve().parent.parent
# The worker with the toy game registered too (tests use it), and the slow bots a test asks for by
# PALAZZO_TEST_SLOW_BOT (tests/slow_bots.py); otherwise exactly `palazzo worker`.
WORKER = "import sys, tests.toy_game, tests.slow_bots; from service.cli import main; sys.exit(main(['worker']))"


def process_group(pgid: int) -> list[int]:
    """The live processes of a process group (from /proc: field 5 of stat is the group)."""
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):  # ended meanwhile (before the open, or during the read)
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.append(int(entry))
    return found


def wait_for(condition: Callable[[], bool], seconds: float = 30.0) -> None:
    """Poll until `condition` holds, failing after `seconds`. The first looks come quickly, most
    waits (a worker's job, the next mail) being over in a few milliseconds; a long wait polls at
    0.1 s."""
    deadline, pause = time.monotonic() + seconds, 0.005
    while not condition():
        assert time.monotonic() < deadline, f"still not true after {seconds} s"
        time.sleep(pause)
        pause = min(pause * 2, 0.1)


def jobs_idle(connection: redis.Redis) -> bool:
    """No RQ job of any queue is waiting, being taken (RQ's intermediate list) or running: whatever the
    last request set in motion is done, but for jobs scheduled for later. An id queued twice (a job id
    derived from what it acts on) whose job ran and left no record is no work: RQ skips it, leaving it
    in the intermediate list until its maintenance clears it."""
    from rq import Queue
    from rq.job import Job
    from rq.registry import StartedJobRegistry

    def taking(queue: Queue) -> bool:
        return any(Job.exists(job_id.decode(), connection=connection)
                   for job_id in connection.lrange(queue.intermediate_queue_key, 0, -1))
    return all(queue.count == 0 and not taking(queue) and StartedJobRegistry(queue=queue).count == 0
               for queue in Queue.all(connection=connection))


@pytest.fixture(scope="module")
def chromium():
    """Debian's Chromium driven by Playwright (tests/browser.py), one per test module."""
    from tests.browser import CHROMIUM, launch
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.fail(f"the browser tests need Debian's chromium at {CHROMIUM}: `make setup` installs it")
    with sync_api.sync_playwright() as playwright:
        browser = launch(playwright)
        yield browser
        browser.close()


@pytest.fixture
def moving_clock(tmp_path, monkeypatch):
    """The service's clock, moved by the test (`tests/clock.py`): set before the app and the workers
    start, so that they read it too."""
    from service import clock
    from tests.clock import Clock
    monkeypatch.setenv("PALAZZO_CLOCK_FILE", str(tmp_path / "clock"))
    yield Clock(tmp_path / "clock")
    clock.follow(None)


@pytest.fixture
def workers_on(tmp_path):
    """Start `palazzo worker` processes on a Redis; all are killed at the end."""
    started: list[subprocess.Popen] = []

    def start(redis_url: str, count: int = 1, **settings: str) -> list[subprocess.Popen]:
        env = {**os.environ, "REDIS_URL": redis_url, "PALAZZO_SECRET": SECRET, "PALAZZO_BOT_DELAY": "0",
               "PALAZZO_POLL_SECONDS": "0.5", "PALAZZO_GAMES": "princes-of-florence,toy-count",
               "PALAZZO_MAIL_MERGE_SECONDS": "0", "PYTHONPATH": str(REPO), **settings}
        for _ in range(count):
            log = (tmp_path / f"worker-{len(started)}.log").open("w")
            started.append(subprocess.Popen([sys.executable, "-c", WORKER], env=env, cwd=REPO, stdout=log,
                                            stderr=subprocess.STDOUT, start_new_session=True))
        return started[-count:]

    yield start
    for process in started:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
    for process in started:
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)


@pytest.fixture
def workers(redis_url, workers_on):
    """Start `palazzo worker` processes on the test Redis."""
    return lambda count=1, **settings: workers_on(redis_url, count, **settings)
