"""Time zones a player names: the IANA names of the machine's tz database, and nothing else.

`ZoneInfo` reads whatever file or folder a name leads to under the tz path, so it takes names that
are no zone and fails on them in several ways (IsADirectoryError for "America", ValueError for
"zone.tab", ZoneInfoNotFoundError for the rest). A name is checked against the database's own list
instead, before anything keeps it or turns it into a zone.
"""
from __future__ import annotations

from functools import cache
from zoneinfo import available_timezones


@cache
def _names() -> frozenset[str]:
    return frozenset(available_timezones())  # walks the tz path (about 50 ms): once per process


def names() -> frozenset[str]:
    """Every IANA time zone name (for a list to choose from)."""
    return _names()


def known(name: str) -> bool:
    """Whether `name` is an IANA time zone name, such as Europe/Rome."""
    return name in _names()
