"""Blocking byte transports, used only from a driver's reader thread.

``SerialTransport`` opens any pyserial URL with ``serial.serial_for_url``: ``/dev/ttyUSB0``,
``socket://host:port``, ``rfc2217://...``, ``spy://...`` and an in-process simulator scheme
(``simshuffler://``, found through ``url_packages``) all work (docs/design.md, "Devices as configuration").
In-memory ports have no file descriptor, so reads are plain blocking reads with a timeout,
never fd polling.

A trace hook (pymodbus habit) sees every chunk read and written: ``trace(direction, data)``
with direction ``"rx"`` or ``"tx"``.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Sequence
from typing import TypedDict, Unpack

import serial
import structlog

from .errors import DriverInitError, DriverIOError

log = structlog.get_logger()

Trace = Callable[[str, bytes], None]


class SerialOptions(TypedDict, total=False):
    """The further keyword settings ``serial.serial_for_url`` takes (baudrate and timeout aside)."""

    bytesize: int
    parity: str
    stopbits: float
    xonxoff: bool
    rtscts: bool
    write_timeout: float | None
    dsrdtr: bool
    inter_byte_timeout: float | None
    exclusive: float | None
    do_not_open: bool


class Transport(abc.ABC):
    """A blocking byte pipe to one device."""

    trace: Trace | None = None

    @property
    @abc.abstractmethod
    def is_open(self) -> bool:
        """True between a successful ``open`` and ``close``."""

    @abc.abstractmethod
    def open(self) -> None:
        """Open the pipe; DriverInitError when it cannot be opened."""

    @abc.abstractmethod
    def close(self) -> None:
        """Close the pipe; safe to call twice."""

    @abc.abstractmethod
    def write(self, data: bytes) -> None:
        """Write all of ``data``; DriverIOError on failure."""

    @abc.abstractmethod
    def read(self, size: int, timeout: float) -> bytes:
        """Up to ``size`` bytes, returning as soon as any arrive; ``b""`` on timeout.

        DriverIOError when the link is gone.
        """

    def _trace(self, direction: str, data: bytes) -> None:
        if self.trace is not None and data:
            self.trace(direction, data)


class SerialTransport(Transport):
    """A pyserial port opened with ``serial_for_url(url, **options)``.

    ``url_packages`` are added to ``serial.protocol_handler_packages`` for the lookup of a
    scheme of our own (configuration, not an import: drivers never import simulators).
    """

    def __init__(
        self,
        url: str,
        *,
        baudrate: int = 115200,
        url_packages: Sequence[str] = (),
        trace: Trace | None = None,
        **options: Unpack[SerialOptions],
    ) -> None:
        self.url = url
        self.baudrate = baudrate
        self.url_packages = tuple(url_packages)
        self.options = options
        self.trace = trace
        self._port: serial.Serial | None = None
        self._timeout: float | None = None

    @property
    def is_open(self) -> bool:
        return self._port is not None and self._port.is_open

    def open(self) -> None:
        if self.is_open:
            return
        for package in self.url_packages:
            if package not in serial.protocol_handler_packages:
                serial.protocol_handler_packages.append(package)
        try:
            port = serial.serial_for_url(self.url, baudrate=self.baudrate, timeout=0.05, **self.options)
        except (serial.SerialException, OSError, ValueError) as exc:
            raise DriverInitError(f"cannot open {self.url}: {exc}") from exc
        self._port = port
        self._timeout = 0.05

    def close(self) -> None:
        port, self._port = self._port, None
        if port is not None:
            try:
                port.close()
            except (serial.SerialException, OSError) as exc:  # closing a dead port
                log.warning("transport.close_failed", url=self.url, error=str(exc))

    def _require(self) -> serial.Serial:
        if self._port is None or not self._port.is_open:
            raise DriverIOError(f"{self.url} is not open")
        return self._port

    def write(self, data: bytes) -> None:
        port = self._require()
        try:
            port.write(data)
        except (serial.SerialException, OSError, TypeError, AttributeError) as exc:
            raise DriverIOError(f"write to {self.url} failed: {exc}", raw=data) from exc
        self._trace("tx", data)

    def read(self, size: int, timeout: float) -> bytes:
        port = self._require()
        try:
            if timeout != self._timeout:
                port.timeout = timeout
                self._timeout = timeout
            waiting = port.in_waiting
            data = port.read(min(size, waiting or 1))
            if data:
                more = port.in_waiting
                if more and len(data) < size:
                    data += port.read(min(size - len(data), more))
        except (serial.SerialException, OSError, TypeError, AttributeError) as exc:
            # pyserial raises TypeError/AttributeError from a port closed under its feet
            raise DriverIOError(f"read from {self.url} failed: {exc}") from exc
        self._trace("rx", data)
        return bytes(data)

    def __repr__(self) -> str:
        return f"SerialTransport({self.url!r})"
