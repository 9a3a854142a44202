"""The words of Palazzo's mails and pages that belong to no game: a moment in the player's own time
and how far off it is, each said one way everywhere. What a game's decision asks comes from the game
(`engine.presentation.asking`). Pure functions of plain data."""
from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from service import zones

__all__ = ["clock", "relative", "zone"]


def zone(time_zone: str) -> ZoneInfo:
    """The player's zone; a name we do not know falls back to UTC rather than losing the mail."""
    return ZoneInfo(time_zone if zones.known(time_zone) else "UTC")


def clock(moment: datetime, time_zone: str) -> str:
    """"Tuesday 2 December, 18:00 CET": a moment in the player's zone, as he would say it."""
    local = moment.astimezone(zone(time_zone))
    return f"{local:%A} {local.day} {local:%B}, {local:%H:%M} {local.tzname()}"


def _count(number: int, unit: str) -> str:
    return f"{number} {unit}" if number == 1 else f"{number} {unit}s"


def relative(moment: datetime, now: datetime) -> str:
    """"in 11 hours": how far off a deadline is, rounded to the unit a reader cares about."""
    seconds = (moment - now).total_seconds()
    if seconds <= 0:
        return "already passed"
    if seconds < 60:
        return "in less than a minute"
    minutes, hours = round(seconds / 60), round(seconds / 3600)
    if minutes < 60:
        return f"in {_count(minutes, 'minute')}"
    if hours < 36:
        return f"in {_count(hours, 'hour')}"
    return f"in {_count(round(seconds / 86400), 'day')}"
