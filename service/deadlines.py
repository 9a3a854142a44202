"""When each pending decision falls due: the clock starts when the decision becomes pending."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

HOUR = 3600
DEFAULTS = {"bid": 12 * HOUR}
DEFAULT = 24 * HOUR


def now() -> datetime:
    return datetime.now(timezone.utc)


def stamp(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def parse(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def duration(decision: dict[str, Any], deadlines: dict[str, int]) -> int:
    """Seconds allowed: the game's setting for the kind, else for the deadline class, else default."""
    for key in (decision["kind"], decision.get("deadline")):
        if key in deadlines:
            return deadlines[key]
    return DEFAULTS.get(decision.get("deadline"), DEFAULT)


def schedule(decisions: list[dict[str, Any]], previous: list[dict[str, Any]], deadlines: dict[str, int],
             at: datetime) -> list[dict[str, Any]]:
    """The engine's pending decisions with a `deadline_at`; a decision still pending keeps its own."""
    kept = {(d["seat"], d["kind"]): d.get("deadline_at") for d in previous}
    return [
        {**d, "deadline_at": kept.get((d["seat"], d["kind"])) or stamp(at + timedelta(seconds=duration(d, deadlines)))}
        for d in decisions
    ]


def shift(pending: list[dict[str, Any]], by: timedelta) -> list[dict[str, Any]]:
    """Move every deadline later, after a pause."""
    return [{**d, "deadline_at": stamp(parse(d["deadline_at"]) + by)} if d.get("deadline_at") else d
            for d in pending]
