"""Shift and day reports (docs/api.md, "Reports"): the answer built from the sums
storage/reports.py reads from the round projections; integer cents, no rounding."""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from collections.abc import Mapping
from datetime import datetime
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

from sqlmodel import Session

from ..accounting.closing import DayFigures, RatingSums, add_figures, rating_sums
from ..accounting.gaming_day import Period
from ..accounting.ratings import AdjustableField, Rating
from ..storage.checkpoints import Checkpoint, report_checkpoints
from ..storage.closing import RatingFromRounds, closing_figures, ratings_from_rounds
from ..storage.ratings import ratings_between
from ..storage.reports import THEORY_FIELDS, band_of, period_sums
from .models.reports import (
    CSV_ACCOUNTING_COLUMNS,
    CSV_CHECKPOINT_COLUMNS,
    CSV_COLUMNS,
    CSV_RATING_COLUMNS,
    AccountingLine,
    AccountingSection,
    BankerLine,
    RatingLine,
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
    session: Session,
    *,
    table_id: str,
    kind: str,
    start: datetime,
    end: datetime,
    time_zone: str,
    accounting: Period | None = None,
    pit: str | None = None,
    alert_above: int = 0,
) -> ReportPublic:
    """The table's report of one period: each game, each player position, and the total; with
    ``accounting`` (the gaming day or calendar shift), that period's accounting and ratings."""
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
        accounting=None
        if accounting is None
        else accounting_section(session, tables={table_id: pit}, period=accounting, alert_above=alert_above),
    )


# --- the accounting and the ratings (docs/accounting.md, "The day in the reports") ---------------


def _hold(value: Decimal | None) -> str | None:
    return None if value is None else str(value)


def accounting_line(
    scope: str, figures: DayFigures, ratings: RatingSums, *, alert_above: int, **key: Any
) -> AccountingLine:
    """A table's, pit's or the total's line from its figures (accounting/closing.py)."""
    found = figures.band
    hold_band = figures.hold_band
    return AccountingLine(
        scope=scope,
        **key,
        tables=figures.tables,
        missing=list(figures.missing),
        opener_cents=figures.opener,
        closer_cents=figures.closer,
        fills_cents=figures.fills,
        credits_cents=figures.credits,
        drop_cash_cents=figures.drop_cash,
        drop_markers_cents=figures.drop_markers,
        drop_cents=figures.drop,
        win_cents=figures.win,
        hold_percent=_hold(figures.hold_percent),
        theoretical_rounds=figures.theoretical_rounds,
        theoretical_win_cents=figures.theoretical_win,
        theoretical_hold_percent=_hold(figures.theoretical_hold_percent),
        band_actual_cents=None if found is None else found.actual_cents,
        band_low_cents=None if found is None else found.low_cents,
        band_high_cents=None if found is None else found.high_cents,
        outside_band=None if found is None else found.outside,
        band_low_hold_percent=None if hold_band is None else str(hold_band[0]),
        band_high_hold_percent=None if hold_band is None else str(hold_band[1]),
        settled_rounds=figures.settled_rounds,
        computed_result_cents=figures.computed_result,
        explained_cents=figures.explained,
        variance_cents=figures.variance,
        variance_flagged=figures.flagged(alert_above),
        ratings=ratings.ratings,
        rated_rounds=ratings.rounds,
        rated_wagered_cents=ratings.wagered,
        rated_actual_win_cents=ratings.actual_win,
        rated_theoretical_win_cents=ratings.theoretical_win,
    )


def rating_line(rating: Rating, pit: str | None, from_rounds: RatingFromRounds) -> RatingLine:
    """A rating's figures as shown (``Rating.value``: adjustments in), and whether its recorded
    ones are those computed again from the rounds."""
    return RatingLine(
        table_id=rating.table_id,
        pit=pit,
        rating_id=rating.rating_id,
        player=rating.player,
        seat=rating.seat,
        start=rating.start,
        end=rating.end,
        end_reason=None if rating.end_reason is None else rating.end_reason.value,
        seconds_played=rating.value(AdjustableField.SECONDS_PLAYED),
        rounds=rating.rounds,
        average_wager_cents=rating.value(AdjustableField.AVERAGE_WAGER),
        total_wagered_cents=rating.total_wagered,
        actual_win_cents=rating.value(AdjustableField.ACTUAL_WIN),
        theoretical_win_cents=rating.value(AdjustableField.THEORETICAL_WIN),
        adjustments=len(rating.adjustments),
        matches_rounds=from_rounds.matches(rating),
    )


def accounting_section(
    session: Session, *, tables: Mapping[str, str | None], period: Period, alert_above: int
) -> AccountingSection:
    """The period's accounting over ``tables`` (table id -> pit): each table, each named pit, the
    total, and every rating started in the period, checked against the rounds (storage/closing.py:
    five grouped SELECTs, and four for the ratings, whatever the number of tables)."""
    figures = closing_figures(
        session, table_ids=tables, day=period.day, shift=period.shift, start=period.start, end=period.end
    )
    found = ratings_between(session, table_ids=tables, start=period.start, end=period.end)
    again = ratings_from_rounds(session, table_ids=tables, start=period.start, end=period.end)
    per_table: dict[str, list[Rating]] = defaultdict(list)
    for record in found:
        per_table[record.rating.table_id].append(record.rating)
    sums = {table_id: rating_sums(per_table[table_id]) for table_id in figures}
    lines = [
        accounting_line(
            "table", figures[table_id], sums[table_id], alert_above=alert_above, table_id=table_id, pit=pit
        )
        for table_id, pit in sorted(tables.items())
    ]
    pits = sorted({pit for pit in tables.values() if pit is not None})
    for pit in pits:
        members = [table_id for table_id in sorted(tables) if tables[table_id] == pit]
        lines.append(
            accounting_line(
                "pit",
                add_figures(figures[table_id] for table_id in members),
                sum((sums[table_id] for table_id in members), RatingSums()),
                alert_above=alert_above,
                pit=pit,
            )
        )
    total = accounting_line(
        "total",
        add_figures(figures.values()),
        sum(sums.values(), RatingSums()),
        alert_above=alert_above,
    )
    return AccountingSection(
        gaming_day=period.day,
        shift=period.shift,
        start=period.start,
        end=period.end,
        alert_above_cents=alert_above,
        total=total,
        lines=lines,
        ratings=[
            rating_line(
                record.rating,
                tables.get(record.rating.table_id),
                again.get(record.rating.rating_id, RatingFromRounds()),
            )
            for record in found
        ],
    )


def accounting_rows(section: AccountingSection | None, leading: tuple[str, ...]) -> list[list[Any]]:
    """The CSV rows of a report's accounting: one per accounting line (scope ``accounting-table``,
    ``-pit``, ``-total``), then one per rating (``rating``). ``leading`` names the report's own
    columns before the accounting's: ``scope`` is filled, and ``table_id`` and ``pit`` where the
    report has them (the floor's), the rest empty; then CSV_ACCOUNTING_COLUMNS and
    CSV_RATING_COLUMNS (the table's CSV and the floor's)."""
    if section is None:
        return []

    def cells(values: Mapping[str, Any], names: tuple[str, ...]) -> list[Any]:
        return ["" if values.get(name) is None else values[name] for name in names]

    def lead(values: Mapping[str, Any]) -> list[Any]:
        return cells({name: values.get(name) for name in ("scope", "table_id", "pit")}, leading)

    day = {"gaming_day": section.gaming_day.isoformat(), "shift": section.shift}
    rows = []
    for line in (*section.lines, section.total):
        values = {
            **line.model_dump(),
            **day,
            "scope": f"accounting-{line.scope}",
            "missing": "; ".join(line.missing) or None,
            "win_hold_percent": line.hold_percent,
            "theoretical_hold_percent_of_drop": line.theoretical_hold_percent,
            "variance_flagged": None
            if line.variance_flagged is None
            else "yes"
            if line.variance_flagged
            else "no",
        }
        rows.append([*lead(values), *cells(values, CSV_ACCOUNTING_COLUMNS), *[""] * len(CSV_RATING_COLUMNS)])
    for rating in section.ratings:
        values = {
            **rating.model_dump(),
            **day,
            "scope": "rating",
            "rating_start": rating.start.isoformat(),
            "rating_end": None if rating.end is None else rating.end.isoformat(),
            "rating_rounds": rating.rounds,
            "rating_theoretical_win_cents": rating.theoretical_win_cents,
            "matches_rounds": "yes" if rating.matches_rounds else "no",
        }
        accounting = cells({"gaming_day": day["gaming_day"], "shift": section.shift}, CSV_ACCOUNTING_COLUMNS)
        rows.append([*lead(values), *accounting, *cells(values, CSV_RATING_COLUMNS)])
    return rows


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
    dealer, each signed checkpoint written in the period (scope ``checkpoint``), then the
    accounting's lines and the ratings (``accounting_rows``), as the JSON report carries them."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow((*CSV_COLUMNS, *CSV_CHECKPOINT_COLUMNS, *CSV_ACCOUNTING_COLUMNS, *CSV_RATING_COLUMNS))
    empty = [""] * (len(CSV_CHECKPOINT_COLUMNS) + len(CSV_ACCOUNTING_COLUMNS) + len(CSV_RATING_COLUMNS))
    for line in (found.total, *found.per_game, *found.per_position, *found.per_dealer):
        values = line.model_dump()
        writer.writerow(["" if values[name] is None else values[name] for name in CSV_COLUMNS] + empty)
    after = [""] * (len(CSV_ACCOUNTING_COLUMNS) + len(CSV_RATING_COLUMNS))
    for item in found.checkpoints:
        money = ["checkpoint"] + [""] * (len(CSV_COLUMNS) - 1)
        writer.writerow([*money, *checkpoint_cells(item), *after])
    writer.writerows(accounting_rows(found.accounting, (*CSV_COLUMNS, *CSV_CHECKPOINT_COLUMNS)))
    return out.getvalue()
