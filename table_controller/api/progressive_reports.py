"""A progressive pool's gaming day as JSON, CSV, a printable page and a PDF (docs/api.md,
"Progressive reports"; docs/progressive.md, "The day's reconciliation").

The figures are accounting/progressive_day.py's, walked over the pool's chain up to the
period's end (storage/progressive_reads.py); when nothing has been written to the chain since,
the meters the displays show (the pool's projection, which the meter page and the table page
read) are compared with the chain's end too: the sign-to-meter check of PRG-32. JSON and CSV
carry integer cents; the page and the PDF dollars with thousands separators
(game/money.format_cents). The page is one self-contained document like the floor's reports
(floor/report_page.py: its print layout, its Content-Security-Policy, WeasyPrint for the PDF),
so the printed page and the PDF never differ.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Sequence
from datetime import UTC, date, datetime
from html import escape
from typing import Any
from zoneinfo import ZoneInfo

from pydantic import BaseModel
from sqlmodel import Session

from ..accounting.gaming_day import GamingDayCalendar
from ..accounting.progressive_day import display_variances, entries_of, pool_day
from ..floor.report_page import PAGE_SIZES, Paper, dollars, page_pdf
from ..storage.floor import chain_heads
from ..storage.progressive import pool_chain, stored_pool
from ..storage.progressive_reads import pool_chain_until
from .errors import ApiError
from .models.progressive import (
    DayAdjustmentPublic,
    DayHitPublic,
    DayParameterChangePublic,
    DayPaymentPublic,
    DayStatusPublic,
    DayVariancePublic,
    LevelDayPublic,
    ProgressiveDayPublic,
    TableContributionsPublic,
)


def progressive_day(
    session: Session,
    *,
    pool_id: str,
    calendar: GamingDayCalendar,
    day: date,
    shift: str | None,
    system: str,
    now: datetime | None = None,
) -> ProgressiveDayPublic:
    """The pool's gaming day ``day`` (or its ``shift``) reconciled. 404 when the pool did not
    exist before the period's end."""
    try:
        period = calendar.day_period(day) if shift is None else calendar.shift_period(day, shift)
    except OverflowError:  # a day at the calendar's ends (9999-12-31 has no next day to end on)
        raise ApiError(422, f"gaming day {day.isoformat()} is outside the calendar") from None
    events = pool_chain_until(session, pool_id=pool_id, before=period.end)
    if not events:
        raise ApiError(404, f"pool {pool_id} has no record before {period.end.isoformat()}", "not-found")
    found = pool_day(entries_of(events), pool_id=pool_id, start=period.start, end=period.end, system=system)
    variances = [
        DayVariancePublic(
            source="chain",
            seq=v.seq,
            at=v.at,
            level=v.level,
            field="meter",
            recorded_cents=v.recorded,
            computed_cents=v.computed,
            variance_cents=None if v.recorded is None else v.amount,
            detail=v.detail,
        )
        for v in found.variances
    ]
    head = chain_heads(session, chains=[pool_chain(pool_id)])[pool_chain(pool_id)]
    row = stored_pool(session, pool_id=pool_id)
    display_checked = head == found.last_seq and row is not None
    if display_checked and row is not None:
        shown = {name: level.get("meters", {}) for name, level in json.loads(row.state)["levels"].items()}
        variances += [
            DayVariancePublic(
                source="display",
                seq=None,
                at=None,
                level=v.level,
                field=v.field,
                recorded_cents=v.displayed,
                computed_cents=v.chained,
                variance_cents=v.amount,
                detail=f"the displays show {v.field} {dollars(v.displayed)}, the chain {dollars(v.chained)}",
            )
            for v in display_variances(found, shown)
        ]
    return ProgressiveDayPublic(
        pool_id=pool_id,
        name=found.name,
        gaming_day=day,
        shift=shift,
        start=period.start,
        end=period.end,
        time_zone=calendar.zone,
        generated_at=now or datetime.now(UTC),
        last_seq=found.last_seq,
        events=found.events,
        display_checked=display_checked,
        reconciled=not variances,
        levels=[
            LevelDayPublic(
                level=level.level,
                base_cents=level.base,
                start_meter_cents=level.start_meter,
                contributions_cents=level.contributions,
                wagers=level.wagers,
                wagered_cents=level.wagered,
                hits_cents=level.hits,
                hit_count=level.hit_count,
                seeds_cents=level.seeds,
                rolled_forward_cents=level.rolled_forward,
                adjustments_cents=level.adjustments,
                computed_end_meter_cents=level.computed_end_meter,
                end_meter_cents=level.end_meter,
                variance_cents=level.variance,
                start_reserve_cents=level.start_reserve,
                to_reserve_cents=level.to_reserve,
                seeded_from_reserve_cents=level.seeded_from_reserve,
                end_reserve_cents=level.end_reserve,
                start_overflow_cents=level.start_overflow,
                to_overflow_cents=level.to_overflow,
                end_overflow_cents=level.end_overflow,
                start_locked_cents=level.start_locked,
                paid_cents=level.paid,
                paid_by_system_cents=level.paid_by_system,
                paid_by_attendant_cents=level.paid_by_attendant,
                end_locked_cents=level.end_locked,
                accrued_cents=level.accrued,
            )
            for level in found.levels
        ],
        per_table=[
            TableContributionsPublic(
                table_id=t.table_id,
                wagers=t.wagers,
                wagered_cents=t.wagered,
                to_meters_cents=t.to_meters,
                to_reserves_cents=t.to_reserves,
                to_overflows_cents=t.to_overflows,
            )
            for t in found.per_table
        ],
        hits=[
            DayHitPublic(
                hit_id=h.hit_id,
                seq=h.seq,
                at=h.at,
                round_id=h.round_id,
                table_id=h.table_id,
                position=h.position,
                level=h.level,
                line=h.line,
                share_bp=h.share_bp,
                order=h.order,
                meter_before_cents=h.meter_before,
                amount_cents=h.amount,
                meter_after_cents=h.meter_after,
                held=h.held,
                paid_at=h.paid_at,
                paid_by=h.paid_by,
                verified_by=h.verified_by,
            )
            for h in found.hits
        ],
        payments=[
            DayPaymentPublic(
                hit_id=p.hit_id,
                seq=p.seq,
                at=p.at,
                level=p.level,
                amount_cents=p.amount,
                paid_by=p.paid_by,
                verified_by=p.verified_by,
                by_system=p.by_system,
            )
            for p in found.payments
        ],
        adjustments=[
            DayAdjustmentPublic(
                seq=a.seq,
                at=a.at,
                level=a.level,
                amount_cents=a.amount,
                reason=a.reason,
                requested_by=a.requested_by,
                approved_by=a.approved_by,
                note=a.note,
                meter_before_cents=a.meter_before,
                meter_after_cents=a.meter_after,
            )
            for a in found.adjustments
        ],
        parameter_changes=[
            DayParameterChangePublic(
                seq=c.seq,
                at=c.at,
                level=c.level,
                requested_by=c.requested_by,
                approved_by=c.approved_by,
                rate_changed=c.rate_changed,
                before=dict(c.before),
                after=dict(c.after),
            )
            for c in found.parameter_changes
        ],
        statuses=[DayStatusPublic(seq=s.seq, at=s.at, open=s.open, reason=s.reason) for s in found.statuses],
        variances=variances,
    )


# --------------------------------------------------------------------------- CSV

_CSV_SECTIONS: tuple[tuple[str, str, str], ...] = (
    # (the CSV's section, the report's list, the field that names an item of it)
    ("level", "levels", "level"),
    ("table", "per_table", "table_id"),
    ("hit", "hits", "hit_id"),
    ("payment", "payments", "hit_id"),
    ("adjustment", "adjustments", "seq"),
    ("parameter-change", "parameter_changes", "seq"),
    ("status", "statuses", "seq"),
    ("variance", "variances", "level"),
)


def _csv_value(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True, separators=(",", ":"))
    return value


def progressive_day_csv(found: ProgressiveDayPublic) -> str:
    """The day as ``section,item,field,value`` lines, one figure a line (integer cents), as the
    accounting's day CSV: the period first, then each level, table, hit, payment, adjustment,
    parameter change, opening or closing, and variance."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(["section", "item", "field", "value"])
    for name in ("pool_id", "name", "gaming_day", "shift", "start", "end", "time_zone", "generated_at"):
        writer.writerow(["period", "", name, _csv_value(getattr(found, name))])
    for name in ("last_seq", "events", "display_checked", "reconciled"):
        writer.writerow(["period", "", name, _csv_value(getattr(found, name))])
    for section, attribute, key in _CSV_SECTIONS:
        items: Sequence[BaseModel] = getattr(found, attribute)
        for index, item in enumerate(items, start=1):
            values = item.model_dump()
            label = values[key] if values[key] is not None else index
            for field_name, value in values.items():
                if field_name != key:
                    writer.writerow([section, label, field_name, _csv_value(value)])
    return out.getvalue()


# --------------------------------------------------------------------------- the printed page

_STYLE = """
@page {{
  size: {size};
  margin: 12mm 12mm 14mm 12mm;
  @bottom-right {{ content: "page " counter(page) " of " counter(pages); font: 7pt sans-serif; color: #444; }}
}}
html {{ font: 8pt/1.3 "DejaVu Sans", Arial, sans-serif; color: #000; background: #fff; }}
body {{ margin: 0 auto; max-width: 255mm; }}
h1 {{ font-size: 13pt; margin: 0 0 2mm; }}
h2 {{ font-size: 10pt; margin: 5mm 0 1.5mm; break-after: avoid; page-break-after: avoid; }}
dl.period {{ display: grid; grid-template-columns: max-content 1fr; gap: 0.5mm 4mm; margin: 0; }}
dl.period dt {{ font-weight: bold; }}
dl.period dd {{ margin: 0; }}
table {{ width: 100%; border-collapse: collapse; }}
thead {{ display: table-header-group; }}
tr {{ break-inside: avoid; page-break-inside: avoid; }}
th, td {{ border: 0.3mm solid #777; padding: 0.6mm 1mm; vertical-align: top; }}
th {{ background: #e8e8e8; font-weight: bold; text-align: left; }}
td.num {{ text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }}
tr.total td, tr.total th {{ font-weight: bold; border-top: 0.6mm solid #000; }}
p.flag {{ font-weight: bold; border: 0.6mm solid #000; padding: 1.5mm; }}
.signature {{ display: inline-block; width: 75mm; margin: 8mm 8mm 0 0; }}
.signature .line {{ border-bottom: 0.3mm solid #000; height: 10mm; }}
@media screen {{ body {{ padding: 8mm; }} }}
"""

# (the row's heading, the level's field, the sign it enters the sum with: "" for a start or end)
_LEDGER = (
    ("Start meter", "start_meter_cents", ""),
    ("+ contributions", "contributions_cents", "+"),
    ("- hits (awards)", "hits_cents", "-"),
    ("+ seeds (resets)", "seeds_cents", "+"),
    ("+ rolled forward", "rolled_forward_cents", "+"),
    ("± adjustments", "adjustments_cents", "+"),
    ("= computed end meter", "computed_end_meter_cents", ""),
    ("End meter (recorded)", "end_meter_cents", ""),
    ("Variance", "variance_cents", ""),
)
_OTHER_METERS = (
    ("Wagers (in-meter)", "wagers", False),
    ("Wagered", "wagered_cents", True),
    ("Hits", "hit_count", False),
    ("Reserve: start", "start_reserve_cents", True),
    ("Reserve: + contributions", "to_reserve_cents", True),
    ("Reserve: - seeds", "seeded_from_reserve_cents", True),
    ("Reserve: end", "end_reserve_cents", True),
    ("Overflow: start", "start_overflow_cents", True),
    ("Overflow: + contributions", "to_overflow_cents", True),
    ("Overflow: end", "end_overflow_cents", True),
    ("Pending awards: start", "start_locked_cents", True),
    ("Paid", "paid_cents", True),
    ("Paid by the system", "paid_by_system_cents", True),
    ("Paid by an attendant", "paid_by_attendant_cents", True),
    ("Pending awards: end", "end_locked_cents", True),
    ("Accrued (player money added)", "accrued_cents", True),
)


def _when(moment: datetime | None, zone: ZoneInfo) -> str:
    return "\u2014" if moment is None else moment.astimezone(zone).strftime("%Y-%m-%d %H:%M:%S %Z")


def _table(head: Iterable[str], rows: Iterable[Iterable[tuple[str, bool]]], empty: str) -> str:
    """A table of (text, numeric) cells; ``empty`` in its place when there is no row."""
    body = "".join(
        "<tr>"
        + "".join(f"<td class='num'>{escape(t)}</td>" if n else f"<td>{escape(t)}</td>" for t, n in row)
        + "</tr>"
        for row in rows
    )
    if not body:
        return f"<p>{escape(empty)}</p>"
    header = "".join(f"<th scope='col'>{escape(h)}</th>" for h in head)
    return f"<table><thead><tr>{header}</tr></thead><tbody>{body}</tbody></table>"


def _levels(found: ProgressiveDayPublic) -> str:
    levels = found.levels
    head = "<th scope='col'>Meter</th>" + "".join(f"<th scope='col'>{escape(x.level)}</th>" for x in levels)
    rows = []
    for title, name, _sign in _LEDGER:
        cells = "".join(f"<td class='num'>{escape(dollars(getattr(x, name)))}</td>" for x in levels)
        total = " class='total'" if name in ("computed_end_meter_cents", "variance_cents") else ""
        rows.append(f"<tr{total}><th scope='row'>{escape(title)}</th>{cells}</tr>")
    for title, name, money in _OTHER_METERS:
        cells = "".join(
            f"<td class='num'>{escape(dollars(getattr(x, name)) if money else str(getattr(x, name)))}</td>"
            for x in levels
        )
        rows.append(f"<tr><th scope='row'>{escape(title)}</th>{cells}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def progressive_day_page(found: ProgressiveDayPublic, *, paper: Paper = "a4") -> str:
    """The day as a self-contained, printable HTML document (dollars with thousands separators)."""
    zone = ZoneInfo(found.time_zone)
    period = f"gaming day {found.gaming_day}" + (f", {found.shift} shift" if found.shift else "")
    title = f"Progressive pool {found.pool_id} ({found.name}): {period}"
    facts = [
        ("Period", f"{_when(found.start, zone)} to {_when(found.end, zone)}"),
        ("Time zone", found.time_zone),
        ("Chain", f"{found.events} events in the period; read up to seq {found.last_seq}"),
        (
            "Displays",
            "compared with the chain's end (nothing written since)"
            if found.display_checked
            else "not compared: the chain has moved on since the period ended",
        ),
        ("Printed", _when(found.generated_at, zone)),
    ]
    block = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in facts)
    if found.reconciled:
        flag = "<p class='flag' id='verdict'>Reconciled: every meter adds up to the cent.</p>"
    else:
        flag = (
            f"<p class='flag' id='verdict'>VARIANCE: {len(found.variances)} figure(s) do not add up;"
            " see below.</p>"
        )
    sections = [
        f"<section><h2>Meter reconciliation</h2>{_levels(found)}</section>",
        "<section><h2>Contributions per table</h2>"
        + _table(
            ("Table", "Wagers", "Wagered", "To the meters", "To the reserves", "To the overflow"),
            (
                [
                    (t.table_id, False),
                    (str(t.wagers), True),
                    (dollars(t.wagered_cents), True),
                    (dollars(t.to_meters_cents), True),
                    (dollars(t.to_reserves_cents), True),
                    (dollars(t.to_overflows_cents), True),
                ]
                for t in found.per_table
            ),
            "No contribution in the period.",
        )
        + "</section>",
        "<section><h2>Hits</h2>"
        + _table(
            ("Hit", "Time", "Table", "Seat", "Level", "Hand", "Meter before", "Amount", "New amount", "Paid"),
            (
                [
                    (str(h.hit_id), True),
                    (_when(h.at, zone), False),
                    (h.table_id, False),
                    (str(h.position), True),
                    (h.level, False),
                    (h.line, False),
                    (dollars(h.meter_before_cents), True),
                    (dollars(h.amount_cents), True),
                    (dollars(h.meter_after_cents), True),
                    (
                        "PENDING"
                        if h.paid_by is None
                        else f"{_when(h.paid_at, zone)} by {h.paid_by}"
                        + (f", verified by {h.verified_by}" if h.verified_by else ""),
                        False,
                    ),
                ]
                for h in found.hits
            ),
            "No hit in the period.",
        )
        + "</section>",
        "<section><h2>Payments</h2>"
        + _table(
            ("Hit", "Time", "Level", "Amount", "Paid by", "Verified by", "By"),
            (
                [
                    (str(p.hit_id), True),
                    (_when(p.at, zone), False),
                    (p.level, False),
                    (dollars(p.amount_cents), True),
                    (p.paid_by, False),
                    (p.verified_by, False),
                    ("the system" if p.by_system else "an attendant", False),
                ]
                for p in found.payments
            ),
            "No payment in the period.",
        )
        + "</section>",
        "<section><h2>Adjustments</h2>"
        + _table(
            (
                "Seq",
                "Time",
                "Level",
                "Amount",
                "Reason",
                "Asked by",
                "Approved by",
                "Before",
                "After",
                "Note",
            ),
            (
                [
                    (str(a.seq), True),
                    (_when(a.at, zone), False),
                    (a.level, False),
                    (dollars(a.amount_cents), True),
                    (a.reason, False),
                    (a.requested_by, False),
                    (a.approved_by, False),
                    (dollars(a.meter_before_cents), True),
                    (dollars(a.meter_after_cents), True),
                    (a.note, False),
                ]
                for a in found.adjustments
            ),
            "No adjustment in the period.",
        )
        + "</section>",
        "<section><h2>Parameter changes</h2>"
        + _table(
            ("Seq", "Time", "Level", "Asked by", "Approved by", "Notice for accounting"),
            (
                [
                    (str(c.seq), True),
                    (_when(c.at, zone), False),
                    (c.level, False),
                    (c.requested_by, False),
                    (c.approved_by, False),
                    (
                        "RATE CHANGED: increment "
                        f"{c.before.get('increment_bp')} -> {c.after.get('increment_bp')} bp, reserve "
                        f"{c.before.get('reserve_bp')} -> {c.after.get('reserve_bp')} bp"
                        if c.rate_changed
                        else "no rate changed",
                        False,
                    ),
                ]
                for c in found.parameter_changes
            ),
            "No parameter change in the period.",
        )
        + "</section>",
        "<section><h2>Pool opened and closed</h2>"
        + _table(
            ("Seq", "Time", "", "Why"),
            (
                [
                    (str(s.seq), True),
                    (_when(s.at, zone), False),
                    ("opened" if s.open else "closed", False),
                    (s.reason, False),
                ]
                for s in found.statuses
            ),
            "Not opened or closed in the period.",
        )
        + "</section>",
        "<section><h2>Variances</h2>"
        + _table(
            ("Source", "Seq", "Level", "Field", "Recorded or shown", "Computed", "Variance", "Detail"),
            (
                [
                    (v.source, False),
                    ("" if v.seq is None else str(v.seq), True),
                    (v.level or "", False),
                    (v.field, False),
                    ("" if v.recorded_cents is None else dollars(v.recorded_cents), True),
                    ("" if v.computed_cents is None else dollars(v.computed_cents), True),
                    ("" if v.variance_cents is None else dollars(v.variance_cents), True),
                    (v.detail, False),
                ]
                for v in found.variances
            ),
            "None.",
        )
        + "</section>",
    ]
    signatures = "".join(
        f"<div class='signature'><div class='line'></div><div>{what}</div></div>"
        for what in ("Prepared by (name, signature)", "Checked by (name, signature)")
    )
    style = _STYLE.format(size=PAGE_SIZES[paper])
    return (
        "<!DOCTYPE html>\n"
        f"<html lang='en'><head><meta charset='utf-8'><title>{escape(title)}</title>"
        f"<style>{style}</style></head><body>"
        f"<header><h1>{escape(title)}</h1><dl class='period'>{block}</dl>{flag}</header>"
        f"<main>{''.join(sections)}<section><h2>Sign-off</h2>{signatures}</section></main>"
        "</body></html>\n"
    )


def progressive_day_pdf(found: ProgressiveDayPublic, *, paper: Paper = "a4") -> bytes:
    """The printable day as a PDF (floor/report_page.page_pdf: fetching nothing)."""
    return page_pdf(progressive_day_page(found, paper=paper))


__all__ = ["progressive_day", "progressive_day_csv", "progressive_day_page", "progressive_day_pdf"]
