"""Configuration from the environment, and the store built from it: one place for the web app, the
workers and the command line. README lists every variable with its default."""
from __future__ import annotations

import os
from typing import Any

import redis

from service import followups, playing
from service.links import LOCAL_BASE_URL
from service.store import Store, connect



def settings() -> dict[str, Any]:
    env = os.environ.get
    config = {
        "REDIS_URL": env("REDIS_URL", "redis://127.0.0.1:6379/0"),
        "QUEUE_URL": env("PALAZZO_QUEUE_URL"),
        "JOBS": env("PALAZZO_JOBS", "rq"),
        "BOT_DELAY": float(env("PALAZZO_BOT_DELAY", "1")),
        "MIN_DEADLINE": int(env("PALAZZO_MIN_DEADLINE", "60")),
        "BASE_URL": env("PALAZZO_BASE_URL", LOCAL_BASE_URL),
        "RATE_LIMIT": env("PALAZZO_RATE_LIMIT", "600 per minute"),
        "RATE_LIMIT_STORAGE": env("PALAZZO_RATE_LIMIT_STORAGE"),
        "CORS_ORIGINS": [o.strip() for o in env("PALAZZO_CORS_ORIGINS", "").split(",") if o.strip()],
        "GAMES": env("PALAZZO_GAMES", "princes-of-florence").split(","),
        "MAIL_EVENTS_SECRET": env("PALAZZO_MAIL_EVENTS_SECRET"),
    }
    if env("PALAZZO_SECRET"):
        config["SECRET_KEY"] = env("PALAZZO_SECRET")
    return config


def make_store(config: dict[str, Any]) -> Store:
    """The game store with its followups: RQ jobs on the queue Redis, or bots inline (no workers)."""
    if config["JOBS"] == "inline":
        after = followups.Inline(playing.run_bots)
    else:
        queues = redis.Redis.from_url(config["QUEUE_URL"] or config["REDIS_URL"])  # RQ wants bytes, not str
        after = followups.Queued(queues, bot_delay=config["BOT_DELAY"])
    return Store(connect(config["REDIS_URL"]), after)
