"""The conductor on in-process simulators: a whole round per game, the dice, faults that stop play.

Expected values come from the rules: the first pile goes to position ((total - 1) mod 7) + 1,
counted counter-clockwise from the banker as 1 (000_f88fa0f023e5142c.txt,
004_60e2fc6346e3399b.txt); the next piles follow; the piles and the unused cards are one
complete deck (4 unused of 53, 5 unused of 54: 000, 003_4dcc2fceebc6e4af.txt); in the
standard game the players set first, in Double Joker the dealer first (003).
"""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from table_controller.game.cards import Game, codes

from .rig import alerts, build, devices, events, play, positions, round_row, running, until


def _deck(game: Game) -> Counter:
    return Counter(codes(game.deck()))


@pytest.mark.parametrize("game", list(Game))
async def test_a_whole_round_is_played_and_recorded_once(engine, game):
    devs = devices(game)
    try:
        table = build(engine, devs, game=game)
        assert await play(table, 1) == 1
    finally:
        devs.close()
    kinds = [k for k, _ in events(engine, round_id="t1-1") if not k.startswith(("device.", "alert."))]
    opened = events(engine, "round.opened")[0][1]
    players = ["player.set"] * len(opened["wagers"])
    order = [*players, "dealer.set"] if game is Game.STANDARD else ["dealer.set", *players]
    assert kinds == ["round.opened", "dice.rolled", "piles.dealt", *order, "round.settled"]

    [(_, roll)] = events(engine, "device.dice-shaker.rolled")
    [(_, dice)] = events(engine, "dice.rolled")
    assert dice["faces"] == roll["faces"] and dice["source"] == "shaker"
    assert dice["roll_id"] == f"DS3-SIM-0001:{roll['roll_id']}"

    piles = {p["pile"]: p["cards"] for _, p in events(engine, "device.shuffler.pile-dealt")}
    [(_, unused)] = events(engine, "device.shuffler.unused-cards")
    [(_, dealt)] = events(engine, "piles.dealt")
    assert dealt["piles"] == [piles[n] for n in range(1, 8)] and dealt["unused"] == unused["cards"]
    assert len(unused["cards"]) == game.unused_cards
    assert Counter(c for pile in dealt["piles"] for c in pile) + Counter(dealt["unused"]) == _deck(game)

    start = (sum(dice["faces"]) - 1) % 7 + 1
    row = round_row(engine, "t1-1")
    assert (row.start_position, row.phase, row.voided) == (start, "closed", False)
    seats = positions(engine, "t1-1")
    for pile in range(1, 8):
        position = (start - 1 + pile - 1) % 7 + 1
        if position in seats:
            assert seats[position].cards == " ".join(dealt["piles"][pile - 1])
    assert set(seats) == {1, *(int(p) for p in opened["wagers"])}
    assert row.wagered_cents == sum(w["main"] for w in opened["wagers"].values())
    assert len(events(engine, "round.settled")) == 1


async def test_the_rng_rolls_where_no_shaker_is_fitted(engine):
    devs = devices(rng_dice=True)
    try:
        table = build(engine, devs, dice={"source": "rng"})
        assert await play(table, 1) == 1
    finally:
        devs.close()
    [(_, dice)] = events(engine, "dice.rolled")
    assert dice["source"] == "rng" and dice["roll_id"] is None and dice["actor"] == "system"
    assert events(engine, "device.dice-shaker") == []


async def test_a_cocked_die_is_shaken_again_two_shakes_seen_one_roll_recorded(engine):
    devs = devices(shaker_faults=["cocked-die"])
    try:
        table = build(engine, devs)
        assert await play(table, 1) == 1
        assert [roll_id for roll_id, _ in devs.shaker.model.rolls] == [2]  # shake 1 was void
    finally:
        devs.close()
    [(_, fault)] = events(engine, "device.dice-shaker.fault")
    assert (fault["fault"], fault["roll_id"]) == ("die_cocked", 1)
    [(_, roll)] = events(engine, "device.dice-shaker.rolled")
    [(_, dice)] = events(engine, "dice.rolled")
    assert roll["roll_id"] == 2 and dice["roll_id"] == "DS3-SIM-0001:2" and dice["faces"] == roll["faces"]
    assert alerts(engine) == []  # a die fault is no table fault: nothing for the pit


def _phase(table) -> str | None:
    state = table.service.round
    return state.phase.value if state is not None else None


async def test_a_device_fault_blocks_the_next_round_until_it_clears(engine):
    devs = devices()
    try:
        table = build(engine, devs, step_delay=0.05)
        async with running(table):
            await until(lambda: _phase(table) == "players-setting")
            devs.shuffler.open_door()  # after the deal: this round goes on, the next one waits
            await until(lambda: table.conductor.settled == 1)
            await asyncio.sleep(0.4)
            assert ("shuffler", "door-open") in table.service.faults
            assert [k for k, _ in events(engine, "round.opened")] == ["round.opened"]  # play stopped
            devs.shuffler.close_door()
            await until(lambda: table.conductor.settled == 2)
    finally:
        devs.close()
    [door] = [a for a in alerts(engine) if a["alert"] == "device-fault"]
    assert (door["device"], door["fault"]) == ("shuffler", "door-open")
    # Only the door's clear is this test's: on a loaded machine the fast test link (lost after 1 s
    # of silence, rig.HOST_LINK) may also drop and come back, which is a fault of its own.
    cleared = [p for _, p in events(engine, "device.fault.cleared") if p["fault"] != "link-lost"]
    assert cleared == [{"device": "shuffler", "fault": "door-open"}]
    assert round_row(engine, "t1-2").phase == "closed"


async def test_a_lost_link_blocks_the_next_round_until_it_is_back(engine):
    devs = devices()
    try:
        table = build(engine, devs, step_delay=0.1)
        async with running(table):
            await until(lambda: _phase(table) == "players-setting")
            devs.shuffler.cut_link(2.5)  # the test link is lost after 1 s of silence (rig.HOST_LINK)
            await until(lambda: ("shuffler", "link-lost") in table.service.faults, timeout=3)
            await until(lambda: table.conductor.settled == 1)
            await asyncio.sleep(0.2)
            assert ("shuffler", "link-lost") in table.service.faults  # the cable is still out
            assert [k for k, _ in events(engine, "round.opened")] == ["round.opened"]
            await until(lambda: ("shuffler", "link-lost") not in table.service.faults, timeout=5)
            await until(lambda: table.conductor.settled == 2, timeout=10)
    finally:
        devs.close()
    [loss] = [a for a in alerts(engine) if a["alert"] == "link-loss"]
    assert (loss["device"], loss["fault"]) == ("shuffler", "link-lost")
    assert {"device": "shuffler", "fault": "link-lost"} in [
        p for _, p in events(engine, "device.fault.cleared")
    ]
