"""The common message types and their payloads (docs/protocols/link.md, "Messages").

Type ranges: 0x01-0x0F link, 0x10-0x3F shuffler, 0x40-0x5F dice shaker, 0x60-0xFF reserved.
Link messages (HELLO, ACK, NAK, HEARTBEAT) are never acknowledged. Every application message
(0x10-0x5F, both directions) is *reliable*: its payload starts with a 32-bit message id, it is
re-sent until the peer ACKs that id, and a repeated id is dropped by the receiver.

All integers are big-endian. Strings are ``u8 length`` + ASCII.
"""

from __future__ import annotations

import enum
import struct
from dataclasses import dataclass
from typing import Final

from .errors import ProtocolError

PROTOCOL_MAJOR: Final = 1
PROTOCOL_MINOR: Final = 1  # 1.1: a device never re-sends a message refused (link.md 3, 3.1)

LINK_TYPES: Final = range(0x01, 0x10)
SHUFFLER_TYPES: Final = range(0x10, 0x40)
DICE_SHAKER_TYPES: Final = range(0x40, 0x60)
APPLICATION_TYPES: Final = range(0x10, 0x60)

MSG_ID_SIZE: Final = 4
MAX_MSG_ID: Final = 0xFFFFFFFF

#: Every type this protocol version assigns: the link's four, the shuffler's (shuffler.md 3) and
#: the dice shaker's (dice-shaker.md 2). Numbers only, so that the framer and the simulators can
#: use them; the tests check them against each codec's own table.
ASSIGNED_TYPES: Final = frozenset(
    {0x01, 0x02, 0x03, 0x04}
    | set(range(0x10, 0x14))
    | set(range(0x20, 0x29))
    | {0x40, 0x41}
    | set(range(0x50, 0x55))
)


class MsgType(enum.IntEnum):
    """The link message types, common to every device."""

    HELLO = 0x01
    ACK = 0x02
    NAK = 0x03
    HEARTBEAT = 0x04


class NakReason(enum.IntEnum):
    """Why a frame was refused (link.md 3): BAD_CRC asks for the message again; MALFORMED and
    REFUSED say that the same bytes would be refused again, so the sender does not re-send."""

    BAD_CRC = 0x01
    MALFORMED = 0x02  # an application frame without a valid message id
    REFUSED = 0x03  # an intact application frame the receiver cannot use (length, a value out of range)

    @property
    def resend(self) -> bool:
        """True when the sender re-sends its message for this NAK (only a damaged frame)."""
        return self is NakReason.BAD_CRC


#: The payload sizes (min, max) of the link messages (link.md 4); HELLO is 8 fixed bytes and
#: three strings of 1 + n bytes each.
LINK_PAYLOAD_SIZES: Final = {0x01: (11, 255), 0x02: (4, 4), 0x03: (2, 2), 0x04: (0, 0)}


def plausible_header(length: int, msg_type: int) -> bool:
    """False when no frame can start with this LEN and TYPE (link.md 2.3): an unassigned type, or
    a link message of a length its type never has. The framer skips such a sync byte at once.
    Application types accept any length: a wrong one is refused after the CRC, by the receiver."""
    if msg_type not in ASSIGNED_TYPES:
        return False
    sizes = LINK_PAYLOAD_SIZES.get(msg_type)
    return sizes is None or sizes[0] <= length <= sizes[1]


def is_reliable(msg_type: int) -> bool:
    """True for application messages, which carry a message id and are acknowledged."""
    return msg_type in APPLICATION_TYPES


class PayloadReader:
    """Reads fields off a payload; every shortfall is a ProtocolError carrying the raw frame."""

    def __init__(self, payload: bytes, *, raw: bytes | None = None, what: str = "payload") -> None:
        self._data = bytes(payload)
        self._pos = 0
        self._raw = raw if raw is not None else self._data
        self._what = what

    @property
    def remaining(self) -> int:
        return len(self._data) - self._pos

    def error(self, message: str) -> ProtocolError:
        return ProtocolError(f"{self._what}: {message}", raw=self._raw)

    def take(self, size: int) -> bytes:
        if size < 0 or self.remaining < size:
            raise self.error(f"needs {size} more bytes at offset {self._pos}, has {self.remaining}")
        chunk = self._data[self._pos : self._pos + size]
        self._pos += size
        return chunk

    def u8(self) -> int:
        return self.take(1)[0]

    def u16(self) -> int:
        value: int = struct.unpack(">H", self.take(2))[0]
        return value

    def u32(self) -> int:
        value: int = struct.unpack(">I", self.take(4))[0]
        return value

    def text(self) -> str:
        data = self.take(self.u8())
        try:
            return data.decode("ascii")
        except UnicodeDecodeError as exc:
            raise self.error(f"non-ASCII text {data!r}") from exc

    def end(self) -> None:
        """Refuse trailing bytes: a payload longer than its type allows is an error, not padding."""
        if self.remaining:
            raise self.error(f"{self.remaining} unexpected trailing bytes")


def encode_text(value: str) -> bytes:
    data = value.encode("ascii")
    if len(data) > 255:
        raise ValueError(f"text of {len(data)} bytes, at most 255")
    return bytes((len(data),)) + data


@dataclass(frozen=True, slots=True)
class Hello:
    """Who is at the other end: protocol version, heartbeat period, session, identity.

    ``session_id`` is chosen at random when the sender starts (power-up for a device, driver
    creation for the host); a new value tells the peer that message ids restarted.
    """

    protocol_major: int
    protocol_minor: int
    heartbeat_ms: int
    session_id: int
    model: str
    serial_number: str
    firmware: str


def encode_hello(hello: Hello) -> bytes:
    return (
        struct.pack(">BBHI", hello.protocol_major, hello.protocol_minor, hello.heartbeat_ms, hello.session_id)
        + encode_text(hello.model)
        + encode_text(hello.serial_number)
        + encode_text(hello.firmware)
    )


def decode_hello(payload: bytes, *, raw: bytes | None = None) -> Hello:
    reader = PayloadReader(payload, raw=raw, what="HELLO")
    hello = Hello(
        protocol_major=reader.u8(),
        protocol_minor=reader.u8(),
        heartbeat_ms=reader.u16(),
        session_id=reader.u32(),
        model=reader.text(),
        serial_number=reader.text(),
        firmware=reader.text(),
    )
    reader.end()
    if hello.heartbeat_ms == 0:
        raise reader.error("heartbeat period of 0 ms")
    return hello


def encode_ack(msg_id: int) -> bytes:
    return struct.pack(">I", msg_id)


def decode_ack(payload: bytes, *, raw: bytes | None = None) -> int:
    reader = PayloadReader(payload, raw=raw, what="ACK")
    msg_id = reader.u32()
    reader.end()
    return msg_id


@dataclass(frozen=True, slots=True)
class Nak:
    """A refused frame: why, and the sequence number read from it (advisory: its CRC failed)."""

    reason: NakReason
    seq: int


def encode_nak(nak: Nak) -> bytes:
    return bytes((int(nak.reason), nak.seq))


def decode_nak(payload: bytes, *, raw: bytes | None = None) -> Nak:
    reader = PayloadReader(payload, raw=raw, what="NAK")
    code, seq = reader.u8(), reader.u8()
    reader.end()
    try:
        reason = NakReason(code)
    except ValueError as exc:
        raise reader.error(f"unknown NAK reason 0x{code:02X}") from exc
    return Nak(reason, seq)


def encode_reliable(msg_id: int, body: bytes) -> bytes:
    """An application payload: message id, then the type's own body."""
    if not 1 <= msg_id <= MAX_MSG_ID:
        raise ValueError(f"message id {msg_id} out of range 1..{MAX_MSG_ID}")
    return struct.pack(">I", msg_id) + body


def split_reliable(payload: bytes, *, raw: bytes | None = None) -> tuple[int, bytes]:
    """(message id, body) of an application payload; ProtocolError if it has no valid id."""
    if len(payload) < MSG_ID_SIZE:
        raise ProtocolError(f"application payload of {len(payload)} bytes has no message id", raw=raw)
    msg_id = struct.unpack(">I", payload[:MSG_ID_SIZE])[0]
    if msg_id == 0:
        raise ProtocolError("message id 0 is not allowed", raw=raw)
    return msg_id, bytes(payload[MSG_ID_SIZE:])
