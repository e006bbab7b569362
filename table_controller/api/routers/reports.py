"""Shift and day reports as JSON and CSV (pit and surveillance)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import Response
from sqlmodel import Session

from ...accounting.gaming_day import Period
from ...settings import TableSettings
from ...table.accounting import Desk
from ..deps import AuditDep, SettingsDep, StoreDep
from ..errors import ApiError, responses
from ..models.reports import ReportPublic
from ..reports import report, report_csv
from ..times import UTC_ZONE, ZoneQuery, aware_utc, day_bounds, zone_of

router = APIRouter(prefix="/api/reports", tags=["reports"])
_CSV: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "the report as CSV (header line, total, each game, each position)",
        "content": {"text/csv": {"schema": {"type": "string"}}},
    }
}

DayQuery = Annotated[date, Query(description="the gaming day, YYYY-MM-DD")]
StartQuery = Annotated[datetime, Query(description="shift start, with a time zone")]
EndQuery = Annotated[datetime, Query(description="shift end, with a time zone; after the start")]


def _period(find: Callable[[], Period]) -> Period | None:
    """The accounting's period; None at the calendar's ends (year 1, year 9999), where a gaming
    day has no next day to end on: the rounds' report still answers."""
    try:
        return find()
    except (OverflowError, ValueError):
        return None


def _day(session: Session, settings: TableSettings, day: date, tz: str) -> ReportPublic:
    """The day's rounds from midnight to midnight in ``tz``; its accounting and ratings of
    gaming day ``day`` as the table's calendar cuts it (accounting.gaming_day_starts)."""
    start, end = day_bounds(day, zone_of(tz))
    desk = Desk.of(settings)
    return report(
        session,
        table_id=settings.table_id,
        kind="day",
        start=start,
        end=end,
        time_zone=str(tz),
        accounting=_period(lambda: desk.period(day, None)),
        pit=desk.pit,
        alert_above=desk.alert_above,
    )


def _shift(session: Session, settings: TableSettings, start: datetime, end: datetime) -> ReportPublic:
    """The rounds opened from ``start`` to ``end``; the accounting and ratings of the calendar
    shift ``start`` falls in (the reports page asks for exactly those bounds)."""
    start_utc, end_utc = aware_utc(start, "start"), aware_utc(end, "end")
    if start_utc >= end_utc:
        raise ApiError(422, "end must be after start")
    desk = Desk.of(settings)
    return report(
        session,
        table_id=settings.table_id,
        kind="shift",
        start=start_utc,
        end=end_utc,
        time_zone="UTC",
        accounting=_period(lambda: desk.calendar.period_of(start_utc)),
        pit=desk.pit,
        alert_above=desk.alert_above,
    )


def _csv(found: ReportPublic, name: str) -> Response:
    return Response(
        report_csv(found),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{name}.csv"'},
    )


@router.get("/day", response_model=ReportPublic, responses=responses())
async def day_report(
    _: AuditDep, settings: SettingsDep, store: StoreDep, date: DayQuery, tz: ZoneQuery = UTC_ZONE
) -> ReportPublic:
    """The day's rounds, wagers, commission collected, bonuses paid and house result, in total,
    per game and per position; the day runs from midnight to midnight in ``tz``. ``accounting``:
    gaming day ``date``'s opener, closer, fills, credits, drop, win and hold beside the
    theoretical, the counted win reconciled with the rounds, and the ratings."""
    return await store.read(_day, settings, date, tz)


@router.get("/day.csv", response_class=Response, responses={**responses(), **_CSV})
async def day_report_csv(
    _: AuditDep, settings: SettingsDep, store: StoreDep, date: DayQuery, tz: ZoneQuery = UTC_ZONE
) -> Response:
    """The day report as CSV."""
    return _csv(await store.read(_day, settings, date, tz), f"{settings.table_id}-day-{date.isoformat()}")


@router.get("/shift", response_model=ReportPublic, responses=responses())
async def shift_report(
    _: AuditDep, settings: SettingsDep, store: StoreDep, start: StartQuery, end: EndQuery
) -> ReportPublic:
    """A shift's report: rounds opened from ``start`` to ``end``; ``accounting``: the calendar
    shift ``start`` falls in."""
    return await store.read(_shift, settings, start, end)


@router.get("/shift.csv", response_class=Response, responses={**responses(), **_CSV})
async def shift_report_csv(
    _: AuditDep, settings: SettingsDep, store: StoreDep, start: StartQuery, end: EndQuery
) -> Response:
    """The shift report as CSV."""
    return _csv(await store.read(_shift, settings, start, end), f"{settings.table_id}-shift")
