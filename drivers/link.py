"""The host side of the link over any Transport (docs/protocols/link.md).

Hello (protocol version, model, serial number, firmware, session), ACK/NAK by message id,
bounded retransmission, duplicate message ids dropped, heartbeats both ways, link-loss
detection and reconnection with exponential backoff. Everything here runs in the driver's
reader thread, the only thread that touches the transport; ``send`` may be called from any
thread and only queues.

Delivery guarantee: one application message in flight per direction (stop-and-wait), so
messages arrive in order; a message is re-sent until ACKed, across reconnects, with the same
id; the receiver ACKs every copy and delivers only the first (ids increase by one within a
session, so "id <= last delivered" is a duplicate).

The silence clock: the link is lost after ``loss_window`` seconds without a valid frame, counted
from the later of the last frame received and the end of the last delivery. A delivery (the
driver's decode and journal, a database commit) runs in this thread before the ACK and nothing
is read meanwhile: that time is the host's own, not the device's silence (link.md, 6).
"""

from __future__ import annotations

import contextlib
import itertools
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

import structlog

from .errors import (
    DriverError,
    DriverInitError,
    DriverIOError,
    DriverTimeoutError,
    JournalError,
    ProtocolError,
    ProtocolVersionError,
    RefusedResentError,
)
from .framing import CrcMismatchError, Frame, FrameDecoder, FrameError, StaleFrameError, encode_frame
from .messages import (
    MAX_MSG_ID,
    PROTOCOL_MAJOR,
    PROTOCOL_MINOR,
    Hello,
    MsgType,
    Nak,
    NakReason,
    decode_ack,
    decode_hello,
    decode_nak,
    encode_ack,
    encode_hello,
    encode_nak,
    encode_reliable,
    is_reliable,
    plausible_header,
    split_reliable,
)
from .transport import Transport

log = structlog.get_logger()

READ_SIZE = 4096
NOISE_RAW_LIMIT = 64  # bytes of a burst's raw bytes kept for its log line
REFUSED_COPIES = 1  # copies of a refused message refused again before it is ACKed as used up (link.md 3.1)
REPEAT_LOG_INTERVAL = 60.0  # seconds: the same failure (a HELLO refused...) is logged at most this often


class LogThrottle:
    """The same failure, repeated, logs once per ``interval`` with the count of the lines it held
    back, so that a device stuck in a loop (another protocol major...) cannot flood the log."""

    def __init__(self, clock: Callable[[], float], interval: float = REPEAT_LOG_INTERVAL) -> None:
        self._clock = clock
        self._interval = interval
        self._last: dict[str, tuple[str, float, int]] = {}

    def allow(self, key: str, text: str) -> int | None:
        """None: hold this line back; otherwise log it, with the number of lines held back.
        ``text`` names the failure without its raw bytes (a re-sent frame's seq differs)."""
        now = self._clock()
        last = self._last.get(key)
        if last is not None and last[0] == text and now - last[1] < self._interval:
            self._last[key] = (last[0], last[1], last[2] + 1)
            return None
        self._last[key] = (text, now, 0)
        return last[2] if last is not None and last[0] == text else 0

    def reset(self, key: str) -> None:
        self._last.pop(key, None)


@dataclass(slots=True)
class _Noise:
    """One burst of bytes that made no frame: logged once, NAKed at most once (link.md 2.3)."""

    crc_errors: int = 0
    garbage_bytes: int = 0
    stale_frames: int = 0
    naked: bool = False
    raw: bytearray = field(default_factory=bytearray)

    def add(self, error: FrameError) -> None:
        raw = error.raw or b""
        if isinstance(error, CrcMismatchError):
            self.crc_errors += 1
            raw = raw[:1]  # the rest of the candidate is read again after the skipped sync byte
        elif isinstance(error, StaleFrameError):
            self.stale_frames += 1
            raw = raw[:1]
        else:
            self.garbage_bytes += len(raw)
        if len(self.raw) < NOISE_RAW_LIMIT:
            self.raw += raw[: NOISE_RAW_LIMIT - len(self.raw)]


@dataclass(frozen=True, slots=True)
class LinkConfig:
    """Timings and limits of the link, in seconds; defaults are the documented production values."""

    heartbeat_interval: float = 1.0
    loss_after_heartbeats: int = 3
    ack_timeout: float = 0.25
    max_retransmissions: int = 3
    hello_timeout: float = 0.5
    hello_attempts: int = 3
    backoff_initial: float = 0.1
    backoff_factor: float = 2.0
    backoff_max: float = 5.0
    poll_interval: float = 0.01
    stale_frame_after: float = 0.5

    def __post_init__(self) -> None:
        positive = (
            "heartbeat_interval",
            "ack_timeout",
            "hello_timeout",
            "backoff_initial",
            "poll_interval",
            "stale_frame_after",
        )
        for name in positive:
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be > 0, got {getattr(self, name)!r}")
        if self.loss_after_heartbeats < 2:
            raise ValueError("loss_after_heartbeats must be at least 2")
        if self.max_retransmissions < 0 or self.hello_attempts < 1:
            raise ValueError("max_retransmissions >= 0 and hello_attempts >= 1")
        if self.backoff_factor < 1 or self.backoff_max < self.backoff_initial:
            raise ValueError("backoff_factor >= 1 and backoff_max >= backoff_initial")
        if not 0.001 <= self.heartbeat_interval <= 65.535:
            raise ValueError("heartbeat_interval must fit the HELLO field: 1 ms to 65.535 s")

    @property
    def heartbeat_ms(self) -> int:
        return round(self.heartbeat_interval * 1000)

    @classmethod
    def fast(cls) -> LinkConfig:
        """Short timings for tests and demos: 50 ms heartbeat."""
        return cls(
            heartbeat_interval=0.05,
            ack_timeout=0.04,
            hello_timeout=0.1,
            backoff_initial=0.02,
            backoff_max=0.2,
            poll_interval=0.005,
            stale_frame_after=0.1,
        )


class LinkListener(Protocol):
    """What the link reports to its driver (called from the reader thread)."""

    def link_up(self, hello: Hello, *, restored: bool, device_restarted: bool) -> None: ...

    def link_lost(self, error: DriverError) -> None: ...

    def message(self, msg_type: int, msg_id: int, body: bytes, frame: Frame) -> None: ...

    def commands_dropped(self, msg_ids: tuple[int, ...], reason: str) -> None: ...

    def link_error(self, error: DriverError) -> None: ...


@dataclass(slots=True)
class LinkStats:
    """Counters for benchmarks, surveillance and tests."""

    frames_received: int = 0
    frames_sent: int = 0
    messages_delivered: int = 0
    duplicates_dropped: int = 0
    journal_failures: int = 0
    retransmissions: int = 0
    crc_errors: int = 0
    garbage_bytes: int = 0
    naks_sent: int = 0
    naks_received: int = 0
    noise_bursts: int = 0
    messages_refused: int = 0  # device messages NAKed REFUSED: intact, but unusable (link.md 3)
    commands_refused: int = 0  # our commands the device NAKed MALFORMED or REFUSED
    refused_resent: int = 0  # refused messages the device kept re-sending (ACKed as used up: 3.1)
    links_lost: int = 0
    reconnects: int = 0


@dataclass(slots=True)
class _Outgoing:
    msg_id: int
    msg_type: int
    payload: bytes
    frame: bytes = b""
    sent_at: float = 0.0
    retransmissions: int = 0
    resent_at: float | None = None  # the last re-send (a NAK brings one forward, at most one per ACK timeout)


_Decoded = TypeVar("_Decoded", covariant=True)


class _PayloadDecoder(Protocol[_Decoded]):
    """A link message's payload decoder (``decode_ack``, ``decode_nak``...)."""

    def __call__(self, payload: bytes, /, *, raw: bytes | None = ...) -> _Decoded: ...


class _LinkDown(Exception):
    def __init__(self, error: DriverError) -> None:
        super().__init__(str(error))
        self.error = error


@dataclass(frozen=True, slots=True)
class HostIdentity:
    """What the host says of itself in its HELLO."""

    model: str = "table-controller"
    serial_number: str = ""
    firmware: str = "0.1.0"


class HostLink:
    """The host end of one device link, run by the driver's reader thread."""

    def __init__(
        self,
        transport: Transport,
        listener: LinkListener,
        *,
        config: LinkConfig | None = None,
        identity: HostIdentity | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.transport = transport
        self.listener = listener
        self.config = config or LinkConfig()
        self.identity = identity or HostIdentity()
        self.stats = LinkStats()
        self.session_id = secrets.randbits(32) or 1
        self._clock = clock
        self._decoder = FrameDecoder(
            stale_after=self.config.stale_frame_after, clock=clock, header_ok=plausible_header
        )
        self._early: list[Frame | FrameError] = []  # what followed the device's HELLO in the same read
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._outbox: deque[_Outgoing] = deque()
        self._in_flight: _Outgoing | None = None
        self._seq = 0
        self._device: Hello | None = None
        self._last_delivered = 0
        self._last_refused: int | None = None  # a device message NAKed REFUSED: its copies are too
        self._refused_copies = 0  # copies of it refused again (at most REFUSED_COPIES, link.md 3.1)
        self._noise: _Noise | None = None  # the burst of noise being read, if any
        self._nak_at: float | None = None  # our last NAK(BAD_CRC) in the current burst
        self.log_throttle = LogThrottle(clock)
        self._last_rx = 0.0  # when the last valid frame was read (monotonic)
        self._last_received: float | None = None  # the same, None until the first frame ever
        self._busy_until = 0.0  # end of the last delivery: the host's own time is not device silence
        self._tx = threading.Condition()  # the reader inside a delivery, or not (_keep_alive)
        self._delivering = False
        self._stopping = False
        self._last_tx = 0.0
        self._loss_after = self.config.heartbeat_interval * self.config.loss_after_heartbeats

    # -- public ---------------------------------------------------------------------------------

    @property
    def device(self) -> Hello | None:
        """The device's last HELLO, None before the first."""
        return self._device

    @property
    def last_received(self) -> float | None:
        """When the last valid frame came from the device (the link's clock, monotonic); heartbeats
        count, frames with a bad CRC do not. None before the first. Readable from any thread."""
        return self._last_received

    @property
    def loss_window(self) -> float:
        """Seconds without a valid frame (the host's own delivery time not counted) before it is lost."""
        return self._loss_after

    def send(self, msg_type: int, body: bytes) -> int:
        """Queue a reliable application message; return its message id. Thread-safe."""
        if not is_reliable(msg_type):
            raise ValueError(f"message type 0x{msg_type:02X} is not an application type")
        with self._lock:
            msg_id = next(self._ids)
            if msg_id > MAX_MSG_ID:
                raise ProtocolError("message ids exhausted for this session")
            self._outbox.append(_Outgoing(msg_id, msg_type, encode_reliable(msg_id, body)))
        return msg_id

    def connect(self) -> Hello:
        """Open the transport and exchange HELLOs; DriverInitError on any failure (cause chained)."""
        try:
            self.transport.open()
            hello = self._hello()
        except DriverInitError:
            self.transport.close()
            raise
        except (DriverError, _LinkDown) as exc:
            self.transport.close()
            cause = exc.error if isinstance(exc, _LinkDown) else exc
            raise DriverInitError(f"no link with {self.transport!r}: {cause}", raw=cause.raw) from cause
        restarted = self._device is not None and hello.session_id != self._device.session_id
        first = self._device is None
        if restarted:
            self._last_delivered = 0
            self._last_refused = None
            self._refused_copies = 0
        self._noise, self._nak_at = None, None
        self._device = hello
        now = self._clock()
        self._last_rx = now
        self._last_tx = 0.0
        self._loss_after = (
            max(self.config.heartbeat_interval, hello.heartbeat_ms / 1000) * self.config.loss_after_heartbeats
        )
        if self._in_flight is not None:  # re-sent at once on the new connection, same id and bytes
            self._in_flight.sent_at = 0.0
            self._in_flight.retransmissions = 0
            self._in_flight.resent_at = None
        log.info(
            "link.up",
            device=hello.model,
            serial=hello.serial_number,
            firmware=hello.firmware,
            session=hello.session_id,
            restored=not first,
            device_restarted=restarted,
        )
        self.listener.link_up(hello, restored=not first, device_restarted=restarted)
        if restarted:  # the new device session knows nothing of our unacknowledged commands
            self._drop_commands("device restarted")
        return hello

    def run(self, stop: threading.Event) -> None:
        """Serve the link until ``stop`` is set, reconnect with backoff; close the transport at the end."""
        keep_alive = threading.Thread(target=self._keep_alive, name="link-keepalive", daemon=True)
        keep_alive.start()
        try:
            while not stop.is_set():
                try:
                    self._serve(stop)
                except _LinkDown as down:
                    self._lose(down.error)
                    self._reconnect(stop)
        finally:
            with self._tx:
                self._stopping = True
                self._tx.notify()
            keep_alive.join()
            self.transport.close()

    # -- hello ----------------------------------------------------------------------------------

    def _my_hello(self) -> Hello:
        return Hello(
            PROTOCOL_MAJOR,
            PROTOCOL_MINOR,
            self.config.heartbeat_ms,
            self.session_id,
            self.identity.model,
            self.identity.serial_number,
            self.identity.firmware,
        )

    def _hello(self) -> Hello:
        cfg = self.config
        decoder = self._decoder
        decoder.clear()
        self._early = []
        payload = encode_hello(self._my_hello())
        for attempt in range(1, cfg.hello_attempts + 1):
            self._write(self._frame(MsgType.HELLO, payload))
            deadline = self._clock() + cfg.hello_timeout
            while (left := deadline - self._clock()) > 0:
                data = self.transport.read(READ_SIZE, min(left, cfg.poll_interval * 5))
                items = decoder.feed(data) + decoder.expire()
                for index, item in enumerate(items):
                    if isinstance(item, Frame) and item.msg_type == MsgType.HELLO:
                        self.stats.frames_received += 1
                        try:
                            hello = decode_hello(item.payload, raw=item.raw)
                        except ProtocolError as exc:
                            raise DriverInitError(f"bad HELLO: {exc}", raw=item.raw) from exc
                        if hello.session_id == self.session_id:  # our own HELLO echoed (loopback, RS-485)
                            log.warning("link.hello_echo", raw=item.raw.hex())
                            continue
                        self._last_received = self._clock()
                        if hello.protocol_major != PROTOCOL_MAJOR:
                            error = ProtocolVersionError(
                                f"device speaks protocol {hello.protocol_major}.{hello.protocol_minor}, "
                                f"host {PROTOCOL_MAJOR}.{PROTOCOL_MINOR}",
                                raw=item.raw,
                            )
                            held = self.log_throttle.allow("version", str(error.args[0]))
                            if held is not None:  # a device that always answers so: not every time
                                log.error(
                                    "link.version_mismatch",
                                    error=str(error),
                                    raw=item.raw.hex(),
                                    repeated=held,
                                )
                            raise error
                        self.log_throttle.reset("version")
                        self._early = items[index + 1 :]
                        return hello
                    if isinstance(item, Frame):
                        self.stats.frames_received += 1  # stale traffic before the hello: re-sent later
                        self._last_received = self._clock()
            log.warning("link.hello_unanswered", attempt=attempt, transport=repr(self.transport))
        raise DriverTimeoutError(f"no HELLO from {self.transport!r} after {cfg.hello_attempts} attempts")

    # -- serving --------------------------------------------------------------------------------

    def _serve(self, stop: threading.Event) -> None:
        cfg = self.config
        early, self._early = self._early, []
        self._handle(early, self._clock())
        while not stop.is_set():
            try:
                data = self.transport.read(READ_SIZE, cfg.poll_interval)
            except DriverIOError as exc:
                raise _LinkDown(exc) from exc
            self._handle(self._decoder.feed(data) + self._decoder.expire(), self._clock(), quiet=not data)
            self._tick(self._clock())

    def _handle(self, items: list[Frame | FrameError], now: float, *, quiet: bool = False) -> None:
        """Frames and noise as read; ``quiet``: this read brought no byte. A burst of noise ends
        at the next frame, or once the line is quiet with no byte waiting (link.md 2.3): not at
        the end of each read, which on a serial line carries a few bytes of a burst at a time."""
        for item in items:
            if isinstance(item, Frame):
                self._end_noise()
                self._last_rx = self._last_received = now
                self.stats.frames_received += 1
                self._on_frame(item)
            else:
                self._on_frame_error(item, now)
        if self._noise is not None and quiet and self._decoder.pending == 0:  # the bytes stopped
            self._end_noise()

    def _tick(self, now: float) -> None:
        cfg = self.config
        silent = now - max(self._last_rx, self._busy_until)  # the host's own delivery time is not silence
        if silent > self._loss_after:
            raise _LinkDown(DriverTimeoutError(f"no frame from the device for {silent:.3f} s"))
        flight = self._in_flight
        if flight is None:
            with self._lock:
                flight = self._in_flight = self._outbox.popleft() if self._outbox else None
        if flight is not None:
            if flight.sent_at == 0.0:
                self._transmit(flight, now)
            elif now - max(flight.sent_at, self._busy_until) >= cfg.ack_timeout:  # an ACK may wait unread
                self._retransmit(flight, now, "no ACK")
        if now - self._last_tx >= cfg.heartbeat_interval:
            self._write(self._frame(MsgType.HEARTBEAT, b""))

    def _transmit(self, flight: _Outgoing, now: float) -> None:
        if not flight.frame:  # first transmission: frame it once, re-send the same bytes (same seq)
            flight.frame = self._frame(flight.msg_type, flight.payload)
        flight.sent_at = now
        self._write(flight.frame)

    def _retransmit(self, flight: _Outgoing, now: float, why: str) -> None:
        if flight.retransmissions >= self.config.max_retransmissions:
            raise _LinkDown(
                DriverTimeoutError(
                    f"message {flight.msg_id} not acknowledged after {flight.retransmissions} "
                    f"retransmissions ({why})",
                    raw=flight.frame,
                )
            )
        flight.retransmissions += 1
        flight.resent_at = now
        self.stats.retransmissions += 1
        log.info("link.retransmit", msg_id=flight.msg_id, attempt=flight.retransmissions, why=why)
        self._transmit(flight, now)

    def _on_frame(self, frame: Frame) -> None:
        kind = frame.msg_type
        if kind == MsgType.HEARTBEAT:
            return
        if kind == MsgType.ACK:
            msg_id = self._decode_or_report(decode_ack, frame)
            if msg_id is not None and self._in_flight is not None and msg_id == self._in_flight.msg_id:
                self._in_flight = None
            return
        if kind == MsgType.NAK:
            nak = self._decode_or_report(decode_nak, frame)
            self.stats.naks_received += 1
            if nak is not None:
                self._on_nak(nak)
            return
        if kind == MsgType.HELLO:
            log.warning("link.unexpected_hello", raw=frame.raw.hex())
            return
        if not is_reliable(kind):
            self._report(ProtocolError(f"unknown message type 0x{kind:02X}", raw=frame.raw))
            return
        try:
            msg_id, body = split_reliable(frame.payload, raw=frame.raw)
        except ProtocolError as exc:
            self._report(exc)
            self._send_nak(NakReason.MALFORMED, frame.seq)
            return
        if msg_id == self._last_refused:
            self._refused_copy(msg_id, frame)
            return
        if msg_id <= self._last_delivered:
            self._write(self._frame(MsgType.ACK, encode_ack(msg_id)))
            self.stats.duplicates_dropped += 1
            log.debug("link.duplicate_dropped", msg_id=msg_id, raw=frame.raw.hex())
            return
        if self._last_delivered and msg_id != self._last_delivered + 1:
            self._report(
                ProtocolError(f"message id {msg_id} after {self._last_delivered}: ids skipped", raw=frame.raw)
            )
        try:
            # Delivered (and journalled by the driver) before the ACK: an acknowledged message
            # is one the host has kept. A journal failure leaves it unacknowledged: resent.
            with self._delivering_now():
                self.listener.message(kind, msg_id, body, frame)
        except JournalError:
            self.stats.journal_failures += 1
            return
        except ProtocolError as exc:
            # An intact frame we cannot use (a wrong length, a die showing 7): never ACKed as
            # delivered. NAK(REFUSED) tells the device not to re-send the same bytes; the listener
            # has reported the error, naming the frame. The id is used up (link.md 3).
            self._last_delivered = msg_id
            self._last_refused, self._refused_copies = msg_id, 0
            self.stats.messages_refused += 1
            log.error("link.message_refused", msg_id=msg_id, error=str(exc), raw=frame.raw.hex())
            self._send_nak(NakReason.REFUSED, frame.seq)
            return
        self._last_delivered = msg_id
        self.stats.messages_delivered += 1
        self._write(self._frame(MsgType.ACK, encode_ack(msg_id)))

    def _refused_copy(self, msg_id: int, frame: Frame) -> None:
        """A copy of the message we refused (link.md 3.1). The first copy is refused again (a
        device of 1.1 re-sends only when our NAK was lost). A device that keeps re-sending
        follows the 1.0 text (re-send after any NAK): refused for ever, it would spend its
        retries, lose the link and send the same bytes after the HELLO, for ever. So a further
        copy is ACKed as used up, never delivered (the device goes on with its next message),
        and reported once, naming the frame: the controller voids the round it belonged to."""
        if self._refused_copies < REFUSED_COPIES:
            self._refused_copies += 1
            self._send_nak(NakReason.REFUSED, frame.seq)
            log.debug("link.refused_copy", msg_id=msg_id, raw=frame.raw.hex())
            return
        self._write(self._frame(MsgType.ACK, encode_ack(msg_id)))
        if self._refused_copies > REFUSED_COPIES:  # reported already: only its ACK was lost
            return
        self._refused_copies += 1
        self.stats.refused_resent += 1
        device = self._device
        version = f"{device.protocol_major}.{device.protocol_minor}" if device is not None else "?"
        log.error("link.refused_resent", msg_id=msg_id, device_protocol=version, raw=frame.raw.hex())
        self._report(
            RefusedResentError(
                f"message {msg_id} was refused and re-sent again after its copy was refused (the "
                f"device speaks protocol {version}; 1.1 forbids re-sending a refused message): "
                "acknowledged as used up, never delivered",
                raw=frame.raw,
                msg_id=msg_id,
            )
        )

    @contextmanager
    def _delivering_now(self) -> Iterator[None]:
        """This thread is inside a delivery (the driver's journal: a durable commit): the
        keep-alive thread (:meth:`_keep_alive`) sends the heartbeats this one cannot, and the
        time it takes is not device silence (``_busy_until``, :meth:`_tick`)."""
        with self._tx:
            self._delivering = True
            self._tx.notify()
        try:
            yield
        finally:
            with self._tx:  # waits for a heartbeat being written: then only this thread writes
                self._delivering = False
                self._tx.notify()
            self._busy_until = self._clock()

    def _keep_alive(self) -> None:
        """While the reader thread is inside a delivery, send a heartbeat every heartbeat period,
        so that the *device* does not take the host's commit for silence either (link.md, 6).
        It writes only then, under ``_tx``, which the reader takes to leave the delivery: the
        two never write at once."""
        interval = self.config.heartbeat_interval
        with self._tx:
            while not self._stopping:
                if not self._delivering:
                    self._tx.wait()
                elif not self._tx.wait(interval) and self._delivering and not self._stopping:
                    # the transport failed: the reader finds it at its next read
                    with contextlib.suppress(_LinkDown):
                        self._write(self._frame(MsgType.HEARTBEAT, b""))

    def _on_frame_error(self, error: FrameError, now: float) -> None:
        """Count the bytes of a burst of noise; NAK its first bad CRC only (link.md 2.3): one NAK
        asks for the message again, a NAK per false sync byte would spend the device's retries."""
        noise = self._noise
        if noise is None:
            noise = self._noise = _Noise()
        noise.add(error)
        if isinstance(error, CrcMismatchError):
            self.stats.crc_errors += 1
            quiet = self._nak_at is not None and now - self._nak_at < self.config.ack_timeout
            if not noise.naked and not quiet:
                raw = error.raw or b""
                noise.naked = True
                self._nak_at = now
                self._send_nak(NakReason.BAD_CRC, raw[2] if len(raw) > 2 else 0)
        else:
            self.stats.garbage_bytes += len(error.raw or b"") if not isinstance(error, StaleFrameError) else 1

    def _end_noise(self) -> None:
        """The burst is over (a valid frame, or no byte left waiting): its one log line."""
        noise, self._noise = self._noise, None
        if noise is None:
            return
        self.stats.noise_bursts += 1
        log.warning(
            "link.noise",
            crc_errors=noise.crc_errors,
            garbage_bytes=noise.garbage_bytes,
            stale_frames=noise.stale_frames,
            naked=noise.naked,
            raw=bytes(noise.raw).hex(),
        )

    def _on_nak(self, nak: Nak) -> None:
        """link.md 3: a BAD_CRC NAK re-sends the message in flight at once, unless it was re-sent
        less than one ACK timeout ago (the NAKs of one burst are one request); every re-send
        counts toward the limit.
        MALFORMED or REFUSED: the same bytes would be refused again, so the command is dropped."""
        flight = self._in_flight
        if flight is None or not flight.sent_at:
            return
        now = self._clock()
        if nak.reason.resend:
            if flight.resent_at is not None and now - flight.resent_at < self.config.ack_timeout:
                log.debug("link.nak_ignored", msg_id=flight.msg_id, reason=nak.reason.name)
                return
            self._retransmit(flight, now, f"NAK {nak.reason.name}")
            return
        if flight.frame and nak.seq != flight.frame[2]:
            log.warning(
                "link.nak_for_another_frame", msg_id=flight.msg_id, reason=nak.reason.name, seq=nak.seq
            )
            return
        with self._lock:
            self._in_flight = None
        self.stats.commands_refused += 1
        reason = f"refused by the device (NAK {nak.reason.name}): not re-sent"
        log.error(
            "link.command_refused", msg_id=flight.msg_id, reason=nak.reason.name, raw=flight.frame.hex()
        )
        self.listener.commands_dropped((flight.msg_id,), reason)

    # -- helpers --------------------------------------------------------------------------------

    def _decode_or_report(self, decode: _PayloadDecoder[_Decoded], frame: Frame) -> _Decoded | None:
        try:
            return decode(frame.payload, raw=frame.raw)
        except ProtocolError as exc:
            self._report(exc)
            return None

    def _report(self, error: DriverError) -> None:
        log.error("link.protocol_error", error=str(error), raw=(error.raw or b"").hex())
        self.listener.link_error(error)

    def _send_nak(self, reason: NakReason, seq: int) -> None:
        self.stats.naks_sent += 1
        self._write(self._frame(MsgType.NAK, encode_nak(Nak(reason, seq))))

    def _frame(self, msg_type: int, payload: bytes) -> bytes:
        seq = self._seq
        self._seq = (seq + 1) & 0xFF
        return encode_frame(seq, msg_type, payload)

    def _write(self, data: bytes) -> None:
        try:
            self.transport.write(data)
        except DriverIOError as exc:
            raise _LinkDown(exc) from exc
        self.stats.frames_sent += 1
        self._last_tx = self._clock()

    def _drop_commands(self, reason: str) -> None:
        with self._lock:
            dropped = ([self._in_flight] if self._in_flight else []) + list(self._outbox)
            self._outbox.clear()
            self._in_flight = None
        if dropped:
            ids = tuple(item.msg_id for item in dropped)
            log.warning("link.commands_dropped", msg_ids=ids, reason=reason)
            self.listener.commands_dropped(ids, reason)

    def _lose(self, error: DriverError) -> None:
        self._end_noise()
        self.stats.links_lost += 1
        log.error("link.lost", error=str(error), kind=type(error).__name__, raw=(error.raw or b"").hex())
        self.transport.close()
        self._decoder.clear()
        self.listener.link_lost(error)

    def _reconnect(self, stop: threading.Event) -> None:
        delay = self.config.backoff_initial
        while not stop.wait(delay):
            try:
                self.connect()
            except DriverError as exc:
                held = self.log_throttle.allow(
                    "reconnect", f"{type(exc).__name__}: {exc.args[0] if exc.args else ''}"
                )
                if held is not None:
                    log.warning("link.reconnect_failed", error=str(exc), retry_in=delay, repeated=held)
                delay = min(delay * self.config.backoff_factor, self.config.backoff_max)
                continue
            self.log_throttle.reset("reconnect")
            self.stats.reconnects += 1
            return
