"""The alerts of every table of the floor in one list, and their acknowledgement (docs/floor.md).

Acknowledging one through the floor is the table's own acknowledgement (api/routers/alerts.py):
once per alert (409), with a note, written to the primary as an ``alert.acknowledged`` event of
that table's chain; nobody acknowledges the alert of their own void or override (403
``two-person-rule``, the refusal chained). An alert's id is its table and its chain seq.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Request

from ...api.deps import AuditDep, StoreDep
from ...api.errors import responses
from ...api.models.commands import AcknowledgeCreate
from ...api.routers.alerts import MAX_ALERTS, acknowledge_on
from ...storage.session import read_snapshot
from ..deps import ScopeDep, TableAcknowledgeDep, not_on_floor
from ..models import FloorAlertPublic
from ..overview import alerts_of, floor_alert_view, visible_table
from .tables import PitQuery, TableId

router = APIRouter(prefix="/api/floor", tags=["floor"])


@router.get("/alerts", response_model=list[FloorAlertPublic], responses=responses())
async def get_alerts(
    request: Request,
    _: AuditDep,
    scope: ScopeDep,
    store: StoreDep,
    pit: PitQuery = None,
    open_only: Annotated[bool, Query(alias="open", description="only alerts not yet acknowledged")] = False,
    limit: Annotated[int, Query(ge=1, le=MAX_ALERTS)] = 100,
) -> list[FloorAlertPublic]:
    """The alerts of every table the person may see, newest first, each with its table, its
    severity and its acknowledgement once the pit has seen it."""
    return await store.read(
        alerts_of, scope, pit=pit, open_only=open_only, limit=limit, open_alerts=request.app.state.open_alerts
    )


@router.post(
    "/tables/{table_id}/alerts/{seq}/acknowledge",
    response_model=FloorAlertPublic,
    responses=responses(404, 409, 503),
)
async def acknowledge(
    body: AcknowledgeCreate,
    who: TableAcknowledgeDep,
    scope: ScopeDep,
    store: StoreDep,
    table_id: TableId,
    seq: Annotated[
        int, Path(ge=1, le=10**15, description="the alert's id: the chain seq of its alert.raised event")
    ],
) -> FloorAlertPublic:
    """Acknowledge a table's alert with a note (once), as on the table itself."""

    def acknowledged() -> FloorAlertPublic:
        with read_snapshot(store.engine) as session:  # the primary: scope as it is now
            if visible_table(session, scope, table_id) is None:
                raise not_on_floor(table_id)
        return floor_alert_view(acknowledge_on(store.engine, table_id, seq, actor=who.name, note=body.note))

    return await store.run(acknowledged)
