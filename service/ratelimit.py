"""Fixed-window request limits per token (or per address without one), counted in Redis.

Counting in Redis makes the limit hold across gunicorn workers and hosts.
"""
from __future__ import annotations

import time

from service.store import PREFIX


def window_key(identity: str, window: int, now: float | None = None) -> tuple[str, int]:
    """The counter key of the current window and the seconds until it ends."""
    now = time.time() if now is None else now
    start = int(now // window) * window
    return f"{PREFIX}:rate:{identity}:{start}", max(1, int(start + window - now + 0.999))
