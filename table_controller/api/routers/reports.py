"""Shift and day reports as JSON and CSV (pit and surveillance)."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import Response
from sqlmodel import Session

from ..deps import AuditDep, ServiceDep, StoreDep
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


def _day(session: Session, table_id: str, day: date, tz: str) -> ReportPublic:
    start, end = day_bounds(day, zone_of(tz))
    return report(session, table_id=table_id, kind="day", start=start, end=end, time_zone=str(tz))


def _shift(session: Session, table_id: str, start: datetime, end: datetime) -> ReportPublic:
    start_utc, end_utc = aware_utc(start, "start"), aware_utc(end, "end")
    if start_utc >= end_utc:
        raise ApiError(422, "end must be after start")
    return report(session, table_id=table_id, kind="shift", start=start_utc, end=end_utc, time_zone="UTC")


def _csv(found: ReportPublic, name: str) -> Response:
    return Response(
        report_csv(found),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{name}.csv"'},
    )


@router.get("/day", response_model=ReportPublic, responses=responses())
async def day_report(
    _: AuditDep, service: ServiceDep, store: StoreDep, date: DayQuery, tz: ZoneQuery = UTC_ZONE
) -> ReportPublic:
    """The day's rounds, wagers, commission collected, bonuses paid and house result, in total,
    per game and per position; the day runs from midnight to midnight in ``tz``."""
    return await store.read(_day, service.table_id, date, tz)


@router.get("/day.csv", response_class=Response, responses={**responses(), **_CSV})
async def day_report_csv(
    _: AuditDep, service: ServiceDep, store: StoreDep, date: DayQuery, tz: ZoneQuery = UTC_ZONE
) -> Response:
    """The day report as CSV."""
    return _csv(
        await store.read(_day, service.table_id, date, tz), f"{service.table_id}-day-{date.isoformat()}"
    )


@router.get("/shift", response_model=ReportPublic, responses=responses())
async def shift_report(
    _: AuditDep, service: ServiceDep, store: StoreDep, start: StartQuery, end: EndQuery
) -> ReportPublic:
    """A shift's report: rounds opened from ``start`` to ``end``."""
    return await store.read(_shift, service.table_id, start, end)


@router.get("/shift.csv", response_class=Response, responses={**responses(), **_CSV})
async def shift_report_csv(
    _: AuditDep, service: ServiceDep, store: StoreDep, start: StartQuery, end: EndQuery
) -> Response:
    """The shift report as CSV."""
    return _csv(await store.read(_shift, service.table_id, start, end), f"{service.table_id}-shift")
