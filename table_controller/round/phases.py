"""The phases of a round, in order (docs/round-lifecycle.md; docs/round-lifecycle.md)."""

from __future__ import annotations

import enum


class Phase(enum.StrEnum):
    """Where a round stands. ``CLOSED`` and ``VOID`` are final."""

    OPEN = "open"  # wagers recorded; waiting for the dice
    DEALING = "dealing"  # start position known; waiting for the seven piles
    PLAYERS_SETTING = "players-setting"  # players set their hands
    DEALER_SETTING = "dealer-setting"  # the banker's hand is set by the house way
    SETTLING = "settling"  # every hand is set; settlement not yet recorded
    CLOSED = "closed"  # settled
    VOID = "void"  # voided by the pit, or a misdeal: wagers returned, nothing settled

    @property
    def is_final(self) -> bool:
        return self in (Phase.CLOSED, Phase.VOID)
