"""The shuffler driver suite (docs/protocols/shuffler.md): one suite, run against

- the in-process simulator (``simshuffler://<name>``, pyserial URL handler),
- the simulator serving the master end of a real pty (``os.openpty()``) in a thread,
- the simulator as a process, ``python -m simulators shuffler --pty``,
- a real shuffler: ``-m hardware`` with ``TABLE_SHUFFLER_PORT`` naming its port (skipped if unset).

Expected deals are worked out from the documented deal order (docs/protocols/shuffler.md,
section 4: pile 1 = cards 1-7 of the shuffled deck ...) and the seeded shuffle.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import random
import select
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from drivers.base import CommandRejected, DriverEvent, LinkUp
from drivers.link import LinkConfig
from drivers.shuffler.driver import ShufflerDriver
from drivers.shuffler.events import (
    DealAborted,
    DeckChecked,
    PileRead,
    RejectReason,
    Shuffled,
    ShufflerState,
    ShufflerStatus,
    UnusedCards,
)
from simulators.channels import PtyChannel
from simulators.device_link import DeviceLinkConfig
from simulators.shuffler import ShufflerSimulator

HARDWARE_ENV = "TABLE_SHUFFLER_PORT"
URL_PACKAGES = ("simulators.shuffler",)
REPO = Path(__file__).resolve().parents[2]
SEED = 7
EVENT_TIMEOUT = 2.0

RANKS = "23456789TJQKA"
SUITS = "shdc"


def documented_deck(jokers: int = 1) -> list[str]:
    return [rank + suit for rank in RANKS for suit in SUITS] + ["JK"] * jokers


def expected_deal(seed: int, jokers: int = 1) -> tuple[list[list[str]], list[str]]:
    """Seeded shuffle of the documented deck, dealt as the document says."""
    order = documented_deck(jokers)
    random.Random(seed).shuffle(order)
    return [order[7 * i : 7 * i + 7] for i in range(7)], order[49:]


@dataclass
class Rig:
    """A started driver and, unless on hardware, the simulator behind it."""

    driver: ShufflerDriver
    simulator: ShufflerSimulator | None
    kind: str

    @property
    def seeded(self) -> bool:
        return self.kind != "hardware"

    async def next(self, timeout: float = EVENT_TIMEOUT) -> DriverEvent:
        return await self.driver.next_event(timeout)

    async def collect(
        self, until: Callable[[DriverEvent], bool], timeout: float = EVENT_TIMEOUT, limit: int = 200
    ) -> list[DriverEvent]:
        """Events up to and including the first for which ``until`` holds."""
        events = []
        while len(events) < limit:
            event = await self.next(timeout)
            events.append(event)
            if until(event):
                return events
        raise AssertionError(f"no final event in {events}")

    async def deal(self, deck_size: int = 53) -> tuple[int, list[DriverEvent]]:
        shuffle_id = self.driver.shuffle(deck_size)
        shuffled = await self.collect(lambda e: getattr(e, "command_id", None) == shuffle_id)
        assert isinstance(shuffled[-1], Shuffled), shuffled
        deal_id = self.driver.deal()
        return deal_id, await self.collect(
            lambda e: isinstance(e, (UnusedCards, CommandRejected, DealAborted)), timeout=EVENT_TIMEOUT * 4
        )


def link_config() -> LinkConfig:
    return LinkConfig.fast()


def simulator(channel=None, **options) -> ShufflerSimulator:
    options.setdefault("seed", SEED)
    return ShufflerSimulator(link_config=DeviceLinkConfig.fast(), channel=channel, **options)


@asynccontextmanager
async def rig(kind: str, **sim_options) -> AsyncIterator[Rig]:
    """Start a driver on ``kind`` (memory, pty, process, hardware); stop everything afterwards."""
    if kind == "hardware":
        port = os.environ.get(HARDWARE_ENV)
        if not port:
            pytest.skip(f"set {HARDWARE_ENV} to the real shuffler's port")
        driver = ShufflerDriver.from_url(port)  # production timings on real hardware
        async with driver:
            yield Rig(driver, None, kind)
        return
    if kind == "process":
        async with process_rig(**sim_options) as result:
            yield result
        return
    sim = simulator(PtyChannel() if kind == "pty" else None, **sim_options)
    with sim:
        url = sim.tty_path if kind == "pty" else sim.url
        driver = ShufflerDriver.from_url(url, link_config=link_config(), url_packages=URL_PACKAGES)
        async with driver:
            yield Rig(driver, sim, kind)


@asynccontextmanager
async def process_rig(
    *, seed: int = SEED, faults=(), cut_duration: float = 0.3, **ignored
) -> AsyncIterator[Rig]:
    """``python -m simulators shuffler --pty`` in a subprocess; the driver opens the printed tty path."""
    args = [
        sys.executable,
        "-m",
        "simulators",
        "shuffler",
        "--pty",
        "--seed",
        str(seed),
        "--fast",
        "--pile-interval",
        "0",
        "--cut",
        str(cut_duration),
    ]
    for fault in faults:
        args += ["--fault", fault]
    process = subprocess.Popen(args, cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        ready, _, _ = select.select([process.stdout], [], [], 10)  # blocking the loop here is harmless
        assert ready, "the simulator printed no tty path"
        path = process.stdout.readline()
        assert path.startswith("/dev/"), path
        driver = ShufflerDriver.from_url(path.strip(), link_config=link_config())
        async with driver:
            yield Rig(driver, None, "process")
    finally:
        process.terminate()
        process.wait(5)
        process.stdin.close()
        process.stdout.close()


TRANSPORTS = [
    "memory",
    "pty",
    pytest.param("process", marks=pytest.mark.slow),
    pytest.param("hardware", marks=pytest.mark.hardware),
]
SIMULATED = ["memory", "pty"]


# -- the suite --------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", TRANSPORTS)
async def test_hello_names_the_device(kind):
    async with rig(kind) as r:
        first = await r.next()
        assert isinstance(first, LinkUp)
        assert first.hello == r.driver.hello
        assert first.hello.protocol_major == 1
        if r.seeded:
            assert (first.hello.model, first.hello.serial_number, first.hello.firmware) == (
                "SIM-SHUFFLER",
                "SIM0001",
                "1.0.0",
            )


@pytest.mark.parametrize("kind", TRANSPORTS)
async def test_deal_reports_seven_piles_of_seven_in_order_then_the_unused_cards(kind):
    async with rig(kind) as r:
        await r.next()
        deal_id, events = await r.deal(53)
        piles = [e for e in events if isinstance(e, PileRead)]
        unused = events[-1]
        assert [p.pile for p in piles] == [1, 2, 3, 4, 5, 6, 7]
        assert all(p.command_id == deal_id and len(p.cards) == 7 for p in piles)
        assert isinstance(unused, UnusedCards) and unused.command_id == deal_id and len(unused.cards) == 4
        seen = [card for p in piles for card in p.cards] + list(unused.cards)
        assert sorted(seen) == sorted(documented_deck(1))  # 53 cards, each exactly once
        ids = [e.event_id for e in events]
        assert ids == sorted(set(ids))  # no event twice, in order
        if r.seeded:
            expected_piles, expected_unused = expected_deal(SEED)
            assert [list(p.cards) for p in piles] == expected_piles
            assert list(unused.cards) == expected_unused


@pytest.mark.parametrize("kind", TRANSPORTS)
async def test_status_request_is_answered(kind):
    async with rig(kind) as r:
        await r.next()
        command = r.driver.request_status()
        status = await r.next()
        assert isinstance(status, ShufflerStatus) and status.command_id == command
        if r.seeded:
            assert status == ShufflerStatus(
                device="shuffler",
                event_id=status.event_id,
                command_id=command,
                state=ShufflerState.IDLE,
                faults=frozenset(),
                cards=53,
            )


@pytest.mark.parametrize("kind", TRANSPORTS)
async def test_deck_check_of_a_complete_deck(kind):
    async with rig(kind) as r:
        await r.next()
        command = r.driver.check_deck(53)
        checked = await r.next()
        assert isinstance(checked, DeckChecked) and checked.command_id == command
        assert checked.complete and checked.missing == () and checked.duplicated == ()


@pytest.mark.parametrize("kind", TRANSPORTS)
async def test_deal_without_a_shuffle_is_rejected(kind):
    async with rig(kind) as r:
        await r.next()
        command = r.driver.deal()
        rejected = await r.next()
        assert rejected == CommandRejected(
            device="shuffler",
            event_id=rejected.event_id,
            command_id=command,
            reason=RejectReason.NOT_SHUFFLED,
        )


@pytest.mark.parametrize("kind", SIMULATED)
async def test_double_joker_deck_leaves_five_unused_cards(kind):
    """54 cards: seven piles of seven and five unused (003_4dcc2fceebc6e4af.txt)."""
    async with rig(kind, jokers=2) as r:
        await r.next()
        _, events = await r.deal(54)
        unused = events[-1]
        assert isinstance(unused, UnusedCards) and len(unused.cards) == 5
        seen = [card for e in events if isinstance(e, PileRead) for card in e.cards] + list(unused.cards)
        assert sorted(seen) == sorted(documented_deck(2))
        _expected_piles, expected_unused = expected_deal(SEED, jokers=2)
        assert list(unused.cards) == expected_unused


@pytest.mark.parametrize("kind", SIMULATED)
async def test_two_deals_in_a_row_reuse_the_deck(kind):
    async with rig(kind) as r:
        await r.next()
        _, first = await r.deal()
        _, second = await r.deal()
        for events in (first, second):
            assert [type(e).__name__ for e in events].count("PileRead") == 7
        assert r.driver.stats.duplicates_dropped == 0


async def test_events_are_frozen():
    async with rig("memory") as r:
        event = await r.next()
        with pytest.raises(dataclasses.FrozenInstanceError):
            event.device = "other"  # type: ignore[misc]


async def test_events_iteration_ends_when_the_driver_stops():
    sim = simulator()
    with sim:
        driver = ShufflerDriver.from_url(sim.url, link_config=link_config(), url_packages=URL_PACKAGES)
        await driver.start()
        driver.request_status()

        async def read_all():
            return [event async for event in driver.events()]

        reader = asyncio.create_task(read_all())
        await asyncio.sleep(0.2)
        await driver.stop()
        events = await asyncio.wait_for(reader, 2)
        assert [type(e).__name__ for e in events] == ["LinkUp", "ShufflerStatus"]
        assert not driver.running


async def test_next_event_times_out_with_a_typed_error_and_start_twice_is_refused():
    from drivers.errors import DriverInitError, DriverTimeoutError

    async with rig("memory") as r:
        await r.next()
        with pytest.raises(DriverTimeoutError):
            await r.driver.next_event(0.05)
        with pytest.raises(DriverInitError, match="already started"):
            await r.driver.start()


async def test_trace_hook_sees_every_raw_frame():
    """pymodbus habit: a trace on the transport records the raw bytes both ways (surveillance)."""
    seen: list[tuple[str, bytes]] = []
    with simulator() as sim:
        driver = ShufflerDriver.from_url(
            sim.url,
            link_config=link_config(),
            url_packages=URL_PACKAGES,
            trace=lambda direction, data: seen.append((direction, data)),
        )
        async with driver:
            await driver.next_event(2)
            driver.request_status()
            status = await driver.next_event(2)
    received = b"".join(data for direction, data in seen if direction == "rx")
    sent = b"".join(data for direction, data in seen if direction == "tx")
    assert sent.startswith(bytes.fromhex("A5 20"))  # our HELLO first
    assert status.event_id.to_bytes(4, "big") in received
