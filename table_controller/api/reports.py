"""Shift and day reports (docs/api.md, "Reports"): the answer built from the sums
storage/reports.py reads from the round projections; integer cents, no rounding."""

from __future__ import annotations

import csv
import io
from datetime import datetime
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

from sqlmodel import Session

from ..storage.checkpoints import Checkpoint, report_checkpoints
from ..storage.reports import THEORY_FIELDS, band_of, period_sums
from .models.reports import (
    CSV_CHECKPOINT_COLUMNS,
    CSV_COLUMNS,
    BankerLine,
    ReportCheckpoint,
    ReportLine,
    ReportPublic,
)

_TOTALLED = (
    "rounds",
    "settled",
    "voided",
    "in_progress",
    "wins",
    "pushes",
    "losses",
    "wagered_cents",
    "bonus_wagered_cents",
    "commission_cents",
    "bonuses_paid_cents",
    "house_result_cents",
)
_CENT = Decimal("0.01")


def percent(part: int, whole: int) -> str | None:
    """``part / whole`` x 100 as a decimal string, two places, half-even; None for a zero whole."""
    if not whole:
        return None
    return str((Decimal(part) * 100 / Decimal(whole)).quantize(_CENT, rounding=ROUND_HALF_EVEN))


def _with_theory(line: dict[str, Any]) -> dict[str, Any]:
    """A grouped line (storage) with hold, theoretical win and band as the report shows them."""
    out = {
        name: value
        for name, value in line.items()
        if name not in ("covered_wagered_cents", "covered_house_result_cents")
    }
    out["hold_percent"] = percent(
        line["house_result_cents"], line["wagered_cents"] + line["bonus_wagered_cents"]
    )
    found = band_of(line)
    if found is not None:
        out.update(
            theoretical_hold_percent=percent(found.theoretical_cents, line["covered_wagered_cents"]),
            band_actual_cents=found.actual_cents,
            band_low_cents=found.low_cents,
            band_high_cents=found.high_cents,
            outside_band=found.outside,
        )
    return out


def _total_theory(lines: list[dict[str, Any]]) -> dict[str, Any]:
    """THEORY_FIELDS summed over lines; a nullable sum stays None when every line's is."""
    total: dict[str, Any] = {}
    for name in THEORY_FIELDS:
        values = [line[name] for line in lines if line[name] is not None]
        total[name] = (
            sum(values) if values or name not in ("theoretical_win_cents", "theoretical_variance") else None
        )
    return total


def report(
    session: Session, *, table_id: str, kind: str, start: datetime, end: datetime, time_zone: str
) -> ReportPublic:
    """The table's report of one period: each game, each player position, and the total."""
    sums = period_sums(session, table_id=table_id, start=start, end=end)
    per_game = [ReportLine(scope="game", **_with_theory(line)) for line in sums.per_game]
    per_dealer = [ReportLine(scope="dealer", **_with_theory(line)) for line in sums.per_dealer]
    per_position = [
        ReportLine(
            scope="position",
            position=line["position"],
            rounds=line["rounds"],
            settled=line["rounds"],
            voided=0,
            in_progress=0,
            wins=line["wins"],
            pushes=line["pushes"],
            losses=line["losses"],
            wagered_cents=line["wagered_cents"],
            bonus_wagered_cents=line["bonus_wagered_cents"],
            commission_cents=line["commission_cents"],
            bonuses_paid_cents=line["bonuses_paid_cents"],
            house_result_cents=-line["net_cents"],  # what the house made of the position
            hold_percent=percent(-line["net_cents"], line["wagered_cents"] + line["bonus_wagered_cents"]),
        )
        for line in sums.per_position
    ]
    total_sums = {name: sum(line[name] for line in sums.per_game) for name in _TOTALLED}
    total = ReportLine(scope="total", **_with_theory({**total_sums, **_total_theory(sums.per_game)}))
    return ReportPublic(
        table_id=table_id,
        kind=kind,
        start=start,
        end=end,
        time_zone=time_zone,
        total=total,
        per_game=per_game,
        per_position=per_position,
        per_dealer=per_dealer,
        per_banker=[BankerLine(**line) for line in sums.per_banker],
        checkpoints=[
            report_checkpoint(item, in_period)
            for item, in_period in report_checkpoints(session, table_ids=[table_id], start=start, end=end)
        ],
    )


def report_checkpoint(item: Checkpoint, in_period: bool) -> ReportCheckpoint:
    """A checkpoint as a report carries it (the table's and the floor's)."""
    return ReportCheckpoint(
        seq=item.seq,
        hash=item.hash,
        at=item.at,
        reason=item.reason,
        signature=item.signature,
        in_period=in_period,
    )


def checkpoint_cells(item: ReportCheckpoint) -> list[Any]:
    """The CSV_CHECKPOINT_COLUMNS of one checkpoint line (the table's CSV and the floor's)."""
    return [item.seq, item.hash, item.at, item.reason, item.signature, "yes" if item.in_period else "no"]


def report_csv(found: ReportPublic) -> str:
    """The report as CSV: one header line, then the total, each game, each position, each
    dealer, and each signed checkpoint written in the period (scope ``checkpoint``), as the
    JSON report carries them."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow((*CSV_COLUMNS, *CSV_CHECKPOINT_COLUMNS))
    empty = [""] * len(CSV_CHECKPOINT_COLUMNS)
    for line in (found.total, *found.per_game, *found.per_position, *found.per_dealer):
        values = line.model_dump()
        writer.writerow(["" if values[name] is None else values[name] for name in CSV_COLUMNS] + empty)
    for item in found.checkpoints:
        money = ["checkpoint"] + [""] * (len(CSV_COLUMNS) - 1)
        writer.writerow([*money, *checkpoint_cells(item)])
    return out.getvalue()
