"""The count room's file: one CSV of drop lines, parsed into DropEntry (docs/accounting.md,
"The count room's file").

    gaming_day,table_id,shift,kind,amount,reference
    2026-12-03,PG-1,,cash,1250.00,box 14
    2026-12-03,PG-1,,marker,500.00,M-10231

UTF-8 (a byte-order mark is skipped), comma-separated, the header naming exactly these six
columns in any order. ``gaming_day`` is YYYY-MM-DD; ``table_id`` as the floor spells it;
``shift`` empty (the whole day) or a shift of the calendar; ``kind`` is ``cash`` or ``marker``;
``amount`` is dollars with exactly two decimals (``1250.00``; no sign, no thousands separator,
read as digits, never as a float); ``reference`` is the marker's number (required, unique in the
file) and free text for cash. Empty lines are skipped. The file is taken whole or not at all:
every bad line is reported, by its line number (the header is line 1), in one CountFileError.
"""

from __future__ import annotations

import contextlib
import csv
import io
import re
from collections.abc import Collection
from datetime import date

from .drop import DropEntry, DropKind, DropSource
from .errors import CountFileError, CountLineProblem

COLUMNS = ("gaming_day", "table_id", "shift", "kind", "amount", "reference")
AMOUNT = re.compile(r"(\d{1,10})\.(\d{2})")
TABLE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9 _.-]{0,63}")


def parse_count_file(text: str, *, shifts: Collection[str] | None = None) -> tuple[DropEntry, ...]:
    """The drop entries of a count-room file (``text``, already read); raise CountFileError
    naming every bad line. ``shifts`` are the calendar's shift names (None: any name)."""
    if not isinstance(text, str):
        raise CountFileError((CountLineProblem(0, None, "the file must be given as text"),))
    reader = csv.reader(io.StringIO(text.removeprefix("\ufeff"), newline=""), strict=True)
    problems: list[CountLineProblem] = []
    try:
        header = next(reader)
    except StopIteration:
        raise CountFileError(
            (CountLineProblem(1, None, "the file is empty: a header is expected"),)
        ) from None
    except csv.Error as error:
        raise CountFileError((CountLineProblem(1, None, f"not CSV: {error}"),)) from None
    names = [name.strip() for name in header]
    if sorted(names) != sorted(COLUMNS):
        raise CountFileError(
            (
                CountLineProblem(
                    1, None, f"the header must name the columns {', '.join(COLUMNS)}; got {names!r}"
                ),
            )
        )
    entries: list[DropEntry] = []
    markers: dict[str, int] = {}
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as error:
            problems.append(CountLineProblem(reader.line_num, None, f"not CSV: {error}"))
            continue
        number = reader.line_num  # the record's last physical line (a quoted field may span lines)
        if not row or all(not cell.strip() for cell in row):
            continue
        if len(row) != len(COLUMNS):
            problems.append(CountLineProblem(number, None, f"{len(COLUMNS)} fields expected, got {len(row)}"))
            continue
        fields = dict(zip(names, (cell.strip() for cell in row), strict=True))
        entry = _entry(number, fields, shifts, problems)
        if entry is None:
            continue
        if entry.kind is DropKind.MARKER and entry.reference is not None:
            first = markers.setdefault(entry.reference, number)
            if first != number:
                problems.append(
                    CountLineProblem(
                        number, "reference", f"marker {entry.reference!r} is also on line {first}"
                    )
                )
                continue
        entries.append(entry)
    if problems:
        raise CountFileError(tuple(problems))
    return tuple(entries)


def _entry(
    number: int, fields: dict[str, str], shifts: Collection[str] | None, problems: list[CountLineProblem]
) -> DropEntry | None:
    before = len(problems)

    def bad(column: str, reason: str) -> None:
        problems.append(CountLineProblem(number, column, reason))

    day = None
    if len(fields["gaming_day"]) == 10:  # YYYY-MM-DD only: fromisoformat also reads 20261203
        with contextlib.suppress(ValueError):
            day = date.fromisoformat(fields["gaming_day"])
    if day is None:
        bad("gaming_day", f"a date YYYY-MM-DD expected, got {fields['gaming_day']!r}")
    table_id = fields["table_id"]
    if not TABLE_ID.fullmatch(table_id):
        bad("table_id", f"a table id expected, got {table_id!r}")
    shift = fields["shift"] or None
    if shift is not None and shifts is not None and shift not in shifts:
        bad("shift", f"no shift {shift!r}; the shifts are {sorted(shifts)!r}")
    kind = None
    try:
        kind = DropKind(fields["kind"])
    except ValueError:
        bad("kind", f"'cash' or 'marker' expected, got {fields['kind']!r}")
    amount = AMOUNT.fullmatch(fields["amount"])
    if amount is None:
        bad("amount", f"dollars with two decimals expected (1250.00), got {fields['amount']!r}")
    cents = int(amount[1]) * 100 + int(amount[2]) if amount else 0
    reference = fields["reference"] or None
    if kind is DropKind.MARKER and reference is None:
        bad("reference", "a marker line needs the marker's number")
    if kind is DropKind.MARKER and amount is not None and cents == 0:
        bad("amount", "a marker of 0.00")
    if len(problems) > before or day is None or kind is None:
        return None
    return DropEntry(
        table_id=table_id,
        day=day,
        shift=shift,
        kind=kind,
        amount=cents,
        source=DropSource.COUNT_FILE,
        reference=reference,
    )


__all__ = ["COLUMNS", "parse_count_file"]
