"""The floor's reports (docs/floor-reports.md): a gaming day or a shift over the tables the
person may see, as JSON, CSV, a printable page and a PDF. Pit and surveillance (AUDIT); a pit
user sees their pit's tables only (floor/scope.py)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import Annotated, Any

import structlog
from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, Response
from sqlmodel import Session

from ...accounting.gaming_day import GamingDayCalendar, Period
from ...api.deps import AuditDep, StoreDep
from ...api.documents import Format, document_answer, document_responses
from ...api.errors import ApiError, responses
from ...api.times import TimeZone, day_bounds, zone_of
from ...settings import AccountingSettings
from ...storage.floor import floor_tables
from ...storage.reports import today_bounds
from ...storage.shifts import ShiftNotFoundError, get_shift
from ...table.accounting import calendar_from
from ..deps import ScopeDep, not_on_floor
from ..report_page import Paper, report_page, report_pdf
from ..reports import By, FloorReportPublic, floor_report, floor_report_csv
from ..scope import Scope
from .tables import PitQuery

log = structlog.get_logger()
router = APIRouter(prefix="/api/floor/reports", tags=["floor reports"])

DayQuery = Annotated[date | None, Query(description="the gaming day, YYYY-MM-DD; default: today")]
TableQuery = Annotated[str | None, Query(max_length=64, description="one table only")]
ByQuery = Annotated[By | None, Query(description="one grouping only (default: per table, pit and dealer)")]
TzQuery = Annotated[
    TimeZone | None, Query(description="IANA zone of the gaming day; default: the floor's time_zone")
]
PaperQuery = Annotated[Paper, Query(description="the printed page's size (landscape)")]

_DOCUMENTS = document_responses(
    "the report as JSON, or as CSV, the printable page or a PDF by the path's suffix"
)


def _zone_name(request: Request, tz: TimeZone | None) -> str:
    """``tz``, else the floor's ``time_zone`` setting, else UTC; 422 for a zone not known here."""
    settings = getattr(request.app.state, "settings", None)
    name = str(tz) if tz is not None else str(getattr(settings, "time_zone", "UTC"))
    zone_of(name)
    return name


def _tables(
    session: Session, scope: Scope, pit: str | None, table_id: str | None, of_pit: str | None = None
) -> dict[str, str | None]:
    """The floor's tables the report covers (table id -> pit): within the person's scope, of
    ``of_pit`` (a shift's pit), then of the ``pit`` and ``table`` asked for. A table or pit asked
    for outside the scope answers as one that does not exist (404)."""
    rows = [row for row in floor_tables(session, pit=of_pit) if scope.sees(row.table_id, row.pit)]
    if table_id is not None:
        rows = [row for row in rows if row.table_id == table_id and (pit is None or row.pit == pit)]
        if not rows:
            raise not_on_floor(table_id)
    elif pit is not None:
        rows = [row for row in rows if row.pit == pit]
        if not rows:
            raise ApiError(404, f"no pit {pit!r} with tables on this floor")
    return {row.table_id: row.pit for row in rows}


def _accounting(request: Request, zone_name: str) -> tuple[GamingDayCalendar, int]:
    """The floor's gaming day in ``zone_name`` (its ``[accounting]`` settings, as its tables') and
    the variance above which a table is flagged."""
    settings = getattr(request.app.state, "settings", None)
    found = settings.accounting if settings is not None else AccountingSettings()
    return calendar_from(zone_name, found.gaming_day_starts), found.alert_above_cents


def _period(find: Callable[[], Period]) -> Period | None:
    """The accounting's period; None at the calendar's ends (year 1, year 9999)."""
    try:
        return find()
    except (OverflowError, ValueError):
        return None


def _day(
    session: Session,
    scope: Scope,
    calendar: tuple[GamingDayCalendar, int],
    day: date | None,
    zone_name: str,
    pit: str | None,
    table_id: str | None,
    by: By | None,
) -> FloorReportPublic:
    now = datetime.now(UTC)
    zone = zone_of(zone_name)
    if day is None:
        start, end = today_bounds(zone, now)
        day = start.astimezone(zone).date()
    else:
        start, end = day_bounds(day, zone)
    return floor_report(
        session,
        kind="day",
        tables=_tables(session, scope, pit, table_id),
        start=start,
        end=end,
        time_zone=zone_name,
        now=now,
        day=day,
        pit=pit if pit is not None or scope.everything else scope.pit,  # a pit user's: their pit
        table_id=table_id,
        by=by,
        accounting=_period(lambda: calendar[0].day_period(day)),
        alert_above=calendar[1],
    )


def _shift(
    session: Session,
    scope: Scope,
    calendar: tuple[GamingDayCalendar, int],
    shift_id: int,
    zone_name: str,
    by: By | None,
) -> FloorReportPublic:
    now = datetime.now(UTC)
    try:
        shift = get_shift(session, shift_id=shift_id)
    except ShiftNotFoundError:
        raise ApiError(404, f"no shift {shift_id}") from None
    if shift.pit is not None and not scope.everything and scope.pit != shift.pit:
        raise ApiError(404, f"no shift {shift_id}")  # another pit's: answered as one that does not exist
    tables = _tables(session, scope, None, None, of_pit=shift.pit)
    return floor_report(
        session,
        kind="shift",
        tables=tables,
        start=shift.opened_at,
        end=shift.closed_at or max(now, shift.opened_at),
        time_zone=zone_name,
        now=now,
        pit=shift.pit,
        by=by,
        shift=shift,
        accounting=_period(lambda: calendar[0].period_of(shift.opened_at)),
        alert_above=calendar[1],
    )


async def _answer(
    store: Any, found: FloorReportPublic, fmt: Format, paper: Paper, name: str
) -> FloorReportPublic | Response:
    if fmt == "json":
        return found
    return await document_answer(
        store,
        found,
        fmt,
        name,
        paper=paper,
        csv=floor_report_csv,
        page=report_page,
        pdf=report_pdf,
        source="floor",
    )


def _day_route(fmt: Format) -> Any:
    async def day_report(
        _: AuditDep,
        scope: ScopeDep,
        store: StoreDep,
        request: Request,
        day: DayQuery = None,
        pit: PitQuery = None,
        table: TableQuery = None,
        by: ByQuery = None,
        tz: TzQuery = None,
        paper: PaperQuery = "a4",
    ) -> Any:
        zone_name = _zone_name(request, tz)
        found = await store.read(_day, scope, _accounting(request, zone_name), day, zone_name, pit, table, by)
        where = table or pit or "floor"
        return await _answer(store, found, fmt, paper, f"{where}-day-{found.day}")

    day_report.__doc__ = (
        f"The gaming day's report ({fmt}): rounds, wagers, commission, bonuses paid, actual and"
        " theoretical win, hold, voids, misdeals, house-way deviations, overrides and device"
        " faults, in total and per table, pit and dealer, over the tables the person sees; the"
        " gaming day's accounting (drop, fills, credits, opener, closer, win and hold beside the"
        " theoretical, the counted win reconciled with the rounds) and its ratings."
    )
    return day_report


def _shift_route(fmt: Format) -> Any:
    async def shift_report(
        _: AuditDep,
        scope: ScopeDep,
        store: StoreDep,
        request: Request,
        shift_id: int,
        by: ByQuery = None,
        tz: TzQuery = None,
        paper: PaperQuery = "a4",
    ) -> Any:
        zone_name = _zone_name(request, tz)
        found = await store.read(_shift, scope, _accounting(request, zone_name), shift_id, zone_name, by)
        return await _answer(store, found, fmt, paper, f"shift-{shift_id}")

    shift_report.__doc__ = (
        f"A shift's report ({fmt}): from its opening to its close (an open shift: until now),"
        " with the people on duty and those who signed it off."
    )
    return shift_report


for _fmt, _suffix in (("csv", ".csv"), ("html", ".html"), ("pdf", ".pdf"), ("json", "")):
    # the suffixed paths first: ``/shift/{shift_id}`` would otherwise take ``7.csv`` as an id
    _json = _fmt == "json"
    router.add_api_route(
        f"/day{_suffix}",
        _day_route(_fmt),  # type: ignore[arg-type]
        methods=["GET"],
        response_model=FloorReportPublic if _json else None,
        response_class=JSONResponse if _json else Response,
        responses={**responses(404), **({} if _json else _DOCUMENTS)},
        name=f"floor_day_report_{_fmt}",
    )
    router.add_api_route(
        f"/shift/{{shift_id}}{_suffix}",
        _shift_route(_fmt),  # type: ignore[arg-type]
        methods=["GET"],
        response_model=FloorReportPublic if _json else None,
        response_class=JSONResponse if _json else Response,
        responses={**responses(404), **({} if _json else _DOCUMENTS)},
        name=f"floor_shift_report_{_fmt}",
    )

__all__ = ["router"]
