"""A dealer's setting that deviates from the house way is refused with the required setting and
the rule id, and stands only by a pit supervisor's override with a reason
(docs/round-lifecycle.md, "The phases").
Here the dealer terminal is the test itself, calling TableService while the conductor runs."""

from __future__ import annotations

import pytest

from table_controller.game.cards import codes, parse_cards
from table_controller.game.house_way import load_house_way
from table_controller.game.setting import legal_settings, same_values
from table_controller.round.events import Wager
from table_controller.round.machine import HouseWayDeviation

from .rig import alerts, build, devices, events, phase_of, positions, round_row, running, until

WAY = load_house_way("house-way-002")


async def test_a_mis_set_is_refused_then_overridden_by_the_pit_and_everything_is_recorded(engine):
    devs = devices()
    try:
        table = build(engine, devs, auto=False)  # no auto-dealer: settings come from "terminals"
        service = table.service
        async with running(table):
            await until(lambda: service.faults == {} and table.conductor.shuffler.state is not None)
            service.open_round({3: Wager(main=2500), 5: Wager(main=1000)}, actor="dealer-ann")
            await until(lambda: phase_of(table) == "players-setting")
            for position in (3, 5):
                setting = WAY.set(service.round.hands[position]).setting
                service.set_player(position, codes(setting.high), codes(setting.low), actor="dealer-ann")
            assert phase_of(table) == "dealer-setting"
            state = service.round
            required = state.required
            wrong = next(s for s in legal_settings(state.hands[1]) if not same_values(s, required.setting))
            high, low = codes(wrong.high), codes(wrong.low)
            with pytest.raises(HouseWayDeviation) as refused:
                service.set_dealer(high, low, actor="dealer-ann")
            assert f"rule {required.rule_id} requires" in str(refused.value)
            assert phase_of(table) == "dealer-setting"  # the refusal changed nothing
            service.override_dealer(
                high, low, actor="pit-bob", reason="dealer misread the hand; let it stand"
            )
            await until(lambda: table.conductor.settled == 1)
    finally:
        devs.close()

    [(_, noted)] = events(engine, "round.refused")
    assert noted["event"]["kind"] == "dealer.set" and noted["phase"] == "dealer-setting"
    deviation, override = [a for a in alerts(engine) if a["alert"] in ("house-way-deviation", "override")]
    assert deviation["rule"] == required.rule_id
    assert deviation["required"] == {"high": codes(required.setting.high), "low": codes(required.setting.low)}
    assert deviation["proposed"] == {"high": high, "low": low}
    assert (
        override["detail"] == "pit-bob let the dealer's setting stand: dealer misread the hand; let it stand"
    )
    [(_, stood)] = events(engine, "dealer.override")
    assert (stood["actor"], stood["reason"], stood["high"], stood["low"]) == (
        "pit-bob",
        "dealer misread the hand; let it stand",
        high,
        low,
    )
    assert events(engine, "dealer.set") == []
    row, banker = round_row(engine, "t1-1"), positions(engine, "t1-1")[1]
    assert (row.phase, row.override, banker.override) == ("closed", True, True)
    assert parse_cards(banker.high) == parse_cards(" ".join(high)) and banker.low == " ".join(low)
