"""The drivers' error hierarchy: init, I/O, timeout, frame, protocol.

Every error may carry the raw frame (or raw bytes) it is about, so that a log line or an
error event is evidence on its own (link.md 8).
"""

from __future__ import annotations

from collections.abc import Callable


class DriverError(Exception):
    """Base class of every driver error; ``raw`` is the offending frame's bytes, if any."""

    def __init__(self, message: str, *, raw: bytes | None = None) -> None:
        super().__init__(message)
        self.raw: bytes | None = bytes(raw) if raw is not None else None

    def __str__(self) -> str:
        text = super().__str__()
        if self.raw is not None:
            return f"{text} (raw frame {self.raw.hex(' ')})"
        return text

    def __reduce__(self) -> tuple[Callable[..., DriverError], tuple[object, ...]]:
        # keep pickling (multiprocessing, copy) working with the keyword
        return (_rebuild, (type(self), self.args[0] if self.args else "", self.raw))


def _rebuild(cls: type[DriverError], message: str, raw: bytes | None) -> DriverError:
    return cls(message, raw=raw)


class DriverInitError(DriverError):
    """The device could not be opened or refused the hello (wrong protocol version, no answer)."""


class ProtocolVersionError(DriverInitError):
    """The device answered HELLO with another protocol major (link.md 4.1): it will not work
    until its firmware or ours changes, so the controller alerts once and backs off."""


class DriverIOError(DriverError):
    """The transport failed: the port is gone, a read or a write failed."""


class DriverTimeoutError(DriverError):
    """The device did not answer in time (hello, acknowledgement, heartbeat)."""


class FrameError(DriverError):
    """Bytes that do not make a valid frame: bad CRC, bad length, garbage."""


class ProtocolError(DriverError):
    """A valid frame whose content breaks the protocol: unknown type, bad payload, bad card code."""


class RefusedResentError(ProtocolError):
    """The device re-sent a message the host refused, past the one copy refused again (link.md
    3.1: a device of protocol 1.0 re-sends after any NAK). The host acknowledged it as used up,
    never delivered, so that the device goes on; what the message was is in ``raw``."""

    def __init__(self, message: str, *, raw: bytes | None = None, msg_id: int = 0) -> None:
        super().__init__(message, raw=raw)
        self.msg_id = msg_id


class JournalError(DriverError):
    """The host could not record a device event before acknowledging it; the message stays
    unacknowledged so the device sends it again."""
