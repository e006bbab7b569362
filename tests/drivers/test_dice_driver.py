"""The dice shaker driver: one suite over the in-process pyusb backend, the serial variant over a
real pty, and (``-m hardware``, ``TABLE_DICE_USB=vid:pid[:serial]``) a real shaker.

Each fault scenario of simulators/faults.py that applies to the shaker has a test showing the
driver's events and that nothing is lost or duplicated: device event ids arrive 1, 2, 3...
with no gap and no repeat, each roll the device made is reported exactly once, and no roll is
reported that the device did not make (docs/protocols/dice-shaker.md, sections 2-3).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pickle
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from drivers.base import CommandsDropped, DeviceEvent, ErrorEvent, LinkLost, LinkRestored, LinkUp
from drivers.dice_shaker.driver import DiceShakerDriver, ShakeFailed
from drivers.dice_shaker.events import (
    DiceFault,
    DiceFaultCleared,
    DiceRead,
    DiceStatus,
    ShakeRefused,
)
from drivers.dice_shaker.rng import RngDiceSource
from drivers.dice_shaker.roll import DiceRoll, DiceSource, RollSource
from drivers.errors import DriverIOError, DriverTimeoutError, ProtocolError
from drivers.link import LinkConfig
from drivers.usb_transport import UsbConfig
from simulators.device_link import DeviceLinkConfig
from simulators.dice_shaker import DiceShakerSimulator

HARDWARE_ENV = "TABLE_DICE_USB"
SIMULATED = ["usb", "pty"]
TARGETS = [*SIMULATED, pytest.param("hardware", marks=pytest.mark.hardware)]


@dataclass
class Rig:
    driver: DiceShakerDriver
    sim: DiceShakerSimulator | None
    target: str


@contextlib.asynccontextmanager
async def shaker(target: str, **sim_options):
    """A started driver on ``target``; the simulator (None on hardware) is closed afterwards."""
    if target == "hardware":
        spec = os.environ.get(HARDWARE_ENV)
        if not spec:
            pytest.skip(f"set {HARDWARE_ENV}=vid:pid[:serial] to run against a real shaker")
        if sim_options:
            pytest.skip("needs the simulator's fault scenarios")
        async with DiceShakerDriver.over_usb(UsbConfig.parse(spec)) as driver:
            yield Rig(driver, None, target)
        return
    sim = DiceShakerSimulator(seed=7, link_config=DeviceLinkConfig.fast(), **sim_options)
    backend = sim.usb_backend() if target == "usb" else None
    try:
        if backend is not None:
            driver = DiceShakerDriver.over_usb(backend=backend, link_config=LinkConfig.fast())
        else:
            driver = DiceShakerDriver.over_serial(sim.serve_pty(), link_config=LinkConfig.fast())
        async with driver:
            yield Rig(driver, sim, target)
    finally:
        sim.close()
    if backend is not None:  # the leak check for USB: stopping the driver released the device
        assert backend.open_handles == 0


async def collect(driver, until: Callable[[list], bool], *, timeout: float = 3.0, quiet: float = 0.1) -> list:
    """Events until ``until(events)`` holds, then any that follow within ``quiet`` seconds."""
    events: list = []
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not until(events):
        left = deadline - loop.time()
        if left <= 0:
            raise AssertionError(f"condition not met; events so far: {events}")
        events.append(await driver.next_event(left))
    with contextlib.suppress(DriverTimeoutError):
        while True:
            events.append(await driver.next_event(quiet))
    return events


def has(kind, count: int = 1, **fields) -> Callable[[list], bool]:
    def check(events: list) -> bool:
        matching = [
            e for e in events if isinstance(e, kind) and all(getattr(e, k) == v for k, v in fields.items())
        ]
        return len(matching) >= count

    return check


def of(events: list, kind) -> list:
    return [e for e in events if isinstance(e, kind)]


def assert_nothing_lost_or_duplicated(rig: Rig, events: list) -> None:
    device_events = of(events, DeviceEvent)
    assert [e.event_id for e in device_events] == list(range(1, len(device_events) + 1))
    assert len(device_events) == rig.sim.link.stats.events_sent  # every event the device sent, once
    assert [(e.roll_id, e.faces) for e in of(events, DiceRead)] == rig.sim.model.rolls


# -- the common suite: simulator over USB, over a pty, and real hardware ------------------------


@pytest.mark.parametrize("target", TARGETS)
async def test_start_reports_link_up_then_the_status(target):
    async with shaker(target) as rig:
        events = await collect(rig.driver, has(DiceStatus))
        assert isinstance(events[0], LinkUp) and events[0].hello.protocol_major == 1
        status = events[1]
        assert isinstance(status, DiceStatus) and status.command_id is None
        if rig.sim is not None:
            hello = events[0].hello
            assert (hello.model, hello.serial_number) == ("DS-3 dice shaker", "DS3-SIM-0001")
            assert (status.cover_open, status.tamper, status.reshake_needed, status.last_roll_id) == (
                False,
                False,
                False,
                None,
            )
            assert len(events) == 2


@pytest.mark.parametrize("target", TARGETS)
async def test_roll_returns_the_roll_the_device_made(target):
    async with shaker(target) as rig:
        roll = await rig.driver.roll()
        assert roll.source is DiceSource.SHAKER
        assert roll.serial_number == rig.driver.hello.serial_number
        assert all(1 <= face <= 6 for face in roll.faces) and 3 <= roll.total <= 18
        events = await collect(rig.driver, has(DiceRead))
        (rolled,) = of(events, DiceRead)
        assert (rolled.roll_id, rolled.faces) == (roll.roll_id, roll.faces)
        if rig.sim is not None:
            assert rig.sim.model.rolls == [(1, roll.faces)]
            assert_nothing_lost_or_duplicated(rig, events)


@pytest.mark.parametrize("target", TARGETS)
async def test_each_shake_has_the_next_roll_id(target):
    async with shaker(target) as rig:
        first = await rig.driver.roll()
        second = await rig.driver.roll()
        assert second.roll_id == first.roll_id + 1
        events = await collect(rig.driver, has(DiceRead, 2))
        rolled = of(events, DiceRead)
        assert [e.roll_id for e in rolled] == [first.roll_id, second.roll_id]
        assert rolled[0].command_id < rolled[1].command_id
        if rig.sim is not None:
            assert rig.sim.model.rolls == [(first.roll_id, first.faces), (second.roll_id, second.faces)]


@pytest.mark.parametrize("target", TARGETS)
async def test_status_request_is_answered_with_its_command_id(target):
    async with shaker(target) as rig:
        roll = await rig.driver.roll()
        command_id = rig.driver.request_status()
        events = await collect(rig.driver, has(DiceStatus, command_id=command_id))
        (answer,) = [e for e in of(events, DiceStatus) if e.command_id == command_id]
        assert answer.last_roll_id == roll.roll_id and not answer.shaking


@pytest.mark.parametrize("target", TARGETS)
async def test_the_driver_is_a_dice_source(target):
    async with shaker(target) as rig:
        assert isinstance(rig.driver, RollSource)


# -- device fault scenarios ---------------------------------------------------------------------


@pytest.mark.parametrize("target", SIMULATED)
@pytest.mark.parametrize(
    ("fault", "kind"), [("cocked-die", "die_cocked"), ("die-unreadable", "die_unreadable")]
)
async def test_die_fault_voids_the_shake_and_the_reshake_rolls_once_with_a_new_id(target, fault, kind):
    async with shaker(target, faults=[fault]) as rig:
        with pytest.raises(ShakeFailed) as info:
            await rig.driver.roll()
        void = info.value.event
        assert info.value.needs_reshake
        assert isinstance(void, DiceFault) and (void.kind, void.roll_id) == (kind, 1)
        assert void.die in (1, 2, 3)
        roll = await rig.driver.roll()
        assert roll.roll_id == 2
        events = await collect(rig.driver, has(DiceRead))
        assert [type(e) for e in events] == [LinkUp, DiceStatus, DiceFault, DiceFaultCleared, DiceRead]
        assert events[3].kind == kind
        assert events[4].command_id != void.command_id
        assert_nothing_lost_or_duplicated(rig, events)


@pytest.mark.parametrize("target", SIMULATED)
async def test_cover_open_refuses_the_shake_until_it_closes(target):
    async with shaker(target, faults=["cover-open"], cover_close_after=0.1) as rig:
        with pytest.raises(ShakeFailed) as info:
            await rig.driver.roll()
        refused = info.value.event
        assert isinstance(refused, ShakeRefused) and refused.reason == "cover_open"
        assert not info.value.needs_reshake
        events = await collect(rig.driver, has(DiceFaultCleared))
        assert [type(e) for e in events] == [LinkUp, DiceStatus, DiceFault, ShakeRefused, DiceFaultCleared]
        assert (events[2].kind, events[2].die, events[2].roll_id, events[2].command_id) == (
            "cover_open",
            None,
            None,
            None,
        )
        roll = await rig.driver.roll()
        assert roll.roll_id == 1  # the refused SHAKE was never an attempt
        events += await collect(rig.driver, has(DiceRead))
        assert_nothing_lost_or_duplicated(rig, events)


@pytest.mark.parametrize("target", SIMULATED)
async def test_tamper_is_latched_until_the_attendant_resets_it(target):
    async with shaker(target, faults=["tamper"]) as rig:
        for _ in range(2):  # refused, and refused again while latched (no second FAULT)
            with pytest.raises(ShakeFailed) as info:
                await rig.driver.roll()
            assert info.value.event.reason == "tamper"
        rig.sim.attendant_reset()
        events = await collect(rig.driver, has(DiceFaultCleared))
        assert [type(e) for e in events] == [
            LinkUp,
            DiceStatus,
            DiceFault,
            ShakeRefused,
            ShakeRefused,
            DiceFaultCleared,
        ]
        assert events[2].kind == "tamper" and events[5].kind == "tamper"
        roll = await rig.driver.roll()
        assert roll.roll_id == 1
        events += await collect(rig.driver, has(DiceRead))
        assert_nothing_lost_or_duplicated(rig, events)


@pytest.mark.parametrize("target", SIMULATED)
async def test_cover_opened_mid_shake_voids_that_attempt(target):
    async with shaker(target, shake_duration=0.3) as rig:
        task = asyncio.create_task(rig.driver.roll())
        await collect(rig.driver, has(DiceStatus), quiet=0.05)
        await asyncio.sleep(0.1)
        rig.sim.open_cover()
        with pytest.raises(ShakeFailed) as info:
            await task
        void = info.value.event
        assert (void.kind, void.roll_id) == ("cover_open", 1) and not info.value.needs_reshake
        rig.sim.close_cover()
        await collect(rig.driver, has(DiceFaultCleared))
        assert rig.sim.model.rolls == []


@pytest.mark.parametrize("target", SIMULATED)
async def test_a_shake_while_shaking_is_refused_as_busy(target):
    async with shaker(target, shake_duration=0.2) as rig:
        first = rig.driver.shake()
        second = rig.driver.shake()
        events = await collect(rig.driver, has(DiceRead))
        refused = of(events, ShakeRefused)
        assert [(e.command_id, e.reason) for e in refused] == [(second, "busy")]
        assert [(e.command_id, e.roll_id) for e in of(events, DiceRead)] == [(first, 1)]


# -- link fault scenarios -------------------------------------------------------------------------


@pytest.mark.parametrize("target", SIMULATED)
@pytest.mark.parametrize("fault", ["corrupted-frame", "dropped-frame", "duplicated-frame"])
async def test_link_fault_on_the_roll_still_delivers_it_exactly_once(target, fault):
    async with shaker(target, faults=[fault]) as rig:
        roll = await rig.driver.roll()
        events = await collect(rig.driver, has(DiceRead))
        assert [type(e) for e in events] == [LinkUp, DiceStatus, DiceRead]
        assert rig.sim.model.rolls == [(roll.roll_id, roll.faces)]
        assert_nothing_lost_or_duplicated(rig, events)
        stats, device = rig.driver.stats, rig.sim.link.stats
        if fault == "corrupted-frame":
            assert (stats.crc_errors, stats.naks_sent) == (1, 1) and device.retransmissions >= 1
        elif fault == "dropped-frame":
            assert stats.crc_errors == 0 and device.retransmissions >= 1
        else:
            assert stats.duplicates_dropped == 1


@pytest.mark.parametrize("target", SIMULATED)
async def test_link_cut_after_the_roll_reconnects_and_delivers_it_exactly_once(target):
    async with shaker(target, faults=["link-cut"], cut_duration=0.3) as rig:
        roll = await rig.driver.roll(timeout=5)
        events = await collect(rig.driver, status_after_restore, timeout=5)
        kinds = [type(e) for e in events]
        if target == "usb":
            # unplugging lost the ROLL in the endpoint buffer: it is re-sent after the reconnect
            assert kinds == [LinkUp, DiceStatus, LinkLost, LinkRestored, DiceRead, DiceStatus]
        else:
            # the ROLL reached the host, the ACK was lost in the cut: the re-sent copy is dropped
            assert kinds == [LinkUp, DiceStatus, DiceRead, LinkLost, LinkRestored, DiceStatus]
            assert rig.driver.stats.duplicates_dropped == 1
        assert of(events, LinkRestored)[0].device_restarted is False
        assert rig.sim.model.rolls == [(roll.roll_id, roll.faces)]
        assert_nothing_lost_or_duplicated(rig, events)
        again = await rig.driver.roll()
        assert again.roll_id == roll.roll_id + 1


def status_after_restore(events: list) -> bool:
    """True once a DiceStatus (sent after every HELLO) follows a LinkRestored."""
    kinds = [type(e) for e in events]
    return LinkRestored in kinds and DiceStatus in kinds[kinds.index(LinkRestored) :]


# -- errors -------------------------------------------------------------------------------------


@pytest.mark.parametrize("target", SIMULATED)
async def test_a_bad_face_from_the_device_is_an_error_event_and_the_link_carries_on(target):
    async with shaker(target) as rig:
        await collect(rig.driver, has(DiceStatus), quiet=0.05)
        with rig.sim.lock:  # the device misbehaves: a ROLL with a 7 on die 3
            rig.sim.link.send_event(0x50, bytes.fromhex("00000009 00000001 010207"))
        events = await collect(rig.driver, has(ErrorEvent))
        (error,) = of(events, ErrorEvent)
        assert isinstance(error.error, ProtocolError) and "die 3 shows 7" in str(error.error)
        assert error.error.raw is not None and error.error.raw[3] == 0x50
        assert error.error.raw[8:19] == bytes.fromhex("00000009 00000001 010207")
        assert of(events, DiceRead) == []
        roll = await rig.driver.roll()
        assert roll.roll_id == 1


@pytest.mark.parametrize("target", SIMULATED)
async def test_roll_times_out_when_the_device_does_not_answer_in_time(target):
    async with shaker(target, shake_duration=0.4) as rig:
        with pytest.raises(DriverTimeoutError, match="no answer to SHAKE"):
            await rig.driver.roll(timeout=0.1)
        events = await collect(rig.driver, has(DiceRead))  # the late roll is still an event
        assert len(of(events, DiceRead)) == 1


@pytest.mark.parametrize("target", SIMULATED)
async def test_stopping_the_driver_fails_a_waiting_roll(target):
    async with shaker(target, shake_duration=2.0) as rig:
        task = asyncio.create_task(rig.driver.roll())
        await asyncio.sleep(0.1)
        await rig.driver.stop()
        with pytest.raises(DriverIOError, match="stopped"):
            await task
        with pytest.raises(DriverIOError, match="not running"):
            await rig.driver.roll()


async def test_roll_before_start_is_refused():
    from drivers.errors import DriverInitError

    driver = DiceShakerDriver.over_serial("loop://")
    with pytest.raises(DriverInitError, match="not started"):
        await driver.roll()


async def test_a_shaker_that_restarts_drops_the_unacknowledged_shake():
    """A new device session forgets the host's unacknowledged SHAKE: roll() fails, nothing is re-sent."""
    async with shaker("usb") as rig:
        await collect(rig.driver, has(DiceStatus), quiet=0.05)
        rig.sim.power_cycle(off_for=0.3)
        with pytest.raises(ShakeFailed, match="dropped: device restarted") as info:
            await rig.driver.roll(timeout=5)
        dropped = info.value.event
        assert isinstance(dropped, CommandsDropped) and not info.value.needs_reshake
        events = await collect(rig.driver, status_after_restore)
        assert [type(e) for e in events] == [LinkLost, LinkRestored, CommandsDropped, DiceStatus]
        assert events[1].device_restarted is True
        assert events[2].command_ids == dropped.command_ids
        assert events[3].event_id == 1  # the new session numbers its events from 1 again
        assert rig.sim.model.rolls == []
        roll = await rig.driver.roll()
        assert roll.roll_id == 1  # no shake was carried out for the dropped command


def test_shake_failed_survives_pickling():
    event = ShakeRefused(device="dice-shaker", event_id=3, command_id=2, reason="busy")
    error = pickle.loads(pickle.dumps(ShakeFailed("SHAKE 2 refused: busy", event=event)))
    assert (str(error), error.event, error.needs_reshake) == ("SHAKE 2 refused: busy", event, False)


# -- the RNG dice source: the same interface where no shaker is fitted ----------------------------


class Draws:
    """Stands in for ``secrets.randbelow``: returns the given draws in order, checking the bound."""

    def __init__(self, *values: int) -> None:
        self.values = list(values)

    def __call__(self, bound: int) -> int:
        assert bound == 6
        return self.values.pop(0)


async def test_rng_faces_are_draws_plus_one_and_say_rng():
    source = RngDiceSource(randbelow=Draws(0, 5, 2, 3, 3, 4))
    first, second = await source.roll(), await source.roll()
    assert first == DiceRoll((1, 6, 3), DiceSource.RNG, 1, None)
    assert second == DiceRoll((4, 4, 5), DiceSource.RNG, 2, None)
    assert first.total == 10


@pytest.mark.parametrize("draw", [6, -1, 2.0])
def test_rng_refuses_a_draw_outside_zero_to_five(draw):
    with pytest.raises(ValueError, match="randbelow"):
        RngDiceSource(randbelow=Draws(draw)).roll_now()


def test_rng_uses_secrets_and_covers_every_face():
    source = RngDiceSource()
    faces = Counter(face for _ in range(600) for face in source.roll_now().faces)
    assert set(faces) == {1, 2, 3, 4, 5, 6}  # each face missing has probability < 1e-140


def test_both_sources_offer_the_same_interface():
    assert isinstance(RngDiceSource(), RollSource)
    assert DiceShakerDriver.source is DiceSource.SHAKER and RngDiceSource.source is DiceSource.RNG


@pytest.mark.parametrize(
    ("faces", "source", "roll_id", "serial"),
    [
        ((0, 1, 2), DiceSource.RNG, 1, None),
        ((1, 2), DiceSource.RNG, 1, None),
        ((1, 2, 7), DiceSource.SHAKER, 1, "DS3"),
        ((1, 2, 3), DiceSource.RNG, 0, None),
        ((1, 2, 3), DiceSource.SHAKER, 1, None),
        ((1, 2, 3), DiceSource.RNG, 1, "DS3"),
    ],
)
def test_a_dice_roll_refuses_impossible_values(faces, source, roll_id, serial):
    with pytest.raises(ValueError):
        DiceRoll(faces, source, roll_id, serial)


@pytest.mark.parametrize("target", SIMULATED)
async def test_a_roll_showing_a_7_fails_its_shake_at_once_and_is_never_acked(target):
    """dice-shaker.md 2.3 and link.md 3: the host does not use the roll, NAKs it REFUSED (the
    device does not re-send it), and ``roll()`` fails at once rather than after roll_timeout."""
    async with shaker(target, faults=["bad-face"]) as rig:
        rig.driver.roll_timeout = 30.0
        loop = asyncio.get_running_loop()
        started = loop.time()
        with pytest.raises(ShakeFailed) as failed:
            await rig.driver.roll()
        assert loop.time() - started < 5.0  # far below the 30 s roll timeout
        assert failed.value.answer_unusable and not failed.value.needs_reshake
        assert "die 2 shows 7" in str(failed.value) and failed.value.raw is not None
        roll = await rig.driver.roll()  # the re-shake
        assert all(1 <= face <= 6 for face in roll.faces)
        assert rig.driver.stats.messages_refused == 1
        assert rig.sim.link.stats.events_refused == 1  # dropped by the device, not re-sent
