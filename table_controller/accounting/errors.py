"""The accounting's errors (docs/accounting.md): one base class, one subclass per kind of bad
input, each carrying the fields a caller logs or shows."""

from __future__ import annotations

from dataclasses import dataclass


class AccountingError(ValueError):
    """Base class of every refusal of the accounting's input."""


class GamingDayConfigError(AccountingError):
    """A gaming-day configuration that cannot be: an unknown time zone, shifts out of order."""


class UnknownShiftError(GamingDayConfigError, LookupError):
    """A shift the gaming day does not have (a request naming it: 404, as any missing thing)."""


class NaiveTimeError(AccountingError):
    """An instant without a time zone: the accounting never guesses the zone of a time."""


class AmountError(AccountingError):
    """An amount that is not a whole number of cents in range (a float, a bool, a negative)."""


class ChipError(AccountingError):
    """A chip inventory that cannot be: a denomination the casino does not use, a negative count."""


class SignatureError(AccountingError):
    """A signature missing, or the same person signing twice where two people must sign."""


class SlipError(AccountingError):
    """A fill or credit slip used out of its order: delivered twice, voided after delivery..."""


class DuplicateError(AccountingError):
    """A number given twice where it must be unique: a slip number, a marker, a round id."""


class MismatchError(AccountingError):
    """Records put together that belong to different tables or gaming days."""


class CountFileError(AccountingError):
    """A count-room file with bad lines; ``problems`` names each one by its line number."""

    def __init__(self, problems: tuple[CountLineProblem, ...]) -> None:
        self.problems = problems
        shown = "; ".join(str(problem) for problem in problems[:5])
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        lines = len({problem.line for problem in problems})
        super().__init__(
            f"the count-room file has {len(problems)} problem(s) on {lines} line(s): {shown}{more}"
        )


@dataclass(frozen=True, slots=True)
class CountLineProblem:
    """One bad line of a count-room file: its number (the header is line 1), the column, why."""

    line: int
    column: str | None
    reason: str

    def __str__(self) -> str:
        where = f"line {self.line}" + (f", column {self.column!r}" if self.column else "")
        return f"{where}: {self.reason}"


class RatingError(AccountingError):
    """A seat event that cannot happen: sitting on a taken seat, leaving an empty one, time
    running backwards, a round given twice."""


class AdjustmentError(AccountingError):
    """A rating adjustment refused: no reason, no actor, a stale old value, a field not adjustable."""


class RoundFactError(AccountingError):
    """A settled round's facts that do not add up: the house's result is not minus what the
    players and the player-banker got, a seat given twice, a negative wager."""


class DealerError(AccountingError):
    """Dealers' time on the box that cannot be: a stint ending before it starts, two dealers on
    one table's box at once, a dealer without a name."""
