"""The browser's side of Palazzo: the pages a mailed link lands on, and the game played in them.

The app keeps its configuration, store and link signer in `current_app.extensions`; every page reaches them through
the helpers below, one way for all. Every page is made with `service.web.pages.blueprint`, which gives
it the pages' headers.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from flask import current_app

from service.links import Links
from service.store import Store

if TYPE_CHECKING:  # the configuration builds the store, whose followups reach the pages' modules
    from service.config import Config


def config() -> Config:
    return current_app.extensions["palazzo.config"]


def store() -> Store:
    return current_app.extensions["palazzo.store"]


def links() -> Links:
    return current_app.extensions["palazzo.links"]

