"""Money policy: commission rounded to a quarter of the lowest chip (002), flat fee (004).

Every expected value below is worked out by hand: 5% of the win in cents, then the unit.
"""

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from table_controller.game.money import (
    CommissionExceedsWinError,
    CommissionPolicy,
    FlatFee,
    InvalidAmountError,
    MoneyError,
    NoCommission,
    PercentCommission,
    RoundingMode,
    RoundingUnitError,
    check_amount,
    format_cents,
    percent_commission,
    quarter_of_lowest_chip,
    round_to_unit,
)

# --- 002: "Commission is rounded up to a quarter of the lowest chip denomination" ---------


@pytest.mark.parametrize(
    ("win", "commission"),
    [
        (2500, 125),  # required: 5% of $25 = $1.25 exactly
        (3000, 150),  # required: 5% of $30 = $1.50 exactly
        (3100, 175),  # required: 5% of $31 = $1.55 -> $1.75
        (2000, 100),  # exact multiple: $1.00
        (2001, 125),  # one cent over $20: $1.0005 -> $1.25
        (10000, 500),  # $100 -> $5.00 exactly
        (10001, 525),  # $100.01 -> $5.0005 -> $5.25
        (500, 25),  # $5 -> $0.25 exactly
        (501, 50),  # $5.01 -> $0.2505 -> $0.50
        (100, 25),  # $1 -> $0.05 -> $0.25
        (25, 25),  # 25 cents -> 1.25 cents -> 25 cents: the whole win, still allowed
    ],
)
def test_commission_is_five_percent_rounded_up_to_a_quarter_of_a_one_dollar_chip(win, commission):
    assert percent_commission(win, rate_bp=500, unit=25, mode=RoundingMode.UP) == commission
    assert PercentCommission().commission_on(win) == commission


@pytest.mark.parametrize(
    ("win", "commission"),
    [
        (2500, 125),  # $1.25 = one unit of $1.25
        (2600, 250),  # $1.30 -> $2.50
        (10000, 500),  # $5.00 = four units
        (10100, 625),  # $5.05 -> $6.25
        (3000, 250),  # $1.50 -> $2.50
    ],
)
def test_five_dollar_lowest_chip_rounds_up_to_a_dollar_twenty_five(win, commission):
    policy = PercentCommission(lowest_chip=500)
    assert policy.rounding_unit == 125
    assert policy.commission_on(win) == commission


@pytest.mark.parametrize(
    ("mode", "win", "commission"),
    [
        (RoundingMode.HALF_UP, 3100, 150),  # 155 = 6.2 units -> 6
        (RoundingMode.HALF_UP, 3250, 175),  # 162.5 = 6.5 units -> 7 (a half goes up)
        (RoundingMode.HALF_UP, 3249, 150),  # 162.45 = 6.498 units -> 6
        (RoundingMode.HALF_UP, 2000, 100),
        (RoundingMode.HALF_UP, 100, 0),  # 5 cents = 0.2 units -> 0
        (RoundingMode.DOWN, 3100, 150),
        (RoundingMode.DOWN, 3199, 150),  # 159.95 -> 150
        (RoundingMode.DOWN, 3500, 175),  # exact
        (RoundingMode.DOWN, 100, 0),
    ],
)
def test_other_rounding_modes_are_named_settings(mode, win, commission):
    assert percent_commission(win, 500, 25, mode) == commission
    assert PercentCommission(rounding=mode).commission_on(win) == commission


def test_an_explicit_unit_replaces_the_quarter_chip():
    policy = PercentCommission(lowest_chip=50, unit=10)  # a 50-cent chip has no whole quarter
    assert policy.rounding_unit == 10
    assert policy.commission_on(3100) == 160  # 155 -> 160


def test_another_rate_in_basis_points():
    assert PercentCommission(rate_bp=400).commission_on(2500) == 100  # 4% of $25 = $1.00
    assert PercentCommission(rate_bp=400).commission_on(2600) == 125  # $1.04 -> $1.25


@settings(max_examples=300, deadline=None)
@given(win=st.integers(1, 10_000_000), unit=st.sampled_from([5, 25, 125, 250]))
def test_rounding_up_gives_the_smallest_unit_multiple_at_or_above_five_percent(win, unit):
    exact_times_100 = win * 5  # 5% of win, times 100, to stay in integers
    try:
        commission = percent_commission(win, 500, unit)
    except CommissionExceedsWinError:
        assert win < unit
        return
    assert commission % unit == 0
    assert commission * 100 >= exact_times_100 > (commission - unit) * 100


# --- refused amounts ------------------------------------------------------------------


@pytest.mark.parametrize("win", [0, -2500, -1])
def test_zero_and_negative_wins_are_refused(win):
    with pytest.raises(InvalidAmountError, match="positive whole number of cents"):
        percent_commission(win)


@pytest.mark.parametrize("amount", [25.0, Decimal("25"), True, "2500", None])
def test_amounts_must_be_int_cents_never_float_decimal_or_bool(amount):
    with pytest.raises(InvalidAmountError):
        check_amount(amount, "wager")
    with pytest.raises(InvalidAmountError):
        PercentCommission().commission_on(amount)


def test_a_win_below_the_unit_is_refused_rather_than_charged_more_than_won():
    with pytest.raises(CommissionExceedsWinError, match=r"\$0\.25 would exceed the win \$0\.24"):
        percent_commission(24, 500, 25)


@pytest.mark.parametrize("rate_bp", [0, -500, 10_001, 5.0, True])
def test_percent_commission_refuses_a_bad_rate(rate_bp):
    with pytest.raises(MoneyError, match="basis points"):
        percent_commission(2500, rate_bp, 25)


@pytest.mark.parametrize("unit", [0, -25, 2.5, True])
def test_round_to_unit_refuses_a_bad_unit(unit):
    with pytest.raises(RoundingUnitError):
        round_to_unit(125, 1, unit, RoundingMode.UP)


@pytest.mark.parametrize(("chip", "unit"), [(100, 25), (500, 125), (2500, 625), (4, 1)])
def test_quarter_of_the_lowest_chip(chip, unit):
    assert quarter_of_lowest_chip(chip) == unit


@pytest.mark.parametrize("chip", [50, 25, 10, 1])
def test_a_chip_without_a_whole_quarter_is_refused(chip):
    with pytest.raises(RoundingUnitError, match="set the rounding unit explicitly"):
        quarter_of_lowest_chip(chip)


@pytest.mark.parametrize("chip", [0, -100])
def test_a_lowest_chip_must_be_positive(chip):
    with pytest.raises(InvalidAmountError):
        quarter_of_lowest_chip(chip)


# --- policies as table settings -------------------------------------------------------


def test_standard_policy_defaults_are_five_percent_up_to_25_cents():
    policy = PercentCommission()
    assert (policy.rate_bp, policy.lowest_chip, policy.rounding_unit, policy.rounding) == (
        500,
        100,
        25,
        RoundingMode.UP,
    )
    assert policy.fee_per_hand == 0


@pytest.mark.parametrize(
    "fields",
    [
        {"rate_bp": 0},
        {"rate_bp": 1001},  # above 10%: refused as a likely typo
        {"rate_bp": 5.0},
        {"rate_bp": "500"},
        {"lowest_chip": 0},
        {"lowest_chip": 50},  # no whole quarter and no unit given
        {"unit": 0},
        {"unit": -25},
        {"rounding": "ceiling"},
        {"kind": "flat-fee"},
        {"surprise": 1},
    ],
)
def test_unsafe_percent_settings_are_refused(fields):
    with pytest.raises(ValidationError):
        PercentCommission(**fields)


def test_no_commission_pays_the_whole_win_and_charges_no_fee():
    assert NoCommission().commission_on(2500) == 0
    assert NoCommission().fee_per_hand == 0
    with pytest.raises(InvalidAmountError):
        NoCommission().commission_on(0)


def test_flat_fee_is_charged_per_hand_and_takes_no_commission():
    policy = FlatFee(fee=100)  # 004: "such as 5 cents or one dollar"
    assert policy.fee_per_hand == 100
    assert policy.commission_on(2500) == 0


@pytest.mark.parametrize("fee", [0, -5, 1.0, True])
def test_flat_fee_must_be_positive_cents(fee):
    with pytest.raises(ValidationError):
        FlatFee(fee=fee)


def test_policy_is_chosen_by_kind_in_configuration():
    adapter = TypeAdapter(CommissionPolicy)
    assert adapter.validate_python({"kind": "flat-fee", "fee": 5}) == FlatFee(fee=5)
    assert adapter.validate_python({"kind": "none"}) == NoCommission()
    percent = adapter.validate_python({"kind": "percent", "rate_bp": 500, "lowest_chip": 500})
    assert percent.rounding_unit == 125
    with pytest.raises(ValidationError):
        adapter.validate_python({"kind": "rake"})


def test_policies_are_frozen():
    with pytest.raises(ValidationError):
        PercentCommission().rate_bp = 1000  # type: ignore[misc]


@pytest.mark.parametrize(
    ("cents", "text"), [(12345, "$123.45"), (5, "$0.05"), (0, "$0.00"), (-2375, "-$23.75")]
)
def test_format_cents(cents, text):
    assert format_cents(cents) == text
