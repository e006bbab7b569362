"""Device health: is each device talking, since when, and who it says it is (docs/api.md).

The drivers only turn bytes into events (docs/design.md, "Layers"); this registry is where the conductor puts
what it learns about each device's link, and where the API reads it:

- the link's state, ``up`` / ``down`` / ``never`` (not connected since the daemon started),
  and the wall-clock time it entered that state (``since``);
- ``last_seen``: the last valid frame received from the device (heartbeats included, a frame
  with a bad CRC not), read from the link itself (``HostLink.last_received``) when asked, so
  that nothing is written per frame;
- the device's identity from its last HELLO.

Time: durations are measured on the monotonic clock (the one the link stamps its frames with),
and shown as aware UTC datetimes. The registry keeps the wall-clock time of the monotonic
clock's zero (its *epoch*) and shows ``last_seen = epoch + last_received``, so the same frame
shows the same time in every snapshot; the epoch is taken again when the wall clock has been
stepped (NTP, an operator) by more than ``CLOCK_STEP``. Both clocks are injectable for tests.

Thread-safe: the conductor's pump writes, the API's threads read ``snapshot``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Protocol

from drivers.messages import Hello

CLOCK_STEP = 1.0  # seconds: a wall clock that moved this far from the monotonic clock was stepped


class LinkState(StrEnum):
    UP = "up"
    DOWN = "down"
    NEVER = "never"  # not connected since the daemon started


class LinkProbe(Protocol):
    """What the registry reads from a device's link (``drivers.link.HostLink`` is one)."""

    @property
    def last_received(self) -> float | None: ...  # monotonic time of the last valid frame

    @property
    def loss_window(self) -> float: ...  # seconds without a valid frame before the link is lost


@dataclass(frozen=True, slots=True)
class DeviceIdentity:
    """What the device said of itself in its last HELLO."""

    model: str
    serial_number: str
    firmware: str
    protocol: str
    session_id: int

    @classmethod
    def from_hello(cls, hello: Hello) -> DeviceIdentity:
        return cls(
            hello.model,
            hello.serial_number,
            hello.firmware,
            f"{hello.protocol_major}.{hello.protocol_minor}",
            hello.session_id,
        )


@dataclass(frozen=True, slots=True)
class DeviceHealth:
    """One device's health at one moment (a snapshot: immutable)."""

    device: str
    link: LinkState
    link_since: datetime | None  # when the link entered this state; None while ``never``
    last_seen: datetime | None  # the last valid frame received; None if none since the start
    silent_for: float | None  # seconds since ``last_seen`` (monotonic), None with it
    stale: bool  # link up, but nothing received for longer than the link's loss window
    identity: DeviceIdentity | None
    reason: str | None  # why the link is down (or could not be brought up)


@dataclass(slots=True)
class _Entry:
    link: LinkState = LinkState.NEVER
    since: datetime | None = None
    identity: DeviceIdentity | None = None
    reason: str | None = None
    probe: LinkProbe | None = None


def _utc_now() -> datetime:
    return datetime.now(UTC)


class DeviceHealthRegistry:
    """Each device's link state, fed by the conductor, read by the API."""

    def __init__(
        self,
        *,
        wall_clock: Callable[[], datetime] = _utc_now,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._wall = wall_clock
        self._monotonic = monotonic
        self._lock = threading.Lock()
        self._entries: dict[str, _Entry] = {}
        self._epoch: datetime | None = None  # the wall-clock time of the monotonic clock's zero

    # -- fed by the conductor -------------------------------------------------------------------

    def attach(self, device: str, probe: LinkProbe) -> None:
        """The link to read ``last_seen`` and the loss window from (it keeps its last value once closed)."""
        with self._lock:
            self._entry(device).probe = probe

    def link_up(self, device: str, hello: Hello) -> None:
        """A HELLO exchange succeeded (first connect or reconnect); ``since`` is kept if already up."""
        now = self._wall()
        with self._lock:
            entry = self._entry(device)
            if entry.link is not LinkState.UP:
                entry.link, entry.since = LinkState.UP, now
            entry.identity = DeviceIdentity.from_hello(hello)
            entry.reason = None

    def link_down(self, device: str, reason: str) -> None:
        """The link was lost or closed; a device never connected stays ``never`` (with the reason)."""
        now = self._wall()
        with self._lock:
            entry = self._entry(device)
            if entry.link is LinkState.UP:
                entry.link, entry.since = LinkState.DOWN, now
            entry.reason = reason

    # -- read by the API ------------------------------------------------------------------------

    def devices(self) -> list[str]:
        with self._lock:
            return list(self._entries)

    def snapshot(self, device: str) -> DeviceHealth:
        """The device's health now; an unknown device is ``never`` with nothing seen."""
        with self._lock:
            entry = replace(self._entries.get(device) or _Entry())
        last_seen = silent_for = None
        stale = False
        if entry.probe is not None:
            received, window = entry.probe.last_received, entry.probe.loss_window
            if received is not None:
                mono = self._monotonic()
                silent_for = max(mono - received, 0.0)
                last_seen = self._epoch_at(mono) + timedelta(seconds=received)
                stale = entry.link is LinkState.UP and silent_for > window
        return DeviceHealth(
            device=device,
            link=entry.link,
            link_since=entry.since,
            last_seen=last_seen,
            silent_for=silent_for,
            stale=stale,
            identity=entry.identity,
            reason=entry.reason,
        )

    # -- internals ------------------------------------------------------------------------------

    def _epoch_at(self, mono: float) -> datetime:
        epoch = self._wall() - timedelta(seconds=mono)
        with self._lock:
            if self._epoch is None or abs((epoch - self._epoch).total_seconds()) > CLOCK_STEP:
                self._epoch = epoch
            return self._epoch

    def _entry(self, device: str) -> _Entry:
        entry = self._entries.get(device)
        if entry is None:
            entry = self._entries[device] = _Entry()
        return entry


__all__ = ["DeviceHealth", "DeviceHealthRegistry", "DeviceIdentity", "LinkProbe", "LinkState"]
