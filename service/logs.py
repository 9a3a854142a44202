"""Log lines as plain text (the default) or as one JSON object each (PALAZZO_LOG_FORMAT=json), so a
log store can find every line of one request, one game or one RQ job.

The request's id and the game's are contextvars: the app sets them before each request
(`service.app`), a worker's job where it takes a game (`for_game`). `Context`, a filter on our
handler, copies them onto every record, so a line logged deep in the store carries them too.
"""
from __future__ import annotations

import contextvars
import functools
import json
import logging
import re
import sys
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any, TypeVar

T = TypeVar("T")
FORMATS = ("text", "json")
TEXT_FORMAT = "%(asctime)s %(name)s %(message)s"  # the workers' lines as they always were
REQUEST_ID_HEADER = "X-Request-Id"
_WELL_FORMED = re.compile(r"[A-Za-z0-9._-]{1,64}")  # short, and nothing a log line could be forged with

request_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("request_id", default=None)
game_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("game_id", default=None)


def request_id_from(header: str | None) -> str:
    """The caller's X-Request-Id when it is well formed (a proxy's id ties its lines to ours), else a new one."""
    if header and _WELL_FORMED.fullmatch(header):
        return header
    return uuid.uuid4().hex


@contextmanager
def for_game(game: str) -> Iterator[None]:
    """Lines logged inside name `game` (a worker's job for one game)."""
    token = game_id.set(game)
    try:
        yield
    finally:
        game_id.reset(token)


def game_job(job: Callable[..., T]) -> Callable[..., T]:
    """A worker's job whose first argument is a game id: every line it logs names that game."""
    @functools.wraps(job)
    def run(game: str, *args: Any, **kwargs: Any) -> T:
        with for_game(game):
            return job(game, *args, **kwargs)
    return run


def _job_id() -> str | None:
    """The RQ job this thread runs, if any (RQ keeps it on a stack of its own while the job runs)."""
    from rq import get_current_job
    job = get_current_job()
    return job.id if job is not None else None


class Context(logging.Filter):
    """Adds the request's, the game's and the RQ job's ids to each record (None when there is none)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id.get()
        record.game_id = game_id.get()
        record.job_id = _job_id()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time (ISO 8601, UTC), level, logger, message, the ids, and any exception."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", None),
            "game_id": getattr(record, "game_id", None),
            "job_id": getattr(record, "job_id", None),
        }
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            line["exception"] = record.exc_text
        return json.dumps(line, default=str)


def json_handler(stream: Any = None) -> logging.Handler:
    """A handler writing JSON lines with the context's ids (to stderr unless given a stream)."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(Context())
    return handler


def configure(log_format: str, *, text_default: bool = False) -> None:
    """Send the root logger's lines out in `log_format`, once per process (a second call changes nothing).

    "text" leaves a process's logging as it was, but for `text_default` (the worker), which gets
    its usual plain lines at INFO.
    """
    root = logging.getLogger()
    if any(isinstance(h.formatter, JsonFormatter) for h in root.handlers):
        return
    if log_format == "json":
        root.addHandler(json_handler())
        root.setLevel(logging.INFO)
    elif text_default:
        logging.basicConfig(level=logging.INFO, format=TEXT_FORMAT)


def gunicorn_config() -> dict[str, Any]:
    """gunicorn's `logconfig_dict` for JSON: its error log and the app's lines go through our formatter."""
    handler = {"class": "logging.StreamHandler", "formatter": "json", "filters": ["context"],
               "stream": "ext://sys.stderr"}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"context": {"()": Context}},
        "formatters": {"json": {"()": JsonFormatter}},
        "handlers": {"error_console": handler, "console": handler},
        "root": {"level": "INFO", "handlers": ["console"]},
        "loggers": {
            "gunicorn.error": {"level": "INFO", "handlers": ["error_console"], "propagate": False},
            # off, as without this dict: the app's own line of each request carries the ids, and a
            # path's secrets (a signed link, a hook's secret) are not written down
            "gunicorn.access": {"level": "WARNING", "handlers": [], "propagate": False},
        },
    }
