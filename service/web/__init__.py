"""The browser's side of Palazzo: the pages a mailed link lands on, and the game played in them.

The app keeps its store and link signer in `current_app.extensions`; every page reaches them (and
marks a page that shows a link's secrets private) through the helpers below, one way for all.
"""
from __future__ import annotations

from flask import Response, current_app

from service.links import Links
from service.store import Store


def store() -> Store:
    return current_app.extensions["palazzo.store"]


def links() -> Links:
    return current_app.extensions["palazzo.links"]


def private(response: Response) -> Response:
    """A page holding a token or a link's answer: no cache keeps it, no Referer carries it on."""
    response.headers["Cache-Control"] = "no-store"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response
