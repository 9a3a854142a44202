"""gunicorn settings shared by the Procfile and `palazzo serve` (`gunicorn -c python:service.gunicorn_conf`).

Command-line flags still win over these, so `palazzo serve` passes its --host/--port/--workers on top.
gunicorn answers a request it cannot parse (a request line or header over its limits, a malformed
line) itself, before the app sees it, with an HTML page; here those answers become the same
application/problem+json documents every other error of the API is.

It reads its own variables from the environment (PORT, WEB_CONCURRENCY, PALAZZO_THREADS), not from
`service.config`: gunicorn reads this file before any app exists, and these size gunicorn itself.
The log format is the configuration's (PALAZZO_LOG_FORMAT): with json, gunicorn's own lines are JSON too.
"""
from __future__ import annotations

import os
import socket

from gunicorn import util

from service import logs
from service.config import Config
from service.problems import problem_response

wsgi_app = "service.wsgi:app"
bind = [f"0.0.0.0:{os.environ.get('PORT', '8000')}"]
workers = int(os.environ.get("WEB_CONCURRENCY", "4"))
# Threads, so that a long-poll request holds one thread instead of a whole worker process.
worker_class = "gthread"
threads = int(os.environ.get("PALAZZO_THREADS", "4"))
# No control socket: several gunicorns (tests, benchmarks) would otherwise fight over one path.
control_socket_disable = True
if Config.from_env().log_format == "json":
    logconfig_dict = logs.gunicorn_config()

# gunicorn answers 400, 403, 414, 417, 431, 500 and 501 itself; each gets a code of service.problems.CODES.
_CODES = {403: "forbidden", 414: "uri_too_long", 431: "headers_too_large"}


def _write_problem(sock: socket.socket, status_int: int, reason: str, mesg: str) -> None:
    """Stands in for gunicorn.util.write_error, the one function its workers answer such errors with."""
    code = _CODES.get(status_int, "bad_request" if status_int < 500 else "internal_error")
    response = problem_response(status_int, code, mesg or reason)
    body = response.get_data()
    head = (f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\n"
            f"Content-Type: {response.content_type}\r\nContent-Length: {len(body)}\r\n\r\n")
    util.write_nonblock(sock, head.encode("latin-1") + body)


util.write_error = _write_problem
