"""Reconciliation (docs/accounting.md, "Reconciliation"): on a simulated tray, the counted win
less the computed result is the sum of the named lines when nothing is missing, and a shortage
is exactly the variance; the settled-round facts and their refusals."""

from dataclasses import replace
from datetime import date, datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table_controller.accounting.chips import Chips, ChipSet, CountKind, InventoryCount
from table_controller.accounting.drop import DropEntry, DropKind, DropSource
from table_controller.accounting.errors import (
    AccountingError,
    AmountError,
    MismatchError,
    NaiveTimeError,
    RoundFactError,
    SignatureError,
)
from table_controller.accounting.facts import BankResult, SeatResult, SettledRound
from table_controller.accounting.gaming_day import GamingDayCalendar
from table_controller.accounting.reconcile import NamedLine, computed_result, reconcile
from table_controller.accounting.slips import SlipKind, deliver, request_slip
from table_controller.accounting.win import account_table

from . import day

CALENDAR = GamingDayCalendar("UTC")
DAY = date(2026, 12, 3)
PERIOD = CALENDAR.day_period(DAY)  # 06:00 UTC to 06:00 UTC
CENT_CHIPS = ChipSet((1,))  # the simulated tray counts its value in 1-cent chips
OPENER = 10**9


@st.composite
def settled_rounds(draw, index):
    """A round of random seats and nets; the house result is minus what the seats and the
    player-banker netted (money only moves between the players and the house)."""
    seats = draw(st.lists(st.sampled_from(range(2, 8)), min_size=1, max_size=6, unique=True))
    bank = None
    if len(seats) > 1 and draw(st.booleans()):
        bank = BankResult(seats.pop(), draw(st.integers(0, 10**6)), draw(st.integers(-(10**5), 10**5)))
    results = tuple(
        SeatResult(
            s,
            main := draw(st.integers(1, 10**5)),
            bonus := draw(st.integers(0, 10**4)),
            draw(st.integers(-(main + bonus), 2 * main + 50 * bonus)),
        )
        for s in sorted(seats)
    )
    opened = PERIOD.start + timedelta(minutes=index)
    return SettledRound(
        round_id=f"r{index}",
        table_id="PG-1",
        opened_at=opened,
        settled_at=opened + timedelta(seconds=30),
        house_result=-sum(r.net for r in results) - (bank.banker_net if bank else 0),
        seats=results,
        bank=bank,
    )


@st.composite
def days(draw):
    """A table's day on a simulated tray: buy-ins (cash and markers into the drop, chips out of
    the tray), rounds (the tray moves by the house result), fills, credits and money outside the
    controller (the tray moves by each named line)."""
    rounds = [draw(settled_rounds(i)) for i in range(draw(st.integers(0, 12)))]
    buy_ins = draw(st.lists(st.tuples(st.sampled_from(DropKind), st.integers(1, 10**6)), max_size=6))
    fills = draw(st.lists(st.integers(1, 10**6), max_size=3))
    credits = draw(st.lists(st.integers(1, 10**6), max_size=3))
    lines = draw(
        st.lists(
            st.tuples(st.sampled_from(["tips", "side wager", "exchange"]), st.integers(-(10**4), 10**4)),
            max_size=4,
        )
    )
    return rounds, buy_ins, fills, credits, lines  # fmt: skip


def simulate(rounds, buy_ins, fills, credits, lines, taken=0):
    tray = OPENER
    drop = []
    for number, (kind, amount) in enumerate(buy_ins):
        tray -= amount  # the player's chips come out of the tray
        drop.append(DropEntry("PG-1", DAY, None, kind, amount, DropSource.COUNT_FILE, f"M-{number}"))
    tray += sum(r.house_result for r in rounds)
    slips = []
    for number, (kind, amounts) in enumerate(
        [(SlipKind.FILL, a) for a in fills] + [(SlipKind.CREDIT, a) for a in credits]
    ):
        tray += amounts if kind is SlipKind.FILL else -amounts
        slip = request_slip(
            kind,
            number=number + 1,
            table_id="PG-1",
            chips=Chips.of({1: amounts}),
            at=PERIOD.start,
            by="Cara",
            chip_set=CENT_CHIPS,
        )
        slips.append(deliver(slip, at=PERIOD.start + timedelta(hours=1), runner="Dan", table_signer="Ana"))
    tray += sum(amount for _, amount in lines) - taken

    def count(kind, value):
        return InventoryCount(
            kind, "PG-1", DAY, None, PERIOD.start, Chips.of({1: value}), "Ana", "Ben", CENT_CHIPS
        )

    account = account_table(
        table_id="PG-1",
        pit=None,
        period=PERIOD,
        opener=count(CountKind.OPENER, OPENER),
        closer=count(CountKind.CLOSER, tray),
        slips=slips,
        drop=drop,
    )
    named = [NamedLine(name, amount, "Ben") for name, amount in lines]
    return reconcile(account, rounds, named, period=PERIOD)  # fmt: skip


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # a loaded machine is not a failure
@given(days())
def test_counted_win_less_computed_result_is_the_named_lines_when_nothing_is_missing(a_day):
    result = simulate(*a_day)
    assert result.counted_win - result.computed_result == sum(amount for _, amount in a_day[4])
    assert result.variance == 0 and not result.flagged


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # a loaded machine is not a failure
@given(days(), st.integers(1, 10**6))
def test_chips_taken_from_the_tray_are_exactly_the_variance(a_day, taken):
    result = simulate(*a_day, taken=taken)
    assert result.variance == -taken and result.flagged


def test_the_computed_result_is_the_sum_of_house_results():
    assert computed_result(day.rounds()) == -7_000 + 16_200 - 1_700


def round_fact(**changes):
    fields = {
        "round_id": "r1",
        "table_id": "PG-1",
        "opened_at": PERIOD.start,
        "settled_at": PERIOD.start,
        "house_result": -500,
        "seats": (SeatResult(2, 1_000, 0, 1_000), SeatResult(3, 500, 0, -500)),
    }
    return SettledRound(**{**fields, **changes})


@pytest.mark.parametrize(
    ("changes", "error"),
    [
        ({"house_result": -499}, RoundFactError),  # off by a cent
        ({"house_result": -500.0}, RoundFactError),
        ({"round_id": ""}, RoundFactError),
        ({"seats": (SeatResult(2, 1_000, 0, 1_000), SeatResult(2, 500, 0, -500))}, RoundFactError),
        ({"seats": (SeatResult(1, 1_000, 0, 500),)}, RoundFactError),  # the dealer's seat
        ({"seats": (SeatResult(2, -1, 0, 500),)}, RoundFactError),
        ({"bank": BankResult(2, 100, 0)}, RoundFactError),  # the banker wagers at its own seat
        ({"bank": BankResult(4, -1, 0)}, RoundFactError),
        ({"theoretical_win": 1.5}, RoundFactError),
        ({"theoretical_variance": -1}, RoundFactError),
        ({"settled_at": PERIOD.start - timedelta(seconds=1)}, RoundFactError),
        ({"opened_at": datetime(2026, 12, 3, 12)}, NaiveTimeError),
    ],
)
def test_round_facts_that_do_not_add_up_are_refused(changes, error):
    with pytest.raises(error):
        round_fact(**changes)


def test_a_player_bank_counts_in_the_sum():
    fact = round_fact(house_result=-300, bank=BankResult(4, 10_000, -200))
    assert (fact.banker_net, fact.wagered) == (-200, 1_500)


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        (("", 100, "Ben"), AccountingError),
        (("tips", 1.5, "Ben"), AmountError),
        (("tips", 100, " "), SignatureError),
    ],
)
def test_a_bad_named_line_is_refused(fields, error):
    with pytest.raises(error):
        NamedLine(*fields)


def test_reconcile_refuses_rounds_outside_the_period_a_foreign_period_and_a_bad_threshold():
    assert simulate([], [], [], [], []).counted_win == 0  # a day with nothing in it wins nothing
    table = account_table(
        table_id=day.TABLE, pit=None, period=day.PERIOD,
        opener=day.count(CountKind.OPENER, day.OPENER_CHIPS, day.at(11)),
        closer=day.count(CountKind.CLOSER, day.CLOSER_CHIPS, day.at(11)), slips=day.slips(), drop=day.drop(),
    )  # fmt: skip
    late = replace(day.rounds()[0], round_id="late", opened_at=day.PERIOD.end, settled_at=day.PERIOD.end)
    with pytest.raises(MismatchError, match="outside the period"):
        reconcile(table, [*day.rounds(), late], period=day.PERIOD)
    with pytest.raises(MismatchError):
        reconcile(table, day.rounds(), period=day.CALENDAR.shift_period(day.DAY, "day"))
    with pytest.raises(AmountError):
        reconcile(table, day.rounds(), period=day.PERIOD, alert_above=-1)
    with pytest.raises(AccountingError):
        reconcile(table, day.rounds(), [("tips", 100)], period=day.PERIOD)  # type: ignore[list-item]
    assert reconcile(table, [], period=day.PERIOD).computed_result == 0
