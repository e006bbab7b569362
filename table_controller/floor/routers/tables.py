"""The tables of the floor at a glance, and one table's round history, round and replay
(docs/floor.md, "The API").

The history answers are the table's own (``GET /api/rounds``, ``/api/rounds/{id}``,
``/api/rounds/{id}/replay``: api/history.py, the same query parameters), so the table's history
and round pages work on the floor with ``?table=ID``. A table outside the person's scope is a
404 with the words of a table that does not exist.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Path, Query, Request
from sqlmodel import Session

from ...api.deps import AuditDep, ReadTableDep, StoreDep
from ...api.errors import responses
from ...api.history import history_page, round_detail, round_replay
from ...api.models.rounds import ReplayPublic, RoundDetailPublic, RoundPage
from ...api.routers.rounds import HISTORY_PARAMETERS, HistoryParamsDep, RoundId
from ...storage.floor_tables import PIT_MAX
from ..deps import ScopeDep, not_on_floor
from ..models import FloorTablePublic, PitMapPublic
from ..overview import pit_maps, tables_overview, visible_table
from ..scope import Scope

router = APIRouter(prefix="/api/floor", tags=["floor"])
T = TypeVar("T")

TableId = Annotated[
    str, Path(min_length=1, max_length=63, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$", examples=["table-1"])
]
PitQuery = Annotated[
    str | None, Query(min_length=1, max_length=PIT_MAX, description="only the tables of this pit")
]


def on_table(
    scope: Scope, table_id: str, work: Callable[..., T], *args: Any, **kwargs: Any
) -> Callable[[Session], T]:
    """``work(session, table_id, ...)`` once the table is known to be on the floor and within
    ``scope`` (in the same read snapshot); 404 otherwise."""

    def within(session: Session) -> T:
        if visible_table(session, scope, table_id) is None:
            raise not_on_floor(table_id)
        return work(session, table_id, *args, **kwargs)

    return within


@router.get("/tables", response_model=list[FloorTablePublic], responses=responses())
async def get_tables(
    request: Request, _: ReadTableDep, scope: ScopeDep, store: StoreDep, pit: PitQuery = None
) -> list[FloorTablePublic]:
    """Each table the person may see: its newest round (phase in words, dealer, banker), open
    alerts by severity, device health, whether its daemon answers, and today's rounds,
    wagered, actual and theoretical win and hold."""
    settings = request.app.state.settings
    return await store.read(
        tables_overview,
        scope,
        pit=pit,
        now=datetime.now(UTC),
        stale_after=settings.stale_after,
        time_zone=settings.time_zone,
        open_alerts=request.app.state.open_alerts,
    )


@router.get("/pits", response_model=list[PitMapPublic], responses=responses())
async def get_pits(
    request: Request, _: ReadTableDep, scope: ScopeDep, store: StoreDep, pit: PitQuery = None
) -> list[PitMapPublic]:
    """The pit map: each pit the person sees, its tables laid out as the floor's ``layout``
    setting places them, each dealing or stopped (and why), with its rated seats and today's
    hold against the theoretical."""
    settings = request.app.state.settings
    return await store.read(
        pit_maps,
        scope,
        pit=pit,
        layout=settings.layout,
        now=datetime.now(UTC),
        stale_after=settings.stale_after,
        time_zone=settings.time_zone,
        open_alerts=request.app.state.open_alerts,
    )


@router.get(
    "/tables/{table_id}/rounds",
    response_model=RoundPage,
    responses=responses(404),
    openapi_extra=HISTORY_PARAMETERS,
)
async def list_rounds(
    _: AuditDep, scope: ScopeDep, store: StoreDep, table_id: TableId, query: HistoryParamsDep
) -> RoundPage:
    """The table's round history, as the table's ``GET /api/rounds``."""
    rounds, next_cursor = await store.read(
        on_table(
            scope,
            table_id,
            history_page,
            query.where(),
            newest_first=query.order == "newest",
            cursor=query.cursor,
            limit=query.limit,
        )
    )
    return RoundPage(rounds=rounds, next_cursor=next_cursor)


@router.get(
    "/tables/{table_id}/rounds/{round_id}", response_model=RoundDetailPublic, responses=responses(404)
)
async def get_round(
    _: AuditDep, scope: ScopeDep, store: StoreDep, table_id: TableId, round_id: RoundId
) -> RoundDetailPublic:
    """One round of the table in full, as the table's ``GET /api/rounds/{round_id}``."""
    return await store.read(on_table(scope, table_id, round_detail, round_id))


@router.get(
    "/tables/{table_id}/rounds/{round_id}/replay", response_model=ReplayPublic, responses=responses(404, 409)
)
async def replay_round(
    _: AuditDep, scope: ScopeDep, store: StoreDep, table_id: TableId, round_id: RoundId
) -> ReplayPublic:
    """The round step by step, as the table's ``GET /api/rounds/{round_id}/replay``."""
    return await store.read(on_table(scope, table_id, round_replay, round_id))
