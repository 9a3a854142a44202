"""Request latency for the host's metrics (`service.metrics`): a histogram by route, for every web
process together.

Each web process tallies its requests' durations into Prometheus's buckets in memory and adds the
tallies to one Redis hash at most once a second (on the first request after that second), so a request
pays no round trip of its own, and the histogram spans every gunicorn worker and outlives restarts,
as the other counters do. A scrape adds its own process's tallies first; a process killed between two
flushes loses at most its last second's. Routes are Flask's rules (`/api/v1/games/<game_id>`), never
paths, so the labels stay few and hold no id or token.
"""
from __future__ import annotations

import threading
import time
from collections import Counter
from typing import Any

import redis

from service.store import PREFIX

KEY = f"{PREFIX}:metrics:latency"  # fields "<method> <route>|<le>" (requests in that bucket alone) and "...|sum"
BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
FLUSH_SECONDS = 1.0
UNMATCHED = "unmatched"  # a path no rule serves (a 404)


def bucket_of(seconds: float) -> str:
    """The upper bound of the one bucket `seconds` falls in, as Prometheus writes it."""
    return next((repr(bound) for bound in BUCKETS if seconds <= bound), "+Inf")


class Tally:
    """One process's durations since its last flush (web threads share it, hence the lock)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: Counter[str] = Counter()
        self._sums: Counter[str] = Counter()
        self._flushed = time.monotonic()

    def observe(self, method: str, route: str | None, seconds: float) -> None:
        series = f"{method} {route or UNMATCHED}"
        with self._lock:
            self._counts[f"{series}|{bucket_of(seconds)}"] += 1
            self._sums[f"{series}|sum"] += seconds

    def flush(self, connection: Any, force: bool = False) -> None:
        """Add the tallies to the shared hash, when a second has passed since the last time (or `force`).
        Tallies Redis did not take are kept for the next flush, never the request's answer at risk."""
        with self._lock:
            if not (force or time.monotonic() - self._flushed >= FLUSH_SECONDS) or not self._counts:
                return
            counts, sums = self._counts, self._sums
            self._counts, self._sums, self._flushed = Counter(), Counter(), time.monotonic()
        try:
            with connection.pipeline(transaction=False) as pipe:
                for field, number in counts.items():
                    pipe.hincrby(KEY, field, number)
                for field, seconds in sums.items():
                    pipe.hincrbyfloat(KEY, field, seconds)
                pipe.execute()
        except redis.RedisError:
            with self._lock:
                self._counts.update(counts)
                self._sums.update(sums)


def histograms(fields: dict[str, str]) -> dict[tuple[str, str], tuple[list[tuple[str, int]], float]]:
    """The shared hash, as (method, route) -> (cumulative buckets ending with +Inf, sum of seconds)."""
    series: dict[tuple[str, str], tuple[Counter[str], list[float]]] = {}
    for field, value in fields.items():
        name, _, bucket = field.rpartition("|")
        method, _, route = name.partition(" ")
        counts, total = series.setdefault((method, route), (Counter(), [0.0]))
        if bucket == "sum":
            total[0] = float(value)
        else:
            counts[bucket] = int(value)
    out = {}
    for key, (counts, total) in series.items():
        running, buckets = 0, []
        for bound in (*map(repr, BUCKETS), "+Inf"):
            running += counts.get(bound, 0)
            buckets.append((bound, running))
        out[key] = (buckets, total[0])
    return out
