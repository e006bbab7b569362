"""pyserial URL handler for ``simshuffler://``: an in-process shuffler behind a serial port object.

Found by ``serial.serial_for_url`` when ``"simulators.shuffler"`` is in
``serial.protocol_handler_packages``. Two forms:

- ``simshuffler://<name>``: attach to the running ``ShufflerSimulator`` of that name (its
  ``url``). The simulator outlives the port, as a device outlives its cable: a driver that
  reconnects finds the same device session.
- ``simshuffler://?seed=7&fault=jam&fault=door-open&jokers=1&pile_interval=0&cut=0.3&fast=1``:
  a private simulator, started when the port opens and stopped when it closes.

The port has no file descriptor: drivers read it from a thread (drivers/transport.py).
"""

from __future__ import annotations

import time
import urllib.parse
from typing import TYPE_CHECKING

from serial.serialutil import PortNotOpenError, SerialBase, SerialException

from ..channels import MemoryChannel
from ..device_link import DeviceLinkConfig
from .simulator import SCHEME, ShufflerSimulator, find_simulator

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

_OPTIONS = {"seed", "fault", "jokers", "pile_interval", "cut", "fast"}


def simulator_from_url(url: str) -> tuple[ShufflerSimulator, bool]:
    """(simulator, owned) for a ``simshuffler://`` URL; SerialException for a bad URL."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme.lower() != SCHEME:
        raise SerialException(f"expected a {SCHEME}:// URL, got {url!r}")
    if parts.netloc:
        found = find_simulator(parts.netloc)
        if found is None:
            raise SerialException(f"no running shuffler simulator named {parts.netloc!r}")
        if parts.query:
            raise SerialException(f"{url!r}: a named simulator takes no options")
        return found, False
    options = urllib.parse.parse_qs(parts.query, keep_blank_values=True, strict_parsing=bool(parts.query))
    unknown = set(options) - _OPTIONS
    if unknown:
        raise SerialException(
            f"{url!r}: unknown option(s) {', '.join(sorted(unknown))}; known: {', '.join(sorted(_OPTIONS))}"
        )
    try:
        seed = int(options["seed"][-1]) if "seed" in options else None
        faults = [name for value in options.get("fault", []) for name in value.split(",")]
        jokers = int(options.get("jokers", ["1"])[-1])
        pile_interval = float(options.get("pile_interval", ["0"])[-1])
        cut = float(options.get("cut", ["0.3"])[-1])
        fast = options.get("fast", ["0"])[-1] not in ("", "0", "false", "no")
        simulator = ShufflerSimulator(
            seed=seed,
            faults=faults,
            jokers=jokers,
            pile_interval=pile_interval,
            cut_duration=cut,
            link_config=DeviceLinkConfig.fast() if fast else None,
        )
    except ValueError as exc:
        raise SerialException(f"{url!r}: {exc}") from exc
    return simulator, True


class Serial(SerialBase):
    """The host's end of an in-memory cable to a ``ShufflerSimulator``."""

    def __init__(self, *args, **kwargs) -> None:
        self._simulator: ShufflerSimulator | None = None
        self._owned = False
        super().__init__(*args, **kwargs)

    def open(self) -> None:
        if self.is_open:
            raise SerialException("port already open")
        port = self.port
        if port is None:
            raise SerialException("port must be configured before it can be used")
        simulator, owned = simulator_from_url(port)
        channel = simulator.channel
        assert isinstance(channel, MemoryChannel)
        if owned:
            simulator.start()
        try:
            channel.attach()
        except ConnectionError as exc:
            if owned:
                simulator.stop()
            raise SerialException(f"{port}: {exc}") from exc
        self._simulator, self._owned = simulator, owned
        self.is_open = True

    def close(self) -> None:
        simulator, self._simulator = self._simulator, None
        self.is_open = False
        if simulator is not None:
            channel = simulator.channel
            assert isinstance(channel, MemoryChannel)
            channel.detach()
            if self._owned:
                simulator.stop()
        super().close()

    @property
    def simulator(self) -> ShufflerSimulator:
        if self._simulator is None:
            raise PortNotOpenError()
        return self._simulator

    def _channel(self) -> MemoryChannel:
        channel = self.simulator.channel
        assert isinstance(channel, MemoryChannel)
        return channel

    def _reconfigure_port(self, *args, **kwargs) -> None:
        """Line settings mean nothing in memory."""

    @property
    def in_waiting(self) -> int:
        try:
            return self._channel().host_waiting()
        except ConnectionError as exc:
            raise SerialException(str(exc)) from exc

    def read(self, size: int = 1) -> bytes:
        channel = self._channel()
        timeout = self.timeout
        deadline = None if timeout is None else time.monotonic() + timeout
        data = bytearray()
        try:
            while len(data) < size:
                left = None if deadline is None else max(deadline - time.monotonic(), 0.0)
                chunk = channel.host_read(size - len(data), left)
                if not chunk:
                    break
                data += chunk
        except ConnectionError as exc:
            raise SerialException(str(exc)) from exc
        return bytes(data)

    def write(self, data: ReadableBuffer, /) -> int:
        payload = bytes(data)
        try:
            self._channel().host_write(payload)
        except ConnectionError as exc:
            raise SerialException(str(exc)) from exc
        return len(payload)  # bytes written, as pyserial's own ports count them

    def reset_input_buffer(self) -> None:
        self._channel().host_clear()

    def reset_output_buffer(self) -> None:
        """Writes go straight to the device: nothing to discard."""

    @property
    def out_waiting(self) -> int:
        return 0

    def flush(self) -> None:
        """Nothing buffered."""

    def _update_break_state(self) -> None:
        pass

    def _update_rts_state(self) -> None:
        pass

    def _update_dtr_state(self) -> None:
        pass

    @property
    def cts(self) -> bool:
        return True

    @property
    def dsr(self) -> bool:
        return True

    @property
    def ri(self) -> bool:
        return False

    @property
    def cd(self) -> bool:
        return True
