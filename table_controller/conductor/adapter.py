"""One device as the conductor sees it (an adapter; "port" is the serial port's word): its driver,
its journal, its faults, its events.

An adapter starts its driver (retrying while the device does not answer, with a ``link-lost``
fault open meanwhile), then a pump task reads every driver event: faults and link changes go
to ``TableService.device_fault`` / ``fault_cleared`` at once (play stops while any is open:
docs/round-lifecycle.md, "Faults and the link"), and every event is queued for the operation in
progress (a shuffle, a deal, a shake). Operations read that queue with ``next_event``, which gives
up when the daemon stops.

The adapter also keeps the device's health in ``TableService.device_health`` (table/device_health.py):
the link's state and the device's HELLO as the events report them, and the link itself, from
which the registry reads when the last frame came.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

import structlog

from drivers.base import (
    DeviceFault,
    Driver,
    DriverEvent,
    ErrorEvent,
    FaultCleared,
    Journal,
    LinkLost,
    LinkRestored,
    LinkUp,
)
from drivers.errors import DriverInitError, ProtocolVersionError, RefusedResentError

from .journal import DeviceJournal, DeviceRecord

if TYPE_CHECKING:
    from ..table.service import TableService

log = structlog.get_logger()
T = TypeVar("T")
DriverT = TypeVar("DriverT", bound=Driver)

LINK_LOST = "link-lost"  # the fault kind TableService uses for a lost link
PROTOCOL_VERSION = "protocol-version"  # the device answers HELLO with another major (link.md 4.1)
REPEAT_LOG_AFTER = 60.0  # seconds: the same start failure is logged again at most this often


class Stopped(Exception):
    """The daemon is stopping: the operation in progress gives up (the round stays durable)."""


async def wait_or_stop(stop: asyncio.Event, seconds: float) -> None:
    """Sleep ``seconds``; raise Stopped if the daemon stops meanwhile."""
    if stop.is_set():
        raise Stopped
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), seconds)
    if stop.is_set():
        raise Stopped


class DeviceAdapter(Generic[DriverT]):
    """A started driver (of type ``DriverT``: its device's own commands) with its journal and its pump."""

    device: str = "device"
    standing_faults: frozenset[str] = frozenset()  # fault kinds that stop play until cleared

    def __init__(
        self,
        service: TableService,
        make_driver: Callable[[Journal], DriverT],
        *,
        stop: asyncio.Event,
        known: Iterable[DeviceRecord] = (),
        retry_interval: float = 1.0,
        poll_interval: float = 0.02,
    ) -> None:
        self.service = service
        self.stop = stop
        self.journal = DeviceJournal(service, self.device, known=list(known))
        self.driver = make_driver(self.journal)
        self.journal.bind(self.driver)
        self.health = service.device_health
        self.health.attach(self.device, self.driver.link)
        self.retry_interval = retry_interval
        self.poll_interval = poll_interval
        self._inbox: asyncio.Queue[DriverEvent] = asyncio.Queue()
        self.queueing = True  # False: nobody reads the events after start (faults are still observed)
        self._pump_task: asyncio.Task[None] | None = None
        self._closing = False
        self._off_loop = OffLoop(f"{self.device}-observe")
        self._refused_in: str | None = None  # the round open when a frame was last refused

    # -- lifecycle ------------------------------------------------------------------------------

    async def start(self) -> None:
        """Connect, retrying with the link's reconnect backoff (link.md 6: doubling, capped) while
        the device does not answer or answers with another protocol major (link.md 4.1); one
        fault (one alert) stays open meanwhile, and the same failure is logged once a minute."""
        config = self.driver.link.config
        delay = self.retry_interval
        cap = max(config.backoff_max, self.retry_interval)
        loop = asyncio.get_running_loop()
        last_line: tuple[str, float] | None = None
        held = 0
        while True:
            try:
                hello = await self.driver.start()
                break
            except DriverInitError as error:
                text = str(error)
                same = str(error.args[0]) if error.args else text  # without the raw frame: its seq varies
                kind = PROTOCOL_VERSION if isinstance(error, ProtocolVersionError) else LINK_LOST
                if (
                    last_line is None
                    or last_line[0] != same
                    or loop.time() - last_line[1] >= REPEAT_LOG_AFTER
                ):
                    log.error(
                        "device.unreachable",
                        device=self.device,
                        fault=kind,
                        error=text,
                        retry_in=delay,
                        repeated=held,
                    )
                    last_line, held = (same, loop.time()), 0
                else:
                    held += 1
                self.health.link_down(self.device, text)
                self.service.device_fault(self.device, kind, text)  # opened once: one alert
                await wait_or_stop(self.stop, delay)
                delay = min(delay * config.backoff_factor, cap)
        self.health.link_up(self.device, hello)
        self.service.fault_cleared(self.device, PROTOCOL_VERSION)
        self.service.fault_cleared(self.device, LINK_LOST)
        log.info(
            "device.connected",
            device=self.device,
            model=hello.model,
            serial=hello.serial_number,
            firmware=hello.firmware,
            session=hello.session_id,
        )
        self._pump_task = asyncio.create_task(self._pump(), name=f"pump-{self.device}")

    async def close(self) -> None:
        self._closing = True
        try:
            await self.driver.stop()
            if self._pump_task is not None:
                task, self._pump_task = self._pump_task, None
                try:
                    await asyncio.wait_for(task, 5.0)
                except TimeoutError:
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
        finally:  # after the pump's last event: nothing reports the link up again
            self._off_loop.close()
            self.health.link_down(self.device, "closed by the controller")

    # -- events ---------------------------------------------------------------------------------

    async def _pump(self) -> None:
        async for event in self.driver.events():
            try:  # in a worker thread: a fault's alert is a commit, and the loop serves the API
                await self._off_loop(self.observe, event)
            except Exception:  # a failed fault write must not kill the pump; it is logged
                log.exception("device.observe_failed", device=self.device, device_event=type(event).__name__)
            if self.queueing:
                self._inbox.put_nowait(event)
        # the driver's events ended: it was stopped (close), or it stopped under us (its reader
        # thread died): then nothing watches the device any more, so play must stop
        self.health.link_down(self.device, "the driver stopped")
        if not self._closing:
            log.error("device.driver_stopped", device=self.device)
            self.service.device_fault(self.device, LINK_LOST, "the driver stopped: nothing reads the device")

    def observe(self, event: DriverEvent) -> None:
        """Faults and link changes to the table service (play stops while one is open), and link
        changes to the device-health registry."""
        service = self.service
        if isinstance(event, LinkUp):
            self.health.link_up(self.device, event.hello)
        elif isinstance(event, LinkLost):
            self.health.link_down(self.device, event.reason)
            service.device_fault(self.device, LINK_LOST, event.reason)
        elif isinstance(event, LinkRestored):
            self.health.link_up(self.device, event.hello)
            if event.device_restarted:  # a new device session: it reports its standing faults anew
                for fault in [
                    f for f in service.faults.values() if f.device == self.device and f.kind != LINK_LOST
                ]:
                    log.warning("device.restarted_fault_forgotten", device=self.device, fault=fault.kind)
                    service.fault_cleared(self.device, fault.kind)
            service.fault_cleared(self.device, LINK_LOST)
        elif isinstance(event, DeviceFault) and str(event.kind) in self.standing_faults:
            service.device_fault(self.device, str(event.kind), self.fault_detail(event))
        elif isinstance(event, FaultCleared):
            service.fault_cleared(self.device, str(event.kind))
        elif isinstance(event, ErrorEvent):
            log.error(
                "device.error", device=self.device, error=str(event.error), raw=(event.error.raw or b"").hex()
            )
            if isinstance(event.error, RefusedResentError):  # link.md 3.1: its round is voided
                service.void_for_device(self.device, str(event.error), self._refused_in)
            else:  # a frame refused: the round it came in is the one a re-send of it voids
                state = service.round
                self._refused_in = state.round_id if state is not None and not state.phase.is_final else None

    def fault_detail(self, event: DeviceFault) -> str:
        return ""

    @overload
    async def next_event(self, timeout: None = None) -> DriverEvent: ...
    @overload
    async def next_event(self, timeout: float | None) -> DriverEvent | None: ...

    async def next_event(self, timeout: float | None = None) -> DriverEvent | None:
        """The next event for the operation in progress; None after ``timeout``; Stopped on stop."""
        getter = asyncio.ensure_future(self._inbox.get())
        stopper = asyncio.ensure_future(self.stop.wait())
        try:
            done, _ = await asyncio.wait(
                {getter, stopper}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            for future in (getter, stopper):
                if not future.done():
                    future.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.gather(getter, stopper, return_exceptions=True)
        if getter in done and not getter.cancelled():
            return getter.result()
        if self.stop.is_set():
            if getter.done() and not getter.cancelled():  # an event taken at the same moment: keep it
                self._inbox.put_nowait(getter.result())
            raise Stopped
        return None

    # -- faults ---------------------------------------------------------------------------------

    def open_faults(self) -> list[str]:
        return sorted(f.kind for f in self.service.faults.values() if f.device == self.device)

    async def wait_clear(self, ignore: frozenset[str] = frozenset()) -> None:
        """Wait until this device has no open fault other than ``ignore`` (logged once)."""

        def blocking() -> list[str]:
            return [kind for kind in self.open_faults() if kind not in ignore]

        if not blocking():
            return
        log.warning("device.waiting_for_fault", device=self.device, faults=blocking())
        while blocking():
            await wait_or_stop(self.stop, self.poll_interval)
        log.info("device.faults_cleared", device=self.device)


__all__ = ["LINK_LOST", "DeviceAdapter", "OffLoop", "Stopped", "wait_or_stop"]


class OffLoop:
    """Blocking calls (commits) in a worker thread of our own, so the event loop that serves the
    API and the live stream never waits on the store. The thread ends with ``close``; context
    variables (the round id of log lines) go with each call."""

    def __init__(self, name: str) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)

    async def __call__(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        context = contextvars.copy_context()
        call = functools.partial(context.run, fn, *args, **kwargs)
        return await asyncio.get_running_loop().run_in_executor(self._executor, call)

    def close(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)
