"""The deadline arithmetic (`service.deadlines`) across time zones and daylight-saving changes, pure:
quiet hours read in the player's own wall time, whatever the zone's offset that day; a deadline
inside them moves to their end, never earlier, never into them, never further than their length."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service import deadlines
from service.deadlines import due_at, in_quiet, out_of_quiet, quiet_end, seat_quiet

UTC = timezone.utc
ROME, NEW_YORK, SYDNEY = "Europe/Rome", "America/New_York", "Australia/Sydney"
NIGHT = {"from": "23:00", "to": "07:00"}  # across midnight


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)


def local(zone: str, *parts: int, fold: int = 0) -> datetime:
    return datetime(*parts, tzinfo=ZoneInfo(zone), fold=fold)


def quiet(zone: str, hours: dict[str, str] = NIGHT) -> dict[str, str]:
    return {"zone": zone, **hours}


@pytest.mark.parametrize("zone, moment, end", [
    # a winter night in Rome (UTC+1): 23:30 moves to 07:00 the next morning, 06:59 to 07:00 that morning
    (ROME, local(ROME, 2027, 1, 15, 23, 30), utc(2027, 1, 16, 6, 0)),
    (ROME, local(ROME, 2027, 1, 16, 6, 59), utc(2027, 1, 16, 6, 0)),
    (ROME, local(ROME, 2027, 1, 15, 23, 0), utc(2027, 1, 16, 6, 0)),
    # a summer night in Rome (UTC+2): the same wall time is another UTC hour
    (ROME, local(ROME, 2027, 7, 15, 2, 0), utc(2027, 7, 15, 5, 0)),
    # New York in winter (UTC-5): the next morning is the next UTC day's noon
    (NEW_YORK, local(NEW_YORK, 2027, 1, 15, 23, 45), utc(2027, 1, 16, 12, 0)),
    # Sydney's summer is the northern winter (UTC+11 in January, UTC+10 in July)
    (SYDNEY, local(SYDNEY, 2027, 1, 15, 1, 0), utc(2027, 1, 14, 20, 0)),
    (SYDNEY, local(SYDNEY, 2027, 7, 15, 1, 0), utc(2027, 7, 14, 21, 0)),
])
def test_a_deadline_inside_the_night_moves_to_its_end_in_the_players_zone(zone, moment, end):
    assert in_quiet(moment, quiet(zone))
    assert quiet_end(moment, quiet(zone)) == end


@pytest.mark.parametrize("moment", [local(ROME, 2027, 1, 15, 22, 59), local(ROME, 2027, 1, 16, 7, 0),
                                    local(ROME, 2027, 1, 16, 12, 0)])
def test_a_deadline_outside_the_quiet_hours_stays(moment):
    assert not in_quiet(moment, quiet(ROME))
    assert quiet_end(moment, quiet(ROME)) == moment


def test_quiet_hours_within_one_day_do_not_span_midnight():
    lunch = quiet(NEW_YORK, {"from": "12:00", "to": "14:00"})
    assert quiet_end(local(NEW_YORK, 2027, 1, 15, 13, 15), lunch) == utc(2027, 1, 15, 19, 0)
    for outside in (local(NEW_YORK, 2027, 1, 15, 23, 30), local(NEW_YORK, 2027, 1, 15, 3, 0),
                    local(NEW_YORK, 2027, 1, 15, 14, 0)):
        assert quiet_end(outside, lunch) == outside


def test_no_quiet_hours_move_nothing():
    moment = utc(2027, 1, 15, 3, 0)
    assert quiet_end(moment, None) == moment and not in_quiet(moment, None)


def test_across_the_spring_forward_night_the_end_is_seven_in_summer_time():
    """Rome goes from 02:00 CET to 03:00 CEST on 28 March 2027: 07:00 that morning is 05:00 UTC, not 06:00."""
    assert quiet_end(local(ROME, 2027, 3, 28, 1, 0), quiet(ROME)) == utc(2027, 3, 28, 5, 0)
    assert quiet_end(local(ROME, 2027, 3, 27, 23, 30), quiet(ROME)) == utc(2027, 3, 28, 5, 0)
    # New York springs forward on 14 March 2027: 07:00 EDT is 11:00 UTC
    assert quiet_end(local(NEW_YORK, 2027, 3, 14, 1, 30), quiet(NEW_YORK)) == utc(2027, 3, 14, 11, 0)


def test_across_the_fall_back_night_the_end_is_seven_in_winter_time():
    """Rome goes back from 03:00 CEST to 02:00 CET on 31 October 2027: 07:00 is 06:00 UTC again;
    Sydney goes forward on 3 October 2027 (02:00 AEST to 03:00 AEDT): 07:00 is 20:00 UTC the day before."""
    assert quiet_end(local(ROME, 2027, 10, 31, 0, 30), quiet(ROME)) == utc(2027, 10, 31, 6, 0)
    assert quiet_end(local(SYDNEY, 2027, 10, 3, 1, 0), quiet(SYDNEY)) == utc(2027, 10, 2, 20, 0)


def test_an_end_the_clocks_skip_is_the_instant_they_jump_over_it():
    """Quiet hours ending at 02:30 on the night Rome's clocks jump from 02:00 to 03:00: 02:30 is never
    shown, and the quiet hours are over at the jump (01:00 UTC), not an hour later."""
    small_hours = quiet(ROME, {"from": "01:00", "to": "02:30"})
    inside = local(ROME, 2027, 3, 28, 1, 30)
    end = quiet_end(inside, small_hours)
    assert end == utc(2027, 3, 28, 1, 0)
    assert end.astimezone(ZoneInfo(ROME)).strftime("%H:%M %Z") == "03:00 CEST"
    assert not in_quiet(end, small_hours) and in_quiet(end - timedelta(seconds=1), small_hours)


def test_in_the_repeated_hour_the_end_is_the_next_showing_of_its_time():
    """Rome shows 02:00-03:00 twice on 31 October 2027 (CEST, then CET). Quiet hours 01:00-02:30: from
    the first 02:15 they end at the first 02:30 (00:30 UTC), from the second 02:15 at the second 02:30
    (01:30 UTC), not a day later."""
    small_hours = quiet(ROME, {"from": "01:00", "to": "02:30"})
    first, second = local(ROME, 2027, 10, 31, 2, 15), local(ROME, 2027, 10, 31, 2, 15, fold=1)
    assert (first.astimezone(UTC), second.astimezone(UTC)) == (utc(2027, 10, 31, 0, 15), utc(2027, 10, 31, 1, 15))
    assert quiet_end(first, small_hours) == utc(2027, 10, 31, 0, 30)
    assert quiet_end(second, small_hours) == utc(2027, 10, 31, 1, 30)


def test_due_at_starts_after_the_vacation_and_leaves_the_quiet_hours():
    entry = {"quiet": quiet(ROME), "away": {"from": "2027-01-10T00:00:00Z", "until": "2027-01-15T21:00:00Z"}}
    # the vacation ends at 22:00 Rome; 2 hours later is midnight, inside the night: 07:00 Rome
    assert due_at(utc(2027, 1, 12, 9, 0), 2 * 3600, entry) == utc(2027, 1, 16, 6, 0)
    assert due_at(utc(2027, 1, 16, 9, 0), 2 * 3600, entry) == utc(2027, 1, 16, 11, 0)


def test_a_seats_quiet_hours_come_from_his_choice_and_zone():
    assert seat_quiet({"from": "23:00", "to": "07:00"}, ROME) == {"zone": ROME, "from": "23:00", "to": "07:00"}
    assert seat_quiet({"from": "23:00", "to": "07:00"}, "Mars/Olympus")["zone"] == "UTC"
    assert seat_quiet(None, ROME) is None
    assert seat_quiet({"from": "07:00", "to": "07:00"}, ROME) is None, "a span of no length is no quiet hours"


def test_out_of_quiet_moves_only_the_seats_deadlines():
    night = utc(2027, 1, 15, 23, 30)
    pending = [{"seat": 0, "deadline_at": deadlines.stamp(night)}, {"seat": 1, "deadline_at": deadlines.stamp(night)},
               {"seat": 2, "deadline_at": None}]
    moved = out_of_quiet(pending, 0, quiet(ROME))
    assert moved == [{"seat": 0, "deadline_at": "2027-01-16T06:00:00Z"}, pending[1], pending[2]]


ZONES = st.sampled_from([ROME, NEW_YORK, SYDNEY, "Asia/Tokyo", "Australia/Lord_Howe", "America/Sao_Paulo", "UTC"])
WALL = st.tuples(st.integers(0, 23), st.sampled_from([0, 15, 30, 45, 59])).map(lambda hm: f"{hm[0]:02d}:{hm[1]:02d}")
MOMENTS = st.datetimes(min_value=datetime(2024, 1, 1), max_value=datetime(2030, 12, 31), timezones=st.just(UTC))


def _length(hours: dict[str, str]) -> timedelta:
    """How long the quiet hours last on the wall clock (a span across midnight included)."""
    start, end = (int(t[:2]) * 60 + int(t[3:]) for t in (hours["from"], hours["to"]))
    return timedelta(minutes=(end - start) % (24 * 60))


@settings(max_examples=400, deadline=None)
@given(zone=ZONES, start=WALL, end=WALL, moment=MOMENTS)
def test_the_end_of_quiet_hours_is_never_inside_them_never_earlier_and_at_most_their_length_away(
        zone, start, end, moment):
    """Whatever the zone and the day: the result is outside the quiet hours, not before the moment, and
    at most as far as the hours are long on the wall clock, plus the hour a clock change may add to a
    night (at most 24 h unless such a night makes it 24 h plus that hour)."""
    if start == end:
        return  # a span of no length: the settings refuse it as covering the whole day
    hours = quiet(zone, {"from": start, "to": end})
    result = quiet_end(moment, hours)
    assert not in_quiet(result, hours)
    assert result >= moment
    assert result - moment <= _length(hours) + timedelta(hours=1)
    assert result - moment <= timedelta(hours=25)
    if in_quiet(moment, hours):
        assert result.astimezone(ZoneInfo(zone)).strftime("%H:%M") >= end or in_quiet(
            result - timedelta(seconds=1), hours), "it ends at `to`, or at the jump over it"
    else:
        assert result == moment
