"""The counted win against the controller's computed result (docs/accounting.md,
"Reconciliation").

    computed = sum of the house results of the period's settled rounds (game/settlement.py's
               ``house_result``: main wagers, commission, fees, bonuses, the house's side of
               player-banked rounds)
    variance = counted win - computed - sum(named lines)

A named line is money the counted win holds that no round does, entered with its name and its
sign from the house's side: + when the tray or the drop gained outside the rounds (a side wager
the controller does not track, lost by a player), - when it lost (chips taken from the tray for
a dealer's tips, a chip exchange paid short). With nothing missing the variance is 0; above
``alert_above`` (absolute cents) it is flagged.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..game.money import Cents
from .amounts import person, whole_cents
from .errors import AccountingError, DuplicateError, MismatchError
from .facts import SettledRound
from .gaming_day import Period
from .win import TableAccount

DEFAULT_ALERT_ABOVE: Cents = 0
"""Every unexplained cent is flagged unless the casino sets a tolerance: the controller knows
every round's money, so a variance is never rounding."""


@dataclass(frozen=True, slots=True)
class NamedLine:
    """Money outside the controller, named (``tips``, ``untracked side wager``, ``chip exchange``),
    signed from the house's side, and who entered it."""

    name: str
    amount: Cents
    entered_by: str

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise AccountingError(f"a named line needs a name, got {self.name!r}")
        whole_cents(self.amount, f"the line {self.name!r}", minimum=None)
        object.__setattr__(self, "name", self.name.strip())
        object.__setattr__(self, "entered_by", person(self.entered_by, "the person entering the line"))


@dataclass(frozen=True, slots=True)
class Reconciliation:
    """A table's period reconciled (cents); ``rounds`` are the round ids summed, for the drill-down."""

    table_id: str
    period: Period
    counted_win: Cents
    computed_result: Cents
    lines: tuple[NamedLine, ...]
    alert_above: Cents
    rounds: tuple[str, ...]

    @property
    def explained(self) -> Cents:
        return sum(line.amount for line in self.lines)

    @property
    def variance(self) -> Cents:
        return variance_of(self.counted_win, self.computed_result, self.explained)

    @property
    def flagged(self) -> bool:
        return abs(self.variance) > self.alert_above


def variance_of(counted_win: Cents, computed: Cents, explained: Cents) -> Cents:
    """counted win - computed result - named lines: the one definition of the variance."""
    return counted_win - computed - explained


def computed_result(rounds: Iterable[SettledRound]) -> Cents:
    """The house's result of these settled rounds."""
    return sum(r.house_result for r in rounds)


def reconcile(
    account: TableAccount,
    rounds: Sequence[SettledRound],
    lines: Iterable[NamedLine] = (),
    *,
    period: Period,
    alert_above: Cents = DEFAULT_ALERT_ABOVE,
) -> Reconciliation:
    """Reconcile ``account`` with the rounds the table opened in ``period`` (the account's).

    Refused: a period that is not the account's, a round of another table or opened outside the
    period (MismatchError), a round given twice (DuplicateError), a negative ``alert_above``.
    """
    whole_cents(alert_above, "the alert threshold")
    if (period.day, period.shift) != (account.day, account.shift):
        raise MismatchError(
            f"the account is of {account.day} {account.shift or 'day'}, the period {period.day} "
            f"{period.shift or 'day'}"
        )
    seen: set[str] = set()
    for r in rounds:
        if r.table_id != account.table_id:
            raise MismatchError(f"round {r.round_id} is of table {r.table_id!r}, not {account.table_id!r}")
        if not period.start <= r.opened_at < period.end:
            raise MismatchError(f"round {r.round_id} opened at {r.opened_at.isoformat()}, outside the period")
        if r.round_id in seen:
            raise DuplicateError(f"round {r.round_id} is given twice")
        seen.add(r.round_id)
    named = tuple(lines)
    for line in named:
        if not isinstance(line, NamedLine):
            raise AccountingError(f"a named line must be a NamedLine, got {line!r}")
    return Reconciliation(
        table_id=account.table_id,
        period=period,
        counted_win=account.win,
        computed_result=computed_result(rounds),
        lines=named,
        alert_above=alert_above,
        rounds=tuple(r.round_id for r in rounds),
    )


__all__ = [
    "DEFAULT_ALERT_ABOVE",
    "NamedLine",
    "Reconciliation",
    "computed_result",
    "reconcile",
    "variance_of",
]
