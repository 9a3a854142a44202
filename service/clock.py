"""The service's one clock: every deadline, reminder, digest and vacation reads the time here.

In production it is the system clock. Tests of things that take days (a vacation, a daily digest, a
reminder at 50%) move it instead of sleeping: PALAZZO_CLOCK_FILE (read with the rest of the
configuration, `service.config`, and handed here by `follow` when the app or a worker starts) names a
file holding a number of seconds to add to the system clock, which every process that follows it (the
test, the app, each real `palazzo worker`) sees within a millisecond of the file changing. Only the time as the game sees it
moves: RQ's own timers (a bot's second of delay, a mail's retry backoff, the merge window) keep real
time, which is right for seconds; what waits for hours or days waits in `service.timers`, on this clock.
"""
from __future__ import annotations

import os
import time as _time
from datetime import datetime, timezone

_cache: dict[str, tuple[float, float]] = {}  # path -> (mtime, offset)
_followed: list[str | None] = [None]  # the offset file this process follows, if any


def follow(path: str | None) -> None:
    """Follow the offset file at `path` from now on (None: the system clock alone)."""
    _followed[0] = path or None


def offset() -> float:
    """Seconds this clock is ahead of the system's (0 unless it follows an offset file)."""
    path = _followed[0]
    if not path:
        return 0.0
    try:
        mtime = os.stat(path).st_mtime_ns
    except FileNotFoundError:
        return 0.0
    cached = _cache.get(path)
    if cached is None or cached[0] != mtime:
        with open(path, encoding="ascii") as file:
            text = file.read().strip()
        cached = (mtime, float(text) if text else 0.0)
        _cache[path] = cached
    return cached[1]


def time() -> float:
    """Now, in epoch seconds."""
    return _time.time() + offset()


def now() -> datetime:
    """Now, in UTC."""
    return datetime.fromtimestamp(time(), timezone.utc)
