"""Delivery before acknowledgement (docs/protocols/link.md §3): a driver's journal records each
device event before the link ACKs it, and a journal failure leaves the message unacknowledged,
so the device sends it again: nothing acknowledged is ever lost, nothing is delivered twice."""

from __future__ import annotations

import threading

from drivers.link import LinkConfig
from drivers.shuffler.driver import ShufflerDriver
from drivers.shuffler.events import PileRead, Shuffled, UnusedCards
from simulators.device_link import DeviceLinkConfig
from simulators.shuffler import ShufflerSimulator

URL_PACKAGES = ("simulators.shuffler",)


class FlakyJournal:
    """Refuses the first write of pile 3 (a database hiccup), records everything else."""

    def __init__(self, simulator: ShufflerSimulator) -> None:
        self.simulator = simulator
        self.recorded: list[object] = []
        self.refused = 0
        self.unacked_when_recorded: list[bool] = []
        self.lock = threading.Lock()

    def __call__(self, event: object, raw: bytes) -> None:
        with self.lock:
            if isinstance(event, PileRead) and event.pile == 3 and not self.refused:
                self.refused += 1
                raise OSError("disk busy")
            # the device still holds the event in its outbox: no ACK has been sent for it yet
            self.unacked_when_recorded.append(self.simulator.link.unacknowledged > 0)
            self.recorded.append(event)


async def test_journal_runs_before_the_ack_and_a_failure_makes_the_device_resend():
    sim = ShufflerSimulator(seed=7, link_config=DeviceLinkConfig.fast())
    with sim:
        journal = FlakyJournal(sim)
        driver = ShufflerDriver.from_url(
            sim.url, link_config=LinkConfig.fast(), url_packages=URL_PACKAGES, journal=journal
        )
        async with driver:
            events = []
            shuffle_id = driver.shuffle(53)
            while not (
                isinstance(e := await driver.next_event(2.0), Shuffled) and e.command_id == shuffle_id
            ):
                pass
            driver.deal()
            while not isinstance(e := await driver.next_event(4.0), UnusedCards):
                events.append(e)
            events.append(e)
            piles = [e for e in events if isinstance(e, PileRead)]
            assert [p.pile for p in piles] == [1, 2, 3, 4, 5, 6, 7]  # pile 3 once, after the resend
            assert journal.refused == 1
            assert driver.link.stats.journal_failures == 1
            assert sim.runner.link.stats.retransmissions >= 1
            recorded_piles = [e for e in journal.recorded if isinstance(e, PileRead)]
            assert recorded_piles == piles  # every queued event was journalled, in the same order
            assert all(journal.unacked_when_recorded)
