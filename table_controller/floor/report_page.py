"""The floor report as a printable page and as a PDF (docs/floor-reports.md, "The printed page").

One self-contained HTML document (no script, no link, no image: its stylesheet is inline) whose
print stylesheet lays it on A4 or Letter, landscape: the page size from ``paper``, margins, the
page number in the margin, each table's header repeated on every page it runs over, no row cut
by a page break. Money in dollars with cents. A shift's page names its people and ends with a
signature line for each person who signed off. The PDF is WeasyPrint's rendering of that same
page, so the printed page and the PDF never differ.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable
from datetime import datetime
from html import escape
from typing import Literal
from zoneinfo import ZoneInfo

from ..api.models.reports import AccountingLine, AccountingSection, RatingLine
from ..game.money import format_cents
from .reports import FloorReportLine, FloorReportPublic

Paper = Literal["a4", "letter"]
PAGE_SIZES: dict[str, str] = {"a4": "A4 landscape", "letter": "letter landscape"}
# the narrower printable width of the two, so one layout fits both: Letter landscape is
# 279.4 mm wide, A4 landscape 297 mm; less 2 x 12 mm of margin
CONTENT_WIDTH_MM = 255

_STYLE = """
@page {{
  size: {size};
  margin: 12mm 12mm 14mm 12mm;
  @bottom-left {{ content: "{footer}"; font: 7pt sans-serif; color: #444; }}
  @bottom-right {{ content: "page " counter(page) " of " counter(pages); font: 7pt sans-serif; color: #444; }}
}}
html {{ font: 8pt/1.3 "DejaVu Sans", Arial, sans-serif; color: #000; background: #fff; }}
body {{ margin: 0 auto; max-width: {width}mm; }}
h1 {{ font-size: 13pt; margin: 0 0 2mm; }}
h2 {{ font-size: 10pt; margin: 5mm 0 1.5mm; break-after: avoid; page-break-after: avoid; }}
dl.period {{ display: grid; grid-template-columns: max-content 1fr; gap: 0.5mm 4mm; margin: 0; }}
dl.period dt {{ font-weight: bold; }}
dl.period dd {{ margin: 0; }}
table {{ width: 100%; border-collapse: collapse; table-layout: auto; }}
thead {{ display: table-header-group; }}
tfoot {{ display: table-footer-group; }}
tr {{ break-inside: avoid; page-break-inside: avoid; }}
th, td {{ border: 0.3mm solid #777; padding: 0.6mm 1mm; vertical-align: top; }}
th {{ background: #e8e8e8; font-weight: bold; text-align: center; }}
tbody th, tbody td:first-child {{ text-align: left; white-space: nowrap; }}
td.num {{ text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }}
tr.total td {{ font-weight: bold; border-top: 0.6mm solid #000; }}
.signatures {{ break-inside: avoid; page-break-inside: avoid; margin-top: 8mm; }}
.signature {{ display: inline-block; width: 75mm; margin: 8mm 8mm 0 0; }}
.signature .line {{ border-bottom: 0.3mm solid #000; height: 10mm; }}
.signature .name {{ font-size: 8pt; margin-top: 1mm; }}
.note {{ white-space: pre-wrap; border: 0.3mm solid #777; padding: 1.5mm; }}
td.hex {{ font: 6.5pt monospace; word-break: break-all; }}
@media screen {{
  body {{ padding: 8mm; }}
}}
@media print {{
  th {{ -webkit-print-color-adjust: exact; print-color-adjust: exact; }}
}}
"""

# (heading, the line's value) of each column of the report's tables, after the line's name
_COLUMNS: tuple[tuple[str, str], ...] = (
    ("Rounds", "rounds"),
    ("Settled", "settled"),
    ("Voids", "voids"),
    ("Misdeals", "misdeals"),
    ("Wagered", "wagered_cents"),
    ("Bonus wagered", "bonus_wagered_cents"),
    ("Commission", "commission_cents"),
    ("Bonuses paid", "bonuses_paid_cents"),
    ("Actual win", "house_result_cents"),
    ("Hold %", "hold_percent"),
    ("Theoretical win", "theoretical_win_cents"),
    ("Theor. hold %", "theoretical_hold_percent"),
    ("House-way deviations", "deviations"),
    ("Overrides", "overrides"),
    ("Device faults", "device_faults"),
)
_SECTIONS = (("table", "Per table"), ("pit", "Per pit"), ("dealer", "Per dealer"))


def dollars(cents: int | None) -> str:
    """Integer cents as dollars with cents: ``-123456`` -> ``-$1,234.56``; None -> an em dash."""
    return "\u2014" if cents is None else format_cents(cents)


def _css_string(text: str) -> str:
    """``text`` for inside a CSS string: every character but letters, digits, space and
    ``:.-`` as a CSS escape, so a name can neither end the string nor the style element."""
    return "".join(
        ch if ch.isascii() and (ch.isalnum() or ch in " :.-") else f"\\{ord(ch):x} " for ch in text
    )


def _cell(line: FloorReportLine, name: str) -> str:
    value = getattr(line, name)
    if name.endswith("_cents"):
        return dollars(value)
    if value is None:
        return "\u2014"
    return f"{value}%" if name.endswith("_percent") else str(value)


def _when(moment: datetime | None, zone: ZoneInfo) -> str:
    if moment is None:
        return "\u2014"
    return moment.astimezone(zone).strftime("%Y-%m-%d %H:%M %Z")


def _name_of(line: FloorReportLine) -> str:
    if line.scope == "table":
        return f"{line.table_id}" + (f" (pit {line.pit})" if line.pit else "")
    if line.scope == "pit":
        return line.pit or "no pit"
    if line.scope == "dealer":
        return line.dealer or "between rounds"
    return "Total"


def _table(first: str, lines: Iterable[FloorReportLine], total: FloorReportLine | None) -> str:
    head = "".join(f"<th scope='col'>{escape(title)}</th>" for title, _ in _COLUMNS)
    rows = []
    for line in lines:
        cells = "".join(f"<td class='num'>{escape(_cell(line, name))}</td>" for _, name in _COLUMNS)
        rows.append(f"<tr><th scope='row'>{escape(_name_of(line))}</th>{cells}</tr>")
    foot = ""
    if total is not None:
        cells = "".join(f"<td class='num'>{escape(_cell(total, name))}</td>" for _, name in _COLUMNS)
        foot = f"<tr class='total'><td>Total</td>{cells}</tr>"
    return (
        f"<table><thead><tr><th scope='col'>{escape(first)}</th>{head}</tr></thead>"
        f"<tbody>{''.join(rows)}{foot}</tbody></table>"
    )


# the accounting's columns (docs/accounting.md, "The day in the reports"), after the line's name
_ACCOUNTING_COLUMNS: tuple[tuple[str, str], ...] = (
    ("Opener", "opener_cents"),
    ("Closer", "closer_cents"),
    ("Fills", "fills_cents"),
    ("Credits", "credits_cents"),
    ("Drop", "drop_cents"),
    ("Win", "win_cents"),
    ("Hold %", "hold_percent"),
    ("Theoretical win", "theoretical_win_cents"),
    ("Theor. hold %", "theoretical_hold_percent"),
    ("95% band", "band"),
    ("Rounds' result", "computed_result_cents"),
    ("Named lines", "explained_cents"),
    ("Variance", "variance_cents"),
)


def _accounting_cell(line: AccountingLine, name: str) -> str:
    if name == "band":
        if line.band_low_cents is None or line.band_high_cents is None:
            return "\u2014"
        inside = "outside" if line.outside_band else "inside"
        holds = (
            ""
            if line.band_low_hold_percent is None
            else f"; {line.band_low_hold_percent}% to {line.band_high_hold_percent}%"
        )
        return f"{dollars(line.band_low_cents)} to {dollars(line.band_high_cents)}{holds} ({inside})"
    value = getattr(line, name)
    if name.endswith("_cents"):
        text = dollars(value)
        return f"{text} FLAGGED" if name == "variance_cents" and line.variance_flagged else text
    return "\u2014" if value is None else f"{value}%"


def _accounting_name(line: AccountingLine) -> str:
    if line.scope == "table":
        return f"{line.table_id}" + (f" (pit {line.pit})" if line.pit else "")
    return f"pit {line.pit}" if line.scope == "pit" else "Total"


def _rating_row(rating: RatingLine, zone: ZoneInfo) -> str:
    minutes = "\u2014" if rating.seconds_played is None else str(rating.seconds_played // 60)
    cells = (
        str(rating.seat),
        rating.player,
        _when(rating.start, zone),
        "open" if rating.end is None else _when(rating.end, zone),
        minutes,
        str(rating.rounds),
        dollars(rating.average_wager_cents),
        dollars(rating.actual_win_cents),
        dollars(rating.theoretical_win_cents),
        "yes" if rating.matches_rounds else "NOT in the rounds",
    )
    return (
        f"<tr><th scope='row'>{escape(rating.table_id)}</th>"
        + "".join(f"<td class='num'>{escape(cell)}</td>" for cell in cells)
        + "</tr>"
    )


def _accounting(section: AccountingSection | None, zone: ZoneInfo) -> str:
    """The period's accounting per table, pit and in total, the missing counts named, then the
    ratings started in it."""
    if section is None:
        return ""
    head = "".join(f"<th scope='col'>{escape(title)}</th>" for title, _ in _ACCOUNTING_COLUMNS)
    rows = []
    for line in (*section.lines, section.total):
        cells = "".join(
            f"<td class='num'>{escape(_accounting_cell(line, name))}</td>" for _, name in _ACCOUNTING_COLUMNS
        )
        style = " class='total'" if line.scope == "total" else ""
        rows.append(f"<tr{style}><th scope='row'>{escape(_accounting_name(line))}</th>{cells}</tr>")
    period = section.shift or "whole day"
    missing = section.total.missing
    notes = f"<p>Not counted yet (left out of the sums): {escape(', '.join(missing))}.</p>" if missing else ""
    rated_head = "".join(
        f"<th scope='col'>{title}</th>"
        for title in (
            "Table",
            "Seat",
            "Player",
            "Start",
            "End",
            "Minutes",
            "Rounds",
            "Avg wager",
            "Actual win",
            "Theor. win",
            "Matches the rounds",
        )
    )
    rated = "".join(_rating_row(rating, zone) for rating in section.ratings)
    ratings = (
        f"<table><thead><tr>{rated_head}</tr></thead><tbody>{rated}</tbody></table>"
        if section.ratings
        else "<p>No rated player in this period.</p>"
    )
    return (
        "<section class='accounting'>"
        f"<h2>Table accounting: gaming day {section.gaming_day} ({escape(period)})</h2>"
        f"<p>{escape(_when(section.start, zone))} to {escape(_when(section.end, zone))}; win = drop +"
        " (closer - opener) + credits - fills; variance = win - the rounds' result - named lines,"
        f" flagged above {escape(dollars(section.alert_above_cents))}.</p>{notes}"
        f"<table><thead><tr><th scope='col'>Table / pit</th>{head}</tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></section>"
        f"<section class='ratings'><h2>Rated players</h2>{ratings}</section>"
    )


def _checkpoints(found: FloorReportPublic, zone: ZoneInfo) -> str:
    """The signed checkpoints the report was made under, whole (hash and signature in full, so
    that the printed page can be checked against the key by hand); or why there is none."""
    if not found.checkpoints:
        return (
            "<section class='checkpoints'><h2>Signed checkpoints</h2><p>None covers this period yet"
            " (no key configured, or none written since): nothing outside the database anchors"
            " these figures.</p></section>"
        )
    head = "".join(
        f"<th scope='col'>{title}</th>"
        for title in ("Table", "Seq", "Hash", "Written", "Why", "Signature (Ed25519)", "In the period")
    )
    rows = "".join(
        f"<tr><th scope='row'>{escape(item.table_id)}</th><td class='num'>{item.seq}</td>"
        f"<td class='hex'>{escape(item.hash)}</td><td>{escape(_when_text(item.at, zone))}</td>"
        f"<td>{escape(item.reason)}</td><td class='hex'>{escape(item.signature)}</td>"
        f"<td>{'yes' if item.in_period else 'no: the first after it'}</td></tr>"
        for item in found.checkpoints
    )
    return (
        "<section class='checkpoints'><h2>Signed checkpoints</h2>"
        f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></section>"
    )


def _when_text(at: str, zone: ZoneInfo) -> str:
    """A checkpoint's time (``YYYY-MM-DDTHH:MM:SS.ffffffZ``) as the page prints times."""
    try:
        return _when(datetime.fromisoformat(at.replace("Z", "+00:00")), zone)
    except ValueError:
        return at


def _title(found: FloorReportPublic) -> str:
    where = f"pit {found.pit}" if found.pit else "the floor"
    if found.table_id:
        where = f"table {found.table_id}"
    if found.kind == "shift" and found.shift is not None:
        shift_where = f"pit {found.shift.pit}" if found.shift.pit else "the whole floor"
        return f"Shift report {found.shift.id}: {shift_where}"
    return f"Day report {found.day}: {where}"


def _people(found: FloorReportPublic, zone: ZoneInfo) -> tuple[str, str]:
    """The shift's people (the period block) and the signature block."""
    shift = found.shift
    if shift is None:
        signatures = "".join(
            f"<div class='signature'><div class='line'></div><div class='name'>{what}</div></div>"
            for what in ("Prepared by (name, signature)", "Checked by (name, signature)")
        )
        return "", f"<section class='signatures'><h2>Sign-off</h2>{signatures}</section>"
    rows = [
        ("Opened", f"{_when(shift.opened_at, zone)} by {shift.opened_by}"),
        ("On duty", ", ".join(shift.on_duty)),
        (
            "Closed",
            f"{_when(shift.closed_at, zone)} by {shift.closed_by}" if not shift.open else "still open",
        ),
    ]
    if not shift.open:
        rows.append(("Signed off", ", ".join(shift.signed_off)))
    block = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in rows)
    note = f"<h2>Note</h2><p class='note'>{escape(shift.note)}</p>" if shift.note else ""
    if shift.open:
        signed = "<p>The shift is still open: nobody has signed it off yet.</p>"
    else:
        signed = "".join(
            f"<div class='signature'><div class='line'></div><div class='name'>{escape(name)}</div></div>"
            for name in shift.signed_off
        )
    return block, f"{note}<section class='signatures'><h2>Signed off</h2>{signed}</section>"


def report_page(found: FloorReportPublic, *, paper: Paper = "a4") -> str:
    """The report as a self-contained, printable HTML document."""
    zone = ZoneInfo(found.time_zone)
    title = _title(found)
    people, signatures = _people(found, zone)
    period = [
        ("Period", f"{_when(found.start, zone)} to {_when(found.end, zone)}"),
        ("Time zone", found.time_zone),
        ("Tables", ", ".join(found.tables) or "none"),
        ("Printed", _when(found.generated_at, zone)),
    ]
    period_block = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in period) + people
    sections = []
    for scope, heading in _SECTIONS:
        lines = [line for line in found.lines if line.scope == scope]
        if lines or found.by == scope:
            first = {"table": "Table", "pit": "Pit", "dealer": "Dealer"}[scope]
            sections.append(f"<section><h2>{heading}</h2>{_table(first, lines, found.total)}</section>")
    if not sections:
        sections.append(f"<section><h2>Total</h2>{_table('', [], found.total)}</section>")
    style = _STYLE.format(
        size=PAGE_SIZES[paper],
        width=CONTENT_WIDTH_MM,
        footer=_css_string(title),
    )
    return (
        "<!DOCTYPE html>\n"
        f"<html lang='en'><head><meta charset='utf-8'><title>{escape(title)}</title>"
        f"<style>{style}</style></head><body>"
        f"<header><h1>{escape(title)}</h1><dl class='period'>{period_block}</dl></header>"
        f"<main>{''.join(sections)}{_accounting(found.accounting, zone)}"
        f"{_checkpoints(found, zone)}{signatures}</main>"
        "</body></html>\n"
    )


def page_policy(page: str) -> str:
    """The Content-Security-Policy of ``page``: its one inline style, by its SHA-256, and nothing
    else (no script, no fetch, no frame), so a browser shows and prints it as WeasyPrint does."""
    start = page.index("<style>") + len("<style>")
    style = page[start : page.index("</style>", start)]
    digest = base64.b64encode(hashlib.sha256(style.encode()).digest()).decode()
    return (
        f"default-src 'none'; style-src 'sha256-{digest}'; frame-ancestors 'none'; base-uri 'none';"
        " form-action 'none'"
    )


def page_pdf(page: str) -> bytes:
    """A self-contained printable page rendered by WeasyPrint (imported here: it is only needed
    for a PDF). Nothing outside the page is fetched: the fetcher allows no URL."""
    from weasyprint import HTML  # type: ignore[import-untyped]
    from weasyprint.urls import URLFetcher  # type: ignore[import-untyped]

    pdf = HTML(string=page, url_fetcher=URLFetcher(allowed_protocols=[])).write_pdf()
    assert pdf is not None  # no target: the bytes are returned
    return bytes(pdf)


def report_pdf(found: FloorReportPublic, *, paper: Paper = "a4") -> bytes:
    """The printable report as a PDF."""
    return page_pdf(report_page(found, paper=paper))


__all__ = ["PAGE_SIZES", "Paper", "dollars", "page_pdf", "page_policy", "report_page", "report_pdf"]
