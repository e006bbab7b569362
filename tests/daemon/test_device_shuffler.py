"""A shuffler that sends a PILE one byte too long, with a valid CRC (a firmware bug).

link.md 3: a frame the host cannot use is never acknowledged as delivered: the host NAKs it
REFUSED and reports it; the device does not re-send it. The deal it belonged to cannot be
trusted, so the round is a misdeal whose reason names the frame (shuffler.md 3), never a
silent "pile 3 has 0 cards".
"""

from __future__ import annotations

from .rig import build, devices, events, replayed, running, until


async def test_an_over_long_pile_is_refused_and_the_misdeal_names_the_frame(engine):
    devs = devices(shuffler_faults=["long-pile"])
    try:
        table = build(engine, devs)
        async with running(table):
            await until(lambda: table.conductor.voided == 1)
        host = table.conductor.shuffler.driver.stats
    finally:
        devs.close()
    assert host.messages_refused == 1 and devs.shuffler.link.stats.events_refused == 1
    state = replayed(engine, "t1-1")
    assert state.phase.value == "void"
    [(kind, detail)] = [(d.kind, d.detail) for d in state.misdeal]
    assert kind == "deal-interrupted"
    assert "cannot use" in detail and "piles [1, 2]" in detail
    assert "a5 19" in detail and " 22 " in detail  # the raw frame: LEN 0x19 (24 + 1), type PILE
    assert "0 cards" not in detail
    piles = [p["pile"] for _, p in events(engine, "device.shuffler.pile-dealt")]
    assert 3 not in piles  # the refused pile was never taken as delivered


async def test_a_protocol_1_0_shuffler_re_sending_its_refused_pile_does_not_loop_and_play_goes_on(engine):
    """link.md 3.1: a shuffler that follows the 1.0 text re-sends its refused PILE after the
    NAK. Its copy is refused once more, the next copy is ACKed as used up: the round is a
    misdeal naming the frame, the link is never lost for it, and the next round settles."""
    devs = devices(shuffler_faults=["long-pile", "protocol-1.0"])
    try:
        table = build(engine, devs)
        async with running(table):
            await until(lambda: table.conductor.voided == 1 and table.conductor.settled >= 1, timeout=20)
            device_lost = devs.shuffler.link.stats.links_lost  # before the rig closes its channel
        host = table.conductor.shuffler.driver.stats
    finally:
        devs.close()
    assert host.messages_refused == 1 and host.refused_resent == 1 and host.links_lost == 0
    assert device_lost == 0
    state = replayed(engine, "t1-1")
    assert state.phase.value == "void"
    details = [d.detail for d in state.misdeal] + [state.void_reason or ""]
    assert any("a5 19" in detail for detail in details)  # the refused frame is named
    assert replayed(engine, "t1-2").phase.value == "closed"
