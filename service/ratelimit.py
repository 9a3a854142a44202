"""Request limits: a sliding-window counter per caller, read with the caller and counted with the commit.

A limit such as "600 per minute" keeps one counter per caller per window (a Redis key that expires).
The request is weighed as `previous window * (the part of it still inside the last minute) + this
window`, the approximation of a moving window that Cloudflare and the `limits` library use: no
burst of twice the limit across a window boundary, and two small keys per caller instead of one
entry per request.

Reading and counting are split so that a move costs one durable write: the counters are read in the
round trip that resolves the caller (reads wait for no fsync), and the count is written in the
commit's own round trip, or on the way out for a request that commits nothing. Requests racing each
other may all pass the read and overshoot by at most their number; a limit is a brake, not a ledger.
A refused request is not counted, so Retry-After is honest.
"""
from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass

import redis

from service.store import PREFIX

_UNITS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}
_TEXT = re.compile(r"^\s*(\d+)\s*(?:per|/)\s*(\d+)?\s*(second|minute|hour|day)s?\s*$")


@dataclass(frozen=True)
class Limit:
    """At most `count` requests in any `seconds`."""

    count: int
    seconds: int

    @classmethod
    def parse(cls, text: str) -> "Limit":
        """'600 per minute', '4 per 2 seconds', '3 per 15 minutes'; a ValueError names the bad text."""
        match = _TEXT.match(text.lower())
        if not match:
            raise ValueError(f"not a rate limit: {text!r} (say e.g. '600 per minute')")
        count, every, unit = match.groups()
        return cls(int(count), int(every or 1) * _UNITS[unit])


@dataclass(frozen=True)
class Window:
    """One caller's counters under one limit at one moment: what to read, what to write, the verdict."""

    limit: Limit
    current: str
    previous: str
    weight: float  # the share of the previous window that still lies inside the limit's span
    elapsed: float  # seconds since the current window began

    @classmethod
    def at(cls, limit: Limit, namespace: str, identity: str, now: float | None = None) -> "Window":
        now = time.time() if now is None else now
        index, elapsed = divmod(now, limit.seconds)
        tag = f"{PREFIX}:rate:{{{namespace}:{identity}}}"  # both windows in one cluster slot
        return cls(limit, f"{tag}:{int(index)}", f"{tag}:{int(index) - 1}", 1 - elapsed / limit.seconds, elapsed)

    def read(self, pipe: redis.client.Pipeline) -> None:
        """Queue the read of both counters (their answers go to `retry_after`); two GETs, as a
        cluster pipeline takes no MGET."""
        pipe.get(self.current)
        pipe.get(self.previous)

    def count(self, pipe: redis.client.Pipeline, cost: int = 1) -> None:
        """Queue the counting of one request (of `cost` units); the key outlives the window that follows it."""
        pipe.incrby(self.current, cost)
        pipe.expire(self.current, 2 * self.limit.seconds)

    def retry_after(self, counters: list[str | None], cost: int = 1) -> int | None:
        """None when `cost` more units fit; else whole seconds until they would (at least 1)."""
        current, previous = (int(value or 0) for value in counters)
        allowed = self.limit.count
        if previous * self.weight + current + cost <= allowed:
            return None
        if cost > allowed:
            return self.limit.seconds * 2
        span = self.limit.seconds
        if current + cost <= allowed:  # waiting for the previous window to slide out is enough
            wait = span * (1 - (allowed - current - cost) / previous) - self.elapsed
        else:  # this window is full: wait for the next one, then for this one to slide out
            wait = span - self.elapsed + span * (1 - (allowed - cost) / current)
        return max(1, math.ceil(wait))


def hit(client: redis.Redis, limit: Limit, namespace: str, identity: str, cost: int = 1) -> int | None:
    """Check and count one request (of `cost` units, e.g. the mails it sends) in two round trips: None
    when it may go, else Retry-After seconds.

    For the rare paths (mails per address, refused tokens) where the request has no commit to ride on.
    """
    return hit_all(client, [(limit, namespace, identity)], cost)


def hit_all(client: redis.Redis, limits: list[tuple[Limit, str, str]], cost: int = 1) -> int | None:
    """Check several limits at once and count against all of them only when all let it go (so a refusal
    by one uses up none of the others): None, or the longest Retry-After."""
    windows = [Window.at(limit, namespace, identity) for limit, namespace, identity in limits]
    with client.pipeline(transaction=False) as pipe:
        for window in windows:
            window.read(pipe)
        counters = pipe.execute()
    waits = [wait for index, window in enumerate(windows)
             if (wait := window.retry_after(counters[2 * index:2 * index + 2], cost)) is not None]
    if waits:
        return max(waits)
    with client.pipeline(transaction=False) as pipe:
        for window in windows:
            window.count(pipe, cost)
        pipe.execute()
    return None
