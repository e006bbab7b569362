"""The dice shaker's mechanism, device side: cover, tamper switch, three dice, the roll counter.

Written from docs/protocols/dice-shaker.md alone, with its own byte layouts (struct), sharing
nothing with the driver's codec, so a codec bug cannot cancel itself out (dice-shaker.md).
The model knows nothing of frames or message ids: it takes commands ``(type, id, body)`` and
queues events ``(type, body)`` that the device link sends reliably.

Randomness: a seeded ``random.Random`` for reproducible tests, ``secrets.SystemRandom`` when
unseeded. Fault scenarios (simulators/faults.py) fire once each:

- ``cocked-die`` / ``die-unreadable``: the first shake voids with that fault on one die; the
  next SHAKE clears it (FAULT_CLEARED) and rolls with the next roll id.
- ``cover-open``: the cover is found open at the first SHAKE (FAULT, then SHAKE_REFUSED); it
  closes ``cover_close_after`` seconds later (FAULT_CLEARED).
- ``tamper``: the tamper switch trips at the first SHAKE (FAULT, SHAKE_REFUSED); latched until
  an attendant resets it (:meth:`attendant_reset`, or ``tamper_reset_after`` seconds).
"""

from __future__ import annotations

import random
import secrets
import struct
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from simulators.faults import Fault

# Message types and codes, from the document's tables.
SHAKE: Final = 0x40
STATUS_REQUEST: Final = 0x41
ROLL: Final = 0x50
FAULT: Final = 0x51
FAULT_CLEARED: Final = 0x52
SHAKE_REFUSED: Final = 0x53
STATUS: Final = 0x54

COVER_OPEN: Final = 0x01
DIE_UNREADABLE: Final = 0x02
DIE_COCKED: Final = 0x03
TAMPER: Final = 0x04
BUSY: Final = 0x80

FLAG_COVER_OPEN: Final = 0x01
FLAG_TAMPER: Final = 0x02
FLAG_RESHAKE_NEEDED: Final = 0x04
FLAG_SHAKING: Final = 0x08

_DIE_FAULTS: Final = {Fault.COCKED_DIE: DIE_COCKED, Fault.DIE_UNREADABLE: DIE_UNREADABLE}
DEVICE_FAULTS: Final = frozenset(
    {Fault.COCKED_DIE, Fault.DIE_UNREADABLE, Fault.COVER_OPEN, Fault.TAMPER, Fault.BAD_FACE}
)
BAD_FACE: Final = 7  # what a broken reader reports on die 2 (scenario bad-face)


class UnknownCommandError(ValueError):
    """A command type or body the shaker does not accept (the link has already ACKed it)."""


@dataclass(slots=True)
class _Shake:
    command_id: int
    roll_id: int
    done_at: float


class DiceShakerModel:
    """The shaker's state machine. Not thread-safe: its owner serialises calls."""

    def __init__(
        self,
        *,
        seed: int | None = None,
        faults: Iterable[Fault] = (),
        first_roll_id: int = 1,
        shake_duration: float = 0.0,
        cover_close_after: float = 0.05,
        tamper_reset_after: float | None = None,
    ) -> None:
        if not 1 <= first_roll_id <= 0xFFFFFFFF:
            raise ValueError(f"first_roll_id {first_roll_id} out of range 1..2**32-1")
        self.rng: random.Random = random.Random(seed) if seed is not None else secrets.SystemRandom()
        self.pending_faults = set(faults) & DEVICE_FAULTS
        self.next_roll_id = first_roll_id
        self.last_roll_id = 0
        self.shake_duration = shake_duration
        self.cover_close_after = cover_close_after
        self.tamper_reset_after = tamper_reset_after
        self.cover_open = False
        self.tamper = False
        self.die_fault: int | None = None  # the code of the die fault awaiting a re-shake
        # how many of the next ROLLs report a 7 on die 2 (a broken reader; the host refuses them)
        self.bad_face_rolls = 1 if Fault.BAD_FACE in self.pending_faults else 0
        self.rolls: list[tuple[int, tuple[int, int, int]]] = []  # every roll made, for tests
        self._shaking: _Shake | None = None
        self.deaf = False  # a broken shaker: its link answers, its SHAKEs are taken and never done
        self.deaf_shakes = 0  # SHAKEs taken while deaf (what the host tried)
        self._cover_closes_at: float | None = None
        self._tamper_resets_at: float | None = None
        self._events: list[tuple[int, bytes]] = []

    # -- link side ---------------------------------------------------------------------------

    def take_events(self) -> list[tuple[int, bytes]]:
        """The events queued since the last call, oldest first: ``(type, body)``."""
        events, self._events = self._events, []
        return events

    def status_event(self, command_id: int = 0) -> tuple[int, bytes]:
        flags = (
            (FLAG_COVER_OPEN if self.cover_open else 0)
            | (FLAG_TAMPER if self.tamper else 0)
            | (FLAG_RESHAKE_NEEDED if self.die_fault else 0)
            | (FLAG_SHAKING if self._shaking else 0)
        )
        return STATUS, struct.pack(">IBI", command_id, flags, self.last_roll_id)

    def command(self, msg_type: int, command_id: int, body: bytes, now: float) -> None:
        """One command, delivered once by the link."""
        if msg_type not in (SHAKE, STATUS_REQUEST):
            raise UnknownCommandError(f"unknown command type 0x{msg_type:02X}")
        if body:
            raise UnknownCommandError(f"command 0x{msg_type:02X} takes no body, got {body.hex()}")
        if msg_type == SHAKE:
            if self.deaf:  # acknowledged by the link, then nothing: no roll, no refusal
                self.deaf_shakes += 1
                return
            self._shake(command_id, now)
        else:
            self._events.append(self.status_event(command_id))

    def tick(self, now: float) -> None:
        """Advance the clock: finish a shake, close the cover, reset the tamper switch."""
        if self._shaking is not None and now >= self._shaking.done_at:
            self._finish(self._shaking)
            self._shaking = None
        if self._cover_closes_at is not None and now >= self._cover_closes_at:
            self._cover_closes_at = None
            self.close_cover()
        if self._tamper_resets_at is not None and now >= self._tamper_resets_at:
            self._tamper_resets_at = None
            self.attendant_reset()

    # -- the physical world (tests and scenarios) --------------------------------------------

    def open_cover(self) -> None:
        if not self.cover_open:
            self.cover_open = True
            self._fault(COVER_OPEN, shake=self._void_shake())

    def close_cover(self) -> None:
        if self.cover_open:
            self.cover_open = False
            self._events.append((FAULT_CLEARED, bytes((COVER_OPEN,))))

    def trip_tamper(self) -> None:
        if not self.tamper:
            self.tamper = True
            self._fault(TAMPER, shake=self._void_shake())

    def attendant_reset(self) -> None:
        """The attendant's key: clears a latched tamper fault."""
        if self.tamper:
            self.tamper = False
            self._events.append((FAULT_CLEARED, bytes((TAMPER,))))

    def power_lost(self) -> None:
        """Power went: the shake under way and the queued events are lost; NV state survives."""
        self._shaking = None
        self._events.clear()

    # -- internals ---------------------------------------------------------------------------

    def _fault(self, code: int, *, die: int = 0, shake: _Shake | None = None) -> None:
        roll_id, command_id = (shake.roll_id, shake.command_id) if shake else (0, 0)
        self._events.append((FAULT, struct.pack(">BBII", code, die, roll_id, command_id)))

    def _void_shake(self) -> _Shake | None:
        shake, self._shaking = self._shaking, None
        return shake

    def _refuse(self, command_id: int, reason: int) -> None:
        self._events.append((SHAKE_REFUSED, struct.pack(">IB", command_id, reason)))

    def _shake(self, command_id: int, now: float) -> None:
        if Fault.COVER_OPEN in self.pending_faults:
            self.pending_faults.discard(Fault.COVER_OPEN)
            self.open_cover()
            self._cover_closes_at = now + self.cover_close_after
        if Fault.TAMPER in self.pending_faults:
            self.pending_faults.discard(Fault.TAMPER)
            self.trip_tamper()
            if self.tamper_reset_after is not None:
                self._tamper_resets_at = now + self.tamper_reset_after
        if self.tamper:
            self._refuse(command_id, TAMPER)
        elif self.cover_open:
            self._refuse(command_id, COVER_OPEN)
        elif self._shaking is not None:
            self._refuse(command_id, BUSY)
        else:
            roll_id = self.next_roll_id
            self.next_roll_id = roll_id + 1 if roll_id < 0xFFFFFFFF else 1
            self._shaking = _Shake(command_id, roll_id, now + self.shake_duration)
            self.tick(now)

    def _finish(self, shake: _Shake) -> None:
        for scenario, code in _DIE_FAULTS.items():
            if scenario in self.pending_faults:
                self.pending_faults.discard(scenario)
                self.die_fault = code
                self._fault(code, die=self.rng.randint(1, 3), shake=shake)
                return
        faces = (self.rng.randint(1, 6), self.rng.randint(1, 6), self.rng.randint(1, 6))
        if self.die_fault is not None:
            self._events.append((FAULT_CLEARED, bytes((self.die_fault,))))
            self.die_fault = None
        if self.bad_face_rolls > 0:
            self.bad_face_rolls -= 1
            faces = (faces[0], BAD_FACE, faces[2])
        self.last_roll_id = shake.roll_id
        self.rolls.append((shake.roll_id, faces))
        self._events.append((ROLL, struct.pack(">IIBBB", shake.roll_id, shake.command_id, *faces)))
