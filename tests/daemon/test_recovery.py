"""Recovery in process: the conductor stops dead inside a phase and a new one (new service, new
drivers, same store, same machines) takes the round on from there (docs/round-lifecycle.md).
The same story with a real process and SIGKILL is test_sigkill.py."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from table_controller.game.cards import Game, codes

from .rig import build, crash, devices, events, phase_of, play, positions, replayed, round_row, until

DECK = Counter(codes(Game.STANDARD.deck()))


def _start(table):
    table.task = asyncio.create_task(table.conductor.run(None), name="conductor")
    return table


async def _resume_to_the_end(engine, devs, **options) -> None:
    again = build(engine, devs, **options)
    assert await play(again, 1) == 1


def _assert_whole(engine, round_id: str = "t1-1") -> None:
    assert [k for k, _ in events(engine, "round.settled", round_id)] == ["round.settled"]
    [(_, dealt)] = events(engine, "piles.dealt", round_id)
    assert Counter(c for pile in dealt["piles"] for c in pile) + Counter(dealt["unused"]) == DECK
    [(_, opened)] = events(engine, "round.opened", round_id)  # the wagers, recorded once
    seats = positions(engine, round_id)
    assert {p: seats[p].wager_cents for p in seats if p != 1} == {
        int(p): w["main"] for p, w in opened["wagers"].items()
    }
    assert round_row(engine, round_id).wagered_cents == sum(w["main"] for w in opened["wagers"].values())


async def test_a_roll_seen_before_the_crash_is_the_rounds_roll_and_the_dice_are_not_shaken_again(engine):
    devs = devices()
    try:
        table = _start(build(engine, devs, step_delay=0.3))
        await until(lambda: events(engine, "device.dice-shaker.rolled"))  # seen, not yet recorded
        await asyncio.sleep(0.05)  # the conductor is pacing before it records the roll
        await crash(table)
        assert phase_of(table) == "open" and events(engine, "dice.rolled") == []
        await _resume_to_the_end(engine, devs)
        assert len(devs.shaker.model.rolls) == 1  # one shake in all
    finally:
        devs.close()
    [(_, roll)] = events(engine, "device.dice-shaker.rolled")
    [(_, dice)] = events(engine, "dice.rolled")
    assert dice["faces"] == roll["faces"] and dice["roll_id"] == f"DS3-SIM-0001:{roll['roll_id']}"
    _assert_whole(engine)


async def test_a_crash_mid_deal_keeps_the_piles_acknowledged_and_takes_the_rest_from_the_machine(engine):
    devs = devices(pile_interval=0.1)
    try:
        table = _start(build(engine, devs))
        await until(lambda: len(events(engine, "device.shuffler.pile-dealt")) >= 3)
        await crash(table)
        assert phase_of(table) == "dealing"
        journalled = len(events(engine, "device.shuffler.pile-dealt"))
        assert journalled < 7
        await asyncio.sleep(0.5)  # the machine deals on while nobody listens
        await _resume_to_the_end(engine, devs)
    finally:
        devs.close()
    piles = [p["pile"] for _, p in events(engine, "device.shuffler.pile-dealt")]
    assert piles == [1, 2, 3, 4, 5, 6, 7]  # each pile stored once, none dealt twice
    commands = [p["command"] for _, p in events(engine, "device.shuffler.command")]
    assert commands == ["status", "shuffle", "deal", "status"]  # the second run only asked the status
    [(_, dealt)] = events(engine, "piles.dealt")
    assert dealt["piles"] == [p["cards"] for _, p in events(engine, "device.shuffler.pile-dealt")]
    _assert_whole(engine)


async def test_a_shuffler_that_restarted_mid_deal_makes_the_deal_a_misdeal(engine):
    devs = devices(pile_interval=0.1)
    try:
        table = _start(build(engine, devs))
        await until(lambda: len(events(engine, "device.shuffler.pile-dealt")) >= 2)
        await crash(table)
        piles = sorted(p["pile"] for _, p in events(engine, "device.shuffler.pile-dealt"))
        devs.shuffler.restart()  # a power cycle: a new session, the rest of the deal is gone
        again = _start(build(engine, devs))
        await until(lambda: again.conductor.voided == 1)
        await crash(again)
    finally:
        devs.close()
    state = replayed(engine, "t1-1")
    assert [(d.kind, d.detail) for d in state.misdeal] == [
        (
            "deal-interrupted",
            "deal interrupted: the shuffler restarted during the deal (a new device session) "
            f"after piles {piles}",
        )
    ]
    assert events(engine, "round.settled", "t1-1") == []


@pytest.mark.parametrize("phase", ["players-setting", "dealer-setting", "settling"])
async def test_a_crash_in_a_setting_phase_resumes_there_and_settles_once(engine, phase):
    devs = devices()
    try:
        table = _start(build(engine, devs, step_delay=0.15))
        await until(lambda: phase_of(table) == phase, timeout=15)
        await crash(table)
        done = [k for k, _ in events(engine, round_id="t1-1") if k in ("player.set", "dealer.set")]
        await _resume_to_the_end(engine, devs)
    finally:
        devs.close()
    after = [k for k, _ in events(engine, round_id="t1-1") if k in ("player.set", "dealer.set")]
    assert after[: len(done)] == done  # nothing set twice, nothing lost
    assert len(after) == len(replayed(engine, "t1-1").wagers) + 1
    assert [p["command"] for _, p in events(engine, "device.shuffler.command")].count("deal") == 1
    _assert_whole(engine)
