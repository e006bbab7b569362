"""The floor's reports, a pit boss's to hand over (docs/floor-reports.md): a gaming day or a
shift over the tables a person may see, per table, per pit and per dealer, as JSON and CSV.
The printable page and the PDF are floor/report_page.py.

The sums come from storage/floor_reports.py (integer cents); this module names the hold (the
table report's ``percent``: two places, half-even, a decimal string) and the shift's people.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from datetime import date, datetime
from typing import Any, Literal

from pydantic import BaseModel, Field
from sqlmodel import Session

from ..accounting.gaming_day import Period
from ..api.models.reports import (
    CSV_ACCOUNTING_COLUMNS,
    CSV_CHECKPOINT_COLUMNS,
    CSV_RATING_COLUMNS,
    AccountingSection,
    ReportCheckpoint,
)
from ..api.reports import accounting_rows, accounting_section, checkpoint_cells, percent, report_checkpoint
from ..storage.checkpoints import report_checkpoints
from ..storage.floor_reports import floor_sums
from ..storage.shifts import ShiftRecord

By = Literal["table", "pit", "dealer"]
BY_ORDER: tuple[By, ...] = ("table", "pit", "dealer")

CSV_COLUMNS = (
    "scope",
    "table_id",
    "pit",
    "dealer",
    "rounds",
    "settled",
    "in_progress",
    "voids",
    "misdeals",
    "wagered_cents",
    "bonus_wagered_cents",
    "commission_cents",
    "bonuses_paid_cents",
    "house_result_cents",
    "hold_percent",
    "theoretical_rounds",
    "theoretical_win_cents",
    "theoretical_hold_percent",
    "deviations",
    "overrides",
    "device_faults",
)


class FloorReportLine(BaseModel):
    """Counts and money (integer cents) of one table, pit, dealer or of the whole report. Money
    counts settled rounds only: a voided round (a misdeal included) returns its wagers."""

    scope: Literal["total", "table", "pit", "dealer"]
    table_id: str | None = None
    pit: str | None = Field(None, description="the table's pit (table lines), the pit (pit lines)")
    dealer: str | None = Field(None, description="dealer lines: who dealt; null: between rounds")
    rounds: int = Field(description="rounds opened in the period")
    settled: int
    in_progress: int
    voids: int = Field(description="rounds the pit voided (misdeals apart)")
    misdeals: int = Field(description="rounds voided as misdeals (a card missing or seen twice)")
    wagered_cents: int = Field(description="main wagers of settled rounds")
    bonus_wagered_cents: int
    commission_cents: int = Field(description="commission collected")
    bonuses_paid_cents: int
    house_result_cents: int = Field(description="the house's actual win (+ won, - lost)")
    hold_percent: str | None = Field(
        description="actual win / (main + bonus wagered) x 100, two places half-even, a decimal"
        " string; null when nothing was wagered"
    )
    theoretical_rounds: int = Field(description="settled rounds that carry a theoretical win")
    theoretical_win_cents: int | None = Field(
        description="sum of those rounds' theoretical win; null when none carries one (missing, never 0)"
    )
    theoretical_hold_percent: str | None = Field(description="theoretical win / wagered of those rounds")
    deviations: int = Field(description="dealer settings refused as off the house way")
    overrides: int = Field(description="rounds where the pit let a deviating setting stand")
    device_faults: int = Field(description="device faults and lost device links raised")


class ShiftPublic(BaseModel):
    """A shift and its people (storage/shifts.py)."""

    id: int
    pit: str | None = Field(description="null: the whole floor")
    opened_at: datetime
    opened_by: str
    on_duty: list[str]
    closed_at: datetime | None
    closed_by: str | None
    signed_off: list[str]
    note: str | None
    open: bool


class FloorCheckpoint(ReportCheckpoint):
    """A signed checkpoint of one covered table's chain the report was made under."""

    table_id: str


class FloorReportPublic(BaseModel):
    kind: Literal["day", "shift"]
    day: date | None = Field(description="the gaming day (day reports)")
    time_zone: str = Field(description="the zone of the gaming day and of the printed times")
    start: datetime = Field(description="rounds opened at or after")
    end: datetime = Field(description="rounds opened before (an open shift: the moment of the report)")
    pit: str | None = Field(description="the pit asked for, or a pit user's own (null: every pit they see)")
    table_id: str | None = Field(description="the table asked for")
    by: By | None = Field(description="the grouping asked for; null: every grouping")
    shift: ShiftPublic | None = None
    tables: list[str] = Field(description="the tables the report covers")
    total: FloorReportLine
    lines: list[FloorReportLine] = Field(description="per table, then per pit, then per dealer")
    checkpoints: list[FloorCheckpoint] = Field(
        default_factory=list,
        description="each covered table's signed checkpoints written in the period, and its first"
        " after it (the first to sign every row of the period), table by table: surveillance"
        " compares them with its copy of each table's checkpoint file (docs/audit-chain.md)",
    )
    generated_at: datetime
    accounting: AccountingSection | None = Field(
        None,
        description="the gaming day's (a shift: the calendar shift it opened in) accounting per"
        " table, pit and in total, the counted win reconciled with the rounds, and the ratings",
    )


def shift_public(record: ShiftRecord) -> ShiftPublic:
    return ShiftPublic(
        id=record.id,
        pit=record.pit,
        opened_at=record.opened_at,
        opened_by=record.opened_by,
        on_duty=list(record.on_duty),
        closed_at=record.closed_at,
        closed_by=record.closed_by,
        signed_off=list(record.signed_off),
        note=record.note,
        open=record.is_open,
    )


def _line(scope: str, sums: Mapping[str, Any], **key: Any) -> FloorReportLine:
    theoretical = sums["theoretical_win_cents"]
    return FloorReportLine(
        scope=scope,
        **key,
        rounds=sums["rounds"],
        settled=sums["settled"],
        in_progress=sums["in_progress"],
        voids=sums["voids"],
        misdeals=sums["misdeals"],
        wagered_cents=sums["wagered_cents"],
        bonus_wagered_cents=sums["bonus_wagered_cents"],
        commission_cents=sums["commission_cents"],
        bonuses_paid_cents=sums["bonuses_paid_cents"],
        house_result_cents=sums["house_result_cents"],
        hold_percent=percent(sums["house_result_cents"], sums["wagered_cents"] + sums["bonus_wagered_cents"]),
        theoretical_rounds=sums["theoretical_rounds"],
        theoretical_win_cents=theoretical,
        theoretical_hold_percent=None
        if theoretical is None
        else percent(theoretical, sums["covered_wagered_cents"]),
        deviations=sums["deviations"],
        overrides=sums["overrides"],
        device_faults=sums["device_faults"],
    )


def floor_report(
    session: Session,
    *,
    kind: Literal["day", "shift"],
    tables: Mapping[str, str | None],
    start: datetime,
    end: datetime,
    time_zone: str,
    now: datetime,
    day: date | None = None,
    pit: str | None = None,
    table_id: str | None = None,
    by: By | None = None,
    shift: ShiftRecord | None = None,
    accounting: Period | None = None,
    alert_above: int = 0,
) -> FloorReportPublic:
    """The report of ``[start, end)`` over ``tables`` (table id -> pit), already scope-filtered;
    with ``accounting`` (a gaming day or calendar shift), its accounting and ratings."""
    sums = floor_sums(session, tables=tables, start=start, end=end)
    groups = {
        "table": [_line("table", s, table_id=s["table_id"], pit=s["pit"]) for s in sums.per_table],
        "pit": [_line("pit", s, pit=s["pit"]) for s in sums.per_pit],
        "dealer": [_line("dealer", s, dealer=s["dealer"]) for s in sums.per_dealer],
    }
    return FloorReportPublic(
        kind=kind,
        day=day,
        time_zone=time_zone,
        start=start,
        end=end,
        pit=pit,
        table_id=table_id,
        by=by,
        shift=None if shift is None else shift_public(shift),
        tables=sorted(tables),
        total=_line("total", sums.total),
        lines=[line for name in BY_ORDER if by in (None, name) for line in groups[name]],
        checkpoints=[
            FloorCheckpoint(table_id=item.table_id, **report_checkpoint(item, in_period).model_dump())
            for item, in_period in report_checkpoints(session, table_ids=sorted(tables), start=start, end=end)
        ],
        generated_at=now,
        accounting=None
        if accounting is None
        else accounting_section(session, tables=tables, period=accounting, alert_above=alert_above),
    )


def floor_report_csv(found: FloorReportPublic) -> str:
    """The report as CSV: one header line (CSV_COLUMNS, then the checkpoint columns), the total,
    each line, then each checkpoint the report was made under (scope ``checkpoint``, its table
    named, the money columns empty), then the accounting's lines and the ratings (api/reports.py's
    ``accounting_rows``: scopes ``accounting-table``, ``-pit``, ``-total`` and ``rating``), as the
    table's CSV carries them."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow((*CSV_COLUMNS, *CSV_CHECKPOINT_COLUMNS, *CSV_ACCOUNTING_COLUMNS, *CSV_RATING_COLUMNS))
    after = [""] * (len(CSV_ACCOUNTING_COLUMNS) + len(CSV_RATING_COLUMNS))
    empty = [""] * len(CSV_CHECKPOINT_COLUMNS) + after
    for line in (found.total, *found.lines):
        values = line.model_dump()
        writer.writerow(["" if values[name] is None else values[name] for name in CSV_COLUMNS] + empty)
    for item in found.checkpoints:
        named = {"scope": "checkpoint", "table_id": item.table_id}
        writer.writerow([named.get(name, "") for name in CSV_COLUMNS] + checkpoint_cells(item) + after)
    writer.writerows(accounting_rows(found.accounting, (*CSV_COLUMNS, *CSV_CHECKPOINT_COLUMNS)))
    return out.getvalue()


__all__ = [
    "BY_ORDER",
    "CSV_COLUMNS",
    "By",
    "FloorCheckpoint",
    "FloorReportLine",
    "FloorReportPublic",
    "ShiftPublic",
    "floor_report",
    "floor_report_csv",
    "shift_public",
]
