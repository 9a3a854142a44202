"""Configuration, read from the environment once at a process's start, and the store built from it:
one `Config` for the web app, the workers and the command line, handed down from there (the app keeps
it in `app.extensions["palazzo.config"]`, a worker in `workers.context.config()`). No other module
reads the environment; README lists every variable with its default.

`REDIS_URL` is the game store: a plain Redis (``redis://``, ``rediss://``, ``unix://``) or a Redis
Cluster, named as ``redis+cluster://host:port[,host:port...]`` (the form the `limits` library
takes, so the same URL can serve the rate limits). A plain URL that leads to a cluster node is
refused with the URL to write instead. RQ's queues need a plain Redis: `PALAZZO_QUEUE_URL`, which
defaults to the store's own Redis and must be set when the store is a cluster.
"""
from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import redis

from service import followups, invitations, logs, messages, playing
from service.connection import connect, is_cluster_url, refuse_cluster_node
from service.links import LOCAL_BASE_URL
from service.mail.settings import ImapSettings, MailSettings
from service.served import PACKAGES
from service.sign_ins import DAY, Idle
from service.store import Store


class ConfigError(RuntimeError):
    """A setting the service cannot run with; the message says what to set."""


@dataclass(frozen=True)
class Config:
    """Every setting of a process; each field is the variable README names (`PALAZZO_` + its name in
    capitals, but for `redis_url` and `secret_key`, which is PALAZZO_SECRET)."""

    redis_url: str = "redis://127.0.0.1:6379/0"
    queue_url: str | None = None
    jobs: str = "rq"
    bot_delay: float = 1.0
    bot_seconds: int = 60
    min_deadline: int = 60
    compact_after: float = 600.0
    base_url: str = LOCAL_BASE_URL
    rate_limit: str = "600 per minute"
    invite_limit: str = invitations.LIMIT
    talk_limit: str = messages.LIMIT
    cors_origins: tuple[str, ...] = ()
    games: tuple[str, ...] = tuple(PACKAGES)  # every game the registry knows, in its order
    mail_events_secret: str | None = None
    inbound_secret: str | None = None
    metrics_token: str | None = None  # GET /metrics answers only to it; unset, there is none (service.metrics)
    clock_file: str | None = None
    secret_key: str | None = None
    mail_retry_seconds: tuple[int, ...] = (10, 30, 120, 600, 1800)
    mail_merge_seconds: float = 30.0
    poll_seconds: float = 1.0
    worker_child: str = ""  # PALAZZO_WORKER_CHILD: set by `palazzo worker` for its children only (queue_process)
    webhook_retry_seconds: tuple[int, ...] = (10, 60, 300, 1800)
    webhook_allow_private: bool = False  # loopback, private and link-local targets, and plain http (SSRF)
    token_idle_days: float = 90.0  # a player token unused this long ends (service.sign_ins)
    session_idle_days: float = 30.0  # a browser session unused this long ends
    log_format: str = "text"  # or "json": one object a line with the request's and game's ids (service.logs)
    mail: MailSettings = field(default_factory=MailSettings)
    imap: ImapSettings = field(default_factory=ImapSettings)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Config:
        """The settings in `environ` (the process's environment unless given); a value the service
        cannot use raises ConfigError naming its variable."""
        environ = os.environ if environ is None else environ
        env = environ.get
        try:
            mail = MailSettings.from_env(environ)
            imap = ImapSettings.from_env(environ)
        except ValueError as error:
            raise ConfigError(str(error)) from None
        return cls(
            redis_url=env("REDIS_URL") or cls.redis_url,
            queue_url=env("PALAZZO_QUEUE_URL") or None,
            jobs=env("PALAZZO_JOBS") or cls.jobs,
            bot_delay=_number(env, "PALAZZO_BOT_DELAY", "1", float),
            bot_seconds=math.ceil(_positive(env, "PALAZZO_BOT_SECONDS", "60")),
            min_deadline=_number(env, "PALAZZO_MIN_DEADLINE", "60", int),
            compact_after=_number(env, "PALAZZO_COMPACT_AFTER", "600", float),
            base_url=env("PALAZZO_BASE_URL") or LOCAL_BASE_URL,
            rate_limit=env("PALAZZO_RATE_LIMIT") or cls.rate_limit,
            invite_limit=env("PALAZZO_INVITE_LIMIT") or invitations.LIMIT,
            talk_limit=env("PALAZZO_TALK_LIMIT") or messages.LIMIT,
            cors_origins=tuple(o.strip() for o in (env("PALAZZO_CORS_ORIGINS") or "").split(",") if o.strip()),
            games=tuple(env("PALAZZO_GAMES").split(",")) if env("PALAZZO_GAMES") else tuple(PACKAGES),
            mail_events_secret=env("PALAZZO_MAIL_EVENTS_SECRET") or None,
            inbound_secret=env("PALAZZO_INBOUND_SECRET") or None,
            metrics_token=env("PALAZZO_METRICS_TOKEN") or None,
            clock_file=env("PALAZZO_CLOCK_FILE") or None,
            secret_key=env("PALAZZO_SECRET") or None,
            mail_retry_seconds=_waits(env, "PALAZZO_MAIL_RETRY_SECONDS", cls.mail_retry_seconds),
            mail_merge_seconds=_number(env, "PALAZZO_MAIL_MERGE_SECONDS", "30", float),
            poll_seconds=_number(env, "PALAZZO_POLL_SECONDS", "1", float),
            worker_child=env("PALAZZO_WORKER_CHILD") or "",
            webhook_retry_seconds=_waits(env, "PALAZZO_WEBHOOK_RETRY_SECONDS", cls.webhook_retry_seconds),
            webhook_allow_private=(env("PALAZZO_WEBHOOK_ALLOW_PRIVATE") or "") in ("1", "true", "yes"),
            token_idle_days=_positive(env, "PALAZZO_TOKEN_IDLE_DAYS", "90"),
            session_idle_days=_positive(env, "PALAZZO_SESSION_IDLE_DAYS", "30"),
            log_format=_log_format(env("PALAZZO_LOG_FORMAT") or "text"),
            mail=mail,
            imap=imap,
        )

    @property
    def token_idle(self) -> Idle:
        return Idle(self.token_idle_days * DAY)

    @property
    def session_idle(self) -> Idle:
        return Idle(self.session_idle_days * DAY)

    def but(self, **changes: Any) -> Config:
        """This configuration with some settings changed (tests and tools that run their own store)."""
        return dataclasses.replace(self, **changes)


Read = Any  # a mapping's `get`: the environment's, or a test's


def _number(env: Read, name: str, default: str, kind: type[int] | type[float]) -> int | float:
    """The variable `name` as a number; one that is not says which variable it is."""
    text = env(name, default)
    try:
        return kind(text)
    except ValueError:
        raise ConfigError(f"{name} must be {'a whole number' if kind is int else 'a number'}, not {text!r}") from None


def _positive(env: Read, name: str, default: str) -> float:
    """The variable `name` as a number above zero (days may be fractions: a test's are seconds)."""
    value = _number(env, name, default, float)
    if value <= 0:
        raise ConfigError(f"{name} must be above zero, not {env(name, default)!r}")
    return value


def _log_format(text: str) -> str:
    if text not in logs.FORMATS:
        raise ConfigError(f"PALAZZO_LOG_FORMAT must be one of {', '.join(logs.FORMATS)}, not {text!r}")
    return text


def _waits(env: Read, name: str, default: tuple[int, ...]) -> tuple[int, ...]:
    """The variable `name` as comma-separated whole seconds."""
    text = env(name)
    if text is None:
        return default
    try:
        return tuple(int(wait) for wait in text.split(","))
    except ValueError:
        raise ConfigError(f"{name} must be whole seconds separated by commas, not {text!r}") from None


def named_store_url(environ: Mapping[str, str] | None = None) -> str | None:
    """REDIS_URL when it is set, else None: a tool that can find a store of its own without it
    (`palazzo mail list` finds a running `palazzo up`'s) must tell unset from the default."""
    return (os.environ if environ is None else environ).get("REDIS_URL") or None


def queue_url(config: Config) -> str:
    """The Redis of RQ's queues and scheduled jobs: PALAZZO_QUEUE_URL, else the game store's own.

    RQ needs a plain Redis (its job keys and queues are not kept in one slot), so a cluster store
    has none to lend: without PALAZZO_QUEUE_URL the service refuses to start.
    """
    url = config.queue_url
    if url:
        if is_cluster_url(url):
            raise ConfigError("PALAZZO_QUEUE_URL must name a plain Redis (redis://host:port/0): RQ cannot use a cluster")
        return url
    if is_cluster_url(config.redis_url):
        raise ConfigError("REDIS_URL is a Redis Cluster, and RQ's queues need a plain Redis: set PALAZZO_QUEUE_URL "
                          "(e.g. redis://queue-host:6379/0, with an append-only file: it holds the scheduled jobs)")
    return config.redis_url


def make_store(config: Config) -> Store:
    """The game store with its followups: RQ jobs on the queue Redis, or bots inline (no workers)."""
    url = config.redis_url
    inline = config.jobs == "inline"
    queues_at = None if inline else queue_url(config)  # refused before anything connects
    try:
        if not is_cluster_url(url):
            refuse_cluster_node(url)
        client = connect(url)
    except ValueError as error:  # redis-py's word on a URL it cannot read, which does not say whose
        raise ConfigError(f"REDIS_URL {url!r}: {error}") from None
    if inline:
        return Store(client, followups.Inline(playing.run_bots, config.mail), config.compact_after)
    if queues_at != url:
        refuse_cluster_node(queues_at, "PALAZZO_QUEUE_URL")
    queues = redis.Redis.from_url(queues_at)  # RQ wants bytes, not str
    return Store(client, followups.Queued(queues, bot_delay=config.bot_delay, bot_seconds=config.bot_seconds,
                                                mail_waits=config.mail_retry_seconds,
                                                webhook_waits=config.webhook_retry_seconds),
                 config.compact_after)
