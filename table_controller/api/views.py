"""Building the Public models from the service and the store."""

from __future__ import annotations

from sqlmodel import Session

from ..service import TableService
from ..storage.alerts import Alert, list_alerts
from .models.table import (
    AlertPublic,
    DeviceHealthPublic,
    FaultPublic,
    TableStatePublic,
    round_state_view,
)

OPEN_ALERTS_SHOWN = 100


def alert_view(alert: Alert) -> AlertPublic:
    data = dict(alert.payload)
    kind = str(data.pop("alert", ""))
    detail = str(data.pop("detail", ""))
    ack = alert.acknowledged
    return AlertPublic(
        seq=alert.seq, alert=kind, detail=detail, round_id=alert.event.round_id, actor=alert.event.actor,
        raised_at=alert.event.created_at, data=data,
        acknowledged_by=None if ack is None else ack.actor,
        acknowledged_at=None if ack is None else ack.created_at,
        note=None if ack is None else ack.note,
        acknowledgement_seq=None if ack is None else ack.seq,
    )


def devices(service: TableService) -> list[DeviceHealthPublic]:
    """Each device the table is configured with, and any device with an open fault."""
    faults = list(dict(service.faults).values())  # a copy: the service's threads may change it
    names = ["shuffler"]
    if service.settings.dice.source == "shaker":
        names.append("dice-shaker")
    names += sorted({f.device for f in faults} - set(names))
    health = []
    for name in names:
        open_faults = [FaultPublic(kind=f.kind, detail=f.detail) for f in faults if f.device == name]
        health.append(DeviceHealthPublic(device=name, status="fault" if open_faults else "ok", faults=open_faults))
    return health


def table_state(service: TableService, session: Session) -> TableStatePublic:
    """The table now: the service's round (an immutable snapshot), open alerts, devices."""
    state = service.round
    alerts = list_alerts(session, table_id=service.table_id, open_only=True, limit=OPEN_ALERTS_SHOWN)
    return TableStatePublic(
        table_id=service.table_id,
        game=service.settings.game.value,
        house_way=service.settings.house_way,
        table_open=service.table_open,
        round=None if state is None else round_state_view(state),
        open_alerts=[alert_view(a) for a in alerts],
        devices=devices(service),
    )
