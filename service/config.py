"""Configuration from the environment, and the store built from it: one place for the web app, the
workers and the command line. README lists every variable with its default.

`REDIS_URL` is the game store: a plain Redis (``redis://``, ``rediss://``, ``unix://``) or a Redis
Cluster, named as ``redis+cluster://host:port[,host:port...]`` (the form the `limits` library
takes, so the same URL can serve the rate limits). A plain URL that leads to a cluster node is
refused with the URL to write instead. RQ's queues need a plain Redis: `PALAZZO_QUEUE_URL`, which
defaults to the store's own Redis and must be set when the store is a cluster.
"""
from __future__ import annotations

import os
from typing import Any

import redis

from service import followups, invitations, messages, playing
from service.links import LOCAL_BASE_URL
from service.connection import connect, is_cluster_url, refuse_cluster_node
from service.store import Store


class ConfigError(RuntimeError):
    """A setting the service cannot run with; the message says what to set."""


def _number(name: str, default: str, kind: type[int] | type[float]) -> int | float:
    """The environment variable `name` as a number; one that is not says which variable it is."""
    text = os.environ.get(name, default)
    try:
        return kind(text)
    except ValueError:
        raise ConfigError(f"{name} must be {'a whole number' if kind is int else 'a number'}, not {text!r}") from None


def settings() -> dict[str, Any]:
    env = os.environ.get
    config = {
        "REDIS_URL": env("REDIS_URL", "redis://127.0.0.1:6379/0"),
        "QUEUE_URL": env("PALAZZO_QUEUE_URL"),
        "JOBS": env("PALAZZO_JOBS", "rq"),
        "BOT_DELAY": _number("PALAZZO_BOT_DELAY", "1", float),
        "MIN_DEADLINE": _number("PALAZZO_MIN_DEADLINE", "60", int),
        "COMPACT_AFTER": _number("PALAZZO_COMPACT_AFTER", "600", float),
        "BASE_URL": env("PALAZZO_BASE_URL", LOCAL_BASE_URL),
        "RATE_LIMIT": env("PALAZZO_RATE_LIMIT", "600 per minute"),
        "INVITE_LIMIT": env("PALAZZO_INVITE_LIMIT", invitations.LIMIT),
        "TALK_LIMIT": env("PALAZZO_TALK_LIMIT", messages.LIMIT),
        "CORS_ORIGINS": [o.strip() for o in env("PALAZZO_CORS_ORIGINS", "").split(",") if o.strip()],
        "GAMES": env("PALAZZO_GAMES", "princes-of-florence").split(","),
        "MAIL_EVENTS_SECRET": env("PALAZZO_MAIL_EVENTS_SECRET"),
        "INBOUND_SECRET": env("PALAZZO_INBOUND_SECRET"),
        "CLOCK_FILE": env("PALAZZO_CLOCK_FILE"),
    }
    if env("PALAZZO_SECRET"):
        config["SECRET_KEY"] = env("PALAZZO_SECRET")
    return config


def queue_url(config: dict[str, Any]) -> str:
    """The Redis of RQ's queues and scheduled jobs: PALAZZO_QUEUE_URL, else the game store's own.

    RQ needs a plain Redis (its job keys and queues are not kept in one slot), so a cluster store
    has none to lend: without PALAZZO_QUEUE_URL the service refuses to start.
    """
    url = config.get("QUEUE_URL")
    if url:
        if is_cluster_url(url):
            raise ConfigError("PALAZZO_QUEUE_URL must name a plain Redis (redis://host:port/0): RQ cannot use a cluster")
        return url
    if is_cluster_url(config["REDIS_URL"]):
        raise ConfigError("REDIS_URL is a Redis Cluster, and RQ's queues need a plain Redis: set PALAZZO_QUEUE_URL "
                          "(e.g. redis://queue-host:6379/0, with an append-only file: it holds the scheduled jobs)")
    return config["REDIS_URL"]


def make_store(config: dict[str, Any]) -> Store:
    """The game store with its followups: RQ jobs on the queue Redis, or bots inline (no workers)."""
    url = config["REDIS_URL"]
    inline = config["JOBS"] == "inline"
    queues_at = None if inline else queue_url(config)  # refused before anything connects
    try:
        if not is_cluster_url(url):
            refuse_cluster_node(url)
        client = connect(url)
    except ValueError as error:  # redis-py's word on a URL it cannot read, which does not say whose
        raise ConfigError(f"REDIS_URL {url!r}: {error}") from None
    if inline:
        return Store(client, followups.Inline(playing.run_bots), config["COMPACT_AFTER"])
    if queues_at != url:
        refuse_cluster_node(queues_at, "PALAZZO_QUEUE_URL")
    queues = redis.Redis.from_url(queues_at)  # RQ wants bytes, not str
    return Store(client, followups.Queued(queues, bot_delay=config["BOT_DELAY"]), config["COMPACT_AFTER"])
