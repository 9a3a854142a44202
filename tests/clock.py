"""A clock the tests move instead of sleeping (`service.clock`): the test process, its app and every
`palazzo worker` it starts afterwards read the same offset file."""
from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from service import clock


class Clock:
    def __init__(self, path: Path):
        self.path = path
        self.set(0.0)
        clock.follow(str(path))

    def set(self, seconds: float) -> None:
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(repr(float(seconds)), encoding="ascii")
        tmp.replace(self.path)  # atomic: a reader sees the old offset or the new one

    def advance(self, by: timedelta | float) -> datetime:
        """Move the clock on by `by` (a timedelta, or seconds); returns the new now."""
        seconds = by.total_seconds() if isinstance(by, timedelta) else by
        self.set(clock.offset() + seconds)
        return clock.now()

    def to(self, moment: datetime) -> datetime:
        """Move the clock on to `moment` (never back)."""
        return self.advance(max(0.0, (moment - clock.now()).total_seconds()))

    def now(self) -> datetime:
        return clock.now()
