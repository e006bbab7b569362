"""Frames on the wire, as pure functions: ``encode_frame`` and ``decode_frame``.

Layout (docs/protocols/link.md, "Frame")::

    SYNC  LEN  SEQ  TYPE  PAYLOAD[LEN]  CRC_HI  CRC_LO
    0xA5  u8   u8   u8    0..255 bytes  CRC-16/IBM-3740 over LEN..PAYLOAD, big-endian

``decode_frame(buffer) -> (consumed, frame | None)`` is the pymodbus-style framer: it skips
garbage before a sync byte, skips a sync byte whose frame fails its CRC (resync), and returns
``(0, None)`` when it needs more bytes. ``FrameDecoder`` wraps it for a byte stream and also
reports what was thrown away (bad CRC, garbage, a partial frame that went stale).

Both take an optional ``header_ok(length, msg_type)``: a sync byte whose header no frame can
have (link.md 2.3: an unassigned type, a link message of a length its type never has) is
skipped at once as garbage instead of being waited for or NAKed, so that noise cannot hold
the stream behind a false length byte. A complete frame with a good CRC is always accepted:
what is wrong with it is the receiver's to report.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from .crc import crc16
from .errors import FrameError as FrameError  # re-exported: the framer's error type

SYNC: Final = 0xA5
HEADER_SIZE: Final = 4  # SYNC LEN SEQ TYPE
CRC_SIZE: Final = 2
MAX_PAYLOAD: Final = 255
MIN_FRAME: Final = HEADER_SIZE + CRC_SIZE
MAX_FRAME: Final = HEADER_SIZE + MAX_PAYLOAD + CRC_SIZE


class CrcMismatchError(FrameError):
    """A sync byte and a complete candidate frame whose CRC does not match (``raw`` = candidate)."""


class GarbageError(FrameError):
    """Bytes before a sync byte that belong to no frame (``raw`` = the bytes skipped)."""


class StaleFrameError(FrameError):
    """A partial frame that waited too long for its remaining bytes (``raw`` = the partial frame)."""


@dataclass(frozen=True, slots=True)
class Frame:
    """One decoded frame; ``raw`` is the frame's exact bytes, sync to CRC."""

    seq: int
    msg_type: int
    payload: bytes
    raw: bytes


def encode_frame(seq: int, msg_type: int, payload: bytes) -> bytes:
    """The bytes of one frame; ValueError for a field out of range."""
    if not 0 <= seq <= 0xFF:
        raise ValueError(f"seq {seq} out of range 0..255")
    if not 0 <= msg_type <= 0xFF:
        raise ValueError(f"message type {msg_type} out of range 0..255")
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"payload of {len(payload)} bytes, at most {MAX_PAYLOAD}")
    body = bytes((len(payload), seq, msg_type)) + bytes(payload)
    crc = crc16(body)
    return bytes((SYNC,)) + body + bytes((crc >> 8, crc & 0xFF))


HeaderCheck = Callable[[int, int], bool]
"""``header_ok(length, msg_type)``: False when no frame can start with this header."""


class FalseSyncError(GarbageError):
    """A sync byte followed by a header no frame can have, or a partial frame overtaken by a
    valid frame inside it (``raw`` = the bytes skipped): noise, skipped at once and never NAKed
    (link.md 2.3)."""


def _scan(
    buffer: bytes | bytearray, header_ok: HeaderCheck | None = None
) -> tuple[int, Frame | None, FrameError | None]:
    """One step of decoding: (consumed, frame, what was skipped)."""
    if not buffer:
        return 0, None, None
    start = buffer.find(SYNC)
    if start < 0:
        return len(buffer), None, GarbageError("no sync byte", raw=bytes(buffer))
    if start > 0:
        return start, None, GarbageError(f"{start} bytes before a sync byte", raw=bytes(buffer[:start]))
    if len(buffer) < HEADER_SIZE:
        return 0, None, None
    total = HEADER_SIZE + buffer[1] + CRC_SIZE
    plausible = header_ok is None or header_ok(buffer[1], buffer[3])
    if len(buffer) < total:
        if plausible:
            inner = _frame_inside(buffer, header_ok) if header_ok is not None else None
            if inner is None:
                return 0, None, None
            return (
                inner,
                None,
                FalseSyncError(  # a whole valid frame beats one sync byte's claim
                    f"partial frame (LEN {buffer[1]}, TYPE 0x{buffer[3]:02X}) overtaken by a valid frame "
                    f"at offset {inner}",
                    raw=bytes(buffer[:inner]),
                ),
            )
        return (
            1,
            None,
            FalseSyncError(
                f"sync byte with an impossible header (LEN {buffer[1]}, TYPE 0x{buffer[3]:02X})",
                raw=bytes(buffer[:1]),
            ),
        )
    candidate = bytes(buffer[:total])
    expected = crc16(candidate[1:-CRC_SIZE])
    received = (candidate[-2] << 8) | candidate[-1]
    if expected != received:
        if not plausible:  # never a frame: noise, not a damaged frame worth a NAK
            return (
                1,
                None,
                FalseSyncError(
                    f"sync byte with an impossible header (LEN {buffer[1]}, TYPE 0x{buffer[3]:02X})",
                    raw=bytes(buffer[:1]),
                ),
            )
        return 1, None, CrcMismatchError(f"CRC {received:04X}, expected {expected:04X}", raw=candidate)
    payload = candidate[HEADER_SIZE:-CRC_SIZE]
    frame = Frame(seq=candidate[2], msg_type=candidate[3], payload=payload, raw=candidate)
    return total, frame, None


def _frame_inside(buffer: bytes | bytearray, header_ok: HeaderCheck) -> int | None:
    """The offset of the first later sync byte that starts a complete frame with a plausible
    header and a good CRC, or None. A frame's CRC is far stronger evidence than the one sync
    byte of a partial frame waiting for its LEN bytes (link.md 2.3)."""
    start = 1
    while (at := buffer.find(SYNC, start)) > 0:
        start = at + 1
        if len(buffer) - at < HEADER_SIZE or not header_ok(buffer[at + 1], buffer[at + 3]):
            continue
        end = at + HEADER_SIZE + buffer[at + 1] + CRC_SIZE
        if end > len(buffer):
            continue
        if crc16(bytes(buffer[at + 1 : end - CRC_SIZE])) == (buffer[end - 2] << 8) | buffer[end - 1]:
            return at
    return None


def decode_frame(buffer: bytes | bytearray, header_ok: HeaderCheck | None = None) -> tuple[int, Frame | None]:
    """Decode the first frame in ``buffer``.

    Returns ``(consumed, frame)``; ``(n > 0, None)`` when ``n`` bytes of garbage or one sync byte
    of a bad-CRC frame (or of an impossible header) were skipped (call again on the rest);
    ``(0, None)`` when more bytes are needed.
    """
    consumed, frame, _ = _scan(buffer, header_ok)
    return consumed, frame


class FrameDecoder:
    """A byte-stream decoder: ``feed`` bytes, get frames and the errors of what was skipped, in order.

    ``stale_after`` (seconds): a partial frame whose sync byte *arrived* longer ago than this is
    dropped by ``expire`` one sync byte at a time (link.md 2.3), so that a false sync byte with a
    large length byte cannot hold the stream. The clock is the sync byte's arrival, not the time
    it reached the head of the buffer: a second false sync byte inside the same burst of noise is
    already as old as the burst and goes at once, instead of stalling the stream once more.
    ``header_ok``: see the module docstring.
    """

    def __init__(
        self,
        *,
        stale_after: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        header_ok: HeaderCheck | None = None,
    ) -> None:
        self._buffer = bytearray()
        self._stale_after = stale_after
        self._clock = clock
        self._header_ok = header_ok
        self._fed = 0  # bytes fed since the start (or the last clear)
        self._dropped = 0  # bytes consumed since then: the buffer holds bytes _dropped.._fed
        self._arrivals: deque[tuple[int, float]] = deque()  # (end offset of a fed chunk, when it came)

    @property
    def pending(self) -> int:
        """Bytes held, waiting for the rest of a frame."""
        return len(self._buffer)

    def feed(self, data: bytes | bytearray) -> list[Frame | FrameError]:
        """Add bytes; return the frames completed and the errors for bytes skipped, in stream order."""
        if data:
            self._buffer += data
            self._fed += len(data)
            self._arrivals.append((self._fed, self._clock()))
        return self._drain()

    def expire(self) -> list[Frame | FrameError]:
        """Drop each partial frame whose sync byte came more than ``stale_after`` ago; return what
        that uncovered."""
        out: list[Frame | FrameError] = []
        if self._stale_after is None:
            return out
        while self._buffer:
            arrived = self._head_arrival()
            if arrived is None or self._clock() - arrived < self._stale_after:
                break
            out.append(StaleFrameError("partial frame went stale", raw=bytes(self._buffer)))
            self._consume(1)
            out += self._drain()
        return out

    def clear(self) -> None:
        """Forget buffered bytes (after a reconnect)."""
        self._buffer.clear()
        self._arrivals.clear()
        self._fed = self._dropped = 0

    def _head_arrival(self) -> float | None:
        while self._arrivals and self._arrivals[0][0] <= self._dropped:
            self._arrivals.popleft()
        return self._arrivals[0][1] if self._arrivals else None

    def _consume(self, count: int) -> None:
        del self._buffer[:count]
        self._dropped += count

    def _drain(self) -> list[Frame | FrameError]:
        out: list[Frame | FrameError] = []
        while self._buffer:
            consumed, frame, error = _scan(self._buffer, self._header_ok)
            if consumed == 0:
                break
            self._consume(consumed)
            if error is not None:
                if out and type(error) is GarbageError and type(out[-1]) is GarbageError:
                    merged = (out[-1].raw or b"") + (error.raw or b"")
                    out[-1] = GarbageError(f"{len(merged)} bytes before a sync byte", raw=merged)
                else:
                    out.append(error)
            if frame is not None:
                out.append(frame)
        return out
