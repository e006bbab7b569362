"""Alerts as the chain holds them: raised (``alert.raised``) and acknowledged (``alert.acknowledged``).

The table service raises alerts (misdeal, house-way deviation, override, void, device fault,
link loss) as audit events. The pit acknowledges one with a note: that is one more audit event,
naming the actor and the ``seq`` of the alert, so an alert and its acknowledgement are both
evidence and neither is ever edited (docs/api.md). An alert's id is the chain ``seq`` of its
``alert.raised`` event.

Two people (docs/api.md, "Two people"): nobody acknowledges the alert of their own act. The
person who voided or overrode (or confirmed another's void or override) may not acknowledge
its ``void`` or ``override`` alert, nor the ``house-way-deviation`` alert of a round they
overrode, nor a ``house-way-deviation`` alert their own refused setting raised (a pit user
may set the dealer's hand): a second pit user reviews it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session, col, select

from .approvals import REQUESTED, TwoPersonRefusedError
from .audit import append_event, lock_table
from .chain import check_table_id
from .errors import StorageError
from .models import REASON_MAX, Event, EventPublic

RAISED = "alert.raised"
ACKNOWLEDGED = "alert.acknowledged"
OWN_ACTS = ("void", "override")  # alerts about a person's own act (their actor, and confirmed_by)


class AlertNotFoundError(StorageError, LookupError):
    """No alert with that id (chain seq) at this table."""


class AlertAlreadyAcknowledgedError(StorageError):
    """The alert was acknowledged already: one acknowledgement per alert."""


@dataclass(frozen=True, slots=True)
class Acknowledgement:
    seq: int
    actor: str
    note: str
    created_at: Any


@dataclass(frozen=True, slots=True)
class Alert:
    """An ``alert.raised`` event and, once the pit has seen it, its acknowledgement."""

    event: EventPublic
    acknowledged: Acknowledgement | None

    @property
    def seq(self) -> int:
        return self.event.seq

    @property
    def payload(self) -> dict[str, Any]:
        return self.event.payload_data()

    @property
    def kind(self) -> str:
        """What the alert is about (``misdeal``, ``void``...: its payload's ``alert``)."""
        return str(self.payload.get("alert", ""))


def acknowledgements(session: Session, *, table_id: str) -> dict[int, Acknowledgement]:
    """Every acknowledgement of the table, by the seq of the alert it acknowledges."""
    check_table_id(table_id)
    rows = session.exec(
        select(Event).where(Event.table_id == table_id, Event.kind == ACKNOWLEDGED).order_by(col(Event.seq))
    )
    found: dict[int, Acknowledgement] = {}
    for row in rows:
        data = json.loads(row.payload)
        found.setdefault(
            int(data["alert_seq"]), Acknowledgement(row.seq, row.actor, data.get("note", ""), row.created_at)
        )
    return found


def list_alerts(
    session: Session, *, table_id: str, open_only: bool = False, after_seq: int = 0, limit: int = 100
) -> list[Alert]:
    """The table's alerts in chain order after ``after_seq``; ``open_only`` leaves out acknowledged ones."""
    acks = acknowledgements(session, table_id=table_id)
    statement = select(Event).where(Event.table_id == table_id, Event.kind == RAISED, Event.seq > after_seq)
    if open_only and acks:
        statement = statement.where(col(Event.seq).not_in(list(acks)))
    rows = session.exec(statement.order_by(col(Event.seq)).limit(limit))
    return [Alert(EventPublic.model_validate(row, from_attributes=True), acks.get(row.seq)) for row in rows]


def acknowledge_alert(
    session: Session, *, table_id: str, alert_seq: int, actor: str, note: str
) -> EventPublic:
    """Record that ``actor`` acknowledged alert ``alert_seq`` with ``note``; once per alert.

    Takes the table's write lock first, so two acknowledgements of one alert cannot both pass
    the check.
    """
    cleaned = note.strip()
    if not cleaned or len(cleaned) > REASON_MAX:
        raise ValueError(f"note must be 1..{REASON_MAX} characters")
    lock_table(session, table_id=table_id)
    raised = session.exec(
        select(Event).where(Event.table_id == table_id, Event.seq == alert_seq, Event.kind == RAISED)
    ).first()
    if raised is None:
        raise AlertNotFoundError(f"no alert {alert_seq} at table {table_id}")
    previous = acknowledgements(session, table_id=table_id).get(alert_seq)
    if previous is not None:
        raise AlertAlreadyAcknowledgedError(
            f"alert {alert_seq} was acknowledged by {previous.actor} (event {previous.seq})"
        )
    data = json.loads(raised.payload)
    alert_kind = data.get("alert", "")
    _check_not_own_act(session, raised, alert_kind, data, actor)
    return append_event(
        session,
        table_id=table_id,
        round_id=raised.round_id,
        kind=ACKNOWLEDGED,
        actor=actor,
        payload={"alert_seq": alert_seq, "alert": alert_kind, "note": cleaned},
    )


def alert_actors(session: Session, *, table_id: str, round_id: str, alert: str) -> set[str]:
    """Who raised the round's alerts of kind ``alert`` (for a house-way deviation: who made the
    refused setting)."""
    rows = session.exec(
        select(Event).where(Event.table_id == table_id, Event.round_id == round_id, Event.kind == RAISED)
    )
    return {row.actor for row in rows if json.loads(row.payload).get("alert") == alert}


def _involved(row: Event | EventPublic, data: dict[str, Any]) -> set[str]:
    return {row.actor, *([data["confirmed_by"]] if data.get("confirmed_by") else [])}


def may_acknowledge(session: Session, *, alert: Alert, actor: str) -> bool:
    """Whether ``actor`` (a pit user) may acknowledge ``alert`` now: it is still open and not
    about their own act (the refusals of :func:`acknowledge_alert`), so a page offers the
    acknowledgement only to those it would not refuse."""
    if alert.acknowledged is not None:
        return False
    return _own_act(session, alert.event, alert.kind, alert.payload, actor) is None


def _check_not_own_act(
    session: Session, raised: Event | EventPublic, alert_kind: str, data: dict[str, Any], actor: str
) -> None:
    """Refuse ``actor`` acknowledging the alert of their own void or override, or the
    deviation alert of a round they overrode (:class:`TwoPersonRefusedError`)."""
    refused = _own_act(session, raised, alert_kind, data, actor)
    if refused is not None:
        raise refused


def _own_act(
    session: Session, raised: Event | EventPublic, alert_kind: str, data: dict[str, Any], actor: str
) -> TwoPersonRefusedError | None:
    if alert_kind in OWN_ACTS and actor in _involved(raised, data):
        return TwoPersonRefusedError(
            f"{actor} took part in the {alert_kind} of alert {raised.seq}: a second pit user acknowledges it",
            rule="own-act",
        )
    if alert_kind == "house-way-deviation" and actor == raised.actor:
        return TwoPersonRefusedError(
            f"{actor} made the setting refused in alert {raised.seq}: a second pit user acknowledges "
            "its house-way deviation",
            rule="own-act",
        )
    if alert_kind == "house-way-deviation" and raised.round_id is not None:
        overrides = session.exec(
            select(Event).where(
                Event.table_id == raised.table_id,
                Event.round_id == raised.round_id,
                col(Event.kind).in_((RAISED, REQUESTED)),
            )
        )
        for row in overrides:
            override = json.loads(row.payload)
            is_override = override.get("alert") == "override" or override.get("action") == "override"
            if is_override and actor in _involved(row, override):
                return TwoPersonRefusedError(
                    f"{actor} overrode the dealer's setting in round {raised.round_id}: a second pit"
                    f" user acknowledges its house-way deviation (alert {raised.seq})",
                    rule="own-act",
                )
    return None


__all__ = [
    "ACKNOWLEDGED",
    "OWN_ACTS",
    "RAISED",
    "Acknowledgement",
    "Alert",
    "AlertAlreadyAcknowledgedError",
    "AlertNotFoundError",
    "acknowledge_alert",
    "acknowledgements",
    "alert_actors",
    "list_alerts",
    "may_acknowledge",
]
