"""Alerts: misdeal, house-way deviation, override, void, device fault, link loss (docs/api.md).

Raised by the table service as ``alert.raised`` events; the pit acknowledges one with a note,
which is an ``alert.acknowledged`` event naming the pit. An alert's id is its chain seq.
Nobody acknowledges the alert of their own void or override, nor the house-way deviation of a
round they overrode: 403 ``two-person-rule``, chained (docs/api.md, "Two people").
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query
from sqlalchemy.engine import Engine
from sqlmodel import Session

from ...record.watch import CODE_CHANGED, code_override
from ...storage.alerts import Alert, acknowledge_alert, list_alerts, may_acknowledge
from ...storage.approvals import TwoPersonRefusedError
from ...storage.session import read_snapshot, unit_of_work
from ...table.approvals import refuse
from ..deps import AcknowledgeDep, AuditDep, ServiceDep, StoreDep
from ..errors import ApiError, responses
from ..models.commands import AcknowledgeCreate
from ..models.table import AlertPublic
from ..roles import Permission, allowed
from ..views import alert_view

router = APIRouter(prefix="/api/alerts", tags=["alerts"])
MAX_ALERTS = 500


@router.get("", response_model=list[AlertPublic], responses=responses())
async def get_alerts(
    who: AuditDep,
    service: ServiceDep,
    store: StoreDep,
    open_only: Annotated[bool, Query(alias="open", description="only alerts not yet acknowledged")] = False,
    after: Annotated[int, Query(ge=0, le=10**15, description="alerts after this chain seq")] = 0,
    limit: Annotated[int, Query(ge=1, le=MAX_ALERTS)] = 100,
) -> list[AlertPublic]:
    """The table's alerts in chain order, each with its acknowledgement once the pit has seen it,
    and whether the person asking may acknowledge it (``may_acknowledge``: a page offers only
    what would not be refused)."""
    may = allowed(who.role, Permission.ACKNOWLEDGE)

    def alerts(session: Session) -> list[AlertPublic]:
        found = list_alerts(
            session, table_id=service.table_id, open_only=open_only, after_seq=after, limit=limit
        )
        return [
            alert_view(alert, may_acknowledge=may and may_acknowledge(session, alert=alert, actor=who.name))
            for alert in found
        ]

    return await store.read(alerts)


@router.post("/{seq}/acknowledge", response_model=AlertPublic, responses=responses(404, 409, 503))
async def acknowledge(
    body: AcknowledgeCreate,
    who: AcknowledgeDep,
    service: ServiceDep,
    store: StoreDep,
    seq: Annotated[
        int, Path(ge=1, le=10**15, description="the alert's id: the chain seq of its alert.raised event")
    ],
) -> AlertPublic:
    """Acknowledge an alert with a note (once); stored as an ``alert.acknowledged`` audit event."""

    def acknowledged() -> AlertPublic:
        found = acknowledge_on(
            store.engine, service.table_id, seq, actor=who.name, note=body.note, at_table=True
        )
        if found.event.payload_data().get("alert") == CODE_CHANGED:
            service.recheck_record()  # its override is chained: the table deals if nothing else stops it
        return alert_view(found)

    return await store.run(acknowledged)


def acknowledge_on(
    engine: Engine, table_id: str, seq: int, *, actor: str, note: str, at_table: bool = False
) -> Alert:
    """Acknowledge one of a table's alerts and read it back (a table's API and the floor's
    alike); a two-person refusal is chained on that table and raised as its 403.

    A ``code-changed`` alert's acknowledgement is the pit's override of that finding, chained in
    the same transaction (record_watch.code_override); only the table's own API (``at_table``)
    takes it, since only the running daemon can then deal again at once: through the floor it
    is 409 ``acknowledge-at-the-table``, nothing written."""
    try:
        with unit_of_work(engine) as session:
            acknowledge_alert(session, table_id=table_id, alert_seq=seq, actor=actor, note=note)
            [alert] = list_alerts(session, table_id=table_id, after_seq=seq - 1, limit=1)
            if alert.event.payload_data().get("alert") == CODE_CHANGED:
                if not at_table:
                    raise ApiError(
                        409,
                        f"alert {seq} is code-changed: acknowledge it on table {table_id}'s own page, where"
                        " the acknowledgement runs the table on with the installed code",
                        "acknowledge-at-the-table",
                    )
                code_override(session, table_id=table_id, alert=alert.event, actor=actor, note=note)
    except TwoPersonRefusedError as error:
        alert = _alert(engine, table_id, seq)
        raise refuse(
            engine, table_id, actor=actor, error=error, round_id=alert.event.round_id, alert_seq=seq
        ) from None
    return _alert(engine, table_id, seq)


def _alert(engine: Engine, table_id: str, seq: int) -> Alert:
    with read_snapshot(engine) as session:
        [alert] = list_alerts(session, table_id=table_id, after_seq=seq - 1, limit=1)
    return alert
