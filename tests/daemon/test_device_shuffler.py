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
