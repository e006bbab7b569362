"""The gaming day and its shifts (docs/accounting.md, "The gaming day").

A gaming day ``D`` runs from ``day_start`` on the calendar date ``D`` to ``day_start`` on
``D + 1``, wall-clock times in the casino's IANA zone; each shift runs from its start to the next
shift's start, the last one to the end of the gaming day. Every boundary is turned into one UTC
instant (``datetime.combine(date, time, zone)``, fold 0), and an instant belongs to the period
whose ``[start, end)`` holds it, so the days and shifts cut time without a gap or an overlap.
A day that a DST change crosses has 23 or 25 hours. Rule named for the changes: a boundary at a
wall-clock time the change skips (02:30 on the spring night) falls where that time would be on
the old offset, one hour later by the new clock; one the change repeats falls at its first
occurrence.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .errors import GamingDayConfigError, NaiveTimeError, UnknownShiftError

DEFAULT_DAY_START = time(6, 0)


@dataclass(frozen=True, slots=True)
class ShiftStart:
    """A shift's name and the local wall-clock time it starts."""

    name: str
    start: time


DEFAULT_SHIFTS = (
    ShiftStart("day", time(6, 0)),
    ShiftStart("swing", time(14, 0)),
    ShiftStart("grave", time(22, 0)),
)


@dataclass(frozen=True, slots=True)
class Period:
    """A gaming day, or one of its shifts (``shift`` None: the whole day), as UTC ``[start, end)``."""

    day: date
    shift: str | None
    start: datetime
    end: datetime

    @property
    def length(self) -> timedelta:
        return self.end - self.start


def _since_day_start(clock: time, day_start: time) -> timedelta:
    """How far ``clock`` lies after ``day_start`` on the 24-hour dial (0 for the start itself)."""

    def micros(t: time) -> int:
        return ((t.hour * 60 + t.minute) * 60 + t.second) * 1_000_000 + t.microsecond

    return timedelta(microseconds=(micros(clock) - micros(day_start)) % (86_400 * 1_000_000))


def _aware_utc(instant: datetime) -> datetime:
    if not isinstance(instant, datetime):
        raise NaiveTimeError(f"an instant must be a datetime, got {instant!r}")
    if instant.tzinfo is None or instant.utcoffset() is None:
        raise NaiveTimeError(f"{instant.isoformat()} has no time zone: give an aware datetime")
    return instant.astimezone(UTC)


@dataclass(frozen=True, slots=True)
class GamingDayCalendar:
    """The casino's gaming day: the IANA ``zone``, the local ``day_start`` and the ``shifts``.

    Refused (GamingDayConfigError): an unknown zone, a time with a zone of its own, no shift,
    two shifts of one name, a first shift that does not start at ``day_start``, shifts not in
    the order of the day.
    """

    zone: str = "UTC"
    day_start: time = DEFAULT_DAY_START
    shifts: tuple[ShiftStart, ...] = DEFAULT_SHIFTS

    def __post_init__(self) -> None:
        try:
            ZoneInfo(self.zone)
        except (ZoneInfoNotFoundError, ValueError, TypeError) as error:
            raise GamingDayConfigError(f"unknown time zone {self.zone!r}") from error
        if not isinstance(self.day_start, time) or self.day_start.tzinfo is not None:
            raise GamingDayConfigError(
                f"day_start must be a local time without a zone, got {self.day_start!r}"
            )
        if not self.shifts:
            raise GamingDayConfigError("a gaming day has at least one shift")
        names = [shift.name for shift in self.shifts]
        if any(not isinstance(name, str) or not name.strip() for name in names):
            raise GamingDayConfigError(f"every shift needs a name, got {names!r}")
        if len(set(names)) != len(names):
            raise GamingDayConfigError(f"two shifts share a name: {names!r}")
        for shift in self.shifts:
            if not isinstance(shift.start, time) or shift.start.tzinfo is not None:
                raise GamingDayConfigError(
                    f"shift {shift.name!r} must start at a local time, got {shift.start!r}"
                )
        if self.shifts[0].start != self.day_start:
            raise GamingDayConfigError(
                f"the first shift ({self.shifts[0].name!r}, {self.shifts[0].start}) must start when the "
                f"gaming day does ({self.day_start})"
            )
        offsets = [_since_day_start(shift.start, self.day_start) for shift in self.shifts]
        if any(later <= earlier for earlier, later in itertools.pairwise(offsets)):
            raise GamingDayConfigError(
                f"shifts must follow each other through the gaming day from {self.day_start}: "
                + ", ".join(f"{s.name} {s.start}" for s in self.shifts)
            )

    @property
    def tz(self) -> ZoneInfo:
        return ZoneInfo(self.zone)

    def _instant(self, calendar_date: date, clock: time) -> datetime:
        return datetime.combine(calendar_date, clock, self.tz).astimezone(UTC)

    def _shift_date(self, day: date, shift: ShiftStart) -> date:
        """The calendar date a shift of gaming day ``day`` starts on: the next one when its clock
        is before the day's start (the shifts follow each other from the start, so it is past
        midnight)."""
        return day + timedelta(days=1) if shift.start < self.day_start else day

    def day_period(self, day: date) -> Period:
        """Gaming day ``day`` as UTC ``[start, end)``: 24 hours, or 23 or 25 across a DST change."""
        return Period(
            day,
            None,
            self._instant(day, self.day_start),
            self._instant(day + timedelta(days=1), self.day_start),
        )

    def shift_periods(self, day: date) -> tuple[Period, ...]:
        """The shifts of gaming day ``day``, in order; together they are the day exactly."""
        starts = [self._instant(self._shift_date(day, shift), shift.start) for shift in self.shifts]
        ends = [*starts[1:], self.day_period(day).end]
        return tuple(
            Period(day, shift.name, start, end)
            for shift, start, end in zip(self.shifts, starts, ends, strict=True)
        )

    def shift_period(self, day: date, shift: str) -> Period:
        for period in self.shift_periods(day):
            if period.shift == shift:
                return period
        raise UnknownShiftError(f"no shift {shift!r}; the shifts are {[s.name for s in self.shifts]!r}")

    def gaming_day_of(self, instant: datetime) -> date:
        """The gaming day ``instant`` (an aware datetime) belongs to."""
        moment = _aware_utc(instant)
        day = moment.astimezone(self.tz).date()
        while moment < self.day_period(day).start:
            day -= timedelta(days=1)
        while moment >= self.day_period(day).end:
            day += timedelta(days=1)
        return day

    def period_of(self, instant: datetime) -> Period:
        """The shift ``instant`` belongs to (its ``day`` is the gaming day)."""
        moment = _aware_utc(instant)
        for period in self.shift_periods(self.gaming_day_of(moment)):
            if period.start <= moment < period.end:
                return period
        raise AssertionError("the shifts cover their gaming day")  # pragma: no cover


__all__ = ["DEFAULT_DAY_START", "DEFAULT_SHIFTS", "GamingDayCalendar", "Period", "ShiftStart"]
