"""The device side of the link (docs/protocols/link.md), written apart from ``drivers/link.py``.

It shares only the framer, the CRC and the message-type constants with the driver, so that a
bug in the driver's link logic cannot cancel itself out against the simulator (link.md).
``DeviceLink`` is the protocol state machine, driven by ``receive(bytes)`` and ``poll()``; no
threads, no I/O of its own (it writes through a callable). The byte pipes it is served over
are in ``channels.py``, the thread that serves it in ``runner.py``.
"""

from __future__ import annotations

import enum
import secrets
import struct
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import structlog

from drivers.framing import CrcMismatchError, Frame, FrameDecoder, FrameError, encode_frame
from drivers.messages import APPLICATION_TYPES, PROTOCOL_MAJOR, PROTOCOL_MINOR, MsgType, plausible_header

from .faults import LinkFaultInjector

log = structlog.get_logger()

NAK_BAD_CRC = 0x01
NAK_MALFORMED = 0x02
NAK_REFUSED = 0x03


@dataclass(frozen=True, slots=True)
class SimulatedIdentity:
    """What the device says of itself in its HELLO."""

    model: str
    serial_number: str
    firmware: str


@dataclass(frozen=True, slots=True)
class DeviceLinkConfig:
    """Device-side limits, in seconds (docs/protocols/link.md, "Timings")."""

    ack_timeout: float = 0.25
    max_retransmissions: int = 3
    loss_after_heartbeats: int = 3
    stale_frame_after: float = 0.5

    @classmethod
    def fast(cls) -> DeviceLinkConfig:
        return cls(ack_timeout=0.04, stale_frame_after=0.1)


class DeviceLinkState(enum.Enum):
    WAITING_FOR_HELLO = "waiting-for-hello"
    UP = "up"


@dataclass(slots=True)
class _Pending:
    event_id: int
    msg_type: int
    body: bytes
    frame: bytes = b""
    sent_at: float | None = None
    retransmissions: int = 0
    resent_at: float | None = None


@dataclass(slots=True)
class DeviceLinkStats:
    frames_received: int = 0
    frames_sent: int = 0
    events_sent: int = 0
    events_acked: int = 0
    retransmissions: int = 0
    commands_received: int = 0
    duplicate_commands: int = 0
    crc_errors: int = 0
    naks_sent: int = 0
    noise_bursts: int = 0
    events_refused: int = 0
    hellos: int = 0
    links_lost: int = 0


CommandHandler = Callable[[int, int, bytes], None]


class DeviceLink:
    """The device end of the link: answers HELLO, sends events until ACKed, ACKs and dedupes commands.

    ``on_command(msg_type, command_id, body)`` is called once per new command, after its ACK.
    Events queued with ``send_event`` wait in order until the host ACKs each one, across link
    losses: the device forgets nothing until it is restarted (a new ``DeviceLink``).
    """

    def __init__(
        self,
        identity: SimulatedIdentity,
        on_command: CommandHandler,
        *,
        write: Callable[[bytes], None] = lambda data: None,
        config: DeviceLinkConfig | None = None,
        clock: Callable[[], float] = time.monotonic,
        session_id: int | None = None,
        injectors: Sequence[LinkFaultInjector] = (),
        protocol: tuple[int, int] = (PROTOCOL_MAJOR, PROTOCOL_MINOR),
        resend_refused: bool = False,
    ) -> None:
        self.identity = identity
        self.on_command = on_command
        self.write = write
        self.config = config or DeviceLinkConfig()
        self.clock = clock
        self.session_id = session_id if session_id is not None else (secrets.randbits(32) or 1)
        self.injectors = list(injectors)
        # a device that follows the 1.0 text: it re-sends after any NAK, REFUSED included (link.md 3.1)
        self.resend_refused = resend_refused
        self.protocol = (PROTOCOL_MAJOR, 0) if resend_refused else protocol
        self.state = DeviceLinkState.WAITING_FOR_HELLO
        self.stats = DeviceLinkStats()
        self.heartbeat = 1.0
        self._decoder = FrameDecoder(
            stale_after=self.config.stale_frame_after, clock=clock, header_ok=plausible_header
        )
        self._noise: list[FrameError] | None = None  # the burst of noise being read (link.md 2.3)
        self._noise_naked = False
        self._heard = False  # bytes received since the last poll: a burst of noise goes on
        self._nak_at: float | None = None
        self._outbox: list[_Pending] = []
        self._next_event_id = 1
        self._host_session: int | None = None
        self._last_command = 0
        self._seq = 0
        self._last_rx = 0.0
        self._last_tx = 0.0

    # -- the device model's side -----------------------------------------------------------------

    def send_event(self, msg_type: int, body: bytes) -> int:
        """Queue an event for reliable delivery; return its event id."""
        if msg_type not in APPLICATION_TYPES:
            raise ValueError(f"0x{msg_type:02X} is not an application message type")
        event_id = self._next_event_id
        self._next_event_id += 1
        self._outbox.append(_Pending(event_id, msg_type, body))
        return event_id

    @property
    def unacknowledged(self) -> int:
        """Events queued or in flight, not yet ACKed."""
        return len(self._outbox)

    @property
    def connected(self) -> bool:
        return self.state is DeviceLinkState.UP

    # -- the wire's side ------------------------------------------------------------------------

    def receive(self, data: bytes) -> None:
        """Bytes from the host."""
        self._heard = self._heard or bool(data)
        self._handle(self._decoder.feed(data) + self._decoder.expire(), quiet=False)

    def _handle(self, items: list, *, quiet: bool) -> None:
        """A burst of noise ends at the next frame, or at a poll with no byte received since the
        last one and none waiting (link.md 2.3): one log line per burst, however it was read."""
        for item in items:
            if isinstance(item, Frame):
                self._end_noise()
                self.stats.frames_received += 1
                self._on_frame(item)
            else:
                self._on_noise(item)
        if self._noise is not None and quiet and self._decoder.pending == 0:
            self._end_noise()

    def _on_noise(self, error: FrameError) -> None:
        """One NAK per burst of noise, for its first bad CRC, and one log line (link.md 2.3)."""
        if self._noise is None:
            self._noise, self._noise_naked = [], False
        self._noise.append(error)
        if not isinstance(error, CrcMismatchError):
            return
        self.stats.crc_errors += 1
        now = self.clock()
        quiet = self._nak_at is not None and now - self._nak_at < self.config.ack_timeout
        if self.connected and not self._noise_naked and not quiet:
            raw = error.raw or b""
            self._noise_naked = True
            self._nak_at = now
            self.stats.naks_sent += 1
            self._send(MsgType.NAK, bytes((NAK_BAD_CRC, raw[2] if len(raw) > 2 else 0)))

    def _end_noise(self) -> None:
        noise, self._noise = self._noise, None
        if noise:
            self.stats.noise_bursts += 1
            crc = sum(isinstance(item, CrcMismatchError) for item in noise)
            log.warning(
                "sim.link.noise",
                crc_errors=crc,
                skipped=len(noise),
                naked=self._noise_naked,
                raw=(noise[0].raw or b"")[:16].hex(),
            )

    def poll(self) -> None:
        """Timers: stale partial frames, retransmission, heartbeat, loss of the host."""
        quiet, self._heard = not self._heard, False
        self._handle(self._decoder.expire(), quiet=quiet)
        if not self.connected:
            return
        now = self.clock()
        if now - self._last_rx > self.heartbeat * self.config.loss_after_heartbeats:
            self._lose("no frame from the host")
            return
        if self._outbox:
            head = self._outbox[0]
            if head.sent_at is None:
                self._transmit(head, first=not head.frame)
            elif now - head.sent_at >= self.config.ack_timeout:
                self._retransmit(head, "no ACK")
        if self.connected and now - self._last_tx >= self.heartbeat:
            self._send(MsgType.HEARTBEAT, b"")

    def lose(self) -> None:
        """The channel says the host is gone (socket closed, port detached)."""
        if self.connected:
            self._lose("channel closed")

    # -- internals ------------------------------------------------------------------------------

    def _on_frame(self, frame: Frame) -> None:
        kind = frame.msg_type
        if kind == MsgType.HELLO:
            self._on_hello(frame)
            return
        if not self.connected:
            return  # nothing but a HELLO is answered before the hello exchange
        self._last_rx = self.clock()
        if kind == MsgType.HEARTBEAT:
            return
        if kind == MsgType.ACK:
            if len(frame.payload) == 4 and self._outbox and self._outbox[0].sent_at is not None:
                (acked,) = struct.unpack(">I", frame.payload)
                if acked == self._outbox[0].event_id:
                    self._outbox.pop(0)
                    self.stats.events_acked += 1
            return
        if kind == MsgType.NAK:
            self._on_nak(frame)
            return
        if kind not in APPLICATION_TYPES:
            log.warning("sim.link.unknown_type", msg_type=kind, raw=frame.raw.hex())
            return
        if len(frame.payload) < 4:
            self._send(MsgType.NAK, bytes((NAK_MALFORMED, frame.seq)))
            return
        (command_id,) = struct.unpack(">I", frame.payload[:4])
        self._send(MsgType.ACK, frame.payload[:4])
        if command_id <= self._last_command:
            self.stats.duplicate_commands += 1
            log.debug("sim.link.duplicate_command", command_id=command_id, raw=frame.raw.hex())
            return
        self._last_command = command_id
        self.stats.commands_received += 1
        self.on_command(kind, command_id, bytes(frame.payload[4:]))

    def _on_nak(self, frame: Frame) -> None:
        """link.md 3: BAD_CRC re-sends the event in flight at once unless it was re-sent less than
        one ACK timeout ago, and counts toward the retransmissions; MALFORMED or REFUSED (the host
        could not use the intact frame) drops the event: the same bytes would be refused again."""
        if len(frame.payload) != 2 or not self._outbox or self._outbox[0].sent_at is None:
            return
        head = self._outbox[0]
        reason, seq = frame.payload
        now = self.clock()
        if reason == NAK_BAD_CRC:
            if head.resent_at is not None and now - head.resent_at < self.config.ack_timeout:
                return  # the same burst's NAK: the re-send already answers it
            self._retransmit(head, "NAK")
        elif reason in (NAK_MALFORMED, NAK_REFUSED) and head.frame and seq == head.frame[2]:
            if self.resend_refused:  # the 1.0 text: every NAK asks for the message again
                if head.resent_at is not None and now - head.resent_at < self.config.ack_timeout:
                    return
                self._retransmit(head, "NAK (1.0: re-sent after any NAK)")
                return
            self._outbox.pop(0)
            self.stats.events_refused += 1
            log.error("sim.link.event_refused", event_id=head.event_id, reason=reason, raw=head.frame.hex())

    def _on_hello(self, frame: Frame) -> None:
        payload = frame.payload
        if len(payload) < 8:
            log.warning("sim.link.bad_hello", raw=frame.raw.hex())
            return
        major, _minor, heartbeat_ms, host_session = struct.unpack(">BBHI", payload[:8])
        if heartbeat_ms == 0:
            log.warning("sim.link.bad_hello", raw=frame.raw.hex())
            return
        self.stats.hellos += 1
        if host_session != self._host_session:  # a new host: its command ids start again
            self._host_session = host_session
            self._last_command = 0
        self.heartbeat = heartbeat_ms / 1000
        reply = struct.pack(">BBHI", self.protocol[0], self.protocol[1], heartbeat_ms, self.session_id)
        for text in (self.identity.model, self.identity.serial_number, self.identity.firmware):
            data = text.encode("ascii")
            reply += bytes((len(data),)) + data
        now = self.clock()
        self._last_rx = now
        self._send(MsgType.HELLO, reply)
        if major != self.protocol[0]:
            self.state = DeviceLinkState.WAITING_FOR_HELLO
            return
        self.state = DeviceLinkState.UP
        if self._outbox:  # the pending event is re-sent at the next poll: same id, same bytes,
            self._outbox[0].sent_at = None  # with a fresh count of retransmissions
            self._outbox[0].retransmissions = 0
            self._outbox[0].resent_at = None

    def _transmit(self, pending: _Pending, *, first: bool) -> None:
        if not pending.frame:
            payload = struct.pack(">I", pending.event_id) + pending.body
            pending.frame = self._next_frame(pending.msg_type, payload)
        pending.sent_at = self.clock()
        chunks = [pending.frame]
        injectors = self.injectors if first else []
        for injector in injectors:
            chunks = [
                out for chunk in chunks for out in injector.transmit(chunk, pending.msg_type, pending.body)
            ]
        if first:
            self.stats.events_sent += 1
        for chunk in chunks:
            self._write(chunk)
        for injector in injectors:
            injector.written()

    def _retransmit(self, pending: _Pending, why: str) -> None:
        if pending.retransmissions >= self.config.max_retransmissions:
            self._lose(f"event {pending.event_id} not acknowledged ({why})")
            return
        pending.retransmissions += 1
        pending.resent_at = self.clock()
        self.stats.retransmissions += 1
        self._transmit(pending, first=False)

    def _lose(self, why: str) -> None:
        log.info("sim.link.lost", why=why, session=self.session_id)
        self.stats.links_lost += 1
        self.state = DeviceLinkState.WAITING_FOR_HELLO
        self._decoder.clear()
        self._noise, self._nak_at = None, None
        if self._outbox:  # nothing is in flight on a lost link; the count starts afresh on HELLO
            self._outbox[0].sent_at = None
            self._outbox[0].retransmissions = 0
            self._outbox[0].resent_at = None

    def _next_frame(self, msg_type: int, payload: bytes) -> bytes:
        frame = encode_frame(self._seq, msg_type, payload)
        self._seq = (self._seq + 1) & 0xFF
        return frame

    def _send(self, msg_type: int, payload: bytes) -> None:
        self._write(self._next_frame(msg_type, payload))

    def _write(self, data: bytes) -> None:
        self.stats.frames_sent += 1
        self._last_tx = self.clock()
        self.write(data)


__all__ = ["DeviceLink", "DeviceLinkConfig", "DeviceLinkState", "SimulatedIdentity"]
