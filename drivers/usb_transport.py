"""A blocking ``Transport`` over one vendor-specific USB interface with two bulk endpoints (pyusb).

The device is found by vendor and product id (and, when configured, its serial-number string),
the configuration is set, the interface claimed and the bulk OUT/IN endpoint addresses checked
against the descriptors: all from :class:`UsbConfig`, never hard-coded (dice-shaker.md 1; the dice
shaker's defaults are in docs/protocols/dice-shaker.md, "USB").

``backend`` is passed to ``usb.core.find(backend=...)``: production leaves it None (libusb),
tests pass a simulator's ``usb.backend.IBackend`` so this code runs unchanged (docs/design.md,
"Devices as configuration"). Bytes are a stream: the link's framer reassembles frames across packets, so
reads always ask for whole packets (a short buffer would overflow on a real bus) and keep
what the caller did not take.

pyusb errors become the drivers' typed errors: no device or a refused claim is a
``DriverInitError``; a transfer that fails (unplugged: ENODEV, stall: EPIPE, EIO) a
``DriverIOError``; a write that times out a ``DriverIOError`` as well, because the link treats
any failed write as a lost link (drivers/link.py).
"""

from __future__ import annotations

import errno
import math
import re
from dataclasses import dataclass
from typing import Any

import structlog
import usb.core
import usb.util

from .errors import DriverInitError, DriverIOError
from .transport import Trace, Transport

log = structlog.get_logger()


@dataclass(frozen=True, slots=True)
class UsbConfig:
    """Where the device is and how it is wired: ids, configuration, interface, endpoints.

    ``serial_number`` None takes the first device with the ids. Endpoint addresses carry the
    direction bit (OUT 0x01..0x0F, IN 0x81..0x8F).
    """

    vendor_id: int
    product_id: int
    serial_number: str | None = None
    configuration: int = 1
    interface: int = 0
    alternate_setting: int = 0
    endpoint_out: int = 0x01
    endpoint_in: int = 0x81

    def __post_init__(self) -> None:
        for name in ("vendor_id", "product_id"):
            if not 0 <= getattr(self, name) <= 0xFFFF:
                raise ValueError(f"{name} {getattr(self, name)!r} out of range 0..0xFFFF")
        if not 1 <= self.configuration <= 0xFF:
            raise ValueError(f"configuration {self.configuration!r} out of range 1..255")
        if not 0 <= self.interface <= 0xFF or not 0 <= self.alternate_setting <= 0xFF:
            raise ValueError("interface and alternate_setting must be 0..255")
        if not 0x01 <= self.endpoint_out <= 0x0F:
            raise ValueError(f"endpoint_out 0x{self.endpoint_out:02X} is not an OUT endpoint address")
        if not 0x81 <= self.endpoint_in <= 0x8F:
            raise ValueError(f"endpoint_in 0x{self.endpoint_in:02X} is not an IN endpoint address")

    @classmethod
    def parse(cls, text: str, **overrides: Any) -> UsbConfig:
        """``"vid:pid"`` or ``"vid:pid:serial"``, hexadecimal ids as lsusb prints them (``"1209:0007"``)."""
        match = re.fullmatch(r"([0-9A-Fa-f]{1,4}):([0-9A-Fa-f]{1,4})(?::(.+))?", text.strip())
        if match is None:
            raise ValueError(f"USB device {text!r}: expected vid:pid or vid:pid:serial in hexadecimal")
        return cls(int(match[1], 16), int(match[2], 16), match[3], **overrides)

    def describe(self) -> str:
        ident = f"{self.vendor_id:04x}:{self.product_id:04x}"
        return f"{ident} serial {self.serial_number!r}" if self.serial_number else ident


def _is_timeout(exc: usb.core.USBError) -> bool:
    return isinstance(exc, usb.core.USBTimeoutError) or exc.errno == errno.ETIMEDOUT


class UsbTransport(Transport):
    """The bulk endpoints of one claimed USB interface, as a byte pipe."""

    def __init__(
        self,
        config: UsbConfig,
        *,
        backend: Any = None,
        write_timeout: float = 1.0,
        trace: Trace | None = None,
    ) -> None:
        if not write_timeout > 0:
            raise ValueError(f"write_timeout must be > 0, got {write_timeout!r}")
        self.config = config
        self.backend = backend
        self.write_timeout = write_timeout
        self.trace = trace
        self._device: usb.core.Device | None = None
        self._packet_size = 64
        self._pending = bytearray()

    @property
    def is_open(self) -> bool:
        return self._device is not None

    @property
    def packet_size(self) -> int:
        """wMaxPacketSize of the bulk IN endpoint, read from the descriptor at ``open``."""
        return self._packet_size

    @property
    def serial_number(self) -> str | None:
        """The opened device's serial-number string, None when closed or when it has none."""
        if self._device is None:
            return None
        try:
            serial_number: str | None = self._device.serial_number
            return serial_number
        except (usb.core.USBError, ValueError):
            return None

    # -- open / close ------------------------------------------------------------------------

    def open(self) -> None:
        if self._device is not None:
            return
        device = self._find()
        try:
            self._configure(device)
        except DriverInitError:
            usb.util.dispose_resources(device)
            raise
        except (usb.core.USBError, NotImplementedError, ValueError) as exc:
            usb.util.dispose_resources(device)
            raise DriverInitError(f"cannot claim USB device {self.config.describe()}: {exc}") from exc
        self._device = device
        self._pending.clear()
        log.info("usb.opened", device=self.config.describe(), packet_size=self._packet_size)

    def _find(self) -> usb.core.Device:
        cfg = self.config
        wanted = cfg.serial_number

        def serial_matches(device: usb.core.Device) -> bool:
            try:
                serial_number: str | None = device.serial_number
                return serial_number == wanted
            except (usb.core.USBError, ValueError):  # no permission or no string support
                return False

        try:
            device = usb.core.find(
                backend=self.backend,
                idVendor=cfg.vendor_id,
                idProduct=cfg.product_id,
                custom_match=serial_matches if wanted is not None else None,
            )
        except usb.core.NoBackendError as exc:
            raise DriverInitError(f"no USB backend (libusb) to find {cfg.describe()}: {exc}") from exc
        except usb.core.USBError as exc:
            raise DriverInitError(f"USB enumeration failed looking for {cfg.describe()}: {exc}") from exc
        if device is None:
            hint = " (or no permission to read its serial number)" if wanted is not None else ""
            raise DriverInitError(f"no USB device {cfg.describe()}{hint}")
        return device

    def _configure(self, device: usb.core.Device) -> None:
        cfg = self.config
        try:
            if device.is_kernel_driver_active(cfg.interface):
                device.detach_kernel_driver(cfg.interface)
        except (NotImplementedError, usb.core.USBError):
            pass  # not on this platform, or no kernel driver: nothing to detach
        try:
            active = device.get_active_configuration().bConfigurationValue
        except usb.core.USBError:
            active = None  # unconfigured
        if active != cfg.configuration:
            device.set_configuration(cfg.configuration)
        configuration = device.get_active_configuration()
        interface = usb.util.find_descriptor(
            configuration, bInterfaceNumber=cfg.interface, bAlternateSetting=cfg.alternate_setting
        )
        if interface is None:
            raise DriverInitError(
                f"USB device {cfg.describe()} has no interface {cfg.interface} "
                f"alternate setting {cfg.alternate_setting} in configuration {cfg.configuration}"
            )
        endpoint_out = self._bulk_endpoint(interface, cfg.endpoint_out)
        endpoint_in = self._bulk_endpoint(interface, cfg.endpoint_in)
        usb.util.claim_interface(device, cfg.interface)
        if cfg.alternate_setting:
            device.set_interface_altsetting(cfg.interface, cfg.alternate_setting)
        self._packet_size = endpoint_in.wMaxPacketSize or 64
        log.debug(
            "usb.configured",
            device=cfg.describe(),
            out=hex(endpoint_out.bEndpointAddress),
            in_=hex(endpoint_in.bEndpointAddress),
        )

    def _bulk_endpoint(self, interface: usb.core.Interface, address: int) -> usb.core.Endpoint:
        endpoint = usb.util.find_descriptor(interface, bEndpointAddress=address)
        if endpoint is None:
            raise DriverInitError(
                f"USB device {self.config.describe()} interface {self.config.interface} "
                f"has no endpoint 0x{address:02X}"
            )
        if usb.util.endpoint_type(endpoint.bmAttributes) != usb.util.ENDPOINT_TYPE_BULK:
            raise DriverInitError(f"USB endpoint 0x{address:02X} is not a bulk endpoint")
        return endpoint

    def close(self) -> None:
        device, self._device = self._device, None
        self._pending.clear()
        if device is None:
            return
        try:
            usb.util.release_interface(device, self.config.interface)
        except usb.core.USBError as exc:  # unplugged: the interface is gone with it
            log.info("usb.release_failed", device=self.config.describe(), error=str(exc))
        usb.util.dispose_resources(device)
        log.info("usb.closed", device=self.config.describe())

    # -- I/O ---------------------------------------------------------------------------------

    def _require(self) -> usb.core.Device:
        if self._device is None:
            raise DriverIOError(f"USB device {self.config.describe()} is not open")
        return self._device

    def write(self, data: bytes) -> None:
        device = self._require()
        view = memoryview(bytes(data))
        timeout_ms = max(1, math.ceil(self.write_timeout * 1000))
        sent = 0
        try:
            while sent < len(view):
                sent += device.write(self.config.endpoint_out, view[sent:], timeout_ms)
        except usb.core.USBError as exc:
            what = "timed out" if _is_timeout(exc) else "failed"
            raise DriverIOError(
                f"USB write to {self.config.describe()} {what} after {sent} of {len(view)} bytes: {exc}",
                raw=bytes(data),
            ) from exc
        self._trace("tx", bytes(data))

    def read(self, size: int, timeout: float) -> bytes:
        device = self._require()
        if size < 1:
            raise ValueError(f"read size {size} must be at least 1")
        if not self._pending:
            packets = max(1, math.ceil(size / self._packet_size))
            timeout_ms = max(1, math.ceil(timeout * 1000))  # 0 would mean "for ever" to libusb
            try:
                chunk = device.read(self.config.endpoint_in, packets * self._packet_size, timeout_ms)
            except usb.core.USBError as exc:
                if _is_timeout(exc):
                    return b""
                raise DriverIOError(f"USB read from {self.config.describe()} failed: {exc}") from exc
            self._pending += bytes(chunk)
        data = bytes(self._pending[:size])
        del self._pending[:size]
        self._trace("rx", data)
        return data

    def __repr__(self) -> str:
        return f"UsbTransport({self.config.describe()})"
