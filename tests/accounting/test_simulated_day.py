"""The worked day of tests/accounting/day.py: win, hold and a zero variance; chips taken from
the tray show as a flagged variance of exactly the amount taken (docs/accounting.md)."""

from dataclasses import replace
from decimal import Decimal

import pytest

from table_controller.accounting.chips import Chips, CountKind
from table_controller.accounting.reconcile import NamedLine, reconcile
from table_controller.accounting.win import account_table, theory_of

from . import day


def account(closer_chips=day.CLOSER_CHIPS):
    return account_table(
        table_id=day.TABLE,
        pit="Pit 1",
        period=day.PERIOD,
        opener=day.count(CountKind.OPENER, day.OPENER_CHIPS, day.at(11)),
        closer=day.count(CountKind.CLOSER, closer_chips, day.at(10, 59, day=4)),
        slips=day.slips(),
        drop=day.drop(),
    )


def test_the_rounds_are_what_the_game_core_settled():
    assert [r.house_result for r in day.rounds()] == [-7_000, 16_200, -1_700]
    c = day.rounds()[2]
    assert [(s.seat, s.main_wager, s.net) for s in c.seats] == [
        (2, 4_000, -4_000),
        (4, 2_500, 2_375),
        (7, 1_000, 0),
    ]
    assert (c.bank.seat, c.bank.banker_net) == (3, 3_325)


def test_the_day_wins_what_its_rounds_won_and_holds_five_percent():
    table = account()
    assert (table.opener, table.closer) == (1_110_000, 867_500)
    assert (table.fills, table.credits, table.fill_slips, table.credit_slips) == (
        100_000,
        200_000,
        (101,),
        (102,),
    )
    assert (table.drop.cash, table.drop.markers, table.drop.total) == (50_000, 100_000, 150_000)
    assert table.win == 7_500
    assert table.hold_percent == Decimal("5.00")
    result = reconcile(table, day.rounds(), period=day.PERIOD)
    assert (result.counted_win, result.computed_result, result.variance, result.flagged) == (
        7_500,
        7_500,
        0,
        False,
    )
    assert result.rounds == ("r-a", "r-b", "r-c")


def test_chips_taken_from_the_tray_are_the_variance_and_are_flagged():
    # a $100 chip taken: the closer counts $100 x 29, the win is 7,500 - 10,000 = -2,500
    short = account(Chips.of({100: 85, 500: 118, 2500: 200, 10000: 29}))
    assert (short.win, short.hold_percent) == (-2_500, Decimal("-1.67"))  # -2,500 / 150,000 = -1.666..%
    result = reconcile(short, day.rounds(), period=day.PERIOD, alert_above=2_500)
    assert (result.variance, result.flagged) == (-10_000, True)
    # a tolerance of exactly the amount does not flag: the alert is for a variance above it
    assert not reconcile(short, day.rounds(), period=day.PERIOD, alert_above=10_000).flagged


def test_money_known_to_be_outside_the_controller_is_entered_as_named_lines():
    # a player lost a $15 side wager the controller does not track: the tray holds $15 more;
    # the dealer was given $5 of the tray's chips as tips: $5 less. Closer: $8,675 + $10
    closer = Chips.of({100: 95, 500: 118, 2500: 200, 10000: 30})
    table = account(closer)
    assert table.win == 8_500
    lines = [NamedLine("untracked side wager", 1_500, "Ben"), NamedLine("tips", -500, "Ben")]
    result = reconcile(table, day.rounds(), lines, period=day.PERIOD)
    assert (result.explained, result.variance, result.flagged) == (1_000, 0, False)
    assert reconcile(table, day.rounds(), period=day.PERIOD).variance == 1_000


def test_the_theoretical_and_its_band_beside_the_hold():
    # rounds A and B carry 250 + 180 = 430 cents, variance 1,000,000 + 3,000,000: sqrt = 2,000,
    # x 1.96 = 3,920: band [-3,490, 4,350] around their actual -7,000 + 16,200 = 9,200: outside
    theory = theory_of(day.rounds(), drop=150_000)
    band = theory.band
    assert (band.rounds, band.actual_cents, band.theoretical_cents) == (2, 9_200, 430)
    assert (band.low_cents, band.high_cents, band.outside) == (-3_490, 4_350, True)
    assert theory.theoretical_win == 430
    assert theory.theoretical_hold_percent == Decimal("0.29")  # 430 / 150,000 = 0.2866..%
    none = theory_of([replace(r, theoretical_win=None) for r in day.rounds()], drop=150_000)
    assert (none.band, none.theoretical_win, none.theoretical_hold_percent) == (None, None, None)
    assert theory_of(day.rounds(), drop=0).theoretical_hold_percent is None


def test_a_shift_account_takes_the_slips_delivered_in_that_shift():
    swing = day.CALENDAR.shift_period(day.DAY, "swing")  # 14:00-22:00 EST = 19:00-03:00 UTC
    table = account_table(
        table_id=day.TABLE,
        pit="Pit 1",
        period=swing,
        opener=day.count(CountKind.OPENER, day.OPENER_CHIPS, day.at(19), "swing"),
        closer=day.count(CountKind.CLOSER, day.CLOSER_CHIPS, day.at(3, day=4), "swing"),
        slips=day.slips(),
        drop=day.drop(),  # both entries are of the whole day: none is the swing shift's
    )
    assert (table.fills, table.credits, table.drop.total) == (100_000, 200_000, 0)
    assert table.hold_percent is None


@pytest.mark.parametrize("rounds_of", [lambda rs: rs + rs[:1], lambda rs: [replace(rs[0], table_id="PG-2")]])
def test_rounds_given_twice_or_of_another_table_are_refused(rounds_of):
    from table_controller.accounting.errors import DuplicateError, MismatchError

    with pytest.raises((DuplicateError, MismatchError)):
        reconcile(account(), rounds_of(day.rounds()), period=day.PERIOD)


def test_a_co_banked_round_keeps_the_houses_share_in_its_result():
    # tests/game/test_banking.py: seat 3 co-banks 50/50, the bank nets $33.25: the player $16.62,
    # the house $16.63; the house: $3.00 commission - $20 on its hand + $16.63 = -$0.37
    from table_controller.accounting.facts import settled_round
    from table_controller.game.banking import Bank
    from table_controller.game.settlement import settle_round
    from table_controller.game.table_rules import TableRules

    settlement = settle_round(
        TableRules(),
        day.BANKER,
        [day._wins(2, 2_500), day._pushes(5, 1_000), day._loses(7, 4_000)],
        bank=Bank(seat=3, amount=10_000, house_wager=2_000, house_share_bp=5_000),
        house_hand=day._hand(6, "7h 7d Qs 6d 5s", "Jd 2d", 2_000),
    )
    fact = settled_round(
        settlement, round_id="r-co", table_id=day.TABLE, opened_at=day.at(16), settled_at=day.at(16)
    )
    assert (fact.house_result, fact.banker_net) == (-37, 1_662)
    assert sum(s.net for s in fact.seats) == 2_375 + 0 - 4_000
