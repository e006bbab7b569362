"""A period's figures for the reports, per table and summed (accounting/closing.py;
docs/accounting.md, "The day in the reports"), worked out by hand.

- A: opener 100,000, closer 69,000, fill 20,000, drop 50,000 cash: win 50,000 + (69,000 -
  100,000) + 0 - 20,000 = -1,000, hold -2.00 %; computed -1,000, no line: variance 0.
  Theoretical 370 (variance 1,400,000): 1.96 x sqrt(1,400,000) = 2,319.10.. -> 2,319, the band
  [-1,949, 2,689] around the covered result -1,000: inside; theoretical hold 370 / 50,000 =
  0.74 %; the band as holds over the drop: -1,949 / 50,000 = -3.898 -> -3.90 %, 2,689 / 50,000 =
  5.378 -> 5.38 %.
- B: opener 200,000, closer 158,000, credit 30,000, a 10,000 marker, tips -500: win 10,000 -
  42,000 + 30,000 = -2,000, hold -20.00 %; computed 500: variance -2,000 - 500 + 500 = -2,000.
- C: no closer: no win, no hold, no variance, named ``C: closer``.
- A + B + C: the sums of A and B (C left out, named): win -3,000 = 60,000 - 73,000 + 30,000 -
  20,000, hold -5.00 %, variance -2,000, theoretical 370, its hold 370 / 60,000 = 0.6166.. ->
  0.62 %, the band as holds -1,949 / 60,000 = -3.248.. -> -3.25 %, 2,689 / 60,000 = 4.481.. ->
  4.48 %.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from table_controller.accounting.closing import (
    DayFigures,
    RatingSums,
    add_figures,
    rating_sums,
    table_figures,
)
from table_controller.accounting.ratings import AdjustableField, EndReason, Rating, adjust

A = table_figures(
    "A",
    opener=100_000,
    closer=69_000,
    fills=20_000,
    drop_cash=50_000,
    settled_rounds=2,
    computed_result=-1_000,
    theoretical_rounds=2,
    covered_result=-1_000,
    theoretical_win=370,
    theoretical_variance=1_400_000,
)
B = table_figures(
    "B",
    opener=200_000,
    closer=158_000,
    credits=30_000,
    drop_markers=10_000,
    explained=-500,
    settled_rounds=1,
    computed_result=500,
)
C = table_figures("C", opener=300_000, closer=None, computed_result=1_000, theoretical_win=300)


def test_a_tables_win_hold_band_and_variance() -> None:
    assert (A.win, A.hold_percent, A.variance, A.flagged(0)) == (-1_000, Decimal("-2.00"), 0, False)
    band = A.band
    assert band is not None and (band.low_cents, band.high_cents, band.outside) == (-1_949, 2_689, False)
    assert A.theoretical_hold_percent == Decimal("0.74")
    assert A.hold_band == (Decimal("-3.90"), Decimal("5.38"))
    assert (B.win, B.hold_percent, B.variance, B.flagged(0), B.flagged(2_000)) == (
        -2_000,
        Decimal("-20.00"),
        -2_000,
        True,
        False,
    )
    assert (B.band, B.theoretical_hold_percent, B.hold_band) == (None, None, None)


def test_a_table_not_counted_has_no_win_and_is_named() -> None:
    assert (C.complete, C.win, C.hold_percent, C.variance, C.flagged(0)) == (False, None, None, None, None)
    assert C.hold_band is None  # a theoretical win but no drop: no hold to set it beside
    assert C.missing == ("C: closer",)
    assert table_figures("D", opener=None, closer=None).missing == ("D: opener", "D: closer")


def test_a_pit_sums_its_counted_tables_and_names_the_others() -> None:
    pit = add_figures([A, B, C])
    assert (pit.tables, pit.missing, pit.opener, pit.closer) == (3, ("C: closer",), 300_000, 227_000)
    assert (pit.drop, pit.win, pit.hold_percent, pit.variance) == (60_000, -3_000, Decimal("-5.00"), -2_000)
    assert (pit.computed_result, pit.explained, pit.theoretical_win) == (-500, -500, 370)
    assert pit.theoretical_hold_percent == Decimal("0.62")
    assert pit.hold_band == (Decimal("-3.25"), Decimal("4.48"))
    assert pit.win == (A.win or 0) + (B.win or 0)  # the win of a group is the sum of its wins
    nothing = add_figures([C])
    assert (nothing.opener, nothing.win, nothing.theoretical_win, nothing.missing) == (
        None,
        None,
        None,
        ("C: closer",),
    )
    empty = add_figures([])
    assert empty == DayFigures(0, (), None, None, 0, 0, 0, 0, 0, 0, 0, 0, 0, None, None)


def test_ratings_are_summed_as_shown() -> None:
    """Two ratings: 3 rounds, 7,500 wagered, actual -7,125, theoretical 111, 600 s; and 2 rounds,
    3,000, actual 0, theoretical 45, still open. The first's actual win adjusted to -7,000:
    2 ratings, 5 rounds, 10,500, actual -7,000, theoretical 156, 600 s."""
    start = datetime(2026, 12, 3, 12, tzinfo=UTC)
    closed = Rating(
        "r1", "t1", "P-1", 3, start, datetime(2026, 12, 3, 12, 10, tzinfo=UTC), EndReason.LEFT,
        3, 7_500, 0, -7_125, 111, 3, 0, 0, 0, 0, 0, (),
    )  # fmt: skip
    still = Rating("r2", "t1", "P-2", 5, start, None, None, 2, 3_000, 0, 0, 45, 2, 0, 0, 0, 0, 0, ())
    adjusted = adjust(
        closed,
        AdjustableField.ACTUAL_WIN,
        -7_000,
        reason="a $1.25 commission paid back",
        actor="pia",
        at=start,
    )
    assert rating_sums([adjusted, still]) == RatingSums(2, 5, 10_500, -7_000, 156, 600)
    assert rating_sums([]) == RatingSums()
