"""Chips by denomination, and the opener and closer of a table (docs/accounting.md, "Chips").

A ``Chips`` is a count of chips per denomination (integer cents); its ``value`` is the sum of
denomination x count. The casino's ``ChipSet`` names the denominations in use; an inventory
with any other is refused. An ``InventoryCount`` is the tray counted at the start (opener) or
the end (closer) of a gaming day or shift, signed by the dealer and a pit supervisor, two people.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime

from ..game.money import Cents
from .amounts import instant, two_people
from .errors import ChipError

DEFAULT_DENOMINATIONS: tuple[Cents, ...] = (100, 500, 2_500, 10_000, 50_000, 100_000, 500_000)
"""$1, $5, $25, $100, $500, $1,000, $5,000: the usual table chips."""


@dataclass(frozen=True, slots=True)
class Chips:
    """A count of chips per denomination (cents -> chips), denominations in ascending order.

    Build with ``Chips.of({2500: 40, 500: 100})``; zero counts are dropped, so two counts of the
    same chips compare equal.
    """

    counts: tuple[tuple[Cents, int], ...] = ()

    def __post_init__(self) -> None:
        seen: set[int] = set()
        for pair in self.counts:
            if not isinstance(pair, tuple) or len(pair) != 2:
                raise ChipError(f"a count is (denomination, chips), got {pair!r}")
            denomination, count = pair
            if isinstance(denomination, bool) or not isinstance(denomination, int) or denomination <= 0:
                raise ChipError(f"a denomination is a positive whole number of cents, got {denomination!r}")
            if isinstance(count, bool) or not isinstance(count, int) or count <= 0:
                raise ChipError(
                    f"the count of {denomination}-cent chips must be a positive whole number, got {count!r}"
                )
            if denomination in seen:
                raise ChipError(f"denomination {denomination} given twice")
            seen.add(denomination)
        if list(self.counts) != sorted(self.counts):
            raise ChipError("denominations must be in ascending order (use Chips.of)")

    @classmethod
    def of(cls, counts: Mapping[Cents, int]) -> Chips:
        """From a mapping denomination -> count; a count of 0 is dropped, a negative one refused."""
        if not isinstance(counts, Mapping):
            raise ChipError(f"chips are a mapping of denomination to count, got {counts!r}")
        for denomination, count in counts.items():
            if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                raise ChipError(f"the count of {denomination!r}-cent chips must be 0 or more, got {count!r}")
        return cls(tuple(sorted((d, n) for d, n in counts.items() if n != 0)))

    @property
    def value(self) -> Cents:
        return sum(denomination * count for denomination, count in self.counts)

    def count(self, denomination: Cents) -> int:
        return dict(self.counts).get(denomination, 0)

    def as_dict(self) -> dict[Cents, int]:
        return dict(self.counts)


@dataclass(frozen=True, slots=True)
class ChipSet:
    """The denominations the casino's tables use (cents), ascending."""

    denominations: tuple[Cents, ...] = DEFAULT_DENOMINATIONS

    def __post_init__(self) -> None:
        values = self.denominations
        if not values or any(isinstance(d, bool) or not isinstance(d, int) or d <= 0 for d in values):
            raise ChipError(f"denominations are positive whole numbers of cents, got {values!r}")
        if list(values) != sorted(set(values)):
            raise ChipError(f"denominations must be ascending and distinct, got {values!r}")

    def check(self, chips: Chips) -> Chips:
        """``chips`` if every denomination is one of the set; raise ChipError naming the others."""
        unknown = [d for d, _ in chips.counts if d not in self.denominations]
        if unknown:
            raise ChipError(
                f"denominations {unknown} are not chips of this casino {list(self.denominations)}"
            )
        return chips


class CountKind(enum.StrEnum):
    """Which count of the tray: at the start or at the end of the period."""

    OPENER = "opener"
    CLOSER = "closer"


@dataclass(frozen=True, slots=True)
class InventoryCount:
    """The tray of ``table_id`` counted for gaming day ``day`` (and ``shift``; None: the whole
    day), at ``at``, signed by the ``dealer`` and a pit ``supervisor``: two people."""

    kind: CountKind
    table_id: str
    day: date
    shift: str | None
    at: datetime
    chips: Chips
    dealer: str
    supervisor: str
    chip_set: ChipSet = field(default_factory=ChipSet, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.kind, CountKind):
            raise ChipError(f"a count is an opener or a closer, got {self.kind!r}")
        if not isinstance(self.chips, Chips):
            raise ChipError(f"a count holds Chips, got {self.chips!r}")
        self.chip_set.check(self.chips)
        dealer, supervisor = two_people(self.dealer, self.supervisor, "dealer", "pit supervisor")
        object.__setattr__(self, "dealer", dealer)
        object.__setattr__(self, "supervisor", supervisor)
        object.__setattr__(self, "at", instant(self.at, f"the {self.kind.value}'s time"))

    @property
    def value(self) -> Cents:
        return self.chips.value


__all__ = ["DEFAULT_DENOMINATIONS", "ChipSet", "Chips", "CountKind", "InventoryCount"]
