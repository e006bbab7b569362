"""A period closed for the reports: each table's money, its counted win reconciled with the
rounds, the theoretical beside it, and the sums per pit and floor (docs/accounting.md,
"The day in the reports").

The store sums each table's period in a few grouped SELECTs (storage/closing.py) into a
``DayFigures``; everything here is additive, so a pit's or the floor's figures are the sums of
its tables' and every derived figure comes from one definition: the win is win.py's
``table_win``, the hold ``hold_percent``, the band band.py's ``band``, the variance
reconcile.py's ``variance_of``. A table without a signed opener and a signed closer has no win
(None, never 0) and is left out of its pit's and the floor's sums, named in their ``missing``:
a total over part of the floor is never shown as the whole.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from decimal import Decimal

from ..game.money import Cents
from .band import Band, band
from .ratings import AdjustableField, Rating
from .reconcile import variance_of
from .win import hold_percent, table_win


@dataclass(frozen=True, slots=True)
class DayFigures:
    """One table's period, or the sum of several (integer cents).

    ``opener`` / ``closer`` are the signed counts' values (None: not counted and signed yet);
    ``fills`` / ``credits`` the slips delivered in the period and not voided; ``explained`` the
    named lines; ``computed_result`` the house result of the settled rounds opened in the period;
    ``covered_result`` that of the rounds that carry a theoretical win (the band's actual)."""

    tables: int
    missing: tuple[str, ...]  # "TABLE: opener" for each table whose account is not complete
    opener: Cents | None
    closer: Cents | None
    fills: Cents
    credits: Cents
    drop_cash: Cents
    drop_markers: Cents
    explained: Cents
    settled_rounds: int
    computed_result: Cents
    theoretical_rounds: int
    covered_result: Cents
    theoretical_win: Cents | None  # None when no round carries one (missing, never 0)
    theoretical_variance: int | None  # cents squared

    @property
    def complete(self) -> bool:
        return self.opener is not None and self.closer is not None

    @property
    def drop(self) -> Cents:
        return self.drop_cash + self.drop_markers

    @property
    def win(self) -> Cents | None:
        """drop + (closer - opener) + credits - fills; None without both counts."""
        if self.opener is None or self.closer is None:
            return None
        return table_win(
            drop=self.drop, opener=self.opener, closer=self.closer, fills=self.fills, credits=self.credits
        )

    @property
    def hold_percent(self) -> Decimal | None:
        win = self.win
        return None if win is None else hold_percent(win, self.drop)

    @property
    def band(self) -> Band | None:
        if self.theoretical_win is None:
            return None
        return band(
            rounds=self.theoretical_rounds,
            actual_cents=self.covered_result,
            theoretical_cents=self.theoretical_win,
            variance=self.theoretical_variance or 0,
        )

    @property
    def theoretical_hold_percent(self) -> Decimal | None:
        """theoretical win / drop x 100, rounded as the hold (win.py's ``Theory``)."""
        return None if self.theoretical_win is None else hold_percent(self.theoretical_win, self.drop)

    @property
    def hold_band(self) -> tuple[Decimal, Decimal] | None:
        """The 95% band as holds over the same drop (its low and high over the drop, rounded as
        the hold), to read beside the hold; None without a theoretical win or a drop."""
        found = self.band
        if found is None or not self.drop:
            return None
        low, high = hold_percent(found.low_cents, self.drop), hold_percent(found.high_cents, self.drop)
        assert low is not None and high is not None  # a drop: both are percents
        return low, high

    @property
    def variance(self) -> Cents | None:
        """counted win - computed result - named lines; None without a counted win."""
        win = self.win
        return None if win is None else variance_of(win, self.computed_result, self.explained)

    def flagged(self, alert_above: Cents) -> bool | None:
        """The variance is above ``alert_above`` (absolute cents); None without a counted win."""
        variance = self.variance
        return None if variance is None else abs(variance) > alert_above


_NULLABLE = ("opener", "closer", "theoretical_win", "theoretical_variance")
_SUMMED = tuple(f.name for f in fields(DayFigures) if f.name not in ("tables", "missing"))


def add_figures(parts: Iterable[DayFigures]) -> DayFigures:
    """The sum of the complete parts; the others are named in ``missing`` and summed nowhere.
    A nullable figure stays None while every complete part's is (no table counted: no opener)."""
    sums: dict[str, int | None] = {name: None if name in _NULLABLE else 0 for name in _SUMMED}
    tables = 0
    missing: list[str] = []
    for part in parts:
        tables += part.tables
        missing.extend(part.missing)
        if not part.complete:
            continue
        for name in _SUMMED:
            value, held = getattr(part, name), sums[name]
            if value is not None:
                sums[name] = value if held is None else held + value
    return DayFigures(tables=tables, missing=tuple(missing), **sums)  # type: ignore[arg-type]


def table_figures(
    table_id: str,
    *,
    opener: Cents | None,
    closer: Cents | None,
    fills: Cents = 0,
    credits: Cents = 0,
    drop_cash: Cents = 0,
    drop_markers: Cents = 0,
    explained: Cents = 0,
    settled_rounds: int = 0,
    computed_result: Cents = 0,
    theoretical_rounds: int = 0,
    covered_result: Cents = 0,
    theoretical_win: Cents | None = None,
    theoretical_variance: int | None = None,
) -> DayFigures:
    """One table's figures, its ``missing`` naming the counts not signed yet."""
    missing = tuple(
        f"{table_id}: {kind}" for kind, value in (("opener", opener), ("closer", closer)) if value is None
    )
    return DayFigures(
        tables=1,
        missing=missing,
        opener=opener,
        closer=closer,
        fills=fills,
        credits=credits,
        drop_cash=drop_cash,
        drop_markers=drop_markers,
        explained=explained,
        settled_rounds=settled_rounds,
        computed_result=computed_result,
        theoretical_rounds=theoretical_rounds,
        covered_result=covered_result,
        theoretical_win=theoretical_win,
        theoretical_variance=theoretical_variance,
    )


@dataclass(frozen=True, slots=True)
class RatingSums:
    """The ratings of a table, pit or floor summed, as shown (adjustments in): how many, their
    rounds, wagers, actual and theoretical win and time played (cents, seconds; from the house's
    side). An open rating adds its figures so far and no time."""

    ratings: int = 0
    rounds: int = 0
    wagered: Cents = 0
    actual_win: Cents = 0
    theoretical_win: Cents = 0
    seconds_played: int = 0

    def __add__(self, other: RatingSums) -> RatingSums:
        return RatingSums(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(RatingSums)))


def rating_sums(ratings: Iterable[Rating]) -> RatingSums:
    """The shown figures summed (``Rating.value``: the last adjustment, else as recorded)."""
    total = RatingSums()
    for rating in ratings:
        total = total + RatingSums(
            ratings=1,
            rounds=rating.rounds,
            wagered=rating.total_wagered,
            actual_win=rating.value(AdjustableField.ACTUAL_WIN) or 0,
            theoretical_win=rating.value(AdjustableField.THEORETICAL_WIN) or 0,
            seconds_played=rating.value(AdjustableField.SECONDS_PLAYED) or 0,
        )
    return total


__all__ = ["DayFigures", "RatingSums", "add_figures", "rating_sums", "table_figures"]
