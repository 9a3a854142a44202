"""Numbers as a person types them (in a form, a link, a header or a mail), read strictly or not at all.

Python's own readers promise more than they keep and take more than anyone types: `"²".isdigit()` is
true but `int("²")` raises; `int` and `float` take "٣", "1_000", "inf" and "1e308", and the last two
overflow the arithmetic after them. A number read here is plain ASCII digits of bounded length, so
no caller meets an exception or an infinity, and every caller reads numbers the same way.
"""
from __future__ import annotations

import re

WHOLE = re.compile(r"[0-9]+")
DECIMAL = re.compile(r"[0-9]+(\.[0-9]*)?|\.[0-9]+")
MOST_DIGITS = 18  # more than any count, version or seed (2**53 has 16); int64 still holds it


def whole_number(text: str | None, digits: int = MOST_DIGITS) -> int | None:
    """The whole number `text` spells, spaces around it aside, or None: at most `digits` ASCII digits,
    no sign, no separators."""
    text = (text or "").strip()
    return int(text) if len(text) <= digits and WHOLE.fullmatch(text) else None


def decimal_number(text: str | None, digits: int = MOST_DIGITS) -> float | None:
    """A number with an optional decimal fraction (hours, say), or None: ASCII digits and one point,
    no sign, no exponent, so never an infinity or NaN."""
    text = (text or "").strip()
    return float(text) if len(text) <= digits and DECIMAL.fullmatch(text) else None
