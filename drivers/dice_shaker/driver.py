"""The dice shaker driver: SHAKE and STATUS_REQUEST out, typed dice events in (dice-shaker.md).

Built on ``drivers.base.Driver``: the link, the reader thread and the event queue live there;
this module adds only the codec call and the commands. The same class runs over USB
(``UsbTransport``, the production wiring) and over a serial port (``SerialTransport``, the
shaker's serial variant and its simulator over a pty or socket).

``roll()`` makes the driver a :class:`~drivers.dice_shaker.roll.RollSource`: it sends one SHAKE
and returns the ROLL that answers it, or raises :class:`ShakeFailed` when the device voids the
shake (cocked or unreadable die: re-shake) or refuses it (cover open, tamper, busy). It never
re-shakes on its own: whether and when to re-shake is the controller's call, and every attempt
stays visible in ``events()``. An answer the host cannot use (a ROLL with a die showing 7)
fails its ``roll()`` at once with a ShakeFailed whose ``answer_unusable`` is True, instead of
leaving it to wait out ``roll_timeout`` (link.md 3: the frame is NAKed REFUSED).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterable
from typing import Any, ClassVar

import structlog

from ..base import CommandsDropped, Driver, DriverEvent, ErrorEvent
from ..errors import DriverIOError, DriverTimeoutError
from ..framing import Frame
from ..transport import SerialTransport, Transport
from ..usb_transport import UsbConfig, UsbTransport
from . import codec
from .codec import DiceMsg, UnusableAnswerError
from .events import DEVICE, DiceFault, DiceRead, ShakeFailed, ShakeRefused
from .roll import DiceRoll, DiceSource

log = structlog.get_logger()

#: The shaker's documented defaults (docs/protocols/dice-shaker.md, "USB"): pid.codes test ids.
DEFAULT_USB = UsbConfig(vendor_id=0x1209, product_id=0x0007)


class DiceShakerDriver(Driver):
    """One electronic dice shaker."""

    name: ClassVar[str] = DEVICE
    source: ClassVar[DiceSource] = DiceSource.SHAKER

    def __init__(self, transport: Transport, *, roll_timeout: float = 10.0, **options: Any) -> None:
        super().__init__(transport, **options)
        if not roll_timeout > 0:
            raise ValueError(f"roll_timeout must be > 0, got {roll_timeout!r}")
        self.roll_timeout = roll_timeout
        self._pending_lock = threading.Lock()
        self._pending: dict[int, asyncio.Future[DiceRead]] = {}

    # -- construction from configuration ----------------------------------------------------

    @classmethod
    def over_usb(
        cls, config: UsbConfig = DEFAULT_USB, *, backend: Any = None, **options: Any
    ) -> DiceShakerDriver:
        """The production wiring; ``backend`` is an ``IBackend`` for ``usb.core.find`` (None: libusb)."""
        return cls(UsbTransport(config, backend=backend), **options)

    @classmethod
    def over_serial(cls, url: str, **options: Any) -> DiceShakerDriver:
        """The serial variant: any pyserial URL (``/dev/ttyUSB0``, a pty path, ``socket://host:port``)."""
        return cls(SerialTransport(url), **options)

    # -- commands ---------------------------------------------------------------------------

    def shake(self) -> int:
        """Queue a SHAKE; return its command id, which the answering event names."""
        return self.send_command(DiceMsg.SHAKE, codec.encode_shake())

    def request_status(self) -> int:
        """Queue a STATUS_REQUEST; the answering DiceStatus names the returned command id."""
        return self.send_command(DiceMsg.STATUS_REQUEST, codec.encode_status_request())

    async def roll(
        self, timeout: float | None = None, *, sent: Callable[[int], None] | None = None
    ) -> DiceRoll:
        """Shake once and return the roll; ShakeFailed, DriverTimeoutError or DriverIOError otherwise.

        ``sent(command_id)`` is called with the SHAKE's id before any answer to it can be seen,
        so the caller can tell which SHAKE a later DiceRead answers (one answered too late)."""
        self._require_queue()
        if not self.running:
            raise DriverIOError(f"{self.name} driver is not running")
        future: asyncio.Future[DiceRead] = asyncio.get_running_loop().create_future()
        with self._pending_lock:  # registered before the reader thread can see an answer
            command_id = self.shake()
            self._pending[command_id] = future
            if sent is not None:
                sent(command_id)
        wait = self.roll_timeout if timeout is None else timeout
        try:
            rolled = await asyncio.wait_for(future, wait)
        except TimeoutError as exc:
            raise DriverTimeoutError(f"no answer to SHAKE {command_id} within {wait} s") from exc
        finally:
            with self._pending_lock:
                self._pending.pop(command_id, None)
        serial = self.hello.serial_number if self.hello is not None else ""
        return DiceRoll(rolled.faces, DiceSource.SHAKER, rolled.roll_id, serial)

    # -- codec ------------------------------------------------------------------------------

    def decode_message(self, msg_type: int, msg_id: int, body: bytes, frame: Frame) -> Iterable[DriverEvent]:
        event = codec.decode(msg_type, msg_id, body, raw=frame.raw)
        if isinstance(event, DiceRead):
            log.info(
                "dice.rolled", roll_id=event.roll_id, faces=list(event.faces), command_id=event.command_id
            )
        elif isinstance(event, DiceFault | ShakeRefused):
            log.warning(
                "dice.no_roll",
                message=type(event).__name__,
                kind=getattr(event, "kind", None),
                reason=getattr(event, "reason", None),
                command_id=event.command_id,
            )
        return (event,)

    def _post(self, item: object) -> None:
        """Queue the event, then settle the ``roll()`` waiting for it (reader thread)."""
        super()._post(item)
        if isinstance(item, DiceRead):
            self._answer(item.command_id, result=item)
        elif isinstance(item, DiceFault) and item.command_id is not None:
            what = "void, re-shake" if item.needs_reshake else "void"
            self._answer(
                item.command_id,
                error=ShakeFailed(
                    f"SHAKE {item.command_id}: {item.kind} (roll {item.roll_id} {what})", event=item
                ),
            )
        elif isinstance(item, ShakeRefused):
            self._answer(
                item.command_id,
                error=ShakeFailed(f"SHAKE {item.command_id} refused: {item.reason}", event=item),
            )
        elif isinstance(item, ErrorEvent) and isinstance(item.error, UnusableAnswerError):
            command_id = item.error.command_id
            self._answer(
                command_id,
                error=ShakeFailed(
                    f"SHAKE {command_id}: its answer was refused: {item.error}",
                    event=item,
                    raw=item.error.raw,
                ),
            )
        elif isinstance(item, CommandsDropped):
            for command_id in item.command_ids:
                self._answer(
                    command_id, error=ShakeFailed(f"SHAKE {command_id} dropped: {item.reason}", event=item)
                )
        elif not isinstance(item, DriverEvent):  # the end of the event stream: the driver stopped
            with self._pending_lock:
                waiting = list(self._pending)
            for command_id in waiting:
                self._answer(command_id, error=DriverIOError(f"{self.name} driver stopped"))

    def _answer(
        self, command_id: int, *, result: DiceRead | None = None, error: BaseException | None = None
    ) -> None:
        with self._pending_lock:
            future = self._pending.get(command_id)
        if future is not None:
            self._settle(future, result, error)
