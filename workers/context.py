"""The store a job works on, built once per process from the environment (as the web app does)."""
from __future__ import annotations

from functools import cache

from service import clock
from service.config import make_store, settings
from service.links import MIN_SECRET_LENGTH, Links
from service.ratelimit import Limit
from service.served import load_all
from service.store import Store

load_all()  # a job may play any game a stored table holds


@cache
def store() -> Store:
    config = settings()
    clock.follow(config["CLOCK_FILE"])
    return make_store(config)


@cache
def links() -> Links:
    """Signed links for mails, from the same secret and base URL as the web app's."""
    config = settings()
    if len(config.get("SECRET_KEY", "")) < MIN_SECRET_LENGTH:
        raise RuntimeError(f"set PALAZZO_SECRET ({MIN_SECRET_LENGTH}+ characters): mails carry links signed with it")
    return Links(config["SECRET_KEY"], config["BASE_URL"])


@cache
def talk_limit() -> Limit:
    """Messages per seat of a game (PALAZZO_TALK_LIMIT), for the messages of replies."""
    return Limit.parse(settings()["TALK_LIMIT"])
