"""The link's silence clock (docs/protocols/link.md, 6): the host's own journalling is not device silence.

The journal runs in the reader thread before the ACK (delivery before acknowledgement), so
while a slow commit runs nothing is read. A commit longer than the loss window must not look
like a pulled cable; a device that really goes silent must still be declared lost.

Against the simulator: the host runs ``LinkConfig.fast()`` (loss after 3 x 50 ms = 150 ms),
the journal sleeps 0.4 s on the shuffler's SHUFFLED event. The device is given the patience
the document asks of it ("a device must expect an ACK to take as long as one durable write"):
it re-sends while it waits, and loses the host only after 2 s without a frame.
"""

from __future__ import annotations

import asyncio
import threading
import time

from drivers.base import LinkLost, LinkRestored
from drivers.errors import DriverTimeoutError
from drivers.link import LinkConfig
from drivers.shuffler.driver import ShufflerDriver
from drivers.shuffler.events import Shuffled
from simulators.channels import PtyChannel
from simulators.device_link import DeviceLinkConfig
from simulators.shuffler import ShufflerSimulator

URL_PACKAGES = ("simulators.shuffler",)
HOST = LinkConfig.fast()
LOSS_WINDOW = HOST.heartbeat_interval * HOST.loss_after_heartbeats  # 0.15 s
SLOW_COMMIT = 0.4  # longer than the loss window: the reader thread reads nothing meanwhile
PATIENT_DEVICE = DeviceLinkConfig(
    ack_timeout=0.1, max_retransmissions=30, loss_after_heartbeats=40, stale_frame_after=0.1
)


class SlowJournal:
    """Records every event; takes ``SLOW_COMMIT`` on each SHUFFLED (an fsync on a loaded disk), and
    at least until the device has re-sent it for want of an ACK (so that a copy is waiting)."""

    def __init__(self, simulator: ShufflerSimulator) -> None:
        self.simulator = simulator
        self.recorded: list[object] = []
        self.lock = threading.Lock()

    def __call__(self, event: object, raw: bytes) -> None:
        if isinstance(event, Shuffled):
            time.sleep(SLOW_COMMIT)
            deadline = time.monotonic() + 5.0
            while self.simulator.link.stats.retransmissions == 0 and time.monotonic() < deadline:
                time.sleep(0.01)
        with self.lock:
            self.recorded.append(event)


async def wait_for(driver: ShufflerDriver, wanted, timeout: float = 5.0) -> list[object]:
    """Driver events until one matches ``wanted`` (that one included)."""
    seen = []
    while True:
        event = await driver.next_event(timeout)
        seen.append(event)
        if wanted(event):
            return seen


async def drain(driver: ShufflerDriver) -> list[object]:
    """The events queued so far."""
    seen = []
    while True:
        try:
            seen.append(await driver.next_event(0.01))
        except DriverTimeoutError:
            return seen


async def test_a_journal_write_longer_than_the_loss_window_is_not_silence():
    assert SLOW_COMMIT > LOSS_WINDOW
    with ShufflerSimulator(seed=7, link_config=PATIENT_DEVICE) as sim:
        journal = SlowJournal(sim)
        driver = ShufflerDriver.from_url(
            sim.url, link_config=HOST, url_packages=URL_PACKAGES, journal=journal
        )
        async with driver:
            assert driver.link.loss_window == LOSS_WINDOW
            command_id = driver.shuffle(53)
            seen = await wait_for(driver, lambda e: isinstance(e, Shuffled) and e.command_id == command_id)
            # a few heartbeats more: the host has caught up with what the device sent meanwhile
            start = driver.stats.frames_received
            deadline = time.monotonic() + 5.0
            while driver.stats.frames_received < start + 5 and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
            seen += await drain(driver)
            stats = driver.stats
            assert stats.links_lost == 0
            assert not [e for e in seen if isinstance(e, LinkLost | LinkRestored)]
            shuffled = [e for e in journal.recorded if isinstance(e, Shuffled)]
            assert [e.command_id for e in shuffled] == [command_id]  # journalled exactly once
            assert stats.duplicates_dropped >= 1  # the device re-sent it while the host was committing
            assert sim.link.unacknowledged == 0  # and it was acknowledged
            assert sim.link.stats.links_lost == 0


async def test_true_silence_is_still_detected():
    # a real pty: a cut cable is silence on a port that stays open (the in-memory port would
    # fail the host's next write instead, a loss of another kind)
    with ShufflerSimulator(seed=7, link_config=PATIENT_DEVICE, channel=PtyChannel()) as sim:
        driver = ShufflerDriver.from_url(sim.tty_path, link_config=HOST, journal=SlowJournal(sim))
        async with driver:
            command_id = driver.shuffle(53)
            await wait_for(driver, lambda e: isinstance(e, Shuffled) and e.command_id == command_id)
            sim.cut_link(1.0)  # the device hears and says nothing for a second
            seen = await wait_for(driver, lambda e: isinstance(e, LinkLost), timeout=5.0)
            assert isinstance(seen[-1].error, DriverTimeoutError)
            silent = float(seen[-1].reason.removeprefix("no frame from the device for ").removesuffix(" s"))
            assert silent >= round(LOSS_WINDOW, 3)  # the reason gives it to the millisecond
            assert driver.stats.links_lost == 1
            await wait_for(driver, lambda e: isinstance(e, LinkRestored), timeout=5.0)


async def test_the_device_does_not_take_the_hosts_commit_for_silence_either():
    """A device with the standard rule (lost after 3 heartbeat periods without a frame: 150 ms
    here) and no extra patience: while the reader thread is inside the 0.4 s journal write, the
    keep-alive thread sends the heartbeats, so neither side loses the link."""
    standard = DeviceLinkConfig()
    assert HOST.heartbeat_interval * standard.loss_after_heartbeats < SLOW_COMMIT
    with ShufflerSimulator(seed=7, link_config=standard) as sim:
        journal = SlowJournal(sim)
        driver = ShufflerDriver.from_url(
            sim.url, link_config=HOST, url_packages=URL_PACKAGES, journal=journal
        )
        async with driver:
            command_id = driver.shuffle(53)
            seen = await wait_for(driver, lambda e: isinstance(e, Shuffled) and e.command_id == command_id)
            seen += await drain(driver)
            assert not [e for e in seen if isinstance(e, LinkLost | LinkRestored)]
            assert sim.link.stats.links_lost == 0 and driver.stats.links_lost == 0
            assert [e.command_id for e in journal.recorded if isinstance(e, Shuffled)] == [command_id]
            assert sim.link.unacknowledged == 0
