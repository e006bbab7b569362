"""Named fault scenarios, the shared vocabulary of every simulator.

Documented in docs/protocols/shuffler.md 9 and dice-shaker.md.

A scenario is chosen by name from a test (``faults=["jam"]``), from a simulator URL
(``simshuffler://?fault=jam``) or from the command line (``--fault jam``). Link faults are
carried out by ``LinkFaultInjector`` on the device side of the link; device faults by each
device model. Each fault fires once, so the device recovers and the test can show that
nothing was lost or duplicated.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field


class Fault(enum.StrEnum):
    """Every named fault scenario."""

    # the link (any device)
    CORRUPTED_FRAME = "corrupted-frame"
    DROPPED_FRAME = "dropped-frame"
    DUPLICATED_FRAME = "duplicated-frame"
    LINK_CUT = "link-cut"
    # the link's version: a device that follows the 1.0 text, re-sending after any NAK, REFUSED
    # included (link.md 3.1); a mode of the whole run, not a fault that fires once
    PROTOCOL_1_0 = "protocol-1.0"
    # the shuffler
    JAM = "jam"
    UNREADABLE_CARD = "unreadable-card"
    DUPLICATED_CARD = "duplicated-card"
    MISSING_CARD = "missing-card"
    WRONG_JOKER_COUNT = "wrong-joker-count"
    DOOR_OPEN = "door-open"
    DECK_NOT_PRESENT = "deck-not-present"
    WRONG_CARD_COUNT = "wrong-card-count"
    LONG_PILE = "long-pile"  # a firmware bug: PILE 3 carries one byte too many (a valid CRC)
    # the dice shaker
    COCKED_DIE = "cocked-die"
    DIE_UNREADABLE = "die-unreadable"
    TAMPER = "tamper"
    COVER_OPEN = "cover-open"
    BAD_FACE = (
        "bad-face"  # a misbehaving shaker: its next ROLL shows a 7 (a protocol error, dice-shaker.md 2.3)
    )


LINK_FAULTS = frozenset({Fault.CORRUPTED_FRAME, Fault.DROPPED_FRAME, Fault.DUPLICATED_FRAME, Fault.LINK_CUT})
LINK_MODES = frozenset({Fault.PROTOCOL_1_0})  # how the device's link behaves, for the whole run
SHUFFLER_FAULTS = (
    LINK_FAULTS
    | LINK_MODES
    | {
        Fault.JAM,
        Fault.UNREADABLE_CARD,
        Fault.DUPLICATED_CARD,
        Fault.MISSING_CARD,
        Fault.WRONG_JOKER_COUNT,
        Fault.DOOR_OPEN,
        Fault.DECK_NOT_PRESENT,
        Fault.WRONG_CARD_COUNT,
        Fault.LONG_PILE,
    }
)
DICE_SHAKER_FAULTS = (
    LINK_FAULTS
    | LINK_MODES
    | {
        Fault.COCKED_DIE,
        Fault.DIE_UNREADABLE,
        Fault.TAMPER,
        Fault.COVER_OPEN,
        Fault.BAD_FACE,
    }
)


class UnknownFaultError(ValueError):
    """A fault name that is not a scenario of this device."""


def parse_faults(
    names: str | Iterable[str] | None, allowed: frozenset[Fault] | None = None
) -> frozenset[Fault]:
    """Fault names (a comma-separated string or an iterable) to Faults; UnknownFaultError for a bad name."""
    if names is None:
        return frozenset()
    if isinstance(names, str):
        names = names.split(",")
    faults = set()
    for raw in names:
        name = raw.strip().lower()
        if not name:
            continue
        try:
            fault = Fault(name)
        except ValueError:
            known = ", ".join(f.value for f in Fault)
            raise UnknownFaultError(f"unknown fault {raw!r}; known: {known}") from None
        if allowed is not None and fault not in allowed:
            raise UnknownFaultError(f"fault {name!r} does not apply to this device")
        faults.add(fault)
    return frozenset(faults)


Trigger = Callable[[int, bytes], bool]


@dataclass(slots=True)
class LinkFaultInjector:
    """Carries out one link fault, once, on the first transmission of the event that ``trigger`` picks.

    ``trigger(msg_type, body)`` sees each new application event (body without the message id).
    ``on_cut`` is called for ``Fault.LINK_CUT`` right after the chosen frame went out.
    """

    fault: Fault
    trigger: Trigger
    on_cut: Callable[[], None] | None = None
    fired: bool = field(default=False, init=False)
    _cut_pending: bool = field(default=False, init=False)

    def __post_init__(self) -> None:
        if self.fault not in LINK_FAULTS:
            raise UnknownFaultError(f"{self.fault} is not a link fault")

    def transmit(self, frame: bytes, msg_type: int, body: bytes) -> list[bytes]:
        """The byte strings to write for this first transmission (empty list: dropped)."""
        if self.fired or not self.trigger(msg_type, body):
            return [frame]
        self.fired = True
        if self.fault is Fault.CORRUPTED_FRAME:
            damaged = bytearray(frame)
            damaged[-3] ^= 0xFF  # the last payload byte (or the type byte for an empty payload)
            return [bytes(damaged)]
        if self.fault is Fault.DROPPED_FRAME:
            return []
        if self.fault is Fault.DUPLICATED_FRAME:
            return [frame, frame]
        self._cut_pending = True  # LINK_CUT: the frame goes out, then the cable is pulled
        return [frame]

    def written(self) -> None:
        """Called once the frames from ``transmit`` are written: carries out a pending link cut."""
        if self._cut_pending:
            self._cut_pending = False
            if self.on_cut is not None:
                self.on_cut()
