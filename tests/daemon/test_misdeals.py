"""Every misdeal the shuffler simulator can produce ends the round VOID with the exact discrepancy
and an alert; nothing is settled, the wagers are returned (docs/round-lifecycle.md, "The phases";
000_f88fa0f023e5142c.txt:
seven piles of seven and the unused cards are one whole deck). Scenarios: simulators/faults.py,
docs/protocols/shuffler.md section 9."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from table_controller.game.cards import Game, codes

from .rig import alerts, build, devices, events, replayed, round_row, running, until

DECK = Counter(codes(Game.STANDARD.deck()))


def _seen(engine) -> tuple[list[list[str | None]], list[str | None]]:
    piles = [p["cards"] for _, p in events(engine, "device.shuffler.pile-dealt")]
    unused = [p["cards"] for _, p in events(engine, "device.shuffler.unused-cards")]
    return piles, (unused[0] if unused else [])


async def _first_round_void(engine, faults: list[str]):
    devs = devices(shuffler_faults=faults)
    try:
        table = build(engine, devs)
        async with running(table):
            await until(lambda: table.conductor.voided == 1)
    finally:
        devs.close()
    return replayed(engine, "t1-1"), devs


def _not_seen(engine) -> list[str]:
    piles, unused = _seen(engine)
    seen = Counter(c for c in [*(c for pile in piles for c in pile), *unused] if c is not None)
    return sorted((DECK - seen).elements())


def _assert_void_nothing_settled(engine, state, discrepancies: list[tuple[str, str]]):
    assert state.phase.value == "void"
    assert [(d.kind, d.detail) for d in state.misdeal] == discrepancies
    row = round_row(engine, "t1-1")
    assert (row.phase, row.voided, row.misdeal, row.commission_cents, row.house_result_cents) == (
        "void",
        True,
        True,
        0,
        0,
    )
    assert row.void_reason == "misdeal: " + "; ".join(detail for _, detail in discrepancies)
    assert events(engine, "round.settled") == []
    [alert] = [a for a in alerts(engine, "t1-1") if a["alert"] == "misdeal"]
    assert alert["discrepancies"] == [kind for kind, _ in discrepancies]
    assert alert["detail"] == "; ".join(detail for _, detail in discrepancies)


async def test_duplicated_card_two_kd_in_pile_5_and_no_2c(engine):
    state, _ = await _first_round_void(engine, ["duplicated-card"])
    _assert_void_nothing_settled(
        engine,
        state,
        [
            ("duplicate-card", "Kd appears 2 times (pile 5)"),
            ("missing-card", "missing 2c"),
        ],
    )


async def test_missing_card_pile_4_comes_out_one_short(engine):
    state, _ = await _first_round_void(engine, ["missing-card"])
    [stuck] = _not_seen(engine)  # the card that stayed inside the machine
    _assert_void_nothing_settled(
        engine,
        state,
        [
            ("pile-size", "pile 4 has 6 cards, expected 7"),
            ("missing-card", f"missing {stuck}"),
        ],
    )


async def test_wrong_joker_count_a_second_joker_in_place_of_the_3d(engine):
    state, _ = await _first_round_void(engine, ["wrong-joker-count"])
    _assert_void_nothing_settled(
        engine,
        state,
        [
            ("joker-count", "2 jokers, the standard deck has 1"),
            ("missing-card", "missing 3d"),
        ],
    )


async def test_unreadable_card_pile_2_position_4_is_never_guessed(engine):
    state, _ = await _first_round_void(engine, ["unreadable-card"])
    [unread] = _not_seen(engine)
    _assert_void_nothing_settled(
        engine,
        state,
        [
            ("unreadable-card", "card 4 of pile 2 could not be read"),
            ("missing-card", f"missing {unread}"),
        ],
    )
    [(_, dealt)] = events(engine, "piles.dealt")
    assert dealt["piles"][1][3] == "??" and dealt["interrupted"] is None
    [(_, fault)] = events(engine, "device.shuffler.fault")
    assert (fault["fault"], fault["pile"], fault["position"]) == ("card-unreadable", 2, 4)
    assert [a["alert"] for a in alerts(engine)] == ["misdeal"]  # an unreadable card is no standing fault


@pytest.mark.parametrize(("fault", "piles", "reason"), [("jam", 3, "jam"), ("door-open", 2, "door-open")])
async def test_a_deal_aborted_mid_deal_is_a_misdeal_with_the_device_reason(engine, fault, piles, reason):
    state, _devs = await _first_round_void(engine, [fault])
    _assert_void_nothing_settled(
        engine,
        state,
        [
            ("deal-interrupted", f"the shuffler aborted the deal after {piles} piles: {reason}"),
        ],
    )
    [(_, dealt)] = events(engine, "piles.dealt")
    assert len(dealt["piles"]) == piles and dealt["unused"] == []
    assert dealt["interrupted"] == f"the shuffler aborted the deal after {piles} piles: {reason}"
    assert [(a["alert"], a.get("fault")) for a in alerts(engine)] == [
        ("device-fault", reason),
        ("misdeal", None),
    ]
    assert [k for k, _ in events(engine, "round.opened")] == ["round.opened"]  # the fault stops play


async def test_the_standing_fault_after_a_jam_blocks_play_until_the_operator_clears_it(engine):
    devs = devices(shuffler_faults=["jam"])
    try:
        table = build(engine, devs)
        async with running(table):
            await until(lambda: table.conductor.voided == 1)
            assert table.conductor.settled == 0 and ("shuffler", "jam") in table.service.faults
            devs.shuffler.clear_jam()
            await until(lambda: table.conductor.settled == 1)
    finally:
        devs.close()
    assert [round_row(engine, f"t1-{n}").phase for n in (1, 2)] == ["void", "closed"]


async def test_a_deck_with_a_wrong_card_count_holds_the_deal_until_a_full_deck_is_loaded(engine):
    devs = devices(shuffler_faults=["wrong-card-count"])
    try:
        table = build(engine, devs)
        async with running(table):
            await until(lambda: ("shuffler", "wrong-card-count") in table.service.faults)
            state = table.service.round
            assert state.phase.value == "dealing"  # the round waits: no cards were dealt
            devs.shuffler.load_deck()
            await until(lambda: table.conductor.settled == 1)
    finally:
        devs.close()
    assert round_row(engine, "t1-1").phase == "closed"
    [fault] = [a for a in alerts(engine) if a["alert"] == "device-fault"]
    assert (fault["fault"], fault["detail"]) == (
        "wrong-card-count",
        "shuffler: wrong-card-count counted=52 expected=53",
    )
    assert {"device": "shuffler", "fault": "wrong-card-count"} in [
        p for _, p in events(engine, "device.fault.cleared")
    ]


async def test_no_round_opens_while_no_deck_is_loaded(engine):
    devs = devices(shuffler_faults=["deck-not-present"])
    try:
        table = build(engine, devs)
        async with running(table):
            await until(lambda: ("shuffler", "deck-not-present") in table.service.faults)
            await asyncio.sleep(0.3)
            assert events(engine, "round.opened") == []
            devs.shuffler.load_deck()
            await until(lambda: table.conductor.settled == 1)
    finally:
        devs.close()


async def test_a_link_cut_mid_deal_loses_no_pile(engine):
    devs = devices(shuffler_faults=["link-cut"])
    try:
        table = build(engine, devs)
        async with running(table):
            await until(lambda: table.conductor.settled == 1, timeout=10)
    finally:
        devs.close()
    piles = [p["pile"] for _, p in events(engine, "device.shuffler.pile-dealt")]
    assert piles == [1, 2, 3, 4, 5, 6, 7]  # each exactly once, in order, across the cut
    assert round_row(engine, "t1-1").phase == "closed"
