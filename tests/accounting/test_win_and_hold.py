"""Win and hold (docs/accounting.md, "Win and hold"): the formula, the hold's rounding, a drop
of 0, sums per table, pit and floor, and every refusal of an account's inputs."""

from dataclasses import replace
from datetime import date, timedelta
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table_controller.accounting.chips import Chips, CountKind
from table_controller.accounting.drop import Drop, DropEntry, DropKind, DropSource
from table_controller.accounting.errors import DuplicateError, MismatchError
from table_controller.accounting.slips import SlipKind, deliver, request_slip
from table_controller.accounting.win import (
    Level,
    TableAccount,
    account_table,
    grouped,
    hold_percent,
    table_win,
    totals,
)

from . import day


def test_win_is_drop_plus_the_tray_change_plus_credits_less_fills():
    # $1,500 dropped, the tray from $11,100 to $8,675, $2,000 credited, $1,000 filled: $75
    assert table_win(drop=150_000, opener=1_110_000, closer=867_500, fills=100_000, credits=200_000) == 7_500


@pytest.mark.parametrize(
    ("win", "drop", "hold"),
    [
        (7_500, 150_000, Decimal("5.00")),
        (1, 3, Decimal("33.33")),  # 33.333..
        (2, 3, Decimal("66.67")),  # 66.666..
        (1, 8, Decimal("12.50")),  # exactly 12.5
        (13, 20_000, Decimal("0.06")),  # exactly 0.065: half-even keeps the even 6
        (3, 4_000, Decimal("0.08")),  # 0.075 -> 0.08 (half-even: the 7 goes up to 8)
        (-2_500, 150_000, Decimal("-1.67")),
        (0, 150_000, Decimal("0.00")),
    ],
)
def test_hold_is_a_decimal_percent_to_two_places_half_even(win, drop, hold):
    assert hold_percent(win, drop) == hold


def test_a_drop_of_nothing_has_no_hold():
    assert hold_percent(5_000, 0) is None


def account(table_id, pit, shift, win_parts):
    opener, closer, fills, credits, cash, markers = win_parts
    return TableAccount(
        table_id, pit, date(2026, 12, 3), shift, opener, closer, fills, credits, Drop(cash, markers)
    )


def test_groups_sum_their_wins_and_hold_the_sum_over_the_summed_drop():
    a = account("PG-1", "Pit 1", "day", (1_000, 900, 0, 0, 1_000, 0))  # win 900, hold 90%
    b = account("PG-2", "Pit 1", "day", (1_000, 1_000, 0, 0, 9_000, 1_000))  # win 10,000, hold 100%
    c = account("PG-3", "Pit 2", "swing", (5_000, 4_000, 500, 0, 0, 0))  # win -1,500, no drop
    by_pit = grouped([a, b, c], Level.PIT, per_shift=False)
    pit_1 = by_pit[(date(2026, 12, 3), None, "Pit 1")]
    # (900 + 10,000) / 11,000 = 99.0909..% -> 99.09, not the mean of 90 and 100
    assert (pit_1.accounts, pit_1.win, pit_1.drop, pit_1.hold_percent) == (
        2,
        10_900,
        11_000,
        Decimal("99.09"),
    )
    pit_2 = by_pit[(date(2026, 12, 3), None, "Pit 2")]
    assert (pit_2.win, pit_2.hold_percent) == (-1_500, None)
    floor = grouped([a, b, c], Level.FLOOR, per_shift=True)
    assert set(floor) == {(date(2026, 12, 3), "day"), (date(2026, 12, 3), "swing")}
    assert grouped([a, b, c], Level.TABLE, per_shift=False)[(date(2026, 12, 3), None, "PG-2")].win == 10_000


cents = st.integers(min_value=0, max_value=10**9)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # a loaded machine is not a failure
@given(st.lists(st.tuples(cents, cents, cents, cents, cents, cents), min_size=1, max_size=8))
def test_the_sum_of_wins_is_the_formula_on_the_sums(parts):
    accounts = [account(f"PG-{i}", None, None, p) for i, p in enumerate(parts)]
    total = totals(accounts)
    assert total.win == table_win(
        drop=total.drop, opener=total.opener, closer=total.closer, fills=total.fills, credits=total.credits
    )


def test_the_shifts_of_a_day_add_up_to_the_day_when_each_closer_is_the_next_opener():
    # day shift: 10,000 -> 12,000, swing: 12,000 -> 7,000, a 3,000 fill in swing; drop 1,000 + 500
    shifts = [
        account("PG-1", None, "day", (10_000, 12_000, 0, 0, 1_000, 0)),
        account("PG-1", None, "swing", (12_000, 7_000, 3_000, 0, 500, 0)),
    ]
    whole_day = account("PG-1", None, None, (10_000, 7_000, 3_000, 0, 1_500, 0))
    assert totals(shifts).win == whole_day.win == -4_500


def base_inputs(**changes):
    inputs = {
        "table_id": day.TABLE,
        "pit": None,
        "period": day.PERIOD,
        "opener": day.count(CountKind.OPENER, day.OPENER_CHIPS, day.at(11)),
        "closer": day.count(CountKind.CLOSER, day.CLOSER_CHIPS, day.at(10, 59, day=4)),
        "slips": day.slips(),
        "drop": day.drop(),
    }
    return {**inputs, **changes}


def other_slip(**changes):
    slip = request_slip(
        SlipKind.FILL, number=900, table_id="PG-1", chips=Chips.of({100: 1}), at=day.at(12), by="Cara"
    )
    return replace(deliver(slip, at=day.at(12), runner="Dan", table_signer="Ana"), **changes)


@pytest.mark.parametrize(
    ("changes", "error"),
    [
        ({"opener": day.count(CountKind.CLOSER, day.OPENER_CHIPS, day.at(11))}, MismatchError),
        ({"closer": day.count(CountKind.OPENER, day.OPENER_CHIPS, day.at(11))}, MismatchError),
        (
            {"opener": replace(day.count(CountKind.OPENER, day.OPENER_CHIPS, day.at(11)), table_id="PG-2")},
            MismatchError,
        ),
        ({"closer": day.count(CountKind.CLOSER, day.CLOSER_CHIPS, day.at(11), "day")}, MismatchError),
        ({"opener": "11100.00"}, MismatchError),
        (
            {"closer": day.count(CountKind.CLOSER, day.CLOSER_CHIPS, day.at(10, 59))},
            MismatchError,
        ),  # before 11:00
        ({"slips": [*day.slips(), other_slip(table_id="PG-2")]}, MismatchError),
        ({"slips": [*day.slips(), other_slip(number=101)]}, DuplicateError),
        (
            {"drop": [DropEntry("PG-1", date(2026, 12, 2), None, DropKind.CASH, 1, DropSource.SOFT_COUNT)]},
            MismatchError,
        ),
        (
            {"drop": [DropEntry("PG-2", day.DAY, None, DropKind.CASH, 1, DropSource.SOFT_COUNT)]},
            MismatchError,
        ),
        ({"drop": day.drop() + day.drop()[1:]}, DuplicateError),
    ],
)
def test_an_account_of_inputs_that_do_not_belong_together_is_refused(changes, error):
    with pytest.raises(error):
        account_table(**base_inputs(**changes))


def test_slips_delivered_outside_the_period_belong_to_another_one():
    late = other_slip(delivered_at=day.PERIOD.end, number=901)
    early = other_slip(delivered_at=day.PERIOD.start - timedelta(microseconds=1), number=902)
    edge = other_slip(delivered_at=day.PERIOD.start, number=903)
    table = account_table(**base_inputs(slips=[*day.slips(), late, early, edge]))
    assert (table.fills, table.fill_slips) == (100_100, (101, 903))
