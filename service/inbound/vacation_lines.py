"""Time off in a reply by mail, read by the service beside the game's commands (as table talk is), so
that any game's replies can take it:

    vacation 3 days      -> away for 3 days (also: "vacation 12 hours", "holiday 2d", "vacation: 1 day")
    back                 -> back from a vacation before its time is up (also "I'm back", "back now")

Taken from the lines the player wrote (`service.inbound.quoting` has dropped the quote and the
signature, `service.inbound.talk` his talk lines, already); the other lines are left for the game's grammar. A line that starts with the
word but says no length in hours or days is kept as refused, with how to write it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from engine.typed import whole_number

TAKE, BACK, UNREAD = "take", "back", "unread"
VACATION = re.compile(r"^(?:vacation|vacations|holiday|holidays)\b[\s:,]*(.*)$", re.IGNORECASE)
LENGTH = re.compile(r"^(?:for\s+)?([0-9]{1,4})\s*(hours?|hrs?|h|days?|d)[.!]*$", re.IGNORECASE)
COMING_BACK = re.compile(r"^(?:i'?m\s+|i\s+am\s+)?back(?:\s+now|\s+again)?[.!]*$", re.IGNORECASE)
HOW = "write 'vacation' and how long, in whole days or hours: 'vacation 3 days' or 'vacation 12 hours'"


@dataclass(frozen=True)
class Asked:
    """What a reply asks of the player's vacation: `kind` TAKE (with `hours` or `days`), BACK, or
    UNREAD (a vacation line whose length could not be read); its `line`; the other lines, as text."""

    kind: str
    line: str
    rest: str
    hours: int | None = None
    days: int | None = None


def read(text: str) -> Asked | None:
    """The first vacation or back line of a reply's lines, or None when it has none."""
    lines = text.split("\n")
    for index, line in enumerate(lines):
        rest = "\n".join(lines[:index] + lines[index + 1:])
        if COMING_BACK.match(line):
            return Asked(BACK, line, rest)
        asked = VACATION.match(line)
        if not asked:
            continue
        length = LENGTH.match(asked[1].strip())
        if not length:
            return Asked(UNREAD, line, rest)
        number = whole_number(length[1], 4)
        if length[2].lower().startswith("d"):
            return Asked(TAKE, line, rest, days=number)
        return Asked(TAKE, line, rest, hours=number)
    return None
