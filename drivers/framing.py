"""Frames on the wire, as pure functions: ``encode_frame`` and ``decode_frame``.

Layout (docs/protocols/link.md, "Frame")::

    SYNC  LEN  SEQ  TYPE  PAYLOAD[LEN]  CRC_HI  CRC_LO
    0xA5  u8   u8   u8    0..255 bytes  CRC-16/IBM-3740 over LEN..PAYLOAD, big-endian

``decode_frame(buffer) -> (consumed, frame | None)`` is the pymodbus-style framer: it skips
garbage before a sync byte, skips a sync byte whose frame fails its CRC (resync), and returns
``(0, None)`` when it needs more bytes. ``FrameDecoder`` wraps it for a byte stream and also
reports what was thrown away (bad CRC, garbage, a partial frame that went stale).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from .crc import crc16
from .errors import FrameError

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


def _scan(buffer: bytes | bytearray) -> tuple[int, Frame | None, FrameError | None]:
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
    if len(buffer) < total:
        return 0, None, None
    candidate = bytes(buffer[:total])
    expected = crc16(candidate[1:-CRC_SIZE])
    received = (candidate[-2] << 8) | candidate[-1]
    if expected != received:
        return 1, None, CrcMismatchError(f"CRC {received:04X}, expected {expected:04X}", raw=candidate)
    payload = candidate[HEADER_SIZE:-CRC_SIZE]
    frame = Frame(seq=candidate[2], msg_type=candidate[3], payload=payload, raw=candidate)
    return total, frame, None


def decode_frame(buffer: bytes | bytearray) -> tuple[int, Frame | None]:
    """Decode the first frame in ``buffer``.

    Returns ``(consumed, frame)``; ``(n > 0, None)`` when ``n`` bytes of garbage or one sync byte
    of a bad-CRC frame were skipped (call again on the rest); ``(0, None)`` when more bytes are needed.
    """
    consumed, frame, _ = _scan(buffer)
    return consumed, frame


class FrameDecoder:
    """A byte-stream decoder: ``feed`` bytes, get frames and the errors of what was skipped, in order.

    ``stale_after`` (seconds): a partial frame older than this is dropped by ``expire`` one sync
    byte at a time, so that a false sync byte with a large length byte cannot hold the stream.
    """

    def __init__(
        self, *, stale_after: float | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._buffer = bytearray()
        self._stale_after = stale_after
        self._clock = clock
        self._partial_since: float | None = None

    @property
    def pending(self) -> int:
        """Bytes held, waiting for the rest of a frame."""
        return len(self._buffer)

    def feed(self, data: bytes | bytearray) -> list[Frame | FrameError]:
        """Add bytes; return the frames completed and the errors for bytes skipped, in stream order."""
        self._buffer += data
        return self._drain()

    def expire(self) -> list[Frame | FrameError]:
        """Drop a partial frame pending longer than ``stale_after``; return what that uncovered."""
        if self._stale_after is None or self._partial_since is None or not self._buffer:
            return []
        if self._clock() - self._partial_since < self._stale_after:
            return []
        stale = StaleFrameError("partial frame went stale", raw=bytes(self._buffer))
        del self._buffer[:1]
        self._partial_since = None
        return [stale, *self._drain()]

    def clear(self) -> None:
        """Forget buffered bytes (after a reconnect)."""
        self._buffer.clear()
        self._partial_since = None

    def _drain(self) -> list[Frame | FrameError]:
        out: list[Frame | FrameError] = []
        while self._buffer:
            consumed, frame, error = _scan(self._buffer)
            if consumed == 0:
                break
            del self._buffer[:consumed]
            self._partial_since = None
            if error is not None:
                if out and isinstance(error, GarbageError) and isinstance(out[-1], GarbageError):
                    merged = (out[-1].raw or b"") + (error.raw or b"")
                    out[-1] = GarbageError(f"{len(merged)} bytes before a sync byte", raw=merged)
                else:
                    out.append(error)
            if frame is not None:
                out.append(frame)
        if self._buffer and self._partial_since is None:
            self._partial_since = self._clock()
        return out
