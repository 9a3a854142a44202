"""When each pending decision falls due: the clock starts when the decision becomes pending."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

from service import clock

HOUR = 3600
DEFAULTS = {"bid": 12 * HOUR}
DEFAULT = 24 * HOUR


def now() -> datetime:
    return clock.now()


def stamp(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def parse(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def wake_at(table: Any, at: datetime, compact_after: float) -> float | None:
    """When a worker must next look at the game (epoch seconds), None for never: a running game's
    earliest deadline, the end of a pause, or, once finished, when it is compacted."""
    if table.status == "paused":
        return parse(table.meta["paused_until"]).timestamp()
    if table.status == "finished":
        return at.timestamp() + compact_after
    if table.status != "running":
        return None
    due = [parse(d["deadline_at"]).timestamp() for d in table.pending if d.get("deadline_at")]
    return min(due) if due else None


def duration(decision: dict[str, Any], deadlines: dict[str, int]) -> int:
    """Seconds allowed: the game's setting for the kind, else for the deadline class, else default."""
    keys = (decision["kind"], decision.get("deadline"))
    for key in keys:
        if key in deadlines:
            return deadlines[key]
    return next((DEFAULTS[key] for key in keys if key in DEFAULTS), DEFAULT)


def schedule(decisions: list[dict[str, Any]], previous: list[dict[str, Any]], deadlines: dict[str, int],
             at: datetime, version: int, mover: int | None = None) -> list[dict[str, Any]]:
    """The engine's pending decisions with a `deadline_at` and a `since` (the decision's id).

    A decision of another seat that is still pending keeps both. The mover's next decision is
    always a new one (`since` = this version), even of the same kind, so a retried request can never
    count as his next move; it keeps the running deadline of a decision of the same kind (a turn).
    """
    kept = {(d["seat"], d["kind"]): d for d in previous}
    scheduled = []
    for decision in decisions:
        before = kept.get((decision["seat"], decision["kind"]))
        deadline_at = (before or {}).get("deadline_at") or stamp(at + timedelta(seconds=duration(decision, deadlines)))
        since = before["since"] if before and decision["seat"] != mover and "since" in before else version
        scheduled.append({**decision, "deadline_at": deadline_at, "since": since})
    return scheduled


def shift(pending: list[dict[str, Any]], by: timedelta) -> list[dict[str, Any]]:
    """Move every deadline later, after a pause."""
    return [{**d, "deadline_at": stamp(parse(d["deadline_at"]) + by)} if d.get("deadline_at") else d
            for d in pending]


def fresh(pending: list[dict[str, Any]], seat: int, deadlines: dict[str, int], at: datetime) -> list[dict[str, Any]]:
    """The seat's pending decisions with a deadline at least the game's own time for them from `at`
    (for a newcomer to the seat: its old deadline if later); the decision stays the one it was (`since`)."""
    return [{**d, "deadline_at": stamp(max(parse(d["deadline_at"]), at + timedelta(seconds=duration(d, deadlines))))}
            if d["seat"] == seat and d.get("deadline_at") else d for d in pending]
