"""Who dealt, and how fast: the dealers' time on the box and the hands per hour (docs/dealers.md).

A dealer's **stint** is their time on a table's box: from their sign-in to the sign-in of the
dealer who relieves them (the push), or to their sign-out; an open stint (``end`` None) runs
to now. A table has one dealer on the box at a time, so its stints never overlap.

A **hand** is a settled round (a voided or misdealt round was not played out); it belongs to the
dealer the round recorded on the box when it opened (``rounds.dealer``) and to the period it
opened in, as the reports' rounds do. The pace of a dealer over a period is

    hands per hour = hands x 3600 / seconds on the box     (HANDS_PER_HOUR_PLACES, half-even)

computed exactly from whole microseconds; no time on the box has no pace (None), never a
division error. The table's pace is all its hands over the time any dealer was on its box.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import ROUND_HALF_EVEN, Decimal
from itertools import pairwise

from .amounts import instant, person
from .errors import DealerError, SignatureError

HANDS_PER_HOUR_PLACES = Decimal("0.1")
"""Hands per hour are given to one decimal place, rounded half-even (``hands_per_hour``)."""
_MICROSECONDS_PER_HOUR = 3600 * 10**6
_MICROSECOND = timedelta(microseconds=1)


@dataclass(frozen=True, slots=True)
class Stint:
    """One dealer's time on one table's box; ``end`` None while they are on it."""

    dealer: str
    start: datetime
    end: datetime | None = None

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "dealer", person(self.dealer, "the dealer on the box"))
        except SignatureError as error:
            raise DealerError(str(error)) from error
        object.__setattr__(self, "start", instant(self.start, "a stint's start"))
        if self.end is not None:
            object.__setattr__(self, "end", instant(self.end, "a stint's end"))
            if self.end < self.start:
                raise DealerError(
                    f"{self.dealer}'s stint ends at {self.end.isoformat()}, before it starts"
                    f" at {self.start.isoformat()}"
                )

    def within(self, start: datetime, end: datetime) -> timedelta:
        """How long the stint lies within ``[start, end)``; an open stint runs to ``end``."""
        until = end if self.end is None else min(self.end, end)
        return max(until - max(self.start, start), timedelta(0))


def hands_per_hour(hands: int, on_box: timedelta) -> Decimal | None:
    """``hands x 3600 / seconds on the box`` to HANDS_PER_HOUR_PLACES, half-even; None without
    time on the box. Exact: the time is counted in whole microseconds."""
    if isinstance(hands, bool) or not isinstance(hands, int) or hands < 0:
        raise DealerError(f"hands must be a whole number at or above 0, got {hands!r}")
    micro = on_box // _MICROSECOND
    if micro <= 0:
        return None
    return (Decimal(hands) * _MICROSECONDS_PER_HOUR / Decimal(micro)).quantize(
        HANDS_PER_HOUR_PLACES, rounding=ROUND_HALF_EVEN
    )


def check_stints(stints: Iterable[Stint]) -> list[Stint]:
    """One table's stints by start; two that overlap (two dealers on one box) are refused, as is
    an open stint followed by another."""
    ordered = sorted(stints, key=lambda stint: stint.start)
    for before, after in pairwise(ordered):
        if before.end is None or before.end > after.start:
            raise DealerError(
                f"{before.dealer} is on the box from {before.start.isoformat()} when {after.dealer}"
                f" signs in at {after.start.isoformat()}: one dealer on a table's box at a time"
            )
    return ordered


@dataclass(frozen=True, slots=True)
class Pace:
    """A dealer's (``dealer`` None: the table's) hands and time on the box in a period."""

    dealer: str | None
    hands: int
    on_box: timedelta

    @property
    def seconds_on_box(self) -> int:
        """Whole seconds on the box (rounded down)."""
        return int(self.on_box // timedelta(seconds=1))

    @property
    def hands_per_hour(self) -> Decimal | None:
        return hands_per_hour(self.hands, self.on_box)


@dataclass(frozen=True, slots=True)
class TablePace:
    """A table's pace in a period: each dealer's (by name) and the table's."""

    dealers: tuple[Pace, ...]
    table: Pace

    def of(self, dealer: str) -> Pace | None:
        return next((pace for pace in self.dealers if pace.dealer == dealer), None)


def pace(stints: Iterable[Stint], hands: Mapping[str, int], *, start: datetime, end: datetime) -> TablePace:
    """The pace of each dealer of one table over ``[start, end)`` (an open stint runs to
    ``end``, the caller's now): their ``hands`` (settled rounds by the dealer each recorded)
    over their time on the box. A dealer with hands and no stint (rounds opened before sign-ins
    were kept) is listed with no time, so no pace. Dealers by name."""
    start, end = instant(start, "the period's start"), instant(end, "the period's end")
    if end < start:
        raise DealerError(f"the period ends at {end.isoformat()}, before it starts at {start.isoformat()}")
    on_box: dict[str, timedelta] = {}
    for stint in check_stints(stints):
        spent = stint.within(start, end)
        if spent or stint.dealer in hands:
            on_box[stint.dealer] = on_box.get(stint.dealer, timedelta(0)) + spent
    for dealer, count in hands.items():
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise DealerError(f"{dealer}'s hands must be a whole number at or above 0, got {count!r}")
        on_box.setdefault(dealer, timedelta(0))
    dealers = tuple(Pace(name, hands.get(name, 0), on_box[name]) for name in sorted(on_box))
    table = Pace(None, sum(hands.values()), sum((p.on_box for p in dealers), timedelta(0)))
    return TablePace(dealers, table)


__all__ = [
    "HANDS_PER_HOUR_PLACES",
    "Pace",
    "Stint",
    "TablePace",
    "check_stints",
    "hands_per_hour",
    "pace",
]
