"""The simulated dice shaker: the mechanism model behind the device side of the link.

One :class:`DiceShakerSimulator` is one shaker. It is reached exactly as a real one is
(docs/design.md, "Devices as configuration"): over USB through :meth:`usb_backend` (a pyusb
``IBackend`` handed to the driver's configuration), or as the serial variant over a pty or a TCP
socket (:meth:`serve_pty`, :meth:`serve_socket`, the ``python -m simulators dice`` command). The
USB path owns no thread: the device's clock advances while the host waits in a bulk read. The
serial path runs one ``SimulatorRunner`` thread, stopped by :meth:`close`.

Link fault scenarios (simulators/faults.py) strike the first ROLL event: ``corrupted-frame``,
``dropped-frame``, ``duplicated-frame``, and ``link-cut`` (the cable is pulled right after
the ROLL frame is written, for ``cut_duration`` seconds; over USB the device leaves the bus,
its handles go stale, and it enumerates again when plugged back). Tests also reach the
physical world: :meth:`open_cover`, :meth:`trip_tamper`, :meth:`attendant_reset`,
:meth:`cut_link`, and :meth:`power_cycle` (a new link session, USB only).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable

import structlog

from simulators.channels import PtyChannel, SocketChannel
from simulators.device_link import DeviceLink, DeviceLinkConfig, SimulatedIdentity
from simulators.faults import DICE_SHAKER_FAULTS, LINK_FAULTS, Fault, LinkFaultInjector, parse_faults
from simulators.runner import SimulatorRunner

from .model import ROLL, DiceShakerModel, UnknownCommandError
from .usb_backend import SimulatedUsbBackend

log = structlog.get_logger()

MANUFACTURER = "Table Devices (simulated)"
PRODUCT = "DS-3 dice shaker"


class DiceShakerSimulator:
    """A simulated shaker. ``faults`` are scenario names (``"cocked-die"``, ``"link-cut"``...)."""

    def __init__(
        self,
        *,
        seed: int | None = None,
        faults: str | Iterable[str] = (),
        serial_number: str = "DS3-SIM-0001",
        firmware: str = "sim-1.0",
        link_config: DeviceLinkConfig | None = None,
        shake_duration: float = 0.0,
        cover_close_after: float = 0.05,
        tamper_reset_after: float | None = None,
        cut_duration: float = 0.3,
        first_roll_id: int = 1,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.faults: frozenset[Fault] = parse_faults(faults, DICE_SHAKER_FAULTS)
        self.identity = SimulatedIdentity(model=PRODUCT, serial_number=serial_number, firmware=firmware)
        self.manufacturer = MANUFACTURER
        self.product = PRODUCT
        self.serial_number = serial_number
        self.cut_duration = cut_duration
        self.clock = clock
        self.lock = threading.RLock()
        self.model = DiceShakerModel(
            seed=seed,
            faults=self.faults - LINK_FAULTS,
            first_roll_id=first_roll_id,
            shake_duration=shake_duration,
            cover_close_after=cover_close_after,
            tamper_reset_after=tamper_reset_after,
        )
        injectors = [
            LinkFaultInjector(fault, trigger=lambda msg_type, body: msg_type == ROLL, on_cut=self._cut)
            for fault in sorted(self.faults & LINK_FAULTS)
        ]
        self._link_config = link_config
        self.link = DeviceLink(
            self.identity,
            self._on_command,
            write=self._usb_write,
            config=link_config,
            clock=clock,
            injectors=injectors,
            resend_refused=Fault.PROTOCOL_1_0 in self.faults,
        )
        self._hellos_seen = 0
        self._runner: SimulatorRunner | None = None
        # USB state: which attachment the host sees, and the bulk IN bytes not yet read.
        self._attachment = 1
        self._unplugged_until: float | None = None
        self._usb_out = bytearray()

    # -- reaching it -------------------------------------------------------------------------

    def usb_backend(self, **options: object) -> SimulatedUsbBackend:
        """A pyusb backend with this shaker plugged in: ``usb.core.find(backend=...)`` finds it."""
        if self._runner is not None:
            raise RuntimeError("this simulator is serving its serial variant, not USB")
        return SimulatedUsbBackend(self, **options)  # type: ignore[arg-type]

    def serve_pty(self) -> str:
        """Serve the serial variant on a new pty pair; return the tty path a driver opens."""
        channel = PtyChannel()
        self._serve(channel)
        return channel.tty_path

    def serve_socket(self, host: str = "127.0.0.1", port: int = 0) -> tuple[str, int]:
        """Serve the serial variant on a listening TCP socket; return its address."""
        channel = SocketChannel(host, port)
        self._serve(channel)
        return channel.address

    def close(self) -> None:
        """Stop the serving thread, if any, and release its channel."""
        runner, self._runner = self._runner, None
        if runner is not None:
            runner.stop()

    def __enter__(self) -> DiceShakerSimulator:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _serve(self, channel) -> None:
        if self._runner is not None:
            channel.close()
            raise RuntimeError("this simulator is already serving a channel")
        self._runner = SimulatorRunner(
            self.link, channel, lock=self.lock, tick=self._tick, name="sim-dice-shaker"
        )
        self._runner.start()

    # -- the physical world, for tests -------------------------------------------------------

    def open_cover(self) -> None:
        self._act(self.model.open_cover)

    def close_cover(self) -> None:
        self._act(self.model.close_cover)

    def trip_tamper(self) -> None:
        self._act(self.model.trip_tamper)

    def attendant_reset(self) -> None:
        """The attendant's key clears a latched tamper fault."""
        self._act(self.model.attendant_reset)

    def go_deaf(self) -> None:
        """The shaker stops shaking: each SHAKE is acknowledged and then nothing comes back (no
        roll, no refusal), while its link keeps answering heartbeats."""
        with self.lock:
            self.model.deaf = True

    def hear_again(self) -> None:
        with self.lock:
            self.model.deaf = False

    def cut_link(self, duration: float | None = None) -> None:
        """Pull the cable for ``duration`` seconds (default ``cut_duration``)."""
        with self.lock:
            self._cut(duration)

    def power_cycle(self, off_for: float = 0.2) -> None:
        """Switch the shaker off for ``off_for`` seconds and on again (USB only).

        It comes back with a new link session: unacknowledged events and the host's
        unacknowledged commands are gone, a shake under way is abandoned. What a real shaker
        keeps in non-volatile memory survives: the roll counter, a latched tamper fault, the
        cover and the dice as they lie.
        """
        with self.lock:
            if self._runner is not None:
                raise RuntimeError("power_cycle is offered over USB only")
            self._cut(off_for)
            self.model.power_lost()
            self.link = DeviceLink(
                self.identity,
                self._on_command,
                write=self._usb_write,
                config=self._link_config,
                clock=self.clock,
                resend_refused=Fault.PROTOCOL_1_0 in self.faults,
            )
            self._hellos_seen = 0

    def _act(self, action: Callable[[], None]) -> None:
        with self.lock:
            action()
            self._pump()

    # -- the device's own loop ---------------------------------------------------------------

    def _on_command(self, msg_type: int, command_id: int, body: bytes) -> None:
        try:
            self.model.command(msg_type, command_id, body, self.clock())
        except UnknownCommandError as exc:  # ACKed by the link already; logged and ignored (document)
            log.warning("sim.dice.unknown_command", msg_type=msg_type, command_id=command_id, error=str(exc))
        self._pump()

    def _tick(self) -> None:
        """Called with the lock held: the model's timers, then a STATUS after every new HELLO."""
        self.model.tick(self.clock())
        self._pump()
        hellos = self.link.stats.hellos
        if hellos != self._hellos_seen and self.link.connected:
            self._hellos_seen = hellos
            self.link.send_event(*self.model.status_event())

    def _pump(self) -> None:
        for msg_type, body in self.model.take_events():
            self.link.send_event(msg_type, body)

    def _cut(self, duration: float | None = None) -> None:
        duration = self.cut_duration if duration is None else duration
        if self._runner is not None:
            self._runner.cut(duration)
            return
        self._unplugged_until = self.clock() + duration
        self._usb_out.clear()  # what sat in the endpoint's buffer is lost with the cable
        self.link.lose()  # the device sees VBUS go: the host is gone
        log.info("sim.dice.unplugged", duration=duration)

    # -- USB: the BulkFunction the backend serves ----------------------------------------------

    def attachment(self) -> int | None:
        with self.lock:
            if self._unplugged_until is not None:
                if self.clock() < self._unplugged_until:
                    return None
                self._unplugged_until = None
                self._attachment += 1  # re-enumerated: old handles are stale
                log.info("sim.dice.replugged", attachment=self._attachment)
            return self._attachment

    def receive(self, data: bytes) -> None:
        with self.lock:
            if self._unplugged_until is None:
                self.link.receive(data)
                self._tick()

    def transmit(self, max_bytes: int) -> bytes:
        with self.lock:
            self._tick()
            self.link.poll()
            data = bytes(self._usb_out[:max_bytes])
            del self._usb_out[:max_bytes]
            return data

    def _usb_write(self, data: bytes) -> None:
        if self._unplugged_until is None:
            self._usb_out += data
