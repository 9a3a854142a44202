"""`palazzo serve` end to end: its own redis-server and secret, several gunicorn workers that agree,
problem documents for requests gunicorn refuses, a redis-server brought back after it dies, a clean stop."""
from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.error import HTTPError

import pytest

from service.commands.serve import RESTARTS_PER_MINUTE
from service.localredis import free_port
from tests.conftest import process_group

LOCAL_ENV = ("REDIS_URL", "PALAZZO_SECRET", "PALAZZO_BASE_URL")
THREE_SEATS = {"game": "princes-of-florence", "seats": [{"name": "A"}, {"name": "B"}, {"name": "C"}]}


def call(base: str, method: str, path: str, body: dict | None = None, token: str | None = None,
         headers: dict | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(base + path, method=method, data=json.dumps(body).encode() if body else None)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except HTTPError as error:
        return error.code, json.loads(error.read())


def port_open(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def wait_for(condition: Callable[[], bool], seconds: float = 20.0) -> None:
    """Poll until `condition` holds; a request failing on the way counts as not yet."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            if condition():
                return
        except (OSError, ValueError):
            pass
        assert time.monotonic() < deadline, f"still not true after {seconds} s"
        time.sleep(0.1)


def serve_command(var_dir: Path, port: int) -> list[str]:
    return [sys.executable, "-m", "service.cli", "serve", "--port", str(port), "--workers", "3", "--var", str(var_dir)]


def local_env() -> dict[str, str]:
    """The environment without what `palazzo serve` provides itself: Redis, secret, base URL."""
    return {k: v for k, v in os.environ.items() if k not in LOCAL_ENV}


@dataclass
class Serve:
    """A running `palazzo serve`, its stdout and stderr (gunicorn's too) in a log file."""

    process: subprocess.Popen
    port: int
    log: Path

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v1"

    def output(self) -> str:
        return self.log.read_text()

    def redis_pids(self) -> list[int]:
        """The redis-server processes serve started, the first and every restart, in order."""
        return [int(pid) for pid in re.findall(r"redis-server (?:restarted, )?pid (\d+)", self.output())]

    def kill_redis(self, *, restarted: bool = True) -> None:
        """SIGKILL the current redis-server and, unless told otherwise, wait until serve starts another."""
        pids = self.redis_pids()
        os.kill(pids[-1], signal.SIGKILL)
        if restarted:
            wait_for(lambda: len(self.redis_pids()) > len(pids))


def start_serve(var_dir: Path) -> Serve:
    """`palazzo serve` with three workers and no REDIS_URL or PALAZZO_SECRET, once the API answers; in a
    process group of its own, as a terminal would start it."""
    port = free_port()
    log = var_dir.parent / f"serve-{port}.log"
    with log.open("w") as out:
        process = subprocess.Popen(serve_command(var_dir, port), env=local_env(), stdout=out,
                                   stderr=subprocess.STDOUT, start_new_session=True)
    serve = Serve(process, port, log)
    wait_for(lambda: process.poll() is not None or call(serve.base, "GET", "/games/none")[0] == 404, 60)
    assert process.poll() is None, serve.output()
    return serve


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def stop_serve(serve: Serve) -> None:
    """SIGTERM must stop gunicorn, the worker and the private redis-server alike."""
    serve.process.send_signal(signal.SIGTERM)
    serve.process.wait(timeout=20)
    redis_port = int(serve.output().split("redis://127.0.0.1:")[1].split("/")[0])
    assert not port_open(serve.port) and not port_open(redis_port), "SIGTERM stops gunicorn and redis-server"
    workers = [int(pid) for pid in re.findall(r"palazzo worker pid (\d+)", serve.output())]
    assert workers and not any(alive(pid) for pid in workers), "SIGTERM stops the worker"


def refused(port: int, request: bytes) -> tuple[int, str, dict]:
    """Status, Content-Type and JSON body of gunicorn's answer to a raw request."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        response = http.client.HTTPResponse(sock)
        response.begin()
        return response.status, response.getheader("Content-Type"), json.loads(response.read())


def test_serve_runs_its_own_redis_and_workers_share_every_game(tmp_path):
    serve = start_serve(tmp_path / "var")
    base = serve.base
    try:
        status, created = call(base, "POST", "/games", {
            "game": "princes-of-florence", "seed": 3,
            "seats": [{"name": "Ann"}, {"name": "B"}, {"name": "C"}],  # no bots: nothing moves between reads
        })
        assert status == 201, created
        game_id, host = created["game"]["id"], created["tokens"]["host"]
        ann = created["tokens"]["seats"][0]["token"]
        assert call(base, "POST", f"/games/{game_id}/start", token=host)[0] == 200
        versions = {call(base, "GET", f"/games/{game_id}", token=ann)[1]["version"] for _ in range(12)}
        assert len(versions) == 1, "every worker reads the same game from Redis"
        version = versions.pop()
        status, moves = call(base, "GET", f"/games/{game_id}/moves", token=ann)
        move = moves["moves"][0]["move"]
        status, answer = call(base, "POST", f"/games/{game_id}/moves", {"move": move}, token=ann,
                              headers={"If-Match": f'"{version}"'})
        assert status == 200, answer
        seen = {call(base, "GET", f"/games/{game_id}", token=ann)[1]["version"] for _ in range(12)}
        assert len(seen) == 1 and seen.pop() >= answer["version"]
        final = call(base, "GET", f"/games/{game_id}", token=ann)[1]["version"]
    finally:
        stop_serve(serve)

    serve = start_serve(tmp_path / "var")
    base = serve.base
    try:
        status, again = call(base, "GET", f"/games/{game_id}", token=ann)
        assert status == 200 and again["version"] == final, "the game survives a restart"
    finally:
        stop_serve(serve)


def test_serve_makes_its_secret_once_readable_by_its_owner_only(tmp_path):
    """... and prints the home page first, then the API and the mailbox (`make run` printed only the
    API's root, a 404 in a browser)."""
    secret = tmp_path / "var" / "secret"
    contents = []
    for _ in range(2):
        serve = start_serve(tmp_path / "var")
        try:
            assert call(serve.base, "GET", "/games/none")[0] == 404, "the app starts with serve's secret"
            home = f"http://127.0.0.1:{serve.port}/"
            lines = [line for line in serve.output().splitlines() if f"127.0.0.1:{serve.port}/" in line]
            assert lines[0] == f"Palazzo on {home}" and "/api/v1" in lines[1] and "/dev/mailbox" in lines[2], lines
            with urllib.request.urlopen(home, timeout=10) as page:
                assert page.status == 200 and page.headers.get_content_type() == "text/html"
        finally:
            stop_serve(serve)
        assert secret.stat().st_mode & 0o777 == 0o600
        contents.append(secret.read_text())
    assert len(contents[0].strip()) == 64 and contents[0] == contents[1], "made once, then reused"


@pytest.mark.parametrize("text, mode, complaint", [("s" * 64, 0o644, "chmod 600"), ("", 0o600, "empty")],
                         ids=["open_to_others", "empty"])
def test_serve_refuses_a_secret_others_can_read_or_an_empty_one(tmp_path, text, mode, complaint):
    secret = tmp_path / "var" / "secret"
    secret.parent.mkdir()
    secret.write_text(text)
    secret.chmod(mode)
    done = subprocess.run(serve_command(tmp_path / "var", free_port()), env=local_env(), capture_output=True,
                          text=True, timeout=30, check=False)
    assert done.returncode == 2 and complaint in done.stderr, done.stderr
    assert not (tmp_path / "var" / "redis").exists(), "nothing starts"


def test_requests_gunicorn_refuses_are_problem_documents(tmp_path):
    serve = start_serve(tmp_path / "var")
    try:
        cases = [
            (b"GET /api/v1/games/" + b"x" * 10_000 + b" HTTP/1.1\r\nHost: t\r\n\r\n", 414, "uri_too_long"),
            (b"GET /api/v1/games/none HTTP/1.1\r\nHost: t\r\nX-Padding: " + b"x" * 20_000 + b"\r\n\r\n",
             431, "headers_too_large"),
            (b"GARBAGE\r\n\r\n", 400, "bad_request"),
        ]
        for request, status, code in cases:
            answer = refused(serve.port, request)
            assert answer[:2] == (status, "application/problem+json"), answer
            assert answer[2]["status"] == status and answer[2]["code"] == code
            assert answer[2]["type"] == f"https://palazzo.invalid/problems/{code}"
    finally:
        stop_serve(serve)


def test_serve_restarts_a_dead_redis_server_and_the_games_survive(tmp_path):
    serve = start_serve(tmp_path / "var")
    try:
        status, created = call(serve.base, "POST", "/games", THREE_SEATS)
        assert status == 201, created
        serve.kill_redis()
        wait_for(lambda: call(serve.base, "GET", "/games/none")[1]["code"] == "game_not_found")
        status, game = call(serve.base, "GET", f"/games/{created['game']['id']}")
        assert status == 200 and game["version"] == created["game"]["version"], "the append-only file kept it"
    finally:
        stop_serve(serve)


def test_serve_stops_when_its_redis_server_keeps_dying(tmp_path):
    serve = start_serve(tmp_path / "var")
    try:
        for _ in range(RESTARTS_PER_MINUTE):
            serve.kill_redis()
        serve.kill_redis(restarted=False)
        assert serve.process.wait(timeout=40) == 1
        assert "keeps dying" in serve.output() and not port_open(serve.port), "gunicorn stopped too"
    finally:
        if serve.process.poll() is None:
            stop_serve(serve)


def test_the_readme_session_a_seat_with_an_address_signs_in_from_the_local_outbox(tmp_path):
    """As README's worked session: the creator gets no token for Ann; `palazzo outbox` shows her link."""
    serve = start_serve(tmp_path / "var")
    try:
        status, created = call(serve.base, "POST", "/games", {
            "game": "princes-of-florence", "seed": 42,
            "seats": [{"name": "Ann", "email": "ann@example.org"}, {"name": "Bot1", "bot": "random"},
                      {"name": "Bot2", "bot": "greedy"}]})
        assert status == 201 and created["tokens"]["seats"] == []
        shown = subprocess.run([sys.executable, "-m", "service.cli", "outbox", "--var", str(tmp_path / "var"),
                                "--to", "ann@example.org"], env=local_env(), capture_output=True, text=True, timeout=30)
        assert shown.returncode == 0, shown.stderr
        url = re.search(r"(http://\S+/sign-in\?link=\S+)", shown.stdout).group(1)
        assert url.startswith(f"http://127.0.0.1:{serve.port}/sign-in?link="), "links use the address serve prints"
        link = url.split("link=", 1)[1]
        status, player = call(serve.base, "POST", "/sign-in/redeem", {"link": link})
        assert status == 201, player
        status, game = call(serve.base, "GET", f"/games/{created['game']['id']}", token=player["token"])
        assert status == 200 and game["you"] == {"role": "seat", "seat": 0}
    finally:
        stop_serve(serve)
    missing = subprocess.run([sys.executable, "-m", "service.cli", "outbox", "--var", str(tmp_path / "none")],
                             env=local_env(), capture_output=True, text=True, timeout=30)
    assert missing.returncode == 2 and "palazzo serve" in missing.stderr


def _refused(tmp_path, port: int, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(serve_command(tmp_path / "var", port), env={**local_env(), **env}, capture_output=True,
                          text=True, timeout=60, check=False)


def test_up_on_a_taken_port_says_so_in_one_line_and_starts_nothing(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        done = _refused(tmp_path, taken.getsockname()[1])
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "--port" in done.stderr and "in use" in done.stderr
    assert not (tmp_path / "var").exists(), "no secret made, no redis-server started"


@pytest.mark.parametrize("name, value", [
    ("PALAZZO_RATE_LIMIT", "banana"), ("PALAZZO_MAIL_BACKEND", "smtp"), ("PALAZZO_SECRET", "short"),
    ("REDIS_URL", "http://127.0.0.1:6379/0"), ("PALAZZO_COMPACT_AFTER", "soon"), ("PALAZZO_IMAP_SECURITY", "ssl3"),
])
def test_up_with_a_setting_it_cannot_read_says_which_in_one_line(tmp_path, name, value):
    """It died in a gunicorn traceback (and one from the worker) instead."""
    port = free_port()
    done = _refused(tmp_path, port, **{name: value})
    assert done.returncode == 2, done.stdout + done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and name in done.stderr, done.stderr
    assert "gunicorn" not in done.stdout and not port_open(port), "nothing serves"
    assert "redis-server" not in done.stdout and not (tmp_path / "var" / "redis").exists(), "no redis-server started"


def test_sigterm_to_the_whole_process_group_stops_everything_without_a_traceback(tmp_path):
    """`kill -TERM -<pgid>` reached redis-server too, before the worker and its scheduler had stopped:
    about 250 lines of tracebacks."""
    serve = start_serve(tmp_path / "var")
    try:
        wait_for(lambda: "*** Listening on palazzo..." in serve.output(), 30)  # the worker is up
        redis_port = int(serve.output().split("redis://127.0.0.1:")[1].split("/")[0])
        os.killpg(serve.process.pid, signal.SIGTERM)
        assert serve.process.wait(timeout=60) == 0
        noisy = [line for line in serve.output().splitlines() if "Traceback" in line or "Error" in line]
        assert noisy == [], serve.output()
        assert not process_group(serve.process.pid) and not port_open(redis_port), "everything stopped, redis-server too"
    finally:  # a failure leaves nothing running
        for pid in [*process_group(serve.process.pid), *serve.redis_pids()]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def test_up_starts_gunicorn_again_when_it_dies(tmp_path):
    """It stopped everything instead."""
    serve = start_serve(tmp_path / "var")
    try:
        status, created = call(serve.base, "POST", "/games", THREE_SEATS)
        assert status == 201, created
        gunicorn = int(re.findall(r"gunicorn pid (\d+)", serve.output())[-1])
        os.kill(gunicorn, signal.SIGKILL)
        wait_for(lambda: len(re.findall(r"gunicorn pid (\d+)", serve.output())) == 2, 20)
        wait_for(lambda: call(serve.base, "GET", f"/games/{created['game']['id']}")[0] == 200, 30)
        assert serve.process.poll() is None and "gunicorn exited with -9; starting another" in serve.output()
    finally:
        stop_serve(serve)


def test_up_runs_a_worker_that_plays_the_bots_and_restarts_it(tmp_path):
    """`palazzo up`: bots move without anyone's request, and a worker that dies is replaced."""
    serve = start_serve(tmp_path / "var")
    try:
        status, created = call(serve.base, "POST", "/games", {
            "game": "princes-of-florence", "seed": 5,
            "seats": [{"name": "Ann"}, {"name": "B", "bot": "random"}, {"name": "C", "bot": "greedy"}]})
        game_id, host = created["game"]["id"], created["tokens"]["host"]
        assert call(serve.base, "POST", f"/games/{game_id}/start", token=host)[0] == 200
        kept = lambda: call(serve.base, "GET", f"/games/{game_id}")[1]["version"] >= 4  # noqa: E731
        wait_for(kept, 30)
        worker = int(re.findall(r"palazzo worker pid (\d+)", serve.output())[-1])
        os.kill(worker, signal.SIGKILL)
        wait_for(lambda: "starting another" in serve.output(), 10)
    finally:
        stop_serve(serve)
