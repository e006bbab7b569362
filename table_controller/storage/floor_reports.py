"""The sums behind the floor's reports: a period over a set of tables, per table, per pit and
per dealer (docs/floor-reports.md).

Two grouped SELECTs, whatever the number of tables: the rounds by (table, dealer), with the same
sums as a table's own report (``reports.sum_columns``: money of settled rounds only, a voided
round returns its wagers), and the alerts the tables raised by (table, dealer, alert). The
groups per table, per pit, per dealer and the total are added up from those rows here: integer
cents, no rounding (the hold is the report's, floor/reports.py).

A round belongs to the period in which it was opened, as in storage/reports.py; its alerts (a
house-way deviation, a device fault during the round) go with it, to its dealer. An alert raised
between rounds (a device fault with no round open) belongs to the period it was raised in, and
to no dealer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from sqlalchemy import and_, cast, func, or_, select
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.sql.expression import ColumnElement
from sqlmodel import Session

from .alerts import RAISED
from .models import Event
from .reports import ROUNDS, SUM_FIELDS, THEORY_FIELDS, _count, sum_columns, theory_of

EVENTS = Event.__table__  # type: ignore[attr-defined]
# alert kinds (table/service.py raises them; storage/alerts.py) counted by the report, by column
DEVIATION_ALERTS: Final = ("house-way-deviation",)
DEVICE_FAULT_ALERTS: Final = ("device-fault", "link-loss")
COMPLIANCE_FIELDS: Final = ("voids", "misdeals", "overrides", "deviations", "device_faults")
LINE_FIELDS: Final = (*SUM_FIELDS, *THEORY_FIELDS, *COMPLIANCE_FIELDS)
_NULLABLE: Final = ("theoretical_win_cents", "theoretical_variance")  # None when no round carries one


@dataclass(frozen=True)
class FloorSums:
    """A period's LINE_FIELDS per table (with its pit), per pit, per dealer and in total.

    Every table asked for has a line (zeros when it dealt no round), and every pit of those
    tables; a dealer has a line when they dealt a round, and ``dealer`` None gathers what
    happened between rounds (device faults)."""

    per_table: list[dict[str, Any]]
    per_pit: list[dict[str, Any]]
    per_dealer: list[dict[str, Any]]
    total: dict[str, Any]


def _empty() -> dict[str, Any]:
    return {name: None if name in _NULLABLE else 0 for name in LINE_FIELDS}


def _add(into: dict[str, Any], line: Mapping[str, Any]) -> None:
    """Add ``line`` to ``into``; a nullable sum stays None while every part of it is."""
    for name in LINE_FIELDS:
        value = line.get(name)
        if value is None:
            continue
        into[name] = value if into[name] is None else into[name] + value


def alert_kind(session: Session) -> ColumnElement[Any]:
    """The ``alert`` of an ``alert.raised`` event's payload (canonical JSON text), in SQL."""
    if session.get_bind().dialect.name == "postgresql":
        return cast(EVENTS.c.payload, JSONB)["alert"].astext
    return func.json_extract(EVENTS.c.payload, "$.alert")


def _round_rows(
    session: Session, ids: list[str], start: datetime, end: datetime
) -> list[tuple[str, str | None, dict[str, Any]]]:
    c = ROUNDS.c
    rows = session.execute(
        select(
            c.table_id,
            c.dealer,
            *sum_columns(),
            _count(c.voided & ~c.misdeal),  # a pit's void; a misdeal voids its round itself
            _count(c.misdeal),
            _count(c.override),
        )
        .where(c.table_id.in_(ids), c.opened_at >= start, c.opened_at < end)
        .group_by(c.table_id, c.dealer)
    ).all()
    width = len(SUM_FIELDS)
    theory = len(THEORY_FIELDS)
    found = []
    for row in rows:
        values = row[2:]
        line = dict(zip(SUM_FIELDS, map(int, values[:width]), strict=True))
        line.update(theory_of(tuple(values[width : width + theory])))
        voids, misdeals, overrides = map(int, values[width + theory :])
        line.update(voids=voids, misdeals=misdeals, overrides=overrides)
        found.append((row[0], row[1], line))
    return found


def _alert_rows(
    session: Session, ids: list[str], start: datetime, end: datetime
) -> list[tuple[str, str | None, dict[str, Any]]]:
    """Deviations and device faults by (table, dealer): an alert of a round in the round's
    period, an alert between rounds in the period it was raised in."""
    e, r = EVENTS.c, ROUNDS.c
    kind = alert_kind(session)
    counted = (*DEVIATION_ALERTS, *DEVICE_FAULT_ALERTS)
    rows = session.execute(
        select(e.table_id, r.dealer, kind, func.count())
        .select_from(EVENTS.outerjoin(ROUNDS, r.round_id == e.round_id))
        .where(
            e.table_id.in_(ids),
            e.kind == RAISED,
            kind.in_(counted),
            or_(
                and_(r.round_id.is_not(None), r.opened_at >= start, r.opened_at < end),
                and_(r.round_id.is_(None), e.created_at >= start, e.created_at < end),
            ),
        )
        .group_by(e.table_id, r.dealer, kind)
    ).all()
    found = []
    for table_id, dealer, alert, count in rows:
        column = "deviations" if alert in DEVIATION_ALERTS else "device_faults"
        found.append((table_id, dealer, {column: int(count)}))
    return found


def floor_sums(
    session: Session, *, tables: Mapping[str, str | None], start: datetime, end: datetime
) -> FloorSums:
    """LINE_FIELDS of the rounds opened in ``[start, end)`` at ``tables`` (table id -> its pit),
    per table, per pit, per dealer and in total: two grouped SELECTs."""
    ids = sorted(tables)
    per_table = {table_id: {"table_id": table_id, "pit": tables[table_id], **_empty()} for table_id in ids}
    pits = sorted({pit for pit in tables.values()}, key=lambda pit: (pit is None, pit or ""))
    per_pit = {pit: {"pit": pit, **_empty()} for pit in pits}
    per_dealer: dict[str | None, dict[str, Any]] = {}
    total = _empty()
    if ids:
        for table_id, dealer, line in [
            *_round_rows(session, ids, start, end),
            *_alert_rows(session, ids, start, end),
        ]:
            _add(per_table[table_id], line)
            _add(per_pit[tables[table_id]], line)
            _add(per_dealer.setdefault(dealer, {"dealer": dealer, **_empty()}), line)
            _add(total, line)
    dealers = sorted(per_dealer, key=lambda name: (name is None, name or ""))
    return FloorSums(
        per_table=list(per_table.values()),
        per_pit=list(per_pit.values()),
        per_dealer=[per_dealer[name] for name in dealers],
        total=total,
    )


__all__ = [
    "COMPLIANCE_FIELDS",
    "DEVIATION_ALERTS",
    "DEVICE_FAULT_ALERTS",
    "LINE_FIELDS",
    "FloorSums",
    "alert_kind",
    "floor_sums",
]
