"""A roll of the three dice and the small interface every dice source offers.

Where no shaker is fitted the table may use a random number generator instead
(003_4dcc2fceebc6e4af.txt: "determine the starting position using a dice shaker or shuffle
machine RNG"; 004_60e2fc6346e3399b.txt: "randomly chosen (either electronically or manually
with dice)"). Each roll states its source so the controller can record which one chose the
start position; the counting itself (from the banker, counter-clockwise, 000_f88fa0f023e5142c.txt)
belongs to the game, not here.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Protocol, runtime_checkable


class DiceSource(enum.StrEnum):
    """What chose the start position (the rules above; docs/protocols/dice-shaker.md): the
    shaker's three dice, or three dice drawn from a random number generator (``secrets``) where
    no shaker is fitted. The one definition: the round's events and the stored rounds use it.
    Dice are never keyed in by hand: a cocked or unreadable die is re-shaken, never guessed."""

    SHAKER = "shaker"
    RNG = "rng"


@dataclass(frozen=True, slots=True)
class DiceRoll:
    """Three faces 1..6, the source that produced them and its roll id.

    ``serial_number`` is the shaker's (from its HELLO) for a shaker roll and None for the RNG.
    """

    faces: tuple[int, int, int]
    source: DiceSource
    roll_id: int
    serial_number: str | None = None

    def __post_init__(self) -> None:
        if len(self.faces) != 3 or any(type(f) is not int or not 1 <= f <= 6 for f in self.faces):
            raise ValueError(f"three faces 1..6 expected, got {self.faces!r}")
        if self.roll_id < 1:
            raise ValueError(f"roll id {self.roll_id} must be at least 1")
        if (self.source is DiceSource.SHAKER) != (self.serial_number is not None):
            raise ValueError("a shaker roll names the shaker's serial number, an RNG roll none")

    @property
    def total(self) -> int:
        """The dice total, 3..18, that the dealer counts from the banker's position."""
        return sum(self.faces)


@runtime_checkable
class RollSource(Protocol):
    """Anything that rolls three dice: the shaker driver or the RNG."""

    async def roll(self) -> DiceRoll:
        """One roll; the shaker raises ``ShakeFailed`` when the device voids or refuses the shake."""
        ...
