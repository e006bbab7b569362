"""The Driver base class and the events every driver shares (python-can habit: the receive loop once).

A driver owns one ``HostLink`` run by one reader thread; the thread turns frames into typed,
frozen events and hands them to the asyncio loop through ``call_soon_threadsafe`` into an
``asyncio.Queue``; the controller reads them with ``async for event in driver.events()``.
A driver subclass writes only its codec (``decode_message``) and its command methods.
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass
from typing import Any, ClassVar, Self

import structlog

from .errors import (
    DriverError,
    DriverInitError,
    DriverIOError,
    DriverTimeoutError,
    JournalError,
    ProtocolError,
)
from .framing import Frame
from .link import HostIdentity, HostLink, LinkConfig, LinkStats
from .messages import Hello
from .transport import Transport

log = structlog.get_logger()


# -- events -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class DriverEvent:
    """Base of every event; ``device`` is the driver's registry name (``"shuffler"``, ``"dice-shaker"``)."""

    device: str


@dataclass(frozen=True, slots=True, kw_only=True)
class LinkUp(DriverEvent):
    """The first HELLO exchange succeeded; ``hello`` names the device."""

    hello: Hello


@dataclass(frozen=True, slots=True, kw_only=True)
class LinkLost(DriverEvent):
    """The link is down (silence for a few heartbeats, I/O error, retransmissions exhausted)."""

    reason: str
    error: DriverError


@dataclass(frozen=True, slots=True, kw_only=True)
class LinkRestored(DriverEvent):
    """A reconnect succeeded; ``device_restarted`` when the device's session changed (ids restarted)."""

    hello: Hello
    device_restarted: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class CommandsDropped(DriverEvent):
    """Commands never acknowledged by a device that has since restarted: not re-sent, re-issue them."""

    command_ids: tuple[int, ...]
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ErrorEvent(DriverEvent):
    """A driver error that did not stop the link (protocol error in a frame, bad card code...)."""

    error: DriverError


@dataclass(frozen=True, slots=True, kw_only=True)
class DeviceEvent(DriverEvent):
    """Something the device reported, with the device's event id (unique within its session)."""

    event_id: int


@dataclass(frozen=True, slots=True, kw_only=True)
class DeviceFault(DeviceEvent):
    """A fault raised by the device; ``kind`` is the device's fault name (a StrEnum value)."""

    kind: str


@dataclass(frozen=True, slots=True, kw_only=True)
class FaultCleared(DeviceEvent):
    """A fault condition that has ended."""

    kind: str


@dataclass(frozen=True, slots=True, kw_only=True)
class CommandRejected(DeviceEvent):
    """The device refused a command; ``reason`` is the device's reason name."""

    command_id: int
    reason: str


_END = object()

Journal = Callable[[DriverEvent, bytes], None]
"""Called in the reader thread with each event decoded from a device message and the raw frame,
*before* the link acknowledges the message: a journal that stores the event durably makes every
acknowledged event survive a crash. A journal that raises leaves the message unacknowledged, so
the device sends it again (docs/protocols/link.md, "Delivery")."""


# -- the driver -------------------------------------------------------------------------------------


class Driver(abc.ABC):
    """One device: a transport, a link, a reader thread and an event queue.

    Use ``async with driver:`` (or ``await start()`` / ``await stop()``). ``start`` returns once
    the HELLO exchange succeeded and raises DriverInitError otherwise.
    """

    name: ClassVar[str]

    def __init__(
        self,
        transport: Transport,
        *,
        link_config: LinkConfig | None = None,
        identity: HostIdentity | None = None,
        stop_timeout: float = 5.0,
        journal: Journal | None = None,
    ) -> None:
        self.transport = transport
        self.journal = journal
        self.link = HostLink(transport, _Listener(self), config=link_config, identity=identity)
        self.stop_timeout = stop_timeout
        self._loop: asyncio.AbstractEventLoop | None = None
        self._queue: asyncio.Queue[object] | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._started: asyncio.Future[Hello] | None = None
        self._finished: asyncio.Future[None] | None = None

    # -- lifecycle ------------------------------------------------------------------------------

    async def start(self) -> Hello:
        """Open the transport, exchange HELLOs, start the reader thread; return the device's HELLO."""
        if self._thread is not None:
            raise DriverInitError(f"{self.name} driver already started")
        self._loop = asyncio.get_running_loop()
        self._queue = asyncio.Queue()
        self._started = self._loop.create_future()
        self._finished = self._loop.create_future()
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name=f"driver-{self.name}", daemon=True)
        self._thread.start()
        try:
            return await self._started
        except BaseException:
            await self._wait_finished()
            self._thread = None
            raise

    async def stop(self) -> None:
        """Stop the reader thread and close the transport; ``events()`` ends after queued events."""
        if self._thread is None:
            return
        self._stop.set()
        await self._wait_finished()
        self._thread = None

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    @property
    def hello(self) -> Hello | None:
        """The device's last HELLO."""
        return self.link.device

    @property
    def stats(self) -> LinkStats:
        return self.link.stats

    # -- events ---------------------------------------------------------------------------------

    async def events(self) -> AsyncIterator[DriverEvent]:
        """Every event, in order, until the driver stops."""
        while True:
            event = await self._require_queue().get()
            if event is _END:
                self._require_queue().put_nowait(_END)  # later readers end too
                return
            yield event  # type: ignore[misc]

    async def next_event(self, timeout: float | None = None) -> DriverEvent:
        """The next event; DriverTimeoutError after ``timeout`` seconds, DriverIOError once stopped."""
        queue = self._require_queue()
        try:
            event = await asyncio.wait_for(queue.get(), timeout)
        except TimeoutError as exc:
            raise DriverTimeoutError(f"no {self.name} event within {timeout} s") from exc
        if event is _END:
            queue.put_nowait(_END)
            raise DriverIOError(f"{self.name} driver stopped")
        return event  # type: ignore[return-value]

    # -- for subclasses -------------------------------------------------------------------------

    def send_command(self, msg_type: int, body: bytes = b"") -> int:
        """Queue a command for reliable delivery; return its command id (the message id)."""
        return self.link.send(msg_type, body)

    @abc.abstractmethod
    def decode_message(self, msg_type: int, msg_id: int, body: bytes, frame: Frame) -> Iterable[DriverEvent]:
        """The device codec: one application message to its events; ProtocolError (with raw) if bad."""

    # -- reader thread --------------------------------------------------------------------------

    def _require_queue(self) -> asyncio.Queue[object]:
        if self._queue is None:
            raise DriverInitError(f"{self.name} driver not started")
        return self._queue

    async def _wait_finished(self) -> None:
        assert self._finished is not None
        try:
            await asyncio.wait_for(asyncio.shield(self._finished), self.stop_timeout)
        except TimeoutError as exc:
            raise DriverTimeoutError(
                f"{self.name} reader thread did not stop in {self.stop_timeout} s"
            ) from exc

    def _post(self, item: object) -> None:
        loop, queue = self._loop, self._queue
        if loop is None or queue is None:
            return
        try:
            loop.call_soon_threadsafe(queue.put_nowait, item)
        except RuntimeError:  # the loop is closed: nobody is listening any more
            log.warning("driver.event_after_loop_closed", device=self.name, device_event=repr(item))

    def _settle(
        self, future: asyncio.Future[Any], result: object = None, error: BaseException | None = None
    ) -> None:
        def settle() -> None:
            if future.done():
                return
            if error is not None:
                future.set_exception(error)
            else:
                future.set_result(result)

        assert self._loop is not None
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody awaits the future
            self._loop.call_soon_threadsafe(settle)

    def _run(self) -> None:
        assert self._started is not None and self._finished is not None
        try:
            try:
                hello = self.link.connect()
            except DriverError as exc:
                held = self.link.log_throttle.allow(
                    "start", f"{type(exc).__name__}: {exc.args[0] if exc.args else ''}"
                )
                if held is not None:  # the same failure start after start: logged once a minute
                    log.error(
                        "driver.start_failed",
                        device=self.name,
                        error=str(exc),
                        raw=(exc.raw or b"").hex(),
                        repeated=held,
                    )
                self._settle(self._started, error=exc)
                return
            self.link.log_throttle.reset("start")
            self._settle(self._started, hello)
            self.link.run(self._stop)
        except BaseException as exc:  # a bug: report it, never die silently
            log.exception("driver.reader_crashed", device=self.name)
            self._settle(self._started, error=exc)
            self._post(ErrorEvent(device=self.name, error=DriverError(f"reader thread crashed: {exc!r}")))
        finally:
            self.transport.close()
            self._post(_END)
            self._settle(self._finished)

    # called by _Listener from the reader thread

    def _deliver(self, msg_type: int, msg_id: int, body: bytes, frame: Frame) -> None:
        """Decode, journal (before the link ACKs), then queue the events of one device message.

        A message the codec refuses becomes an ``ErrorEvent`` naming the frame (journalled and
        queued like any event), then the ProtocolError goes back to the link, which NAKs the
        frame REFUSED instead of acknowledging it (link.md 3)."""
        refused: ProtocolError | None = None
        try:
            events = list(self.decode_message(msg_type, msg_id, body, frame))
        except ProtocolError as exc:
            log.error("driver.protocol_error", device=self.name, error=str(exc), raw=(exc.raw or b"").hex())
            if exc.raw is None:
                exc.raw = frame.raw
            refused = exc
            events = [ErrorEvent(device=self.name, error=exc)]
        if self.journal is not None:
            try:
                for event in events:
                    self.journal(event, frame.raw)
            except Exception as exc:
                log.error(
                    "driver.journal_failed",
                    device=self.name,
                    msg_id=msg_id,
                    error=str(exc),
                    raw=frame.raw.hex(),
                )
                raise JournalError(f"journal refused message {msg_id}: {exc}", raw=frame.raw) from exc
        for event in events:
            self._post(event)
        if refused is not None:
            raise refused


class _Listener:
    """Turns the link's callbacks into events (reader thread)."""

    def __init__(self, driver: Driver) -> None:
        self._driver = driver

    def link_up(self, hello: Hello, *, restored: bool, device_restarted: bool) -> None:
        name = self._driver.name
        if restored:
            self._driver._post(LinkRestored(device=name, hello=hello, device_restarted=device_restarted))
        else:
            self._driver._post(LinkUp(device=name, hello=hello))

    def link_lost(self, error: DriverError) -> None:
        self._driver._post(LinkLost(device=self._driver.name, reason=str(error), error=error))

    def message(self, msg_type: int, msg_id: int, body: bytes, frame: Frame) -> None:
        self._driver._deliver(msg_type, msg_id, body, frame)

    def commands_dropped(self, msg_ids: tuple[int, ...], reason: str) -> None:
        self._driver._post(CommandsDropped(device=self._driver.name, command_ids=msg_ids, reason=reason))

    def link_error(self, error: DriverError) -> None:
        self._driver._post(ErrorEvent(device=self._driver.name, error=error))
