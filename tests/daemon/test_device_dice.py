"""A shaker that answers a SHAKE with a ROLL the controller cannot use (a die showing 7).

dice-shaker.md 2.3: a face outside 1..6 is a protocol error and the host does not use that
roll; link.md 3: the frame is NAKed REFUSED and the device does not re-send it. The shake has
failed: the controller re-shakes at once rather than waiting out its answer timeout, and a
shaker that keeps doing it raises one ``bad-roll`` fault (play stops) until a good roll.
"""

from __future__ import annotations

import asyncio

from drivers.dice_shaker.driver import DiceShakerDriver
from table_controller.conductor import ShakerAdapter
from table_controller.table.stops import StopKind, why_not_dealing

from .rig import HOST_LINK, alerts, build, devices, events, replayed, running, until

LONG_TIMEOUT = 30.0  # the answer timeout the vendor saw the controller wait out


def with_long_roll_timeout(table, devs):
    """The rig's table, its shaker port waiting ``LONG_TIMEOUT`` for an answer."""
    port = ShakerAdapter(
        table.service,
        lambda journal: DiceShakerDriver.over_usb(
            backend=devs.backend, link_config=HOST_LINK, journal=journal, roll_timeout=LONG_TIMEOUT
        ),
        stop=table.stop,
        known=(),
        roll_timeout=LONG_TIMEOUT,
        retry_interval=0.05,
    )
    table.conductor.dice = port
    return table


async def test_a_roll_showing_a_7_is_reshaken_at_once_not_after_the_timeout(engine):
    devs = devices(shaker_faults=["bad-face"])
    try:
        table = with_long_roll_timeout(build(engine, devs), devs)
        loop = asyncio.get_running_loop()
        started = loop.time()
        async with running(table, rounds=1):
            await until(lambda: events(engine, "dice.rolled"), timeout=LONG_TIMEOUT)
        took = loop.time() - started
    finally:
        devs.close()
    assert took < 5.0  # far below the 30 s answer timeout
    shaken = devs.shaker.model.rolls
    assert len(shaken) == 2 and 7 in shaken[0][1]  # the bad one, then the re-shake
    [(_, dice)] = events(engine, "dice.rolled")
    assert dice["faces"] == list(shaken[1][1]) and all(1 <= face <= 6 for face in dice["faces"])
    assert not any(a.get("fault") == "bad-roll" for a in alerts(engine))  # one bad roll: no fault


async def test_a_shaker_that_keeps_sending_bad_rolls_stops_play_with_one_alert(engine):
    devs = devices()
    with devs.shaker.lock:
        devs.shaker.model.bad_face_rolls = 1_000_000
    try:
        table = with_long_roll_timeout(build(engine, devs), devs)
        async with running(table, rounds=1):
            await until(lambda: ("dice-shaker", "bad-roll") in table.service.faults, timeout=10)
            assert not events(engine, "dice.rolled")
            await asyncio.sleep(0.5)  # it keeps trying, ever less often: still one alert
            with devs.shaker.lock:
                devs.shaker.model.bad_face_rolls = 0  # repaired
            await until(lambda: events(engine, "dice.rolled"), timeout=10)
            await until(lambda: ("dice-shaker", "bad-roll") not in table.service.faults, timeout=5)
    finally:
        devs.close()
    assert len([a for a in alerts(engine) if a.get("fault") == "bad-roll"]) == 1


def with_short_roll_timeout(table, devs, *, roll_timeout: float, tries: int):
    """The rig's table, its shaker port waiting ``roll_timeout`` for an answer, ``tries`` times
    before the ``no-answer`` fault (the settings ``device_timeout`` and ``dice.no_answer_tries``)."""
    port = ShakerAdapter(
        table.service,
        lambda journal: DiceShakerDriver.over_usb(
            backend=devs.backend, link_config=HOST_LINK, journal=journal, roll_timeout=roll_timeout
        ),
        stop=table.stop,
        known=(),
        roll_timeout=roll_timeout,
        no_answer_tries=tries,
        retry_interval=0.05,
    )
    table.conductor.dice = port
    return table


async def test_a_shaker_that_does_not_answer_stops_play_with_one_fault_until_it_answers(engine):
    """dice-shaker.md 4: after ``no_answer_tries`` SHAKEs unanswered in a row the controller
    opens a ``no-answer`` fault (one alert; play stops and GET /api/table says why); it keeps
    shaking, ever less often, and the first answer clears it."""
    devs = devices()
    devs.shaker.go_deaf()
    try:
        table = with_short_roll_timeout(build(engine, devs), devs, roll_timeout=0.3, tries=2)
        async with running(table, rounds=1):
            await until(lambda: ("dice-shaker", "no-answer") in table.service.faults, timeout=10)
            assert not events(engine, "dice.rolled")
            [stop] = [s for s in why_not_dealing(table.service) if s.kind is StopKind.DEVICE_FAULT]
            assert "no-answer" in stop.detail and "2 SHAKEs" in stop.detail
            assert "shaker" in stop.clears
            await asyncio.sleep(1.0)  # it keeps shaking, ever less often: still one alert
            devs.shaker.hear_again()
            await until(lambda: events(engine, "dice.rolled"), timeout=10)
            await until(lambda: ("dice-shaker", "no-answer") not in table.service.faults, timeout=5)
    finally:
        devs.close()
    assert len([a for a in alerts(engine) if a.get("fault") == "no-answer"]) == 1
    cleared = [p for _, p in events(engine, "device.fault.cleared") if p.get("fault") == "no-answer"]
    assert len(cleared) == 1


async def test_one_unanswered_shake_is_shaken_again_without_a_fault(engine):
    """Below ``no_answer_tries`` a silence is shaken again quietly: no alert, no stop."""
    devs = devices()
    devs.shaker.go_deaf()
    try:
        table = with_short_roll_timeout(build(engine, devs), devs, roll_timeout=0.5, tries=3)
        async with running(table, rounds=1):
            await until(lambda: devs.shaker.model.deaf_shakes >= 1, timeout=10)
            devs.shaker.hear_again()
            await until(lambda: events(engine, "dice.rolled"), timeout=10)
    finally:
        devs.close()
    assert not [a for a in alerts(engine) if a.get("fault") == "no-answer"]


async def test_a_stop_ends_a_shake_that_waits_for_a_deaf_shaker(engine):
    """SIGTERM while the shaker does not answer: the conductor gives up the shake at once (the
    round stays durable, its roll is the next start's), not after the answer timeout, and never
    shakes again after the stop."""
    devs = devices()
    devs.shaker.go_deaf()
    try:
        table = with_long_roll_timeout(build(engine, devs), devs)
        table.task = asyncio.create_task(table.conductor.run(None), name="conductor")
        await until(lambda: devs.shaker.model.deaf_shakes >= 1, timeout=10)
        table.stop.set()
        # far below the 30 s answer timeout: before, the shake was waited out and shaken again
        await asyncio.wait_for(table.task, 5.0)
        shakes = devs.shaker.model.deaf_shakes
        await asyncio.sleep(0.3)
        assert devs.shaker.model.deaf_shakes == shakes == 1
    finally:
        devs.close()


async def test_a_protocol_1_0_shaker_re_sending_its_refused_roll_voids_the_round_naming_the_frame(engine):
    """link.md 3.1: a shaker that follows the 1.0 text re-sends its ROLL showing a 7 after the
    NAK. Its copy is refused once more, the next copy is ACKed as used up and the round is
    voided naming the frame (one ``void`` alert); the link is never lost for it and the next
    round settles. Before 1.1 the two looped until the link dropped, and again after HELLO."""
    devs = devices(shaker_faults=["bad-face", "protocol-1.0"])
    try:
        table = build(engine, devs)
        async with running(table):
            await until(lambda: table.conductor.voided == 1 and table.conductor.settled >= 1, timeout=20)
        host = table.conductor.dice.driver.stats
    finally:
        devs.close()
    assert host.messages_refused == 1 and host.refused_resent == 1 and host.links_lost == 0
    state = replayed(engine, "t1-1")
    assert state.phase.value == "void"
    assert "re-sent a message the controller refused" in state.void_reason
    assert " 50 " in state.void_reason and "protocol 1.0" in state.void_reason  # the ROLL frame, named
    voids = [a for a in alerts(engine, "t1-1") if a.get("alert") == "void"]
    assert len(voids) == 1 and "dice-shaker" in voids[0]["detail"]
    assert replayed(engine, "t1-2").phase.value == "closed"


async def test_a_late_roll_of_a_voided_round_is_never_the_next_rounds_dice(engine):
    """A SHAKE answered after its round was voided (the shaker slower than the answer timeout,
    the pit voiding meanwhile): that roll was made before the next round's wagers were in, so
    it is journalled but never taken as the next round's dice; the next round shakes its own
    (dice-shaker.md 2.3: a ROLL names the SHAKE it answers)."""
    devs = devices(shake_duration=1.2)
    try:
        table = with_short_roll_timeout(build(engine, devs), devs, roll_timeout=0.4, tries=100)
        async with running(table, rounds=2):
            await until(lambda: devs.shaker.model._shaking is not None, timeout=10)  # round 1's SHAKE
            first = table.service.round
            assert first is not None and first.round_id == "t1-1"
            table.service.void("pia", "wagers placed late")
            await until(lambda: events(engine, "dice.rolled", "t1-2"), timeout=20)
    finally:
        devs.close()
    late_roll_id = devs.shaker.model.rolls[0][0]  # the roll that answered round 1's SHAKE
    [(_, dice)] = events(engine, "dice.rolled", "t1-2")
    used = int(str(dice["roll_id"]).rsplit(":", 1)[1])
    assert used != late_roll_id and used in [roll_id for roll_id, _ in devs.shaker.model.rolls]
    # the late roll is kept as what the shaker said, against the round whose SHAKE it answers
    late = [p for k, p in events(engine) if k == "device.dice-shaker.rolled" and p["roll_id"] == late_roll_id]
    assert len(late) == 1
