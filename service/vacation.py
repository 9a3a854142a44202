"""A player's vacation bank at one game: time off, in whole hours or days, during which only his
deadlines stand still while the others play on.

The host gives every seat the same bank at creation (`vacation_days`, 0-30, default 7). The player
spends it from his seat page, the API or a `vacation 3 days` reply. Taking time off moves his pending
deadlines later by the whole time asked (`deadlines.shift_seat`), and a decision of his that becomes
pending while he is away starts after he is due back (`deadlines.due_at` reads `away`); his decision
mails wait (`service.mail.seats`) and the table reads "away until ...". It ends in one of three ways:
he moves (`returning`, inside the move's own commit), he says he is back (`end`), or the time runs
out (`end_due`, from the worker's wake, which `deadlines.wake_at` times by the earliest `until`).
Coming back early moves his deadlines back by the unused part and refunds it to the bank; the time
spent counts in whole hours, rounded up, so his deadlines have moved by exactly what the bank was
charged (then, like every deadline of his, out of his quiet hours, `deadlines.out_of_quiet`).

Where it is kept, in the game's meta (public: the table reads it all):
- `vacation_days`: the bank of each seat, in days (a game from before it was kept: DEFAULT_DAYS);
- `seats[n].away`: `{"from", "until"}` while the seat's player is away;
- `seats[n].vacation_left`: hours left in his bank (absent: the whole bank, as for a substitute, who
  gets a seat entry of his own);
- `vacations`: every use, `{seat, holder, from, until, asked, hours, ended, how}` (`hours` spent and
  `ended` once over; `how`: back, moved, over, or handed when the seat changed hands meanwhile), with
  the feed's `vacation_started` {seat, until} and `vacation_ended` {seat, hours}.

A substitute who takes the seat starts with a whole bank and is not away (`games.replace_seat` and
`games.vacate_seat` end the vacation of the player who goes, `handed_over`).
"""
from __future__ import annotations

import dataclasses
import math
from datetime import datetime, timedelta
from typing import Any

from service import deadlines, games
from service.problems import Problem
from service.store import Committed, Store

DEFAULT_DAYS = 7
MAX_DAYS = 30
HOUR = 3600
BACK, MOVED, OVER, HANDED = "back", "moved", "over", "handed"  # how a vacation ended (HANDED: the seat
# went to someone else, or was left open, while its player was away)


def bank_hours(meta: dict[str, Any]) -> int:
    """Each seat's whole bank at this game, in hours."""
    return int(meta.get("vacation_days", DEFAULT_DAYS)) * 24


def hours_left(meta: dict[str, Any], seat: int) -> int:
    """What the seat's player may still take, in hours."""
    return int(meta["seats"][seat].get("vacation_left", bank_hours(meta)))


def away_until(entry: dict[str, Any], now: datetime | None = None) -> datetime | None:
    """When the seat's player is due back, while he is away (None once `until` has passed, even
    before the worker has ended it)."""
    away = entry.get("away")
    if not away:
        return None
    until = deadlines.parse(away["until"])
    return until if until > (now or deadlines.now()) else None


def asked_hours(hours: Any = None, days: Any = None, left: int | None = None) -> int:
    """The hours asked for (`hours`, or `days` of 24 hours: one of them, a whole number of at least
    one), checked against what is `left`; raises Problem (422) for anything else."""
    given = [value for value in (hours, days) if value is not None]
    if len(given) != 1:
        raise Problem("vacation_hours_or_days", "say how long you will be away in hours or in days (one of them)")
    value = given[0]
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise Problem("vacation_too_short", "a vacation is a whole number of hours or days, at least one hour")
    asked = value if hours is not None else value * 24
    if left is not None and asked > left:
        raise Problem("vacation_too_long", f"you asked for {span(asked)} but have {span(left)} of vacation left "
                                           "in this game")
    return asked


def start(store: Store, table: games.Table, seat: int, hours: Any = None, days: Any = None) -> games.Table:
    """The seat's player goes away now, for the hours or days asked: his pending deadlines move later
    by that much, the bank is charged it, and the table reads a `vacation_started` event. Refused,
    with nothing changed: a game not running (409), a seat that is open or a bot's (409), a player
    away already (409 away_already), a length that is not one whole number of hours or days or is
    longer than his bank's rest (422)."""
    def change(table: games.Table) -> games.Table:
        if table.status != games.RUNNING:
            raise games.refused(Committed("status", table.version, table.status))
        entry = _held(table, seat)
        now = deadlines.now()
        if entry.get("away"):
            until = away_until(entry, now)
            raise Problem("away_already", "you are away already" + (
                f", until {deadlines.stamp(until)}" if until else "") + ": come back first to take other time off")
        asked = asked_hours(hours, days, hours_left(table.meta, seat))
        begun, until = deadlines.stamp(now), deadlines.stamp(now + timedelta(hours=asked))
        seats = list(table.meta["seats"])
        seats[seat] = {**entry, "away": {"from": begun, "until": until},
                       "vacation_left": hours_left(table.meta, seat) - asked}
        used = {"seat": seat, "holder": games.holder_of(entry), "from": begun, "until": until, "asked": asked,
                "hours": None, "ended": None, "how": None}
        meta = {**table.meta, "seats": seats, "vacations": [*table.meta.get("vacations", []), used]}
        pending = deadlines.out_of_quiet(deadlines.shift_seat(table.pending, seat, timedelta(hours=asked)), seat,
                                         entry.get("quiet"))
        return games._host_change(store, table, (games.RUNNING,), meta=meta, pending=pending,
                                  event={"type": "vacation_started", "seat": seat, "until": until})
    return games.retrying(store, table, change)


def end(store: Store, table: games.Table, seat: int, how: str = BACK) -> tuple[games.Table, int]:
    """The seat's player is back (he said so: `how` BACK, or his time ran out: OVER): (the table after,
    the hours his vacation took). His deadlines move back by the unused part, which goes back to his
    bank. Refused with 409 not_away when he is not away, and for a game neither running nor paused."""
    def change(table: games.Table) -> tuple[games.Table, int]:
        if table.status not in (games.RUNNING, games.PAUSED):
            raise games.refused(Committed("status", table.version, table.status))
        if not _held(table, seat).get("away"):
            raise Problem("not_away", "you are not away: there is no vacation to end")
        meta, pending, event = ended(table, seat, how, deadlines.now())
        return games._host_change(store, table, (games.RUNNING, games.PAUSED), meta=meta, pending=pending,
                                  event=event), event["hours"]
    return games.retrying(store, table, change)


def ended(table: games.Table, seat: int, how: str, now: datetime
          ) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    """The game's meta and pending decisions once the seat's vacation ends at `now`, and the feed event
    that says so: the time spent, rounded up to whole hours (so at least one, at most the time asked);
    the rest back in the bank and taken off his deadlines."""
    entry = table.meta["seats"][seat]
    begun, until = deadlines.parse(entry["away"]["from"]), deadlines.parse(entry["away"]["until"])
    asked = round((until - begun).total_seconds() / HOUR)
    spent = min(asked, max(1, math.ceil((now - begun).total_seconds() / HOUR - 1e-9)))
    unused = asked - spent
    seats = list(table.meta["seats"])
    seats[seat] = {**{k: v for k, v in entry.items() if k != "away"},
                   "vacation_left": hours_left(table.meta, seat) + unused}
    uses = [dict(use) for use in table.meta.get("vacations", [])]
    for use in reversed(uses):
        if use["seat"] == seat and use["from"] == entry["away"]["from"] and use["ended"] is None:
            use.update(hours=spent, ended=deadlines.stamp(now), how=how)
            break
    meta = {**table.meta, "seats": seats, "vacations": uses}
    pending = deadlines.out_of_quiet(deadlines.shift_seat(table.pending, seat, -timedelta(hours=unused)), seat,
                                     entry.get("quiet")) if unused else table.pending
    return meta, pending, {"type": "vacation_ended", "seat": seat, "hours": spent}


def returning(table: games.Table, seat: int, now: datetime) -> tuple[games.Table, dict[str, Any]] | None:
    """For a move of the seat's own player (`playing.play`): the table as it stands once his vacation
    has ended by that move (before the move's own deadlines are scheduled), with the `vacation_ended`
    event; None when he is not away."""
    if not table.meta["seats"][seat].get("away"):
        return None
    meta, pending, event = ended(table, seat, MOVED, now)
    return dataclasses.replace(table, meta=meta, pending=pending), event


def handed_over(table: games.Table, seat: int) -> tuple[games.Table, bool]:
    """The table as it stands once the seat's vacation ends because the seat changes hands (a
    substitute, a removal, leaving), and whether it had one: the seat's deadlines lose the unused part,
    since the newcomer (or the stand-in) is not away; the use is recorded as HANDED."""
    if not table.meta["seats"][seat].get("away"):
        return table, False
    meta, pending, _ = ended(table, seat, HANDED, deadlines.now())
    return dataclasses.replace(table, meta=meta, pending=pending), True


def end_due(store: Store, table: games.Table) -> games.Table:
    """End every vacation of the game whose time has run out (the worker's wake), and let the notify
    job mail each such player his pending decision again, with its deadline as it stands now."""
    if table.status != games.RUNNING:
        return table
    now = deadlines.now()
    for seat, entry in enumerate(table.meta["seats"]):
        if not entry.get("away") or deadlines.parse(entry["away"]["until"]) > now:
            continue
        decision = table.decision_of(seat)
        if decision is not None:
            from service.mail import seats as mail_seats  # the mail package reads this module too
            store.unclaim(table.id, f"mailed:{mail_seats.decision_claim(seat, table.holder(seat), decision['since'])}")
        try:
            table, _ = end(store, table, seat, OVER)
        except Problem as problem:
            if problem.code not in ("not_away", "not_a_seat", "seat_open") and not problem.code.startswith("game_"):
                raise
            table = games.load(store, table.id)
    return table


def _held(table: games.Table, seat: int) -> dict[str, Any]:
    """The seat's entry, if a player holds it (a bot needs no vacation, an open seat has nobody)."""
    if not 0 <= seat < len(table.meta["seats"]):
        raise Problem("seat_not_found", f"no seat {seat}")
    entry = table.meta["seats"][seat]
    if games.seat_is_open(entry):
        raise Problem("seat_open", f"seat {seat} is open: nobody holds it")
    if entry.get("bot"):
        raise Problem("seat_is_bot", f"a bot plays seat {seat}")
    return entry


def span(hours: int) -> str:
    """Hours as people say them: "3 days", "1 day and 5 hours", "12 hours"."""
    days, rest = divmod(hours, 24)
    parts = ([f"{days} day{'' if days == 1 else 's'}"] if days else []) + (
        [f"{rest} hour{'' if rest == 1 else 's'}"] if rest or not days else [])
    return " and ".join(parts)
