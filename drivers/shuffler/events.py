"""The shuffler's typed, frozen events and its named codes (docs/protocols/shuffler.md).

The driver reports what the device says, faithfully: a pile with a duplicated card, six
cards or two jokers is reported as dealt; deciding that it is a misdeal is the
controller's job. Card codes are the two-character codes of the game (``As``, ``Td``,
``JK``); an unreadable card is ``None``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from ..base import DeviceEvent, DeviceFault


class FaultKind(enum.StrEnum):
    """Shuffler faults; wire codes in ``codec.FAULT_CODES``."""

    DOOR_OPEN = "door-open"
    JAM = "jam"
    CARD_UNREADABLE = "card-unreadable"
    WRONG_CARD_COUNT = "wrong-card-count"
    DECK_NOT_PRESENT = "deck-not-present"


class RejectReason(enum.StrEnum):
    """Why the shuffler refused a command."""

    BUSY = "busy"
    NOT_SHUFFLED = "not-shuffled"
    BAD_ARGUMENT = "bad-argument"
    UNKNOWN_COMMAND = "unknown-command"
    DOOR_OPEN = "door-open"
    JAM = "jam"
    DECK_NOT_PRESENT = "deck-not-present"
    WRONG_CARD_COUNT = "wrong-card-count"


class ShufflerState(enum.StrEnum):
    IDLE = "idle"  # deck loaded, not shuffled (or no deck: see faults)
    READY = "ready"  # shuffled, ready to deal
    DEALING = "dealing"
    FAULT = "fault"  # a blocking fault is active


@dataclass(frozen=True, slots=True, kw_only=True)
class Shuffled(DeviceEvent):
    """The deck is shuffled; ``cards_counted`` cards went through the machine."""

    command_id: int
    cards_counted: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PileRead(DeviceEvent):
    """One pile of a deal, cards in the order they fell (``None`` = unreadable card)."""

    command_id: int
    pile: int
    cards: tuple[str | None, ...]

    @property
    def unreadable(self) -> tuple[int, ...]:
        """1-based positions of the unreadable cards."""
        return tuple(i for i, card in enumerate(self.cards, 1) if card is None)


@dataclass(frozen=True, slots=True, kw_only=True)
class UnusedCards(DeviceEvent):
    """The cards left after the seven piles; ends a complete deal."""

    command_id: int
    cards: tuple[str | None, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class DealAborted(DeviceEvent):
    """A deal stopped after ``piles_dealt`` piles because of the fault ``reason``."""

    command_id: int
    piles_dealt: int
    reason: FaultKind


@dataclass(frozen=True, slots=True, kw_only=True)
class DeckChecked(DeviceEvent):
    """A scan of the whole deck: what is missing and what is there more often than the deck allows."""

    command_id: int
    deck_size: int
    scanned: int
    unreadable: int
    missing: tuple[str, ...]
    duplicated: tuple[tuple[str, int], ...]  # (code, times seen)

    @property
    def complete(self) -> bool:
        """Every card present exactly as often as the deck holds it, nothing unreadable."""
        clean = not self.missing and not self.duplicated and not self.unreadable
        return clean and self.scanned == self.deck_size


@dataclass(frozen=True, slots=True, kw_only=True)
class ShufflerStatus(DeviceEvent):
    """The answer to a status request."""

    command_id: int
    state: ShufflerState
    faults: frozenset[FaultKind]
    cards: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ShufflerFault(DeviceFault):
    """A shuffler fault with its details (``None`` where the wire says 0: not applicable)."""

    kind: FaultKind
    pile: int | None = None
    position: int | None = None
    counted: int | None = None
    expected: int | None = None
