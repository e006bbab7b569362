"""Every shuffler fault scenario (docs/protocols/shuffler.md, section 9): the events the
driver reports, and that nothing is lost or duplicated. Run on the in-process simulator and
on the simulator over a real pty; link-cut also against the simulator as a process."""

from __future__ import annotations

import asyncio

import pytest
from structlog.testing import capture_logs

from drivers.base import (
    CommandRejected,
    CommandsDropped,
    ErrorEvent,
    FaultCleared,
    LinkLost,
    LinkRestored,
    LinkUp,
)
from drivers.errors import DriverInitError, ProtocolError
from drivers.shuffler.driver import ShufflerDriver
from drivers.shuffler.events import (
    DealAborted,
    DeckChecked,
    FaultKind,
    PileRead,
    RejectReason,
    Shuffled,
    ShufflerFault,
    UnusedCards,
)
from drivers.shuffler.msgtypes import ShufflerMsg

from .test_shuffler_driver import SEED, SIMULATED, documented_deck, expected_deal, link_config, rig

S = "shuffler"


def piles_of(events):
    return [e for e in events if isinstance(e, PileRead)]


def assert_exactly_once_in_order(events, seed=SEED):
    """All seven piles and the unused cards, each once, in deal order, as the seeded deal says."""
    piles = piles_of(events)
    expected_piles, expected_unused = expected_deal(seed)
    assert [p.pile for p in piles] == [1, 2, 3, 4, 5, 6, 7]
    assert [list(p.cards) for p in piles] == expected_piles
    unused = [e for e in events if isinstance(e, UnusedCards)]
    assert len(unused) == 1 and list(unused[0].cards) == expected_unused
    device_ids = [e.event_id for e in events if hasattr(e, "event_id")]
    assert device_ids == sorted(set(device_ids))


# -- link faults ------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", SIMULATED)
async def test_corrupted_frame_is_naked_and_delivered_once(kind):
    async with rig(kind, faults=["corrupted-frame"]) as r:
        await r.next()
        with capture_logs() as logs:
            _, events = await r.deal()
        assert_exactly_once_in_order(events)
        assert r.driver.stats.crc_errors == 1 and r.driver.stats.naks_sent == 1
        assert r.simulator.link.stats.retransmissions == 1
        noise = [entry for entry in logs if entry["event"] == "link.noise"]
        assert len(noise) == 1 and noise[0]["raw"].startswith("a5")  # one line, with the raw bytes


@pytest.mark.parametrize("kind", SIMULATED)
async def test_dropped_frame_is_resent_after_the_ack_timeout_and_delivered_once(kind):
    async with rig(kind, faults=["dropped-frame"]) as r:
        await r.next()
        _, events = await r.deal()
        assert_exactly_once_in_order(events)
        assert r.simulator.link.stats.retransmissions == 1
        assert r.driver.stats.duplicates_dropped == 0


@pytest.mark.parametrize("kind", SIMULATED)
async def test_duplicated_frame_is_acked_and_dropped(kind):
    async with rig(kind, faults=["duplicated-frame"]) as r:
        await r.next()
        _, events = await r.deal()
        assert_exactly_once_in_order(events)
        assert r.driver.stats.duplicates_dropped == 1


@pytest.mark.parametrize("kind", [*SIMULATED, pytest.param("process", marks=pytest.mark.slow)])
async def test_link_cut_mid_deal_loses_nothing_and_duplicates_nothing(kind):
    async with rig(kind, faults=["link-cut"], cut_duration=0.3) as r:
        await r.next()
        _, events = await r.deal()
        kinds = [type(e) for e in events]
        assert kinds.count(LinkLost) == 1 and kinds.count(LinkRestored) == 1
        lost, restored = kinds.index(LinkLost), kinds.index(LinkRestored)
        assert lost < restored
        assert events[restored].device_restarted is False
        assert_exactly_once_in_order(events)
        assert r.driver.stats.links_lost == 1 and r.driver.stats.reconnects == 1
        before = [p.pile for p in piles_of(events[:lost])]
        if kind == "memory":
            # the cable is pulled right after PILE 3 is written; an unplugged cable loses what it
            # held, so the host may or may not have read PILE 3 before the cut
            assert before in ([1, 2], [1, 2, 3])
            assert r.driver.stats.duplicates_dropped == len(before) - 2
        else:
            # a pty keeps what was written: the host got PILE 3, its ACK was lost in the cut, the
            # device re-sent PILE 3 after the reconnect and the host dropped the copy
            assert before == [1, 2, 3]
            assert r.driver.stats.duplicates_dropped == 1


@pytest.mark.parametrize("kind", SIMULATED)
async def test_link_cut_while_idle_is_detected_within_a_few_heartbeats(kind):
    async with rig(kind) as r:
        await r.next()
        loop = asyncio.get_running_loop()
        start = loop.time()
        r.simulator.cut_link(0.3)
        lost = await r.next()
        detected = loop.time() - start
        assert isinstance(lost, LinkLost)
        assert detected < 4 * link_config().heartbeat_interval  # 3 heartbeats (pty) or at once (memory)
        restored = await r.next()
        assert isinstance(restored, LinkRestored) and not restored.device_restarted
        _, events = await r.deal()
        assert_exactly_once_in_order(events)


@pytest.mark.parametrize("kind", SIMULATED)
async def test_device_restart_is_reported_and_unacknowledged_commands_are_dropped(kind):
    async with rig(kind) as r:
        await r.next()
        old_session = r.driver.hello.session_id
        r.simulator.restart()  # power cycle: the new device waits for a HELLO, answers nothing else
        command = r.driver.request_status()
        events = await r.collect(lambda e: isinstance(e, CommandsDropped))
        restored = [e for e in events if isinstance(e, LinkRestored)]
        assert len(restored) == 1 and restored[0].device_restarted
        assert restored[0].hello.session_id != old_session
        assert events[-1] == CommandsDropped(device=S, command_ids=(command,), reason="device restarted")
        _, deal = await r.deal()  # the new session works; its event ids start again at 1 (SHUFFLED)
        assert [e.event_id for e in deal] == [2, 3, 4, 5, 6, 7, 8, 9]


# -- device faults ----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", SIMULATED)
async def test_jam_aborts_the_deal_after_three_piles_and_blocks_until_cleared(kind):
    async with rig(kind, faults=["jam"]) as r:
        await r.next()
        deal_id, events = await r.deal()
        expected_piles, _ = expected_deal(SEED)
        assert [list(p.cards) for p in piles_of(events)] == expected_piles[:3]
        fault, aborted = events[-2:]
        assert fault == ShufflerFault(device=S, event_id=fault.event_id, kind=FaultKind.JAM)
        assert aborted == DealAborted(
            device=S, event_id=fault.event_id + 1, command_id=deal_id, piles_dealt=3, reason=FaultKind.JAM
        )
        command = r.driver.shuffle(53)
        rejected = await r.next()
        assert rejected == CommandRejected(
            device=S, event_id=rejected.event_id, command_id=command, reason=RejectReason.JAM
        )
        r.simulator.clear_jam()
        cleared = await r.next()
        assert cleared == FaultCleared(device=S, event_id=cleared.event_id, kind=FaultKind.JAM)
        _, again = await r.deal()
        assert len(piles_of(again)) == 7 and isinstance(again[-1], UnusedCards)


@pytest.mark.parametrize("kind", SIMULATED)
async def test_door_open_mid_deal_aborts_and_refuses_until_closed(kind):
    async with rig(kind, faults=["door-open"]) as r:
        await r.next()
        deal_id, events = await r.deal()
        assert [p.pile for p in piles_of(events)] == [1, 2]
        fault, aborted = events[-2:]
        assert isinstance(fault, ShufflerFault) and fault.kind is FaultKind.DOOR_OPEN
        assert (aborted.piles_dealt, aborted.reason, aborted.command_id) == (2, FaultKind.DOOR_OPEN, deal_id)
        command = r.driver.check_deck(53)
        rejected = await r.next()
        assert isinstance(rejected, CommandRejected) and rejected.command_id == command
        assert rejected.reason is RejectReason.DOOR_OPEN
        r.simulator.close_door()
        cleared = await r.next()
        assert isinstance(cleared, FaultCleared) and cleared.kind is FaultKind.DOOR_OPEN


@pytest.mark.parametrize("kind", SIMULATED)
async def test_unreadable_card_is_reported_with_its_place_and_the_deal_goes_on(kind):
    async with rig(kind, faults=["unreadable-card"]) as r:
        await r.next()
        _, events = await r.deal()
        piles = piles_of(events)
        fault_index = next(i for i, e in enumerate(events) if isinstance(e, ShufflerFault))
        fault = events[fault_index]
        assert fault == ShufflerFault(
            device=S, event_id=fault.event_id, kind=FaultKind.CARD_UNREADABLE, pile=2, position=4
        )
        assert events[fault_index + 1] is piles[1]  # the fault comes just before pile 2
        expected_piles, _ = expected_deal(SEED)
        pile_two = list(expected_piles[1])
        pile_two[3] = None
        assert list(piles[1].cards) == pile_two and piles[1].unreadable == (4,)
        others = [list(p.cards) for i, p in enumerate(piles) if i != 1]
        assert others == expected_piles[:1] + expected_piles[2:]
        assert isinstance(events[-1], UnusedCards)


@pytest.mark.parametrize("kind", SIMULATED)
async def test_duplicated_card_in_a_pile_is_reported_faithfully(kind):
    """Two Kd in pile 5 and no 2c: the driver reports it; judging the misdeal is the controller's job."""
    async with rig(kind, faults=["duplicated-card"]) as r:
        await r.next()
        _, events = await r.deal()
        piles = piles_of(events)
        assert len(piles) == 7 and all(len(p.cards) == 7 for p in piles)
        assert piles[4].cards[1] == "Kd" and piles[4].cards[5] == "Kd"
        seen = [c for p in piles for c in p.cards] + list(events[-1].cards)
        assert seen.count("Kd") == 2 and "2c" not in seen and len(seen) == 53
        assert not [e for e in events if isinstance(e, (ShufflerFault, ErrorEvent))]


@pytest.mark.parametrize("kind", SIMULATED)
async def test_missing_card_short_pile_is_reported_faithfully(kind):
    async with rig(kind, faults=["missing-card"]) as r:
        await r.next()
        _, events = await r.deal()
        piles = piles_of(events)
        expected_piles, expected_unused = expected_deal(SEED)
        assert list(piles[3].cards) == expected_piles[3][:6]  # pile 4 lacks its seventh card
        assert [len(p.cards) for p in piles] == [7, 7, 7, 6, 7, 7, 7]
        assert list(events[-1].cards) == expected_unused
        assert sum(len(p.cards) for p in piles) + len(events[-1].cards) == 52


@pytest.mark.parametrize("kind", SIMULATED)
async def test_wrong_joker_count_shows_in_the_deal_and_the_deck_check(kind):
    async with rig(kind, faults=["wrong-joker-count"]) as r:
        await r.next()
        _, events = await r.deal()
        seen = [c for p in piles_of(events) for c in p.cards] + list(events[-1].cards)
        assert len(seen) == 53 and seen.count("JK") == 2 and "3d" not in seen
        command = r.driver.check_deck(53)
        checked = await r.next()
        assert checked == DeckChecked(
            device=S,
            event_id=checked.event_id,
            command_id=command,
            deck_size=53,
            scanned=53,
            unreadable=0,
            missing=("3d",),
            duplicated=(("JK", 2),),
        )


@pytest.mark.parametrize("kind", SIMULATED)
async def test_deck_not_present_is_reported_and_refuses_until_a_deck_is_loaded(kind):
    async with rig(kind, faults=["deck-not-present"]) as r:
        assert isinstance(await r.next(), LinkUp)
        fault = await r.next()
        assert fault == ShufflerFault(device=S, event_id=1, kind=FaultKind.DECK_NOT_PRESENT)
        command = r.driver.shuffle(53)
        rejected = await r.next()
        assert rejected == CommandRejected(
            device=S, event_id=2, command_id=command, reason=RejectReason.DECK_NOT_PRESENT
        )
        r.simulator.load_deck()
        cleared = await r.next()
        assert cleared == FaultCleared(device=S, event_id=3, kind=FaultKind.DECK_NOT_PRESENT)
        _, events = await r.deal()
        assert len(piles_of(events)) == 7


@pytest.mark.parametrize("kind", SIMULATED)
async def test_wrong_card_count_refuses_the_shuffle_and_the_deck_check_names_the_card(kind):
    async with rig(kind, faults=["wrong-card-count"]) as r:
        await r.next()
        command = r.driver.shuffle(53)
        fault, rejected = await r.next(), await r.next()
        assert fault == ShufflerFault(
            device=S, event_id=1, kind=FaultKind.WRONG_CARD_COUNT, counted=52, expected=53
        )
        assert rejected == CommandRejected(
            device=S, event_id=2, command_id=command, reason=RejectReason.WRONG_CARD_COUNT
        )
        check = r.driver.check_deck(53)
        checked = await r.next()
        assert checked.command_id == check and checked.missing == ("7h",) and checked.scanned == 52
        r.simulator.load_deck(documented_deck(1))
        command = r.driver.shuffle(53)
        cleared, shuffled = await r.next(), await r.next()
        assert cleared == FaultCleared(device=S, event_id=cleared.event_id, kind=FaultKind.WRONG_CARD_COUNT)
        assert shuffled == Shuffled(
            device=S, event_id=cleared.event_id + 1, command_id=command, cards_counted=53
        )


# -- errors -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", SIMULATED)
async def test_unknown_card_code_is_an_error_event_with_the_raw_frame_and_the_link_goes_on(kind):
    async with rig(kind) as r:
        await r.next()
        body = bytes.fromhex("00000009 01 07") + b"7h5d9s4cXx4d2s"
        with r.simulator.lock:
            r.simulator.link.send_event(ShufflerMsg.PILE, body)
        with capture_logs() as logs:
            error = await r.next()
        assert isinstance(error, ErrorEvent) and isinstance(error.error, ProtocolError)
        assert "unknown card code" in str(error.error)
        assert error.error.raw is not None and body in error.error.raw
        assert any(
            entry["event"] == "driver.protocol_error" and entry["log_level"] == "error" for entry in logs
        )
        command = r.driver.request_status()
        assert (await r.next()).command_id == command  # the frame was ACKed: no retransmission loop


async def test_start_on_a_missing_port_is_an_init_error():
    driver = ShufflerDriver.from_url("/dev/does-not-exist-shuffler", link_config=link_config())
    with pytest.raises(DriverInitError):
        await driver.start()
    assert not driver.running


async def test_start_on_a_silent_port_is_an_init_error():
    driver = ShufflerDriver.from_url("loop://", link_config=link_config())  # echoes our HELLO, never answers
    with pytest.raises(DriverInitError) as info:
        await driver.start()
    assert "no HELLO" in str(info.value.__cause__) or "HELLO" in str(info.value)


async def test_a_named_simulator_url_that_is_not_running_is_an_init_error():
    driver = ShufflerDriver.from_url(
        "simshuffler://nobody", link_config=link_config(), url_packages=("simulators.shuffler",)
    )
    with pytest.raises(DriverInitError) as info:
        await driver.start()
    assert "nobody" in str(info.value)


async def test_private_simulator_from_the_url_query():
    url = "simshuffler://?seed=7&fault=jam&fast=1"
    driver = ShufflerDriver.from_url(url, link_config=link_config(), url_packages=("simulators.shuffler",))
    async with driver:
        assert isinstance(await driver.next_event(2), LinkUp)
        driver.shuffle(53)
        driver.deal()
        events = [await driver.next_event(2) for _ in range(6)]
        assert [type(e).__name__ for e in events] == [
            "Shuffled",
            "PileRead",
            "PileRead",
            "PileRead",
            "ShufflerFault",
            "DealAborted",
        ]


@pytest.mark.parametrize("kind", SIMULATED)
async def test_a_standing_fault_is_reported_once_per_power_up_not_per_hello(kind):
    """shuffler.md 4: after a reconnect the host learns the standing condition from STATUS."""
    async with rig(kind, faults=["deck-not-present"]) as r:
        assert isinstance(await r.next(), LinkUp)
        assert (await r.next()).kind == FaultKind.DECK_NOT_PRESENT
        r.simulator.cut_link(0.3)
        events = await r.collect(lambda e: isinstance(e, LinkRestored), timeout=10)
        command = r.driver.request_status()
        events += await r.collect(lambda e: getattr(e, "command_id", None) == command)
        assert not any(isinstance(e, ShufflerFault) for e in events)  # no second FAULT after HELLO
        status = events[-1]
        assert FaultKind.DECK_NOT_PRESENT in status.faults


@pytest.mark.parametrize("kind", SIMULATED)
async def test_unknown_application_types_are_rejected_as_unknown_commands(kind):
    """shuffler.md 3: any application type other than the four commands, even another device's."""
    async with rig(kind) as r:
        await r.next()
        for msg_type in (0x14, 0x20, 0x40):
            command = r.driver.send_command(msg_type, b"")
            rejected = await r.next()
            assert isinstance(rejected, CommandRejected) and rejected.command_id == command
            assert rejected.reason == RejectReason.UNKNOWN_COMMAND
