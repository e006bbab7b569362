"""The Fortune Bonus, its Envy Bonus and the progressive wager at the table: wagers carried by
the round, locked at the deal, settled from the card read, projected, chained and re-derived
by ``audit verify`` (docs/progressive.md, "At the table"). Every expected amount is worked out
by hand from pay table A (config/paytables/fortune-a.toml, progressive-research.md §1.2)."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import text

from table_controller.game.cards import parse_cards
from table_controller.record.check import check_record
from table_controller.round.events import DiceRolled, PilesDealt, Wager
from table_controller.round.machine import TransitionRefused, WagersLocked
from table_controller.settings import TableSettings
from table_controller.storage import list_events
from table_controller.storage.session import read_snapshot
from table_controller.table.service import TableRefused, TableService

from .round.tables import deal

# Seven cards per position, each Fortune line checked by fortune_hand in
# tests/game/test_side_wagers.py; the dealer (position 1, the house banks) holds four nines.
HANDS = {
    1: "9c 9d 9h 9s 2c 3d 4h",  # four of a kind: the dealer's hand never pays envy
    3: "Kc Kd Kh Ks 2d 5h 7c",  # four of a kind: 25 to 1, envy $5 to the others
    4: "4s 5s 6s 7s 8s Qd 2h",  # straight flush: 50 to 1, envy $20 to the others
    5: "Ac Jd 8h 7h 3c Qs 2s",  # nothing
    6: "Ah Qc Jh 7d 5d 3h 4c",  # nothing
    7: "Tc Td Th Ts Js 8d 5c",  # four of a kind, no side wager: still pays envy (§1.8 q3)
}
WAGERS = {
    3: Wager(main=1000, fortune=500),  # $5: envy-eligible
    4: Wager(main=1000, fortune=1000),  # $10: eligible
    5: Wager(main=1000, fortune=500),  # $5: eligible
    6: Wager(main=1000, fortune=100),  # $1: below the $5 minimum, no envy
    7: Wager(main=1000),
}


def fortune_settings(**more) -> TableSettings:
    return TableSettings(table_id="t1", fortune={"enabled": True}, **more)


def play(service: TableService, hands: dict[int, str] = HANDS, start: int = 3):
    service.record_dice(DiceRolled(faces=(1, 1, 1), source="rng"))  # 3: the first pile to position 3
    piles, unused = deal(hands, start=start)
    state = service.record_deal(PilesDealt(piles=piles, unused=unused))
    rules = service.round_rules
    for position in sorted(state.wagers):
        setting = rules.house_way_setting(state.hands[position])
        service.set_player(
            position, [c.code for c in setting.high], [c.code for c in setting.low], actor="dealer-ann"
        )
    required = service.round.required.setting
    service.set_dealer([c.code for c in required.high], [c.code for c in required.low], actor="dealer-ann")
    return service.settle()


def _check(engine):
    with read_snapshot(engine) as session:
        return check_record(session)


def test_envy_pays_every_other_eligible_position_once_per_qualifying_hand_and_never_for_the_dealer(engine):
    service = TableService(fortune_settings(), engine)
    service.open_round(WAGERS, actor="dealer-ann")
    state = play(service)
    side = state.result.side
    assert side is not None
    assert dict(side.qualifying) == {3: "four-of-a-kind", 4: "straight-flush", 7: "four-of-a-kind"}
    by = {p.position: p for p in side.positions}
    assert sorted(by) == [3, 4, 5, 6]
    # 3: $5 x 25 = $125; envy from 4 ($20) and 7 ($5), never from the dealer's four nines
    assert (by[3].fortune_net, [(e.from_position, e.amount) for e in by[3].envy]) == (
        12_500,
        [(4, 2000), (7, 500)],
    )
    # 4: $10 x 50 = $500; envy from 3 and 7, $5 each
    assert (by[4].fortune_net, by[4].envy_total) == (50_000, 1000)
    # 5: loses its $5; envy from 3, 4 and 7: $5 + $20 + $5
    assert (by[5].fortune_net, by[5].envy_total, by[5].net) == (-500, 3000, 2500)
    # 6: a $1 wager is below the minimum: it loses and is paid no envy
    assert (by[6].fortune_net, by[6].envy_eligible, by[6].envy) == (-100, False, ())
    totals = state.result.totals()
    assert totals["side_wagered"] == 2100
    assert totals["side_paid"] == 12_500 + 2_500 + 50_000 + 1_000 + 3_000
    assert totals["side_collected"] == 600
    assert totals["side_house_result"] == -68_400
    # the base game's house result is apart (the band compares it with the base game's math)
    assert totals["house_result"] == -sum(p.net for p in state.result.positions)

    with engine.connect() as connection:
        row = connection.execute(
            text("SELECT side_wagered_cents, side_paid_cents, side_house_result_cents FROM rounds")
        ).one()
        seats = {
            p: (f, w, n, e)
            for p, f, w, n, e in connection.execute(
                text(
                    "SELECT position, fortune_cents, progressive_cents, fortune_net_cents, envy_cents"
                    " FROM round_positions ORDER BY position"
                )
            )
        }
    assert tuple(row) == (2100, 69_000, -68_400)
    assert seats[3] == (500, 0, 12_500, 2_500) and seats[5] == (500, 0, -500, 3_000)
    assert seats[7] == (0, 0, 0, 0) and seats[1] == (0, 0, 0, 0)
    with read_snapshot(engine) as session:
        settled = [
            json.loads(e.payload) for e in list_events(session, table_id="t1") if e.kind == "round.settled"
        ]
    assert settled[0]["result"]["side"]["totals"]["side_paid"] == 69_000  # in the chain
    report = _check(engine)
    assert report.ok, report.describe()


def test_a_player_bankers_hand_pays_envy_unless_the_table_says_otherwise():
    from table_controller.game.side_wagers import SideRules, settle_side
    from table_controller.record.pinned_rules import side_files
    from table_controller.settings import FortuneSettings

    files = side_files(fortune=FortuneSettings(enabled=True).file, progressive=None)
    hands = {p: parse_cards(h.split()) for p, h in HANDS.items()}
    wagers = {5: (500, 0)}
    # seat 3 banks: position 1 is the player-banker's four nines; the dealer's cards sit at 7
    counted = settle_side(files.rules, hands, wagers, dealer_position=7, player_banker_position=1)
    assert [e.from_position for e in counted.positions[0].envy] == [1, 3, 4]  # the dealer's (7) left out
    not_counted = settle_side(
        SideRules(
            fortune_data=files.rules.fortune_data,
            envy=type(files.rules.envy)(player_banker_hand_qualifies=False),
        ),
        hands,
        wagers,
        dealer_position=7,
        player_banker_position=1,
    )
    assert [e.from_position for e in not_counted.positions[0].envy] == [3, 4]
    assert not_counted.positions[0].net == -500 + 500 + 2000


def test_a_side_wager_before_the_deal_counts_and_one_after_the_lock_is_refused_and_alerted(engine):
    service = TableService(fortune_settings(), engine)
    service.open_round({3: Wager(main=1000), 5: Wager(main=1000)}, actor="dealer-ann")
    service.place_side_wager(3, fortune=500, progressive=0, actor="dealer-ann")
    assert service.round.wagers[3].fortune == 500
    service.record_dice(DiceRolled(faces=(1, 1, 1), source="rng"))
    with pytest.raises(WagersLocked, match="locked when the deal started"):
        service.place_side_wager(5, fortune=2500, progressive=0, actor="sensor-5")
    assert 5 not in {p for p, w in service.round.wagers.items() if w.fortune}
    with read_snapshot(engine) as session:
        events = list_events(session, table_id="t1")
    kinds = [e.kind for e in events]
    assert kinds == ["round.opened", "wager.side", "dice.rolled", "round.refused", "alert.raised"]
    alert = json.loads(events[-1].payload)
    assert (alert["alert"], alert["position"], alert["fortune_cents"]) == ("side-wager-after-lock", 5, 2500)
    with engine.connect() as connection:
        assert connection.execute(text("SELECT side_wagered_cents FROM rounds")).scalar_one() == 500
    assert _check(engine).ok


def test_side_wagers_the_table_does_not_take_are_refused_and_nothing_is_stored(engine):
    plain = TableService(TableSettings(table_id="t1"), engine)
    with pytest.raises(TableRefused, match="offers no side wagers"):
        plain.open_round({3: Wager(main=1000, fortune=500)}, actor="dealer-ann")
    service = TableService(fortune_settings(), engine)
    with pytest.raises(TableRefused, match="above the limit 30000"):
        service.open_round({3: Wager(main=1000, fortune=30_001)}, actor="dealer-ann")
    with pytest.raises(TableRefused, match="offers no progressive wager"):
        service.open_round({3: Wager(main=1000, progressive=100)}, actor="dealer-ann")
    with read_snapshot(engine) as session:
        assert list_events(session, table_id="t1") == []
    service.open_round({3: Wager(main=1000)}, actor="dealer-ann")
    with pytest.raises(TransitionRefused, match="no main wager"):
        service.place_side_wager(4, fortune=500, progressive=0, actor="dealer-ann")


def test_a_round_without_side_wagers_records_what_it_always_did(engine):
    service = TableService(fortune_settings(), engine)
    service.open_round({3: Wager(main=1000), 7: Wager(main=1000)}, actor="dealer-ann")
    state = play(service, {1: HANDS[1], 3: HANDS[3], 7: HANDS[7]})
    assert state.result.side is None and "side" not in state.result.as_dict()
    assert "side_paid" not in state.result.totals()
    with read_snapshot(engine) as session:
        opened = json.loads(list_events(session, table_id="t1")[0].payload)
    assert opened["wagers"]["3"] == {"main": 1000, "big_hand": 0, "joker_bonus": 0}


@pytest.mark.parametrize(
    ("column", "forged"), [("side_paid_cents", 1), ("side_house_result_cents", 0), ("side_wagered_cents", 99)]
)
def test_forged_side_money_in_the_projection_is_named_by_verify(engine, column, forged):
    service = TableService(fortune_settings(), engine)
    service.open_round(WAGERS, actor="dealer-ann")
    play(service)
    with engine.begin() as connection:
        connection.execute(text(f"UPDATE rounds SET {column} = {forged}"))
        connection.execute(text("UPDATE round_positions SET envy_cents = 1 WHERE position = 5"))
    lines = _check(engine).describe().splitlines()
    assert any(line.strip().startswith(f"round t1-1: {column}: chained ") for line in lines), lines
    assert any(
        line.strip() == "round t1-1 position 5: envy_cents: chained 3000, stored 1" for line in lines
    ), lines
