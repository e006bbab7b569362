"""The RNG dice source, for tables without a shaker: three faces from ``secrets.randbelow``.

Regulations allow choosing the start position electronically (003_4dcc2fceebc6e4af.txt, dealing
procedure; 004_60e2fc6346e3399b.txt, "either electronically or manually with dice"). Each face is
``randbelow(6) + 1``, uniform on 1..6 with no modulo bias (``secrets`` draws from the
operating system's CSPRNG). ``randbelow`` can be injected for tests; production never passes it.
"""

from __future__ import annotations

import itertools
import secrets
from collections.abc import Callable

from .roll import DiceRoll, DiceSource


class RngDiceSource:
    """Rolls three dice with the operating system's CSPRNG; roll ids count from 1 per instance."""

    source = DiceSource.RNG

    def __init__(self, *, randbelow: Callable[[int], int] = secrets.randbelow) -> None:
        self._randbelow = randbelow
        self._ids = itertools.count(1)

    def roll_now(self) -> DiceRoll:
        """A roll, synchronously."""
        faces = tuple(self._face() for _ in range(3))
        return DiceRoll(faces, DiceSource.RNG, next(self._ids))  # type: ignore[arg-type]

    async def roll(self) -> DiceRoll:
        return self.roll_now()

    def _face(self) -> int:
        value = self._randbelow(6)
        if type(value) is not int or not 0 <= value < 6:
            raise ValueError(f"randbelow(6) returned {value!r}, expected 0..5")
        return value + 1
