"""The table's limits as they hold now, and a pit user's change of them (docs/dealers.md,
"Table limits").

The limits a round is opened and its wagers placed under: the main wager's least and most, the
most on each Double Joker bonus (003), and the most on the Fortune Bonus when the table offers it
(``max_fortune``; the progressive is a fixed amount, not a limit). The configured limits
(``[limits]`` and ``fortune.max_wager``) are the table's **approved** limits: a pit user may
change the limits in force while the table runs, within them (a higher least, a lower most, or
back), never past them. Values are integer cents.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from ..settings import Limits, TableSettings
from ..storage.limits import LIMIT_FIELDS


class LimitsError(ValueError):
    """A change of the limits that cannot be: not whole cents, a least above the most, past the
    approved limits, a Fortune limit where the table offers no Fortune Bonus."""


@dataclass(frozen=True, slots=True)
class TableLimits:
    """The limits in force: ``main`` (settings.Limits) and ``max_fortune`` (None: no Fortune)."""

    main: Limits
    max_fortune: int | None = None

    @classmethod
    def approved(cls, settings: TableSettings) -> TableLimits:
        """The configured limits: the ones a table starts with, and the bounds of any change."""
        fortune = settings.fortune
        return cls(settings.limits, fortune.max_wager if fortune.enabled else None)

    def payload(self) -> dict[str, int | None]:
        """As the chain carries them (storage/limits.py's LIMIT_FIELDS)."""
        return dict(
            zip(
                LIMIT_FIELDS,
                (self.main.min_main, self.main.max_main, self.main.max_bonus, self.max_fortune),
                strict=True,
            )
        )

    @classmethod
    def from_payload(cls, data: Mapping[str, Any]) -> TableLimits:
        """Read back from the chain; a stored value the models refuse is a LimitsError."""
        try:
            main = Limits(
                min_main=data["min_main_cents"],
                max_main=data["max_main_cents"],
                max_bonus=data["max_bonus_cents"],
            )
        except (KeyError, TypeError, ValidationError) as error:
            raise LimitsError(f"stored limits cannot be read: {error}") from None
        fortune = data.get("max_fortune_cents")
        return cls(main, None if fortune is None else int(fortune))

    def words(self) -> str:
        text = (
            f"main wager {self.main.min_main}..{self.main.max_main} cents, bonus up to {self.main.max_bonus}"
        )
        return text + ("" if self.max_fortune is None else f", fortune up to {self.max_fortune}")


def _cents(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise LimitsError(f"{what} must be a whole number of cents, got {value!r}")
    return value


def check_change(
    approved: TableLimits,
    *,
    min_main: object,
    max_main: object,
    max_bonus: object,
    max_fortune: object = None,
) -> TableLimits:
    """The limits a pit user asks for, checked against the ``approved`` ones: each a whole
    number of cents, the least above 0 and not above the most, each within the approved
    limits; ``max_fortune`` only where the table offers the Fortune Bonus (None: the approved
    one stays)."""
    low, high = _cents(min_main, "min_main_cents"), _cents(max_main, "max_main_cents")
    bonus = _cents(max_bonus, "max_bonus_cents")
    if low <= 0:
        raise LimitsError(f"min_main_cents must be above 0, got {low}")
    if low > high:
        raise LimitsError(f"min_main_cents {low} is above max_main_cents {high}")
    if bonus < 0:
        raise LimitsError(f"max_bonus_cents must be at least 0, got {bonus}")
    bounds = approved.main
    if low < bounds.min_main or high > bounds.max_main:
        raise LimitsError(
            f"main wager {low}..{high} cents is past the table's approved limits"
            f" {bounds.min_main}..{bounds.max_main}: a change stays within them"
        )
    if bonus > bounds.max_bonus:
        raise LimitsError(
            f"max_bonus_cents {bonus} is above the table's approved {bounds.max_bonus}:"
            " a change stays within it"
        )
    fortune: int | None = approved.max_fortune
    if max_fortune is not None:
        if approved.max_fortune is None:
            raise LimitsError("this table offers no Fortune Bonus: max_fortune_cents cannot be set")
        fortune = _cents(max_fortune, "max_fortune_cents")
        if not 0 < fortune <= approved.max_fortune:
            raise LimitsError(
                f"max_fortune_cents must be above 0 and at most the table's approved"
                f" {approved.max_fortune}, got {fortune}"
            )
    return TableLimits(Limits(min_main=low, max_main=high, max_bonus=bonus), fortune)


__all__ = ["LimitsError", "TableLimits", "check_change"]
