"""The drop: cash and markers into a table's drop box (docs/accounting.md, "Drop").

A ``DropEntry`` is one amount of a table's gaming day (or shift): cash counted in the soft count,
a line of the count room's file (count_file.py), or a marker recorded when it was issued at the
table. A marker's number is unique: the same marker given twice is refused, and
``marker_differences`` compares the markers issued at the table with those the count found.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

from ..game.money import Cents
from .amounts import whole_cents
from .errors import AmountError, DuplicateError, MismatchError


class DropKind(enum.StrEnum):
    CASH = "cash"
    MARKER = "marker"  # a casino credit instrument signed by the player at the table


class DropSource(enum.StrEnum):
    SOFT_COUNT = "soft-count"  # entered by hand from the soft count
    COUNT_FILE = "count-file"  # imported from the count room's CSV file
    TABLE = "table"  # a marker recorded when it was issued at the table


@dataclass(frozen=True, slots=True)
class DropEntry:
    """An amount of ``kind`` in ``table_id``'s drop for gaming day ``day`` (and ``shift``)."""

    table_id: str
    day: date
    shift: str | None
    kind: DropKind
    amount: Cents
    source: DropSource
    reference: str | None = None  # the marker's number; a cash line may name its box

    def __post_init__(self) -> None:
        whole_cents(self.amount, f"the {self.kind} amount")
        if self.kind is DropKind.MARKER and (self.amount <= 0 or not self.reference):
            raise AmountError("a marker has a number and an amount above 0")


@dataclass(frozen=True, slots=True)
class Drop:
    """A period's drop: cash and markers (cents)."""

    cash: Cents = 0
    markers: Cents = 0

    @property
    def total(self) -> Cents:
        return self.cash + self.markers


def drop_of(entries: Iterable[DropEntry], *, table_id: str | None = None) -> Drop:
    """The sum of the entries; refused: an entry of another table than ``table_id``, a marker
    number given twice."""
    cash = markers = 0
    seen: set[str] = set()
    for entry in entries:
        if table_id is not None and entry.table_id != table_id:
            raise MismatchError(f"a drop entry of table {entry.table_id!r} in the drop of {table_id!r}")
        if entry.kind is DropKind.MARKER:
            assert entry.reference is not None
            if entry.reference in seen:
                raise DuplicateError(f"marker {entry.reference!r} is in the drop twice")
            seen.add(entry.reference)
            markers += entry.amount
        else:
            cash += entry.amount
    return Drop(cash=cash, markers=markers)


@dataclass(frozen=True, slots=True)
class MarkerDifferences:
    """Markers issued at the table that the count did not find, and counted ones never issued
    there, by number; ``amounts`` lists numbers found on both sides with different amounts."""

    not_counted: tuple[str, ...]
    not_issued: tuple[str, ...]
    amounts: tuple[str, ...]

    @property
    def clean(self) -> bool:
        return not (self.not_counted or self.not_issued or self.amounts)


def marker_differences(issued: Iterable[DropEntry], counted: Iterable[DropEntry]) -> MarkerDifferences:
    """Compare the markers issued at the table with those the count room found."""
    at_table = {e.reference: e.amount for e in issued if e.kind is DropKind.MARKER and e.reference}
    in_count = {e.reference: e.amount for e in counted if e.kind is DropKind.MARKER and e.reference}
    return MarkerDifferences(
        not_counted=tuple(sorted(at_table.keys() - in_count.keys())),
        not_issued=tuple(sorted(in_count.keys() - at_table.keys())),
        amounts=tuple(sorted(n for n in at_table.keys() & in_count.keys() if at_table[n] != in_count[n])),
    )


__all__ = [
    "Drop",
    "DropEntry",
    "DropKind",
    "DropSource",
    "MarkerDifferences",
    "drop_of",
    "marker_differences",
]
