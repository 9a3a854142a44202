"""A job for the clock's tests: it leaves a mark a test can count (the worker imports it from tests/)."""
from __future__ import annotations

from workers import context


def mark(key: str) -> int:
    return context.store().redis.incr(key)
