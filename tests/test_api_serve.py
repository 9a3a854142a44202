"""`palazzo serve` end to end: its own redis-server, several gunicorn workers that agree, a clean stop."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from urllib.error import HTTPError

from service.localredis import free_port


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


def start_serve(data_dir) -> tuple[subprocess.Popen, str, int]:
    """`palazzo serve` with three workers and no REDIS_URL, once it answers."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    server = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "serve", "--port", str(port), "--workers", "3", "--data", str(data_dir)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    for _ in range(100):
        if port_open(port):
            break
        time.sleep(0.1)
    return server, f"http://127.0.0.1:{port}/api/v1", port


def stop_serve(server: subprocess.Popen, port: int) -> None:
    """SIGTERM must stop gunicorn and the private redis-server alike."""
    server.send_signal(signal.SIGTERM)
    output, _ = server.communicate(timeout=20)
    redis_port = int(output.split("redis://127.0.0.1:")[1].split("/")[0])
    assert not port_open(port) and not port_open(redis_port), "SIGTERM stops gunicorn and redis-server"


def test_serve_runs_its_own_redis_and_workers_share_every_game(tmp_path):
    server, base, port = start_serve(tmp_path / "redis")
    try:
        status, created = call(base, "POST", "/games", {
            "game": "princes-of-florence", "seed": 3,
            "seats": [{"name": "Ann", "email": "ann@example.org"}, {"name": "B", "bot": "random"},
                      {"name": "C", "bot": "greedy"}],
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
        assert seen == {answer["game_version"]}
    finally:
        stop_serve(server, port)

    server, base, port = start_serve(tmp_path / "redis")
    try:
        status, again = call(base, "GET", f"/games/{game_id}", token=ann)
        assert status == 200 and again["version"] == answer["game_version"], "the game survives a restart"
    finally:
        stop_serve(server, port)
