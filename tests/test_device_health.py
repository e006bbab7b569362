"""The device-health registry (table_controller/table/device_health.py) on fake clocks: exact times."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from drivers.messages import Hello
from table_controller.table.device_health import DeviceHealth, DeviceHealthRegistry, DeviceIdentity, LinkState

START = datetime(2025, 3, 1, 20, 0, 0, tzinfo=UTC)
HELLO = Hello(1, 0, 1000, 0xCAFEF00D, "SHF-7", "A1234", "2.3.1")


class Clocks:
    """A wall clock and a monotonic clock that move together (``advance``), or apart (``step_wall``)."""

    def __init__(self) -> None:
        self.mono = 500.0
        self.wall_now = START

    def wall(self) -> datetime:
        return self.wall_now

    def monotonic(self) -> float:
        return self.mono

    def advance(self, seconds: float) -> None:
        self.mono += seconds
        self.wall_now += timedelta(seconds=seconds)


@dataclass
class Probe:
    """Stands for HostLink: the monotonic time of its last valid frame, and its loss window."""

    last_received: float | None = None
    loss_window: float = 3.0


def registry() -> tuple[DeviceHealthRegistry, Clocks]:
    clocks = Clocks()
    return DeviceHealthRegistry(wall_clock=clocks.wall, monotonic=clocks.monotonic), clocks


def test_an_unknown_device_has_never_connected_and_nothing_seen():
    health, _ = registry()
    assert health.snapshot("shuffler") == DeviceHealth(
        device="shuffler",
        link=LinkState.NEVER,
        link_since=None,
        last_seen=None,
        silent_for=None,
        stale=False,
        identity=None,
        reason=None,
    )
    assert health.devices() == []


def test_a_device_that_cannot_connect_stays_never_with_the_reason():
    health, clocks = registry()
    health.attach("shuffler", Probe())
    clocks.advance(1.0)
    health.link_down("shuffler", "no HELLO from the port")
    snap = health.snapshot("shuffler")
    assert (snap.link, snap.link_since, snap.reason, snap.last_seen) == (
        LinkState.NEVER,
        None,
        "no HELLO from the port",
        None,
    )
    assert health.devices() == ["shuffler"]


def test_link_up_records_since_and_identity_and_last_seen_is_the_last_frame_in_wall_time():
    health, clocks = registry()
    probe = Probe()
    health.attach("shuffler", probe)
    clocks.advance(2.0)  # 20:00:02
    probe.last_received = clocks.mono
    health.link_up("shuffler", HELLO)
    clocks.advance(0.25)
    probe.last_received = clocks.mono  # a heartbeat at 20:00:02.250
    clocks.advance(0.5)  # asked at 20:00:02.750
    snap = health.snapshot("shuffler")
    assert snap.link is LinkState.UP
    assert snap.link_since == START + timedelta(seconds=2)
    assert snap.last_seen == START + timedelta(seconds=2.25)
    assert snap.silent_for == 0.5
    assert snap.stale is False
    assert snap.identity == DeviceIdentity("SHF-7", "A1234", "2.3.1", "1.0", 0xCAFEF00D)
    assert snap.reason is None


def test_last_seen_is_measured_on_the_monotonic_clock_whatever_the_wall_clock_does():
    health, clocks = registry()
    probe = Probe(last_received=clocks.mono)
    health.attach("shuffler", probe)
    health.link_up("shuffler", HELLO)
    clocks.advance(1.0)
    clocks.wall_now += timedelta(hours=1)  # the wall clock is stepped (NTP, an operator)
    snap = health.snapshot("shuffler")
    assert snap.silent_for == 1.0
    assert snap.last_seen == START + timedelta(hours=1)  # one second before "now" as shown


def test_the_same_frame_shows_the_same_time_in_every_snapshot():
    health, clocks = registry()
    health.attach("shuffler", Probe(last_received=clocks.mono))
    health.link_up("shuffler", HELLO)
    assert health.snapshot("shuffler").last_seen == START
    clocks.advance(0.5)
    clocks.wall_now += timedelta(milliseconds=3)  # the two clocks read a little apart (jitter, slewing)
    snap = health.snapshot("shuffler")
    assert (snap.last_seen, snap.silent_for) == (START, 0.5)


def test_up_again_keeps_since_while_up_and_takes_the_new_identity():
    health, clocks = registry()
    health.link_up("shuffler", HELLO)
    clocks.advance(5.0)
    restarted = Hello(1, 0, 1000, 0x0BADF00D, "SHF-7", "A1234", "2.4.0")
    health.link_up("shuffler", restarted)  # the same event seen twice (start, then the pump)
    snap = health.snapshot("shuffler")
    assert snap.link_since == START
    assert snap.identity == DeviceIdentity("SHF-7", "A1234", "2.4.0", "1.0", 0x0BADF00D)


def test_down_then_up_again_moves_since_each_time_and_keeps_the_reason_while_down():
    health, clocks = registry()
    probe = Probe(last_received=clocks.mono)
    health.attach("shuffler", probe)
    health.link_up("shuffler", HELLO)
    clocks.advance(10.0)
    health.link_down("shuffler", "no frame from the device for 3.004 s")
    clocks.advance(4.0)
    health.link_down("shuffler", "no HELLO")  # reconnect attempts fail: still down since the loss
    snap = health.snapshot("shuffler")
    assert (snap.link, snap.link_since, snap.reason) == (
        LinkState.DOWN,
        START + timedelta(seconds=10),
        "no HELLO",
    )
    assert snap.last_seen == START and snap.silent_for == 14.0
    assert snap.stale is False  # stale is for a link that is up
    assert snap.identity is not None  # the last HELLO is still the best we know
    clocks.advance(1.0)
    probe.last_received = clocks.mono
    health.link_up("shuffler", HELLO)
    snap = health.snapshot("shuffler")
    assert (snap.link, snap.link_since, snap.reason, snap.last_seen) == (
        LinkState.UP,
        START + timedelta(seconds=15),
        None,
        START + timedelta(seconds=15),
    )


def test_an_up_link_silent_for_longer_than_its_loss_window_is_stale():
    health, clocks = registry()
    probe = Probe(last_received=clocks.mono, loss_window=3.0)
    health.attach("shuffler", probe)
    health.link_up("shuffler", HELLO)
    clocks.advance(3.0)
    assert health.snapshot("shuffler").stale is False  # exactly the window: not yet
    clocks.advance(0.001)
    assert health.snapshot("shuffler").stale is True
    probe.last_received = clocks.mono
    assert health.snapshot("shuffler").stale is False


def test_devices_are_listed_in_the_order_first_reported_and_kept_apart():
    health, _clocks = registry()
    health.link_up("dice-shaker", HELLO)
    health.link_down("shuffler", "no port")
    assert health.devices() == ["dice-shaker", "shuffler"]
    assert health.snapshot("dice-shaker").link is LinkState.UP
    assert health.snapshot("shuffler").link is LinkState.NEVER


def test_snapshots_from_other_threads_while_the_link_flaps():
    health, _ = registry()
    probe = Probe(last_received=0.0)
    health.attach("shuffler", probe)
    stop = threading.Event()
    seen: set[LinkState] = set()

    def reader() -> None:
        while not stop.is_set():
            seen.add(health.snapshot("shuffler").link)

    threads = [threading.Thread(target=reader) for _ in range(3)]
    for thread in threads:
        thread.start()
    for _ in range(2000):
        health.link_up("shuffler", HELLO)
        health.link_down("shuffler", "flap")
    stop.set()
    for thread in threads:
        thread.join()
    assert seen <= {LinkState.NEVER, LinkState.UP, LinkState.DOWN}
    assert health.snapshot("shuffler").link is LinkState.DOWN
