"""Win and hold of a table's period, their sums per pit and floor, and the theoretical beside
them (docs/accounting.md, "Win and hold").

    win  = drop + (closer - opener) + credits - fills        (integer cents, exact)
    hold = win / drop x 100                                  (percent, HOLD_PLACES, half-even)

A drop of 0 has no hold (None), never a division error. A group's hold is its summed win over
its summed drop, never an average of holds. The theoretical win is the sum of the per-round
theoretical wins stored with the rounds (docs/math.md, "Theoretical win and hold"); its 95% band
is storage/reports.py's ``band``, the one definition, around the house result of the rounds that
carry a theoretical win.
"""

from __future__ import annotations

import enum
from collections import defaultdict
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from datetime import date
from decimal import ROUND_HALF_EVEN, Decimal

from ..game.money import Cents
from .band import Band, band
from .chips import CountKind, InventoryCount
from .drop import Drop, DropEntry, drop_of
from .errors import DuplicateError, MismatchError
from .facts import SettledRound
from .gaming_day import Period
from .slips import Slip, SlipKind

HOLD_PLACES = Decimal("0.01")
"""A hold percent is given to two decimal places, rounded half-even (``hold_percent``)."""
HOLD_ROUNDING = ROUND_HALF_EVEN


def hold_percent(win: Cents, drop: Cents) -> Decimal | None:
    """``win / drop x 100`` as a Decimal to HOLD_PLACES, half-even; None when ``drop`` is 0."""
    if not drop:
        return None
    return (Decimal(win) * 100 / Decimal(drop)).quantize(HOLD_PLACES, rounding=HOLD_ROUNDING)


def table_win(*, drop: Cents, opener: Cents, closer: Cents, fills: Cents, credits: Cents) -> Cents:
    """drop + (closer - opener) + credits - fills: the table's win, from the house's side."""
    return drop + (closer - opener) + credits - fills


@dataclass(frozen=True, slots=True)
class TableAccount:
    """A table's accounting for a gaming day or a shift (cents); the slips' numbers are kept
    for the drill-down."""

    table_id: str
    pit: str | None
    day: date
    shift: str | None
    opener: Cents
    closer: Cents
    fills: Cents
    credits: Cents
    drop: Drop
    fill_slips: tuple[int, ...] = ()
    credit_slips: tuple[int, ...] = ()

    @property
    def win(self) -> Cents:
        return table_win(
            drop=self.drop.total,
            opener=self.opener,
            closer=self.closer,
            fills=self.fills,
            credits=self.credits,
        )

    @property
    def hold_percent(self) -> Decimal | None:
        return hold_percent(self.win, self.drop.total)


def _check_count(count: InventoryCount, kind: CountKind, table_id: str, period: Period) -> None:
    if not isinstance(count, InventoryCount) or count.kind is not kind:
        raise MismatchError(f"the {kind.value} of the period must be an {kind.value} count, got {count!r}")
    if (count.table_id, count.day, count.shift) != (table_id, period.day, period.shift):
        raise MismatchError(
            f"the {kind.value} is of table {count.table_id!r}, {count.day} {count.shift or 'day'}; "
            f"the period is table {table_id!r}, {period.day} {period.shift or 'day'}"
        )


def account_table(
    *,
    table_id: str,
    pit: str | None,
    period: Period,
    opener: InventoryCount,
    closer: InventoryCount,
    slips: Iterable[Slip],
    drop: Iterable[DropEntry],
) -> TableAccount:
    """The table's account for ``period`` (a gaming day or one shift of it).

    ``slips`` may hold the table's slips of any period: those delivered in ``period`` and not
    voided count. ``drop`` holds the entries of the period's gaming day; for a shift, those of
    that shift count. Refused (MismatchError): an opener or closer of another table or period, a
    closer counted before the opener, a slip of another table, a drop entry of another table or
    day; (DuplicateError) a slip number or a marker twice.
    """
    _check_count(opener, CountKind.OPENER, table_id, period)
    _check_count(closer, CountKind.CLOSER, table_id, period)
    if closer.at < opener.at:
        raise MismatchError(
            f"the closer ({closer.at.isoformat()}) was counted before the opener ({opener.at.isoformat()})"
        )
    totals = {SlipKind.FILL: 0, SlipKind.CREDIT: 0}
    numbers: dict[SlipKind, list[int]] = {SlipKind.FILL: [], SlipKind.CREDIT: []}
    seen: set[int] = set()
    for slip in slips:
        if slip.table_id != table_id:
            raise MismatchError(
                f"{slip.kind.value} slip {slip.number} is of table {slip.table_id!r}, not {table_id!r}"
            )
        if slip.number in seen:
            raise DuplicateError(f"slip number {slip.number} is given twice")
        seen.add(slip.number)
        if slip.counts and slip.delivered_at is not None and period.start <= slip.delivered_at < period.end:
            totals[slip.kind] += slip.value
            numbers[slip.kind].append(slip.number)
    entries = list(drop)
    for entry in entries:
        if entry.day != period.day:
            raise MismatchError(f"a drop entry of {entry.day} in the account of {period.day}")
    if period.shift is not None:
        entries = [entry for entry in entries if entry.shift == period.shift]
    return TableAccount(
        table_id=table_id,
        pit=pit,
        day=period.day,
        shift=period.shift,
        opener=opener.value,
        closer=closer.value,
        fills=totals[SlipKind.FILL],
        credits=totals[SlipKind.CREDIT],
        drop=drop_of(entries, table_id=table_id),
        fill_slips=tuple(sorted(numbers[SlipKind.FILL])),
        credit_slips=tuple(sorted(numbers[SlipKind.CREDIT])),
    )


@dataclass(frozen=True, slots=True)
class Totals:
    """The sums of several accounts (cents): the win is the sum of their wins, the hold that
    win over the summed drop."""

    accounts: int
    drop_cash: Cents
    drop_markers: Cents
    opener: Cents
    closer: Cents
    fills: Cents
    credits: Cents
    win: Cents

    @property
    def drop(self) -> Cents:
        return self.drop_cash + self.drop_markers

    @property
    def hold_percent(self) -> Decimal | None:
        return hold_percent(self.win, self.drop)


def totals(accounts: Iterable[TableAccount]) -> Totals:
    listed = list(accounts)
    return Totals(
        accounts=len(listed),
        drop_cash=sum(a.drop.cash for a in listed),
        drop_markers=sum(a.drop.markers for a in listed),
        opener=sum(a.opener for a in listed),
        closer=sum(a.closer for a in listed),
        fills=sum(a.fills for a in listed),
        credits=sum(a.credits for a in listed),
        win=sum(a.win for a in listed),
    )


class Level(enum.StrEnum):
    """Where accounts are summed: per table, per pit, or the whole floor."""

    TABLE = "table"
    PIT = "pit"
    FLOOR = "floor"


def grouped(
    accounts: Iterable[TableAccount], level: Level, *, per_shift: bool
) -> dict[tuple[Hashable, ...], Totals]:
    """Totals keyed by ``(gaming day, shift, table | pit)``, ``(gaming day, shift)`` for the floor;
    the shift is None unless ``per_shift`` (the day's accounts are then summed over shifts)."""
    groups: dict[tuple[Hashable, ...], list[TableAccount]] = defaultdict(list)
    for account in accounts:
        key: tuple[Hashable, ...] = (account.day, account.shift if per_shift else None)
        if level is Level.TABLE:
            key = (*key, account.table_id)
        elif level is Level.PIT:
            key = (*key, account.pit)
        groups[key].append(account)
    return {key: totals(members) for key, members in sorted(groups.items(), key=lambda item: repr(item[0]))}


@dataclass(frozen=True, slots=True)
class Theory:
    """The theoretical win of a period's rounds beside its drop: the band (storage/reports.py;
    None when no round carries a theoretical win) and the theoretical hold over the same drop."""

    band: Band | None
    drop: Cents

    @property
    def theoretical_win(self) -> Cents | None:
        return None if self.band is None else self.band.theoretical_cents

    @property
    def theoretical_hold_percent(self) -> Decimal | None:
        """theoretical win / drop x 100, as ``hold_percent`` rounds it; None without either."""
        return None if self.band is None else hold_percent(self.band.theoretical_cents, self.drop)


def theory_of(rounds: Iterable[SettledRound], *, drop: Cents) -> Theory:
    """Sum the rounds' theoretical wins and variances; the band's actual is the house result of
    the rounds that carry one (as storage/reports.py's reports compare them)."""
    covered = [r for r in rounds if r.theoretical_win is not None]
    if not covered:
        return Theory(band=None, drop=drop)
    return Theory(
        band=band(
            rounds=len(covered),
            actual_cents=sum(r.house_result for r in covered),
            theoretical_cents=sum(r.theoretical_win or 0 for r in covered),
            variance=sum(r.theoretical_variance or 0 for r in covered),
        ),
        drop=drop,
    )


__all__ = [
    "HOLD_PLACES",
    "HOLD_ROUNDING",
    "Level",
    "TableAccount",
    "Theory",
    "Totals",
    "account_table",
    "grouped",
    "hold_percent",
    "table_win",
    "theory_of",
    "totals",
]
