"""Shift and day reports (docs/api.md, "Reports"): the answer built from the sums
storage/reports.py reads from the round projections; integer cents, no rounding."""

from __future__ import annotations

import csv
import io
from datetime import datetime

from sqlmodel import Session

from ..storage.reports import period_sums
from .models.reports import CSV_COLUMNS, ReportLine, ReportPublic

_TOTALLED = ("rounds", "settled", "voided", "in_progress", "wins", "pushes", "losses", "wagered_cents",
             "bonus_wagered_cents", "commission_cents", "bonuses_paid_cents", "house_result_cents")


def report(session: Session, *, table_id: str, kind: str, start: datetime, end: datetime,
           time_zone: str) -> ReportPublic:
    """The table's report of one period: each game, each player position, and the total."""
    sums = period_sums(session, table_id=table_id, start=start, end=end)
    per_game = [ReportLine(scope="game", **line) for line in sums.per_game]
    per_position = [
        ReportLine(scope="position", position=line["position"], rounds=line["rounds"], settled=line["rounds"],
                   voided=0, in_progress=0, wins=line["wins"], pushes=line["pushes"], losses=line["losses"],
                   wagered_cents=line["wagered_cents"], bonus_wagered_cents=line["bonus_wagered_cents"],
                   commission_cents=line["commission_cents"], bonuses_paid_cents=line["bonuses_paid_cents"],
                   house_result_cents=-line["net_cents"])  # what the house made of the position
        for line in sums.per_position
    ]
    total = ReportLine(scope="total", **{name: sum(getattr(line, name) for line in per_game) for name in _TOTALLED})
    return ReportPublic(table_id=table_id, kind=kind, start=start, end=end, time_zone=time_zone,  # type: ignore[arg-type]
                        total=total, per_game=per_game, per_position=per_position)


def report_csv(found: ReportPublic) -> str:
    """The report as CSV: one header line, then the total, each game, each position."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for line in (found.total, *found.per_game, *found.per_position):
        values = line.model_dump()
        writer.writerow(["" if values[name] is None else values[name] for name in CSV_COLUMNS])
    return out.getvalue()
