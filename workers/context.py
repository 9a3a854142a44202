"""What a job works with, built once per process from the configuration (as the web app does): the
`Config` read from the environment at the first call, and the store, links and limits made from it."""
from __future__ import annotations

from functools import cache

from service import clock
from service.config import Config, make_store
from service.links import MIN_SECRET_LENGTH, Links
from service.ratelimit import Limit
from service.served import load_all
from service.store import Store

load_all()  # a job may play any game a stored table holds


@cache
def config() -> Config:
    """This process's settings, read once: every job takes them from here."""
    return Config.from_env()


@cache
def store() -> Store:
    settings = config()
    clock.follow(settings.clock_file)
    return make_store(settings)


@cache
def links() -> Links:
    """Signed links for mails, from the same secret and base URL as the web app's."""
    settings = config()
    if len(settings.secret_key or "") < MIN_SECRET_LENGTH:
        raise RuntimeError(f"set PALAZZO_SECRET ({MIN_SECRET_LENGTH}+ characters): mails carry links signed with it")
    return Links(settings.secret_key, settings.base_url)


@cache
def talk_limit() -> Limit:
    """Messages per seat of a game (PALAZZO_TALK_LIMIT), for the messages of replies."""
    return Limit.parse(config().talk_limit)


def forget() -> None:
    """Drop what was read and built, so the next job reads the environment again: for a test that
    changes it inside its own process, where a worker's process would have started anew."""
    for cached in (config, store, links, talk_limit):
        cached.cache_clear()
