"""When each pending decision falls due: all the deadline arithmetic of the service, in one place.

The clock starts when the decision becomes pending (`schedule`), or, for a player who is away
(`entry["away"]`, his vacation), when he is due back; a deadline that would fall inside his quiet hours
(`entry["quiet"]`: from, to, and his time zone) moves to their end, in his zone's own wall time, so
across a daylight-saving change too (`quiet_end`). A pause moves every deadline later (`shift`); a
vacation moves only the seat's (`shift_seat`); a newcomer gets the game's whole time (`fresh`).
"""
from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone
from typing import Any
from zoneinfo import ZoneInfo

from service import clock, zones
from service.status import Status

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
    earliest deadline or end of a player's vacation (`seats[n].away`, which the worker ends), the end
    of a pause, or, once finished, when it is compacted."""
    if table.status == Status.PAUSED:
        return parse(table.meta["paused_until"]).timestamp()
    if table.status == Status.FINISHED:
        return at.timestamp() + compact_after
    if table.status != Status.RUNNING:
        return None
    due = [parse(d["deadline_at"]).timestamp() for d in table.pending if d.get("deadline_at")]
    due += [parse(entry["away"]["until"]).timestamp() for entry in table.meta["seats"] if entry.get("away")]
    return min(due) if due else None


def duration(decision: dict[str, Any], deadlines: dict[str, int]) -> int:
    """Seconds allowed: the game's setting for the kind, else for the deadline class, else default."""
    keys = (decision["kind"], decision.get("deadline"))
    for key in keys:
        if key in deadlines:
            return deadlines[key]
    return next((DEFAULTS[key] for key in keys if key in DEFAULTS), DEFAULT)


def _clock(text: str) -> time:
    hours, minutes = text.split(":")
    return time(int(hours), int(minutes))


def in_quiet(moment: datetime, quiet: dict[str, str] | None) -> bool:
    """Whether `moment` falls inside the quiet hours (`from` to `to`, "HH:MM", in `zone`; `from` later
    than `to` spans midnight). The hours are the player's wall time, whatever the UTC offset that day."""
    if not quiet:
        return False
    local = moment.astimezone(ZoneInfo(quiet["zone"])).time().replace(tzinfo=None)
    start, end = _clock(quiet["from"]), _clock(quiet["to"])
    return start <= local < end if start < end else local >= start or local < end


def quiet_end(moment: datetime, quiet: dict[str, str] | None) -> datetime:
    """`moment`, or, when it falls inside the quiet hours, their end: the first instant after it at
    which the player's clocks show `to`, on the same local day or the next one. On the night the
    clocks go back and show `to` twice, that is the first showing still to come; on the night they
    skip it (a spring-forward gap), the instant they jump over it, when they show a later time."""
    if not in_quiet(moment, quiet):
        return moment
    zone = ZoneInfo(quiet["zone"])
    at = moment.astimezone(timezone.utc)
    first = at.astimezone(zone).date()
    for day in (first, first + timedelta(days=1), first + timedelta(days=2)):
        for fold in (0, 1):
            end = _shown(day, _clock(quiet["to"]), zone, fold)
            if end > at:
                return end
    raise ValueError(f"no end of the quiet hours {quiet} after {moment}")  # a day always shows `to`


def _shown(day: date, wall: time, zone: ZoneInfo, fold: int) -> datetime:
    """The instant (UTC) at which the zone's clocks show `wall` on `day`: the earlier showing (fold 0)
    or the later one (fold 1) of a time shown twice; for a time they skip, the instant they jump."""
    local = datetime.combine(day, wall, zone).replace(fold=fold)
    instant = local.astimezone(timezone.utc)
    target = local.replace(tzinfo=None, fold=0)
    if instant.astimezone(zone).replace(tzinfo=None) == target:
        return instant
    low, high = sorted(local.replace(fold=f).astimezone(timezone.utc) for f in (0, 1))
    while high - low > timedelta(seconds=1):  # the clocks show less than `wall` at low, more at high
        middle = low + (high - low) / 2
        if middle.astimezone(zone).replace(tzinfo=None) >= target:
            high = middle
        else:
            low = middle
    return high.replace(microsecond=0)


def seat_quiet(quiet: dict[str, str] | None, zone: str | None) -> dict[str, str] | None:
    """The quiet hours a seat keeps (`entry["quiet"]`) from a player's choice: his `quiet` {from, to} in
    his time `zone` (UTC for a name the tz database does not know); None for none. A span of no length
    (from == to) would cover the whole day, which the settings refuse; read as none here."""
    if not quiet or not quiet.get("from") or not quiet.get("to") or quiet["from"] == quiet["to"]:
        return None
    return {"zone": zone if zone and zones.known(zone) else "UTC", "from": quiet["from"], "to": quiet["to"]}


def out_of_quiet(pending: list[dict[str, Any]], seat: int, quiet: dict[str, str] | None) -> list[dict[str, Any]]:
    """The seat's deadlines moved out of its (new) quiet hours; a deadline outside them stays."""
    return [{**d, "deadline_at": stamp(quiet_end(parse(d["deadline_at"]), quiet))}
            if d["seat"] == seat and d.get("deadline_at") else d for d in pending]


def out_of_all_quiet(pending: list[dict[str, Any]], seats: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every seat's deadlines moved out of its quiet hours (after a pause has moved them all)."""
    for seat, entry in enumerate(seats):
        if entry.get("quiet"):
            pending = out_of_quiet(pending, seat, entry["quiet"])
    return pending


def due_at(at: datetime, seconds: float, entry: dict[str, Any] | None) -> datetime:
    """When a decision of the seat (`entry`, its meta) that becomes pending at `at` falls due: `seconds`
    from then, or from the end of its player's vacation if he is away, moved out of his quiet hours."""
    entry = entry or {}
    start = at
    away = entry.get("away")
    if away and parse(away["until"]) > at:
        start = parse(away["until"])
    return quiet_end(start + timedelta(seconds=seconds), entry.get("quiet"))


def schedule(decisions: list[dict[str, Any]], previous: list[dict[str, Any]], deadlines: dict[str, int],
             at: datetime, version: int, mover: int | None = None,
             seats: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """The engine's pending decisions with a `deadline_at` and a `since` (the decision's id).

    A decision of another seat that is still pending keeps both. The mover's next decision is
    always a new one (`since` = this version), even of the same kind, so a retried request can never
    count as his next move; it keeps the running deadline of a decision of the same kind (a turn).
    A new deadline is the seat's (`due_at`, from `seats`, the game's seat entries).
    """
    kept = {(d["seat"], d["kind"]): d for d in previous}
    scheduled = []
    for decision in decisions:
        before = kept.get((decision["seat"], decision["kind"]))
        entry = seats[decision["seat"]] if seats and 0 <= decision["seat"] < len(seats) else None
        deadline_at = (before or {}).get("deadline_at") or stamp(
            due_at(at, duration(decision, deadlines), entry))
        since = before["since"] if before and decision["seat"] != mover and "since" in before else version
        scheduled.append({**decision, "deadline_at": deadline_at, "since": since})
    return scheduled


def shift(pending: list[dict[str, Any]], by: timedelta) -> list[dict[str, Any]]:
    """Move every deadline later, after a pause."""
    return [{**d, "deadline_at": stamp(parse(d["deadline_at"]) + by)} if d.get("deadline_at") else d
            for d in pending]


def shift_seat(pending: list[dict[str, Any]], seat: int, by: timedelta) -> list[dict[str, Any]]:
    """Move the seat's deadlines only (later, or earlier with a negative `by`): a vacation."""
    return [{**d, "deadline_at": stamp(parse(d["deadline_at"]) + by)} if d["seat"] == seat and d.get("deadline_at")
            else d for d in pending]


def fresh(pending: list[dict[str, Any]], seat: int, deadlines: dict[str, int], at: datetime) -> list[dict[str, Any]]:
    """The seat's pending decisions with a deadline at least the game's own time for them from `at`
    (for a newcomer to the seat: its old deadline if later); the decision stays the one it was (`since`)."""
    return [{**d, "deadline_at": stamp(max(parse(d["deadline_at"]), at + timedelta(seconds=duration(d, deadlines))))}
            if d["seat"] == seat and d.get("deadline_at") else d for d in pending]
