"""The dice shaker's typed, frozen events (docs/protocols/dice-shaker.md, "Messages").

Every event carries ``event_id``: the device's message id, unique within its session. Faults
and refusals extend the shared ``DeviceFault`` / ``FaultCleared`` / ``CommandRejected`` of
``drivers.base`` so a consumer that knows only those still sees them. ``ShakeFailed`` is the
error a SHAKE without a roll raises, carrying the event that says why: it lives here, beside
those events, so the conductor can catch it without importing the driver module.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from ..base import CommandRejected, DeviceEvent, DeviceFault, DriverEvent, ErrorEvent, FaultCleared
from ..errors import DriverError

DEVICE: Final = "dice-shaker"


class DiceFaultKind(enum.StrEnum):
    """The shaker's faults. A die fault voids the shake it happened in: the dice must be re-shaken."""

    COVER_OPEN = "cover_open"
    DIE_UNREADABLE = "die_unreadable"
    DIE_COCKED = "die_cocked"
    TAMPER = "tamper"

    @property
    def needs_reshake(self) -> bool:
        return self in (DiceFaultKind.DIE_UNREADABLE, DiceFaultKind.DIE_COCKED)

    @property
    def is_die_fault(self) -> bool:
        return self.needs_reshake


class RefusalReason(enum.StrEnum):
    """Why the shaker refused a SHAKE: a fault that forbids shaking, or a shake still under way."""

    COVER_OPEN = "cover_open"
    TAMPER = "tamper"
    BUSY = "busy"


@dataclass(frozen=True, slots=True, kw_only=True)
class DiceRead(DeviceEvent):
    """Three dice read after a shake: ``roll_id`` (device-assigned, never reused) and the faces.

    ``command_id`` is the id of the SHAKE command this roll answers.
    """

    roll_id: int
    command_id: int
    faces: tuple[int, int, int]

    @property
    def total(self) -> int:
        return sum(self.faces)


@dataclass(frozen=True, slots=True, kw_only=True)
class DiceFault(DeviceFault):
    """A fault. For a die fault, ``die`` (1..3) is the die, ``roll_id`` the voided attempt and
    ``command_id`` the SHAKE it answers; otherwise these are None unless a shake was under way.
    ``kind`` is a :class:`DiceFaultKind` value."""

    die: int | None
    roll_id: int | None
    command_id: int | None

    @property
    def fault(self) -> DiceFaultKind:
        return DiceFaultKind(self.kind)

    @property
    def needs_reshake(self) -> bool:
        return self.fault.needs_reshake


@dataclass(frozen=True, slots=True, kw_only=True)
class DiceFaultCleared(FaultCleared):
    """The fault ``kind`` (a :class:`DiceFaultKind` value) has ended."""

    @property
    def fault(self) -> DiceFaultKind:
        return DiceFaultKind(self.kind)


@dataclass(frozen=True, slots=True, kw_only=True)
class ShakeRefused(CommandRejected):
    """The SHAKE ``command_id`` was not carried out; ``reason`` is a :class:`RefusalReason` value."""

    @property
    def refusal(self) -> RefusalReason:
        return RefusalReason(self.reason)


@dataclass(frozen=True, slots=True, kw_only=True)
class DiceStatus(DeviceEvent):
    """The shaker's state: sent after every HELLO (``command_id`` None) and on a STATUS_REQUEST."""

    command_id: int | None
    cover_open: bool
    tamper: bool
    reshake_needed: bool
    shaking: bool
    last_roll_id: int | None


class ShakeFailed(DriverError):
    """A SHAKE that produced no roll; ``event`` (DiceFault, ShakeRefused or CommandsDropped) says why."""

    def __init__(self, message: str, *, event: DriverEvent, raw: bytes | None = None) -> None:
        super().__init__(message, raw=raw)
        self.event = event

    @property
    def needs_reshake(self) -> bool:
        """True when the device voided the shake for a die fault; shake again when ready."""
        return isinstance(self.event, DiceFault) and self.event.needs_reshake

    @property
    def answer_unusable(self) -> bool:
        """True when the device answered, but with a frame the host refused (a die showing 7)."""
        return isinstance(self.event, ErrorEvent)

    def __reduce__(self) -> tuple[Callable[..., ShakeFailed], tuple[object, ...]]:
        return (_rebuild_shake_failed, (self.args[0] if self.args else "", self.event, self.raw))


def _rebuild_shake_failed(message: str, event: DriverEvent, raw: bytes | None) -> ShakeFailed:
    return ShakeFailed(message, event=event, raw=raw)
