"""A pyusb backend (``usb.backend.IBackend``) that plugs the simulated dice shaker in.

Pass it to the driver's configuration (``UsbTransport(..., backend=backend)``): pyusb's own
``usb.core.find``, ``Device``, ``Configuration`` and ``Endpoint`` classes then read the
simulated descriptors and move bytes through the simulated bulk endpoints, so the real
driver code runs unchanged (docs/design.md, "Devices as configuration").

Errors are raised the way pyusb's libusb1 backend raises them (``USBError(strerror,
libusb error code, errno)``, ``USBTimeoutError`` on a timed-out transfer), so the driver's
error mapping is exercised exactly as against a real device: an unplugged cable is
``ENODEV``, a stalled request ``EPIPE``, an interface another handle holds ``EBUSY``.

The backend owns no thread: the device's timers advance while the host waits in a bulk
read (the driver's reader thread is always in one), so nothing is left running when a
test ends.
"""

from __future__ import annotations

import array
import errno
import threading
import time
from dataclasses import dataclass
from typing import Protocol

import usb.backend
import usb.core

from simulators.dice_shaker import usb_descriptors as d

# libusb error codes (libusb.h), as pyusb's libusb1 backend reports them.
LIBUSB_ERROR_IO = -1
LIBUSB_ERROR_INVALID_PARAM = -2
LIBUSB_ERROR_NO_DEVICE = -4
LIBUSB_ERROR_NOT_FOUND = -5
LIBUSB_ERROR_BUSY = -6
LIBUSB_ERROR_TIMEOUT = -7
LIBUSB_ERROR_OVERFLOW = -8
LIBUSB_ERROR_PIPE = -9

_ERRORS = {
    LIBUSB_ERROR_IO: ("Input/Output Error", errno.EIO),
    LIBUSB_ERROR_INVALID_PARAM: ("Invalid parameter", errno.EINVAL),
    LIBUSB_ERROR_NO_DEVICE: ("No such device (it may have been disconnected)", errno.ENODEV),
    LIBUSB_ERROR_NOT_FOUND: ("Entity not found", errno.ENOENT),
    LIBUSB_ERROR_BUSY: ("Resource busy", errno.EBUSY),
    LIBUSB_ERROR_TIMEOUT: ("Operation timed out", errno.ETIMEDOUT),
    LIBUSB_ERROR_OVERFLOW: ("Overflow", errno.EOVERFLOW),
    LIBUSB_ERROR_PIPE: ("Pipe error", errno.EPIPE),
}


def usb_error(code: int) -> usb.core.USBError:
    """The exception pyusb's libusb1 backend raises for ``code``."""
    text, err = _ERRORS[code]
    cls = usb.core.USBTimeoutError if code == LIBUSB_ERROR_TIMEOUT else usb.core.USBError
    return cls(text, code, err)


class BulkFunction(Protocol):
    """What the backend needs from the simulated device behind the bulk endpoints."""

    manufacturer: str
    product: str
    serial_number: str

    def attachment(self) -> int | None:
        """None while unplugged; otherwise a number that changes at every re-plug."""

    def receive(self, data: bytes) -> None:
        """Bytes the host wrote to the bulk OUT endpoint."""

    def transmit(self, max_bytes: int) -> bytes:
        """Up to ``max_bytes`` the device has queued for the bulk IN endpoint (may be empty).

        Also advances the device's timers (heartbeats, retransmissions, scenarios).
        """


@dataclass(frozen=True, slots=True)
class _DeviceId:
    """What ``enumerate_devices`` yields: the device as plugged in at one attachment."""

    attachment: int


@dataclass(eq=False, slots=True)
class _Handle:
    attachment: int
    claimed: bool = False
    closed: bool = False


class SimulatedUsbBackend(usb.backend.IBackend):
    """One simulated USB device on bus 1, served from a :class:`BulkFunction`."""

    def __init__(self, function: BulkFunction, *, bus: int = 1, address: int = 7, tick: float = 0.002):
        super().__init__()
        self._function = function
        self._bus = bus
        self._address = address
        self._tick = tick
        self._lock = threading.Lock()
        self._claimed_by: _Handle | None = None
        self._configuration = 0  # the device's, shared by every handle; 0 = unconfigured
        self._configured_at = 0  # the attachment it was set in (a re-plugged device is unconfigured)
        self._in_fifo = bytearray()
        self.open_handles = 0

    # -- enumeration and descriptors ---------------------------------------------------------

    def enumerate_devices(self):
        attachment = self._function.attachment()
        return [] if attachment is None else [_DeviceId(attachment)]

    def get_parent(self, dev):
        return None

    def get_device_descriptor(self, dev):
        return d.DeviceDescriptor(d.VENDOR_ID, d.PRODUCT_ID, self._bus, self._address)

    def get_configuration_descriptor(self, dev, config):
        if config != 0:
            raise IndexError(f"configuration index {config}")
        return d.CONFIGURATION

    def get_interface_descriptor(self, dev, intf, alt, config):
        if (intf, alt, config) != (0, 0, 0):
            raise IndexError(f"interface index {intf}, alternate {alt}")
        return d.INTERFACE

    def get_endpoint_descriptor(self, dev, ep, intf, alt, config):
        if (intf, alt, config) != (0, 0, 0) or not 0 <= ep < len(d.ENDPOINTS):
            raise IndexError(f"endpoint index {ep}")
        return d.ENDPOINTS[ep]

    # -- handles, configuration, interface ---------------------------------------------------

    def open_device(self, dev):
        with self._lock:
            if self._function.attachment() != dev.attachment:
                raise usb_error(LIBUSB_ERROR_NO_DEVICE)
            self.open_handles += 1
            return _Handle(dev.attachment)

    def close_device(self, dev_handle):
        with self._lock:
            if not dev_handle.closed:
                dev_handle.closed = True
                self.open_handles -= 1
            if self._claimed_by is dev_handle:
                self._claimed_by = None

    def set_configuration(self, dev_handle, config_value):
        with self._lock:
            self._check(dev_handle)
            if config_value not in (0, d.CONFIGURATION_VALUE):
                raise usb_error(LIBUSB_ERROR_NOT_FOUND)
            if self._claimed_by is not None and self._claimed_by is not dev_handle:
                raise usb_error(LIBUSB_ERROR_BUSY)
            self._configuration = config_value
            self._configured_at = dev_handle.attachment

    def get_configuration(self, dev_handle):
        with self._lock:
            self._check(dev_handle)
            return self._current_configuration(dev_handle)

    def _current_configuration(self, dev_handle: _Handle) -> int:
        return self._configuration if self._configured_at == dev_handle.attachment else 0

    def set_interface_altsetting(self, dev_handle, intf, altsetting):
        with self._lock:
            self._check(dev_handle)
            if (intf, altsetting) != (d.INTERFACE_NUMBER, 0):
                raise usb_error(LIBUSB_ERROR_NOT_FOUND)

    def claim_interface(self, dev_handle, intf):
        with self._lock:
            self._check(dev_handle)
            if self._current_configuration(dev_handle) != d.CONFIGURATION_VALUE or intf != d.INTERFACE_NUMBER:
                raise usb_error(LIBUSB_ERROR_NOT_FOUND)
            if self._claimed_by is not None and self._claimed_by is not dev_handle:
                raise usb_error(LIBUSB_ERROR_BUSY)
            self._claimed_by = dev_handle
            dev_handle.claimed = True

    def release_interface(self, dev_handle, intf):
        with self._lock:
            if intf != d.INTERFACE_NUMBER or not dev_handle.claimed:
                raise usb_error(LIBUSB_ERROR_NOT_FOUND)
            dev_handle.claimed = False
            if self._claimed_by is dev_handle:
                self._claimed_by = None
            self._check(dev_handle)

    def is_kernel_driver_active(self, dev_handle, intf):
        return False

    def detach_kernel_driver(self, dev_handle, intf):
        raise usb_error(LIBUSB_ERROR_NOT_FOUND)

    def attach_kernel_driver(self, dev_handle, intf):
        raise usb_error(LIBUSB_ERROR_NOT_FOUND)

    def clear_halt(self, dev_handle, ep):
        with self._lock:
            self._check(dev_handle)

    def reset_device(self, dev_handle):
        with self._lock:
            self._check(dev_handle)
            self._in_fifo.clear()

    # -- transfers ---------------------------------------------------------------------------

    def ctrl_transfer(self, dev_handle, bmRequestType, bRequest, wValue, wIndex, data, timeout):
        """Standard GET_DESCRIPTOR for strings; every other request stalls (EPIPE)."""
        with self._lock:
            self._check(dev_handle)
        if (bmRequestType, bRequest) != (0x80, 0x06) or wValue >> 8 != d.DESC_TYPE_STRING:
            raise usb_error(LIBUSB_ERROR_PIPE)
        index = wValue & 0xFF
        strings = {
            d.STRING_MANUFACTURER: self._function.manufacturer,
            d.STRING_PRODUCT: self._function.product,
            d.STRING_SERIAL: self._function.serial_number,
            d.STRING_INTERFACE: "Dice shaker link",
        }
        if index == 0:
            reply = d.langid_descriptor()
        elif index in strings and wIndex == d.LANGID_EN_US:
            reply = d.string_descriptor(strings[index])
        else:
            raise usb_error(LIBUSB_ERROR_PIPE)
        count = min(len(data), len(reply))
        data[:count] = array.array("B", reply[:count])
        return count

    def bulk_write(self, dev_handle, ep, intf, data, timeout):
        with self._lock:
            self._check_transfer(dev_handle, ep, intf, d.ENDPOINT_OUT)
        self._function.receive(bytes(data))
        return len(data)

    def bulk_read(self, dev_handle, ep, intf, buff, timeout):
        """Wait up to ``timeout`` ms (0: for ever, as libusb) for bytes on bulk IN.

        A buffer that is not a whole number of packets overflows when the device has more
        to send than fits, as on a real bus: the transport must read whole packets.
        """
        deadline = None if timeout == 0 else time.monotonic() + timeout / 1000
        size = len(buff)
        while True:
            with self._lock:
                self._check_transfer(dev_handle, ep, intf, d.ENDPOINT_IN)
                wanted = max(0, size + d.MAX_PACKET_SIZE - len(self._in_fifo))
                self._in_fifo += self._function.transmit(wanted)
                if self._in_fifo:
                    if size % d.MAX_PACKET_SIZE and len(self._in_fifo) > size:
                        del self._in_fifo[:size]
                        raise usb_error(LIBUSB_ERROR_OVERFLOW)
                    count = min(size, len(self._in_fifo))
                    buff[:count] = array.array("B", self._in_fifo[:count])
                    del self._in_fifo[:count]
                    return count
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                raise usb_error(LIBUSB_ERROR_TIMEOUT)
            time.sleep(self._tick if deadline is None else min(self._tick, deadline - now))

    # -- checks ------------------------------------------------------------------------------

    def _check(self, dev_handle: _Handle) -> None:
        if dev_handle.closed:
            raise usb_error(LIBUSB_ERROR_INVALID_PARAM)
        if self._function.attachment() != dev_handle.attachment:
            self._in_fifo.clear()
            raise usb_error(LIBUSB_ERROR_NO_DEVICE)

    def _check_transfer(self, dev_handle: _Handle, ep: int, intf: int, expected_ep: int) -> None:
        self._check(dev_handle)
        if ep != expected_ep or intf != d.INTERFACE_NUMBER:
            raise usb_error(LIBUSB_ERROR_NOT_FOUND)
        if not dev_handle.claimed:
            raise usb_error(LIBUSB_ERROR_IO)
