"""Money policy: amounts in integer cents, commission, rounding and the flat collection fee.

Every amount is an ``int`` of cents (``Cents``); rates are integer basis points (500 = 5%),
never floats. The policies are table settings, injected into settlement through
``TableRules.commission`` and tested on their own here.

- Commission (002_08ea07f9e4b504bc.txt): "Even Money minus 5% commission", the
  "Commission is rounded up to a quarter of the lowest chip denomination in the game"
  ($1 lowest chip: unit 25 cents; 5% of $31 = $1.55 -> $1.75).
- The flat collection fee (004_60e2fc6346e3399b.txt): "Californian casinos typically charge
  a flat fee per hand (such as 5 cents or one dollar) to play, win or lose" -- instead of the
  5% commission ("Other casinos take, out of the winnings, a 5% commission").
- No commission: the Double Joker game's default (003_4dcc2fceebc6e4af.txt pays "even
  money" without a commission).
"""

from __future__ import annotations

import enum
from typing import Annotated, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, Strict, StrictInt, model_validator

Cents: TypeAlias = int
"""An amount of money in integer cents: the one money type of the whole controller."""
StrictCents = Annotated[Cents, Strict()]
"""Cents as a stored field: a float, a numeric string or a bool is refused, never rounded."""
BASIS_POINTS: int = 10_000  # 100% in basis points
STANDARD_RATE_BP: int = 500  # 5% (002)
MAX_RATE_BP: int = 1_000  # 10%: a higher rate is refused as a likely typo
DEFAULT_LOWEST_CHIP: Cents = 100  # $1


class MoneyError(ValueError):
    """Base class of every error about amounts of money."""


class InvalidAmountError(MoneyError):
    """An amount that is not a positive whole number of cents."""

    def __init__(self, what: str, amount: object) -> None:
        super().__init__(f"{what} must be a positive whole number of cents, got {amount!r}")
        self.what = what
        self.amount = amount


class RoundingUnitError(MoneyError):
    """A rounding unit that is not a positive whole number of cents."""


class CommissionExceedsWinError(MoneyError):
    """The rounded commission would take more than the player won."""

    def __init__(self, win: Cents, commission: Cents) -> None:
        super().__init__(
            f"commission {format_cents(commission)} would exceed the win {format_cents(win)}: "
            "the win is smaller than the commission rounding unit"
        )
        self.win = win
        self.commission = commission


def format_cents(amount: Cents) -> str:
    """``123456`` -> ``"$1,234.56"``, ``-5`` -> ``"-$0.05"``: every amount a person reads, in
    messages, alerts, pages and documents (the API's fields stay integer cents)."""
    sign = "-" if amount < 0 else ""
    dollars, cents = divmod(abs(amount), 100)
    return f"{sign}${dollars:,}.{cents:02d}"


def check_amount(amount: object, what: str = "amount") -> Cents:
    """Return ``amount`` if it is an ``int`` of cents above zero; raise InvalidAmountError.

    ``bool``, ``float`` and ``Decimal`` are refused: a wager is counted in whole cents.
    """
    if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
        raise InvalidAmountError(what, amount)
    return amount


class RoundingMode(enum.StrEnum):
    """How a commission is brought to a multiple of the rounding unit."""

    UP = "up"  # to the next unit at or above: 002 "rounded up" (the default)
    # the two below depart from 002 ("rounded up"): house options, named as departures
    # wherever the table's rules are shown (game/departures.py)
    HALF_UP = "half-up"  # to the nearest unit, a half going up
    DOWN = "down"  # to the unit at or below


def round_to_unit(numerator: int, denominator: int, unit: Cents, mode: RoundingMode) -> Cents:
    """Round the exact amount ``numerator / denominator`` cents to a multiple of ``unit``.

    Integer arithmetic only: ``units = numerator / (denominator * unit)`` rounded by ``mode``.
    """
    if numerator < 0 or denominator <= 0:
        raise MoneyError(f"cannot round {numerator}/{denominator} cents")
    if isinstance(unit, bool) or not isinstance(unit, int) or unit <= 0:
        raise RoundingUnitError(f"rounding unit must be a positive whole number of cents, got {unit!r}")
    scale = denominator * unit
    if mode is RoundingMode.UP:
        units = -(-numerator // scale)
    elif mode is RoundingMode.DOWN:
        units = numerator // scale
    elif mode is RoundingMode.HALF_UP:
        units = (2 * numerator + scale) // (2 * scale)
    else:  # pragma: no cover - the enum is closed
        raise MoneyError(f"unknown rounding mode {mode!r}")
    return units * unit


def quarter_of_lowest_chip(lowest_chip: Cents) -> Cents:
    """The commission rounding unit of 002: a quarter of the lowest chip ($1 -> 25 cents).

    Refused when a quarter is not a whole number of cents (a 50-cent chip gives 12.5): give
    the unit explicitly then.
    """
    check_amount(lowest_chip, "lowest chip")
    if lowest_chip % 4:
        raise RoundingUnitError(
            f"a quarter of the lowest chip {format_cents(lowest_chip)} is not a whole number of cents; "
            "set the rounding unit explicitly"
        )
    return lowest_chip // 4


def percent_commission(
    win: Cents, rate_bp: int = STANDARD_RATE_BP, unit: Cents = 25, mode: RoundingMode = RoundingMode.UP
) -> Cents:
    """``rate_bp`` basis points of ``win``, rounded to ``unit`` by ``mode`` (002).

    Examples at unit 25 cents, mode up: 5% of $25 = $1.25, of $30 = $1.50, of $31 = $1.75.
    Raises InvalidAmountError for a win that is not positive, CommissionExceedsWinError
    when rounding up would take more than the win.
    """
    check_amount(win, "win")
    if isinstance(rate_bp, bool) or not isinstance(rate_bp, int) or not 0 < rate_bp <= BASIS_POINTS:
        raise MoneyError(f"commission rate must be 1..{BASIS_POINTS} basis points, got {rate_bp!r}")
    commission = round_to_unit(win * rate_bp, BASIS_POINTS, unit, mode)
    if commission > win:
        raise CommissionExceedsWinError(win, commission)
    return commission


_POLICY_CONFIG = ConfigDict(frozen=True, extra="forbid")


class PercentCommission(BaseModel):
    """A percentage of each win, rounded to a unit (002): the standard game's policy."""

    model_config = _POLICY_CONFIG

    kind: Literal["percent"] = "percent"
    rate_bp: StrictInt = Field(default=STANDARD_RATE_BP, ge=1, le=MAX_RATE_BP)
    lowest_chip: StrictInt = Field(default=DEFAULT_LOWEST_CHIP, gt=0)
    unit: StrictInt | None = Field(default=None, gt=0)
    rounding: RoundingMode = RoundingMode.UP

    @model_validator(mode="after")
    def _unit_is_whole_cents(self) -> PercentCommission:
        if self.unit is None and self.lowest_chip % 4:
            raise ValueError(
                f"a quarter of the lowest chip ({self.lowest_chip} cents) is not a whole number of "
                "cents; set 'unit' explicitly"
            )
        return self

    @property
    def rounding_unit(self) -> Cents:
        """The given unit, else a quarter of the lowest chip (002)."""
        return self.unit if self.unit is not None else quarter_of_lowest_chip(self.lowest_chip)

    @property
    def fee_per_hand(self) -> Cents:
        return 0

    def commission_on(self, win: Cents) -> Cents:
        return percent_commission(win, self.rate_bp, self.rounding_unit, self.rounding)


class NoCommission(BaseModel):
    """Wins are paid in full and no fee is charged (Double Joker default, 003)."""

    model_config = _POLICY_CONFIG

    kind: Literal["none"] = "none"

    @property
    def fee_per_hand(self) -> Cents:
        return 0

    def commission_on(self, win: Cents) -> Cents:
        check_amount(win, "win")
        return 0


class FlatFee(BaseModel):
    """California-style collection: a flat fee per hand played, win or lose, no commission (004)."""

    model_config = _POLICY_CONFIG

    kind: Literal["flat-fee"] = "flat-fee"
    fee: StrictInt = Field(gt=0)

    @property
    def fee_per_hand(self) -> Cents:
        return self.fee

    def commission_on(self, win: Cents) -> Cents:
        check_amount(win, "win")
        return 0


CommissionPolicy = Annotated[PercentCommission | NoCommission | FlatFee, Field(discriminator="kind")]
"""One of the three policies, chosen in configuration by ``kind``."""

STANDARD_COMMISSION = PercentCommission()
NO_COMMISSION = NoCommission()

__all__ = [
    "BASIS_POINTS",
    "DEFAULT_LOWEST_CHIP",
    "MAX_RATE_BP",
    "NO_COMMISSION",
    "STANDARD_COMMISSION",
    "STANDARD_RATE_BP",
    "Cents",
    "CommissionExceedsWinError",
    "CommissionPolicy",
    "FlatFee",
    "InvalidAmountError",
    "MoneyError",
    "NoCommission",
    "PercentCommission",
    "RoundingMode",
    "RoundingUnitError",
    "check_amount",
    "format_cents",
    "percent_commission",
    "quarter_of_lowest_chip",
    "round_to_unit",
]
