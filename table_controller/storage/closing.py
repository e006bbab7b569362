"""The sums behind the accounting in the day and shift reports, for any number of tables in a
fixed number of grouped SELECTs (docs/accounting.md, "The day in the reports").

For each table of a gaming day (or one of its shifts): the signed opener and closer, the fills
and credits delivered in the period and not voided, the drop of the day (of the shift: its
entries), the named lines of the period, and the settled rounds opened in the period: their
house result (the controller's computed result) and the theoretical win and variance of those
that carry one (reports.py's ``_theory_columns``, the reports' one definition). The same rules
as a table's own day (table/accounting.py's ``day_accounting``, accounting/win.py's
``account_table``), summed in the query rather than read row by row: a test holds the two to
the same figures. Integer cents; the figures are built by accounting/closing.py.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime
from typing import Any

from sqlalchemy import func, select
from sqlmodel import Session

from ..accounting.chips import CountKind
from ..accounting.closing import DayFigures, table_figures
from ..accounting.drop import DropKind
from ..accounting.slips import SlipKind
from .accounting import AccountingCount, AccountingDrop, AccountingLine, AccountingSlip
from .reports import ROUNDS, _count, _settled_only, _theory_columns, theory_of

COUNTS = AccountingCount.__table__  # type: ignore[attr-defined]
SLIPS = AccountingSlip.__table__  # type: ignore[attr-defined]
DROP = AccountingDrop.__table__  # type: ignore[attr-defined]
LINES = AccountingLine.__table__  # type: ignore[attr-defined]


def _of_period(table: Any, day: date, shift: str | None) -> tuple[Any, ...]:
    """The rows kept for (day, shift): the day's own (shift NULL) or that shift's."""
    c = table.c
    return (c.gaming_day == day, c.shift.is_(None) if shift is None else c.shift == shift)


def closing_figures(
    session: Session,
    *,
    table_ids: Iterable[str],
    day: date,
    shift: str | None,
    start: datetime,
    end: datetime,
) -> dict[str, DayFigures]:
    """Each table's ``DayFigures`` of gaming day ``day`` (or its ``shift``) whose instants are
    ``[start, end)``: five grouped SELECTs whatever the number of tables."""
    ids = sorted(set(table_ids))
    if not ids:
        return {}
    counts: dict[tuple[str, str], int] = {}
    for table_id, kind, value in session.execute(
        select(COUNTS.c.table_id, COUNTS.c.kind, COUNTS.c.value_cents)
        .where(COUNTS.c.table_id.in_(ids), *_of_period(COUNTS, day, shift), COUNTS.c.signed_at.is_not(None))
        .order_by(COUNTS.c.id)
    ).all():
        counts.setdefault((table_id, kind), int(value))  # one count of a kind: the store refuses a second
    slips: dict[tuple[str, str], int] = {
        (table_id, kind): int(total)
        for table_id, kind, total in session.execute(
            select(SLIPS.c.table_id, SLIPS.c.kind, func.sum(SLIPS.c.value_cents))
            .where(
                SLIPS.c.table_id.in_(ids),
                SLIPS.c.delivered_at >= start,
                SLIPS.c.delivered_at < end,
                SLIPS.c.voided_at.is_(None),
            )
            .group_by(SLIPS.c.table_id, SLIPS.c.kind)
        ).all()
    }
    drop_where = [DROP.c.table_id.in_(ids), DROP.c.gaming_day == day]
    if shift is not None:  # a shift's drop is its own entries; the day's, every entry of the day
        drop_where.append(DROP.c.shift == shift)
    drop: dict[tuple[str, str], int] = {
        (table_id, kind): int(total)
        for table_id, kind, total in session.execute(
            select(DROP.c.table_id, DROP.c.kind, func.sum(DROP.c.amount_cents))
            .where(*drop_where)
            .group_by(DROP.c.table_id, DROP.c.kind)
        ).all()
    }
    lines: dict[str, int] = {
        table_id: int(total)
        for table_id, total in session.execute(
            select(LINES.c.table_id, func.sum(LINES.c.amount_cents))
            .where(LINES.c.table_id.in_(ids), *_of_period(LINES, day, shift))
            .group_by(LINES.c.table_id)
        ).all()
    }
    r = ROUNDS.c
    rounds: dict[str, tuple[int, int, dict[str, Any]]] = {}
    for row in session.execute(
        select(
            r.table_id,
            _count(r.phase == "closed"),
            _settled_only(r.house_result_cents),
            *_theory_columns(),
        )
        .where(r.table_id.in_(ids), r.opened_at >= start, r.opened_at < end)
        .group_by(r.table_id)
    ).all():
        rounds[row[0]] = (int(row[1]), int(row[2]), theory_of(tuple(row[3:])))
    found = {}
    for table_id in ids:
        settled, computed, theory = rounds.get(table_id, (0, 0, theory_of((0, 0, 0, None, None))))
        found[table_id] = table_figures(
            table_id,
            opener=counts.get((table_id, CountKind.OPENER.value)),
            closer=counts.get((table_id, CountKind.CLOSER.value)),
            fills=slips.get((table_id, SlipKind.FILL.value), 0),
            credits=slips.get((table_id, SlipKind.CREDIT.value), 0),
            drop_cash=drop.get((table_id, DropKind.CASH.value), 0),
            drop_markers=drop.get((table_id, DropKind.MARKER.value), 0),
            explained=lines.get(table_id, 0),
            settled_rounds=settled,
            computed_result=computed,
            theoretical_rounds=theory["theoretical_rounds"],
            covered_result=theory["covered_house_result_cents"],
            theoretical_win=theory["theoretical_win_cents"],
            theoretical_variance=theory["theoretical_variance"],
        )
    return found


__all__ = ["closing_figures"]
