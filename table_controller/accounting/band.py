"""The 95% band of actual against theoretical win (docs/math.md, "Theoretical win and hold"):
theoretical ± 1.96 sqrt(sum of the rounds' variances), in Decimal (no float), rounded half-even
to whole cents. Pure: the reports (storage/reports.py), the day's band alert and the pit's
accounting (win.py) all use this one definition."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal, localcontext

Z_95 = Decimal("1.96")


@dataclass(frozen=True)
class Band:
    """Actual against theoretical over the rounds that carry a theoretical win (integer cents)."""

    rounds: int  # settled rounds with a theoretical win
    actual_cents: int  # the house result of those rounds
    theoretical_cents: int
    variance: int  # cents squared
    low_cents: int  # theoretical - 1.96 sqrt(variance), half-even to whole cents
    high_cents: int

    @property
    def outside(self) -> bool:
        return self.actual_cents < self.low_cents or self.actual_cents > self.high_cents


def band(*, rounds: int, actual_cents: int, theoretical_cents: int, variance: int) -> Band:
    """theoretical ± 1.96 sqrt(variance), in Decimal (no float), rounded half-even to cents."""
    with localcontext() as context:
        context.prec = 40
        half = (Z_95 * Decimal(variance).sqrt()).quantize(Decimal(1), rounding=ROUND_HALF_EVEN)
    return Band(
        rounds,
        actual_cents,
        theoretical_cents,
        variance,
        theoretical_cents - int(half),
        theoretical_cents + int(half),
    )
