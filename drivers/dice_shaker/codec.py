"""The dice shaker codec: command bodies out, device message bodies in (docs/protocols/dice-shaker.md).

Types 0x40-0x4F go host to device, 0x50-0x5F device to host (the dice range of
drivers/messages.py). Bodies follow the link's 32-bit message id; integers are big-endian.
Every decoding error is a ``ProtocolError`` carrying the raw frame, never a silent default:
a face outside 1..6, an unknown fault or reason code, a length that is not the type's length.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Final

from ..errors import ProtocolError
from ..messages import DICE_SHAKER_TYPES, PayloadReader
from .events import (
    DEVICE,
    DiceFault,
    DiceFaultCleared,
    DiceFaultKind,
    DiceRead,
    DiceStatus,
    RefusalReason,
    ShakeRefused,
)

DiceEvent = DiceRead | DiceFault | DiceFaultCleared | ShakeRefused | DiceStatus


class UnusableAnswerError(ProtocolError):
    """A ROLL, FAULT or SHAKE_REFUSED the host cannot use (a die showing 7...) that still names
    the SHAKE it answers: that shake has failed, and the host need not wait for it
    (dice-shaker.md 2; the link NAKs the frame REFUSED, link.md 3)."""

    def __init__(self, message: str, *, raw: bytes | None = None, command_id: int) -> None:
        super().__init__(message, raw=raw)
        self.command_id = command_id

    def __reduce__(self) -> tuple[Callable[..., UnusableAnswerError], tuple[object, ...]]:
        return (_rebuild_unusable, (self.args[0] if self.args else "", self.raw, self.command_id))


def _rebuild_unusable(message: str, raw: bytes | None, command_id: int) -> UnusableAnswerError:
    return UnusableAnswerError(message, raw=raw, command_id=command_id)


#: Where an answer's body names its SHAKE (offset of COMMAND_ID): dice-shaker.md 2.3, 2.4, 2.6.
_COMMAND_ID_AT: Final = {0x50: 4, 0x51: 6, 0x53: 0}


class DiceMsg(enum.IntEnum):
    """Dice shaker message types."""

    SHAKE = 0x40  # host -> device, empty body
    STATUS_REQUEST = 0x41  # host -> device, empty body
    ROLL = 0x50  # device -> host
    FAULT = 0x51
    FAULT_CLEARED = 0x52
    SHAKE_REFUSED = 0x53
    STATUS = 0x54


assert all(t in DICE_SHAKER_TYPES for t in DiceMsg)

HOST_TO_DEVICE: Final = frozenset({DiceMsg.SHAKE, DiceMsg.STATUS_REQUEST})

#: wire code <-> fault kind, the table of the document's "Fault codes".
FAULT_CODES: Final = {
    0x01: DiceFaultKind.COVER_OPEN,
    0x02: DiceFaultKind.DIE_UNREADABLE,
    0x03: DiceFaultKind.DIE_COCKED,
    0x04: DiceFaultKind.TAMPER,
}
REFUSAL_CODES: Final = {
    0x01: RefusalReason.COVER_OPEN,
    0x04: RefusalReason.TAMPER,
    0x80: RefusalReason.BUSY,
}

STATUS_COVER_OPEN: Final = 0x01
STATUS_TAMPER: Final = 0x02
STATUS_RESHAKE_NEEDED: Final = 0x04
STATUS_SHAKING: Final = 0x08
STATUS_FLAGS: Final = STATUS_COVER_OPEN | STATUS_TAMPER | STATUS_RESHAKE_NEEDED | STATUS_SHAKING

FACES: Final = range(1, 7)
DICE: Final = 3


def encode_shake() -> bytes:
    """SHAKE body: empty. The device answers with ROLL, FAULT or SHAKE_REFUSED naming this message id."""
    return b""


def encode_status_request() -> bytes:
    """STATUS_REQUEST body: empty. The device answers with STATUS naming this message id."""
    return b""


def decode(msg_type: int, event_id: int, body: bytes, *, raw: bytes) -> DiceEvent:
    """One device message (its body, after the message id) to its event; ProtocolError if bad."""
    try:
        kind = DiceMsg(msg_type)
    except ValueError:
        raise ProtocolError(f"unknown dice shaker message type 0x{msg_type:02X}", raw=raw) from None
    decoder = _DECODERS.get(kind)
    if decoder is None:
        raise ProtocolError(
            f"{kind.name} (0x{msg_type:02X}) goes host to device, not device to host", raw=raw
        )
    reader = PayloadReader(body, raw=raw, what=kind.name)
    try:
        event = decoder(reader, event_id)
        reader.end()
    except ProtocolError as exc:
        at = _COMMAND_ID_AT.get(int(kind))
        command_id = int.from_bytes(body[at : at + 4], "big") if at is not None and len(body) >= at + 4 else 0
        if command_id:
            raise UnusableAnswerError(
                f"{exc} (answering SHAKE {command_id})", raw=raw, command_id=command_id
            ) from exc
        raise
    return event


def _nonzero(reader: PayloadReader, value: int, what: str) -> int:
    if value == 0:
        raise reader.error(f"{what} 0 is not allowed")
    return value


def _decode_roll(reader: PayloadReader, event_id: int) -> DiceRead:
    roll_id = _nonzero(reader, reader.u32(), "roll id")
    command_id = _nonzero(reader, reader.u32(), "shake command id")
    faces = tuple(reader.u8() for _ in range(DICE))
    for position, face in enumerate(faces, start=1):
        if face not in FACES:
            raise reader.error(f"die {position} shows {face}, a die shows 1..6")
    return DiceRead(device=DEVICE, event_id=event_id, roll_id=roll_id, command_id=command_id, faces=faces)  # type: ignore[arg-type]


def _fault_kind(reader: PayloadReader, code: int) -> DiceFaultKind:
    try:
        return FAULT_CODES[code]
    except KeyError:
        raise reader.error(f"unknown fault code 0x{code:02X}") from None


def _decode_fault(reader: PayloadReader, event_id: int) -> DiceFault:
    kind = _fault_kind(reader, reader.u8())
    die, roll_id, command_id = reader.u8(), reader.u32(), reader.u32()
    if kind.is_die_fault:
        if die not in range(1, DICE + 1):
            raise reader.error(f"{kind.value} names die {die}, expected 1..3")
        _nonzero(reader, roll_id, f"{kind.value} roll id")
        _nonzero(reader, command_id, f"{kind.value} shake command id")
    elif die != 0:
        raise reader.error(f"{kind.value} names die {die}, expected 0 (no die)")
    return DiceFault(
        device=DEVICE,
        event_id=event_id,
        kind=kind.value,
        die=die or None,
        roll_id=roll_id or None,
        command_id=command_id or None,
    )


def _decode_fault_cleared(reader: PayloadReader, event_id: int) -> DiceFaultCleared:
    kind = _fault_kind(reader, reader.u8())
    return DiceFaultCleared(device=DEVICE, event_id=event_id, kind=kind.value)


def _decode_refused(reader: PayloadReader, event_id: int) -> ShakeRefused:
    command_id = _nonzero(reader, reader.u32(), "shake command id")
    code = reader.u8()
    try:
        reason = REFUSAL_CODES[code]
    except KeyError:
        raise reader.error(f"unknown refusal reason 0x{code:02X}") from None
    return ShakeRefused(device=DEVICE, event_id=event_id, command_id=command_id, reason=reason.value)


def _decode_status(reader: PayloadReader, event_id: int) -> DiceStatus:
    command_id, flags, last_roll_id = reader.u32(), reader.u8(), reader.u32()
    if flags & ~STATUS_FLAGS:
        raise reader.error(f"status flags 0x{flags:02X} set reserved bits")
    return DiceStatus(
        device=DEVICE,
        event_id=event_id,
        command_id=command_id or None,
        cover_open=bool(flags & STATUS_COVER_OPEN),
        tamper=bool(flags & STATUS_TAMPER),
        reshake_needed=bool(flags & STATUS_RESHAKE_NEEDED),
        shaking=bool(flags & STATUS_SHAKING),
        last_roll_id=last_roll_id or None,
    )


_DECODERS: Final[dict[DiceMsg, Callable[[PayloadReader, int], DiceEvent]]] = {
    DiceMsg.ROLL: _decode_roll,
    DiceMsg.FAULT: _decode_fault,
    DiceMsg.FAULT_CLEARED: _decode_fault_cleared,
    DiceMsg.SHAKE_REFUSED: _decode_refused,
    DiceMsg.STATUS: _decode_status,
}

# Lengths, for the document and its tests: body sizes after the message id.
BODY_SIZES: Final = {
    DiceMsg.SHAKE: 0,
    DiceMsg.STATUS_REQUEST: 0,
    DiceMsg.ROLL: 11,
    DiceMsg.FAULT: 10,
    DiceMsg.FAULT_CLEARED: 1,
    DiceMsg.SHAKE_REFUSED: 5,
    DiceMsg.STATUS: 9,
}
