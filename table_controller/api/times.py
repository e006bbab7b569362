"""Times given to the API: with a time zone, kept in UTC, clamped at the calendar's ends.

A time without a zone is refused (its meaning would be a guess). A time so near year 1 or year
9999 that its UTC form falls outside the calendar is clamped to the first or last UTC moment:
as a bound of a range it selects exactly the same rounds.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Annotated
from zoneinfo import ZoneInfo, available_timezones

from fastapi import Query
from pydantic import AfterValidator, Field

from .errors import ApiError

_KNOWN_ZONES = frozenset(available_timezones())


def known_zone(name: str) -> str:
    """``name`` if this machine's tz database knows it. The refusal is one short sentence: the
    zones were once an enum, and a wrong name answered with all ~600 of them (22 KB)."""
    if name not in _KNOWN_ZONES:
        raise ValueError(f"unknown time zone {name!r}: give an IANA name such as America/Los_Angeles or UTC")
    return name


TimeZone = Annotated[
    str, Field(max_length=64, examples=["America/Los_Angeles", "UTC"]), AfterValidator(known_zone)
]
"""An IANA time zone this machine knows (its tz database)."""
ZoneQuery = Annotated[TimeZone, Query(description="IANA time zone of the day (e.g. America/Los_Angeles)")]
UTC_ZONE = "UTC"
"""The default of a ``ZoneQuery``."""


def zone_of(name: str) -> ZoneInfo:
    """The zone named ``name``; 422 for a name this machine does not know."""
    try:
        return ZoneInfo(str(name))
    except Exception:  # ZoneInfoNotFoundError, or a name that is not a zone key
        raise ApiError(422, f"unknown time zone {name!r}") from None


FIRST = datetime.min.replace(tzinfo=UTC)
LAST = datetime.max.replace(tzinfo=UTC)


def aware_utc(value: datetime, what: str) -> datetime:
    """``value`` in UTC; 422 naming ``what`` if it has no time zone."""
    if value.tzinfo is None or value.utcoffset() is None:
        raise ApiError(422, f"{what} needs a time zone (e.g. 2024-05-01T20:00:00Z)")
    try:
        return value.astimezone(UTC)
    except OverflowError:
        return FIRST if value.year < 5000 else LAST


def midnight_utc(day: date, zone: tzinfo) -> datetime:
    """The start of ``day`` in ``zone``, in UTC (clamped at the calendar's ends)."""
    try:
        return datetime.combine(day, time(), zone).astimezone(UTC)
    except OverflowError:
        return FIRST if day.year < 5000 else LAST


def day_bounds(day: date, zone: tzinfo) -> tuple[datetime, datetime]:
    """[start, end) of the gaming day ``day`` in ``zone``, in UTC."""
    start = midnight_utc(day, zone)
    end = LAST if day == date.max else midnight_utc(day + timedelta(days=1), zone)
    return start, end
