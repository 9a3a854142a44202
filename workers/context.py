"""The store a job works on, built once per process from the environment (as the web app does)."""
from __future__ import annotations

from functools import cache

import engine.pof  # noqa: F401  (registers the game)
from service.config import make_store, settings
from service.store import Store


@cache
def store() -> Store:
    return make_store(settings())
