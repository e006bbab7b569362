"""The gaming day and its shifts (docs/accounting.md, "The gaming day"): a configurable start in
the casino's zone, DST-correct (23 or 25 hours across a change), shifts that cut the day exactly."""

import itertools
from datetime import UTC, date, datetime, time, timedelta, timezone

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table_controller.accounting.errors import GamingDayConfigError, NaiveTimeError
from table_controller.accounting.gaming_day import GamingDayCalendar, ShiftStart

NEW_YORK = GamingDayCalendar("America/New_York")  # 06:00, shifts day 06, swing 14, grave 22


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def test_a_plain_day_runs_from_six_to_six_local_and_has_24_hours():
    # 2026-12-03 is EST (UTC-5): 06:00 local is 11:00 UTC
    day = NEW_YORK.day_period(date(2026, 12, 3))
    assert (day.start, day.end) == (utc(2026, 12, 3, 11), utc(2026, 12, 4, 11))
    assert day.length == timedelta(hours=24)


def test_the_spring_change_makes_a_23_hour_gaming_day():
    # 2026-03-08 02:00 EST -> 03:00 EDT lies inside gaming day 2026-03-07 (06:00 Mar 7 to 06:00 Mar 8):
    # it starts at 11:00 UTC (EST) and ends at 10:00 UTC (EDT), 23 hours
    day = NEW_YORK.day_period(date(2026, 3, 7))
    assert (day.start, day.end) == (utc(2026, 3, 7, 11), utc(2026, 3, 8, 10))
    assert day.length == timedelta(hours=23)
    grave = NEW_YORK.shift_period(date(2026, 3, 7), "grave")  # 22:00 EST to 06:00 EDT: 7 hours
    assert (grave.start, grave.length) == (utc(2026, 3, 8, 3), timedelta(hours=7))


def test_the_autumn_change_makes_a_25_hour_gaming_day():
    # 2026-11-01 02:00 EDT -> 01:00 EST lies inside gaming day 2026-10-31
    day = NEW_YORK.day_period(date(2026, 10, 31))
    assert (day.start, day.end) == (utc(2026, 10, 31, 10), utc(2026, 11, 1, 11))
    assert day.length == timedelta(hours=25)
    assert NEW_YORK.shift_period(date(2026, 10, 31), "grave").length == timedelta(hours=9)


def test_an_instant_maps_to_its_gaming_day_and_shift():
    # 05:59 EST on Dec 4 is still gaming day Dec 3, grave shift; 06:00 is Dec 4, day shift
    late = NEW_YORK.period_of(utc(2026, 12, 4, 10, 59))
    assert (late.day, late.shift) == (date(2026, 12, 3), "grave")
    early = NEW_YORK.period_of(utc(2026, 12, 4, 11, 0))
    assert (early.day, early.shift) == (date(2026, 12, 4), "day")
    assert NEW_YORK.period_of(utc(2026, 12, 4, 19, 0)).shift == "swing"  # 14:00 EST
    # the repeated hour of the autumn night (01:30 EST, second time) is gaming day Oct 31
    assert NEW_YORK.gaming_day_of(utc(2026, 11, 1, 6, 30)) == date(2026, 10, 31)


def test_a_boundary_the_spring_change_skips_falls_an_hour_later_by_the_clock():
    # a day starting at 02:30: on 2026-03-08 02:30 does not exist; fold 0 reads it on EST,
    # 07:30 UTC, which is 03:30 EDT
    calendar = GamingDayCalendar("America/New_York", time(2, 30), (ShiftStart("all", time(2, 30)),))
    assert calendar.day_period(date(2026, 3, 8)).start == utc(2026, 3, 8, 7, 30)
    assert calendar.day_period(date(2026, 3, 7)).length == timedelta(hours=24)  # 02:30 EST to 03:30 EDT
    assert calendar.gaming_day_of(utc(2026, 3, 8, 7, 10)) == date(2026, 3, 7)  # 03:10 EDT


def test_the_time_zone_of_the_instant_does_not_matter():
    moment = datetime(2026, 12, 4, 12, 30, tzinfo=timezone(timedelta(hours=+2)))  # 10:30 UTC
    assert NEW_YORK.gaming_day_of(moment) == date(2026, 12, 3)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # a loaded machine is not a failure
@given(st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC)))
def test_every_instant_lies_in_exactly_one_day_and_one_shift_of_it(moment):
    period = NEW_YORK.period_of(moment)
    day = NEW_YORK.day_period(period.day)
    assert day.start <= period.start <= moment < period.end <= day.end
    shifts = NEW_YORK.shift_periods(period.day)
    assert shifts[0].start == day.start and shifts[-1].end == day.end
    assert all(a.end == b.start for a, b in itertools.pairwise(shifts))
    assert day.length in (timedelta(hours=23), timedelta(hours=24), timedelta(hours=25))


def test_a_naive_instant_is_refused():
    with pytest.raises(NaiveTimeError):
        NEW_YORK.gaming_day_of(datetime(2026, 12, 3, 12))
    with pytest.raises(NaiveTimeError):
        NEW_YORK.period_of("2026-12-03T12:00Z")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"zone": "Mars/Olympus_Mons"}, "unknown time zone"),
        ({"shifts": ()}, "at least one shift"),
        ({"shifts": (ShiftStart("a", time(6)), ShiftStart("a", time(14)))}, "share a name"),
        ({"shifts": (ShiftStart("", time(6)),)}, "needs a name"),
        ({"shifts": (ShiftStart("late", time(7)),)}, "must start when"),
        (
            {"shifts": (ShiftStart("a", time(6)), ShiftStart("b", time(22)), ShiftStart("c", time(14)))},
            "follow",
        ),
        ({"shifts": (ShiftStart("a", time(6)), ShiftStart("b", time(6)))}, "follow"),
        ({"day_start": time(6, tzinfo=UTC)}, "without a zone"),
        ({"day_start": time(6), "shifts": (ShiftStart("a", time(6, tzinfo=UTC)),)}, "local time"),
    ],
)
def test_a_calendar_that_cannot_be_is_refused(kwargs, message):
    with pytest.raises(GamingDayConfigError, match=message):
        GamingDayCalendar(**kwargs)


def test_an_unknown_shift_is_refused():
    with pytest.raises(GamingDayConfigError, match="no shift"):
        NEW_YORK.shift_period(date(2026, 12, 3), "brunch")


def test_shifts_after_midnight_start_on_the_next_calendar_date():
    calendar = GamingDayCalendar(
        "UTC",
        time(6),
        (ShiftStart("day", time(6)), ShiftStart("night", time(18)), ShiftStart("dawn", time(2))),
    )
    dawn = calendar.shift_period(date(2026, 12, 3), "dawn")
    assert (dawn.start, dawn.end) == (utc(2026, 12, 4, 2), utc(2026, 12, 4, 6))
