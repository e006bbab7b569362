"""A progressive pay table's math from the exact Fortune counts (progressive-research.md
§1.7; docs/progressive.md): per line its probability; per level its hit probability, which
must not be rarer than 1 in 100 million (NJ 13:69D-1.52(e), PRG-02); the return to player
at a given meter; the break-even meter; the long-run return.

- Return at a meter M (what one wager is worth now): ``sum(p * gross) / wager`` where a
  meter line's gross is ``share * M``, a fixed line's its amount, an odds line's
  ``(N + 1) * wager`` (the cents' rounding down ignored: under a cent per hit).
- Break-even meter of a level: the M at which that return is 1, the other levels at their
  reset: ``(wager - rest) / sum(p * share)``.
- Long-run return: the fixed and odds lines, plus the increment rate (every contributed
  cent is paid, §1.7), plus the seed money a whole-meter hit puts back, ``p * reset /
  wager``. The reserve only decides who funds the seed, so it is not counted again; a
  percentage hit that tops the meter up to its reset and overflow kept as revenue are not
  counted (the figure assumes the meter stays under its limit).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final

from ..game.fortune import FORTUNE_LINES, FortuneHand
from ..game.money import BASIS_POINTS, Cents
from ..game.progressive import WHOLE_METER
from ..game.progressive_paytable import Award, AwardKind, ProgressivePayTable, ProgressivePayTableError
from .fortune_math import fortune_counts

RAREST_LEVEL: Final = Fraction(1, 100_000_000)  # NJ 13:69D-1.52(e): not rarer than 1 in 100 million


class ImprobableLevelError(ProgressivePayTableError):
    """A level or line rarer than 1 in 100 million (PRG-02)."""


@dataclass(frozen=True, slots=True)
class ProgressiveLineMath:
    hand: FortuneHand
    award: Award
    combinations: int
    probability: Fraction


@dataclass(frozen=True, slots=True)
class ProgressiveMath:
    table: ProgressivePayTable
    lines: tuple[ProgressiveLineMath, ...]
    total: int

    def level_probability(self, level: str) -> Fraction:
        """Per wager, the probability that a hand wins anything from ``level``'s meter."""
        return sum(
            (
                line.probability
                for line in self.lines
                if line.award.kind is AwardKind.METER and line.award.level == level
            ),
            Fraction(0),
        )

    def _resets(self) -> dict[str, Cents]:
        return {level.name: level.reset for level in self.table.levels}

    def return_at(self, meters: dict[str, Cents] | None = None) -> Fraction:
        """Return to player per unit wagered with the levels at ``meters`` (default: reset)."""
        at = {**self._resets(), **(meters or {})}
        gross = Fraction(0)
        for line in self.lines:
            award = line.award
            if award.kind is AwardKind.METER:
                gross += line.probability * Fraction(at[award.level] * award.share_bp, BASIS_POINTS)
            else:
                gross += line.probability * award.gross(self.table.wager, 0)
        return gross / self.table.wager

    def break_even_meter(self, level: str) -> Fraction | None:
        """The meter of ``level`` (cents) at which one wager returns what it costs, the
        other levels at their reset; None when no line pays from it."""
        slope = sum(
            (
                line.probability * Fraction(line.award.share_bp, BASIS_POINTS)
                for line in self.lines
                if line.award.kind is AwardKind.METER and line.award.level == level
            ),
            Fraction(0),
        )
        if not slope:
            return None
        rest = self.return_at({level: 0}) * self.table.wager
        return (self.table.wager - rest) / slope

    def long_run_return(self) -> Fraction:
        """Steady-state return per unit wagered (module docstring)."""
        fixed = (
            sum(
                (
                    line.probability * line.award.gross(self.table.wager, 0)
                    for line in self.lines
                    if line.award.kind is not AwardKind.METER
                ),
                Fraction(0),
            )
            / self.table.wager
        )
        increments = sum(
            (Fraction(level.increment_bp, BASIS_POINTS) for level in self.table.levels), Fraction(0)
        )
        seeds = Fraction(0)
        for level in self.table.levels:
            whole = sum(
                (
                    line.probability
                    for line in self.lines
                    if line.award.kind is AwardKind.METER
                    and line.award.level == level.name
                    and line.award.share_bp == WHOLE_METER
                ),
                Fraction(0),
            )
            seeds += whole * level.reset / self.table.wager
        return fixed + increments + seeds

    def check_probabilities(self, rarest: Fraction = RAREST_LEVEL) -> None:
        """Refuse a table with a level or a paying line rarer than ``rarest`` (PRG-02)."""
        for level in self.table.levels:
            if self.level_probability(level.name) < rarest:
                raise ImprobableLevelError(
                    f"level {level.name} is hit with probability {self.level_probability(level.name)}, "
                    f"rarer than {rarest}"
                )
        for line in self.lines:
            if line.probability < rarest:
                raise ImprobableLevelError(
                    f"line {line.hand.label} has probability {line.probability}, rarer than {rarest}"
                )

    def as_dict(self, meter: Cents | None = None) -> dict[str, Any]:
        levels = []
        for level in self.table.levels:
            probability = self.level_probability(level.name)
            break_even = self.break_even_meter(level.name)
            levels.append(
                {
                    "level": level.name,
                    "base_cents": level.base,
                    "reset_cents": level.reset,
                    "increment_bp": level.increment_bp,
                    "reserve_bp": level.reserve_bp,
                    "limit_cents": level.limit,
                    "overflow": level.overflow.value,
                    "unreasonable_contribution_cents": level.unreasonable_contribution,
                    "probability": str(probability),
                    "probability_decimal": float(probability),
                    "one_in": float(1 / probability) if probability else None,
                    "return_at_reset": float(self.return_at({level.name: level.reset})),
                    "return_at_base": float(self.return_at({level.name: level.base})),
                    "return_at_meter": float(self.return_at({level.name: meter}))
                    if meter is not None
                    else None,
                    "break_even_meter_cents": str(break_even) if break_even is not None else None,
                    "break_even_meter_cents_decimal": float(break_even) if break_even is not None else None,
                }
            )
        return {
            "table": self.table.name,
            "source": self.table.source,
            "wager_cents": self.table.wager,
            "simultaneous": self.table.simultaneous.value,
            "percent_base": self.table.percent_base.value,
            "meter_cents": meter,
            "lines": [
                {
                    "line": line.hand.label,
                    "award": line.award.describe(),
                    "combinations": line.combinations,
                    "probability": str(line.probability),
                    "probability_decimal": float(line.probability),
                }
                for line in self.lines
            ],
            "levels": levels,
            "long_run_return": str(self.long_run_return()),
            "long_run_return_decimal": float(self.long_run_return()),
        }


def progressive_math(
    table: ProgressivePayTable, counts: dict[FortuneHand, int] | None = None
) -> ProgressiveMath:
    """Price ``table`` from the exact counts (each position's hand is a uniform 7-subset)."""
    counts = counts if counts is not None else fortune_counts()
    total = sum(counts.values())
    lines = tuple(
        ProgressiveLineMath(hand, award, counts[hand], Fraction(counts[hand], total))
        for hand in FORTUNE_LINES
        if (award := table.award(hand)) is not None
    )
    return ProgressiveMath(table, lines, total)


__all__ = [
    "RAREST_LEVEL",
    "ImprobableLevelError",
    "ProgressiveLineMath",
    "ProgressiveMath",
    "progressive_math",
]
