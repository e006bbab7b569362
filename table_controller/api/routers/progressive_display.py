"""The progressive pool's displays and reports (docs/api.md, "Progressive displays" and
"Progressive reports"; docs/progressive.md, "The meter page", "The day's reconciliation"):
the display view and its live feed for the meter page and the table page (everyone who reads
the table), and the pool's gaming day reconciled as JSON, CSV, a printable page and a PDF (pit
and surveillance)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, date, datetime
from typing import Annotated, Any

import structlog
from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse

from ...accounting.errors import UnknownShiftError
from ...accounting.progressive_day import PoolDayError
from ...floor.report_page import Paper
from ...table.accounting import calendar_of
from ...table.progressive_pool import SYSTEM
from ..deps import AuditDep, ReadTableDep, ServiceDep, SettingsDep, StoreDep
from ..documents import Format, document_answer, document_responses
from ..errors import ApiError, responses
from ..models.progressive import ProgressiveDayPublic, ProgressiveDisplay
from ..progressive_reports import (
    progressive_day,
    progressive_day_csv,
    progressive_day_page,
    progressive_day_pdf,
)
from ..progressive_view import PoolFeeds, PoolLog, display_view
from ..stream import EventHub
from .progressive import PoolId, _pool
from .stream import KEEPALIVE_SECONDS, REVALIDATE_SECONDS, sse_answer, token_check

router = APIRouter(tags=["progressive"])
log = structlog.get_logger()

DayQuery = Annotated[date | None, Query(description="the gaming day, YYYY-MM-DD; default: the one now")]
ShiftQuery = Annotated[str | None, Query(max_length=32, description="one of the day's shifts; none: the day")]
PaperQuery = Annotated[Paper, Query(description="the printed page's size (landscape)")]
_DOCUMENTS = document_responses("the day as CSV, the printable page or a PDF, by the path's suffix")


def feeds(request: Request) -> PoolFeeds:
    """The app's pools' feeds (create_app makes them, its lifespan stops their hubs)."""
    found: PoolFeeds = request.app.state.pool_feeds
    return found


@router.get("/api/progressive/{pool_id}/display", response_model=ProgressiveDisplay, responses=responses(404))
async def get_display(
    request: Request, pool_id: PoolId, _: ReadTableDep, service: ServiceDep, store: StoreDep
) -> dict[str, Any]:
    """The pool as its displays show it: per level the meter, reset, limit, the cumulative paid
    meter and what the system and an attendant paid apart (PRG-13, PRG-49); the hits pending
    payment (PENDING); the last hits with table, seat, amount and the new amount (PRG-11,
    PRG-25), newest first."""
    _pool(service, pool_id)
    view = await store.read(display_view, feeds(request).log(pool_id))
    if view is None:
        raise ApiError(404, f"pool {pool_id} has no meters yet", "not-found")
    return view


def _frame(view: dict[str, Any]) -> bytes:
    data = json.dumps(view, separators=(",", ":"), ensure_ascii=False)
    return f"id: {view['seq']}\ndata: {data}\n\n".encode()


async def _frames(
    hub: EventHub,
    latest: Callable[[int], Awaitable[tuple[int, bytes] | None]],
    follow: bool,
    still_valid: Callable[[bool], Awaitable[bool]],
) -> AsyncIterator[bytes]:
    """A frame of the whole view at the start and after each change of the pool's chain;
    ``latest(head)``: the pool chain's seq and the frame of a view read at or after ``head``."""
    sent: int | None = None  # the hub's head when the view was last read
    shown: int | None = None  # the pool chain's seq of the last view sent
    quiet_since = time.monotonic()
    while not hub.closed:
        if not await still_valid(False):
            yield b": credentials revoked\n\n"
            return
        head = hub.head
        if head != sent:
            try:
                found = await latest(head)
            except Exception as error:  # the store is away for a moment: the display keeps its last view
                log.warning("progressive.display_read_failed", error=str(error))
                await asyncio.sleep(hub.poll_interval)
                continue
            sent = head
            if found is not None and found[0] != shown:  # a view sent already: not sent twice
                shown = found[0]
                yield found[1]
                quiet_since = time.monotonic()
        if not follow:
            return
        woken = await hub.wait(sent, REVALIDATE_SECONDS)
        if not woken and not hub.closed and time.monotonic() - quiet_since >= KEEPALIVE_SECONDS:
            yield b": keepalive\n\n"
            quiet_since = time.monotonic()


@router.get(
    "/api/progressive/{pool_id}/stream",
    response_class=StreamingResponse,
    responses={
        **responses(404),
        200: sse_answer(
            "server-sent events: per change `id: <the pool chain's seq>` and `data:` the whole display view",
            id_pattern="^[0-9]+$",
            id_description="the pool chain's seq the view is at",
            event_schema="ProgressiveDisplay",
        ),
    },
)
async def display_stream(
    request: Request,
    pool_id: PoolId,
    who: ReadTableDep,
    service: ServiceDep,
    store: StoreDep,
    follow: Annotated[bool, Query(description="false: send the view now, then close")] = True,
) -> StreamingResponse:
    """The display view (as ``/display``) now and again at each change of the pool: a hit, a
    payment, a contribution, an adjustment (PRG-26: on the displays within a poll). Each frame
    is the whole view, so a display that reconnects is current at its first frame."""
    _pool(service, pool_id)
    pool_feeds = feeds(request)
    hub = await pool_feeds.hub(pool_id)
    pool_log: PoolLog = pool_feeds.log(pool_id)

    async def read() -> tuple[int, bytes] | None:
        view = await store.read(display_view, pool_log)
        return None if view is None else (int(view["seq"]), _frame(view))

    async def latest(head: int) -> tuple[int, bytes] | None:
        return await pool_feeds.latest(pool_id, head, read)

    return StreamingResponse(
        _frames(hub, latest, follow, token_check(request, who)),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


def _day_route(fmt: Format) -> Any:
    async def pool_day_report(
        pool_id: PoolId,
        _: AuditDep,
        service: ServiceDep,
        settings: SettingsDep,
        store: StoreDep,
        gaming_day: DayQuery = None,
        shift: ShiftQuery = None,
        paper: PaperQuery = "a4",
    ) -> Any:
        _pool(service, pool_id)
        calendar = calendar_of(settings)
        now = datetime.now(UTC)
        day = gaming_day if gaming_day is not None else calendar.gaming_day_of(now)
        try:
            found = await store.read(
                progressive_day,
                pool_id=pool_id,
                calendar=calendar,
                day=day,
                shift=shift,
                system=SYSTEM,
                now=now,
            )
        except UnknownShiftError as error:
            raise ApiError(404, str(error), "not-found") from None
        except PoolDayError as error:
            log.error("progressive.report_refused", pool_id=pool_id, error=str(error))
            raise ApiError(409, str(error), "progressive-refused") from None
        if fmt == "json":
            return found
        name = f"{pool_id}-progressive-{day.isoformat()}{f'-{shift}' if shift else ''}"
        return await document_answer(
            store,
            found,
            fmt,
            name,
            paper=paper,
            csv=progressive_day_csv,
            page=progressive_day_page,
            pdf=progressive_day_pdf,
            source="progressive",
        )

    pool_day_report.__doc__ = (
        f"The pool's gaming day (or shift) reconciled ({fmt}): per level start meter +"
        " contributions - hits + seeds + rolled forward +/- adjustments = end meter, any variance"
        " named; reserve, overflow, pending and paid awards (by the system and by an attendant),"
        " the day's accrual; contributions per table; hits, payments, adjustments, parameter"
        " changes (a rate change is a notice for accounting), openings and closings; the meters"
        " the displays show against the chain's when nothing was written since."
    )
    return pool_day_report


for _fmt, _suffix in (("csv", ".csv"), ("html", ".html"), ("pdf", ".pdf"), ("json", "")):
    _json = _fmt == "json"
    router.add_api_route(
        f"/api/progressive/{{pool_id}}/day{_suffix}",
        _day_route(_fmt),  # type: ignore[arg-type]
        methods=["GET"],
        response_model=ProgressiveDayPublic if _json else None,
        response_class=JSONResponse if _json else Response,
        responses={**responses(404, 409), **({} if _json else _DOCUMENTS)},
        name=f"progressive_day_{_fmt}",
    )

__all__ = ["feeds", "router"]
