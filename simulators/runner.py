"""The one thread that serves a simulated device: it moves bytes between a channel
(channels.py) and a ``DeviceLink`` (device_link.py) and ticks the device model; it can cut
the link for a while (fault ``link-cut``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import structlog

from .channels import DeviceChannel
from .device_link import DeviceLink

log = structlog.get_logger()


@dataclass(slots=True)
class _Cut:
    until: float


class SimulatorRunner:
    """The thread that serves one channel: host bytes into the link, model and link timers ticked.

    ``lock`` is the simulator's lock: the runner holds it while it touches the link or the
    model, and so must anything else (a test opening the shuffler's door).
    """

    def __init__(
        self,
        link: DeviceLink,
        channel: DeviceChannel,
        *,
        lock: threading.RLock,
        tick: Callable[[], None] = lambda: None,
        poll_interval: float = 0.002,
        name: str = "simulator",
    ) -> None:
        self.link = link
        self.channel = channel
        self.lock = lock
        self.tick = tick
        self.poll_interval = poll_interval
        self._stop = threading.Event()
        self._cut: _Cut | None = None
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        link.write = self._write

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout)
        self.channel.close()

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def cut(self, duration: float) -> None:
        """Pull the cable for ``duration`` seconds (the device link notices by itself)."""
        with self.lock:
            self._cut = _Cut(until=time.monotonic() + duration)
            self.channel.set_cut(True)
            log.info("sim.link.cut", duration=duration)

    def _write(self, data: bytes) -> None:
        if self._cut is None:
            self.channel.write(data)

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                data = self.channel.read(self.poll_interval)
                with self.lock:
                    if self._cut is not None and time.monotonic() >= self._cut.until:
                        self._cut = None
                        self.channel.set_cut(False)
                        log.info("sim.link.restored")
                    if data and self._cut is None:
                        self.link.receive(data)
                    if not self.channel.host_present():
                        self.link.lose()
                    self.tick()
                    self.link.poll()
        except Exception:  # a simulator bug must be loud, not a silent dead device
            log.exception("sim.runner_crashed")
            raise


__all__ = ["SimulatorRunner"]
