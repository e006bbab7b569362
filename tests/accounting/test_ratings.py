"""Ratings (docs/accounting.md, "Ratings"): the worked day's ratings by hand, the seat's phases
and their refusals, the idle time, adjustments, the theoretical's split, and the identity that
a rating's totals are the sums of its rounds."""

import contextlib
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table_controller.accounting.errors import AdjustmentError, NaiveTimeError, RatingError
from table_controller.accounting.facts import BankResult, SeatResult, SettledRound
from table_controller.accounting.ratings import (
    TRANSITIONS,
    AdjustableField,
    BuyIn,
    BuyInKind,
    EndReason,
    RatingBuilder,
    SeatLeft,
    SeatPhase,
    SeatTaken,
    TableClosed,
    adjust,
    apportion,
    build_ratings,
)

from . import day


def worked_day_events():
    a, b, c = day.rounds()
    return [
        SeatTaken(day.at(14), 2, "P100"),
        BuyIn(day.at(14, 5), 2, BuyInKind.CASH, 50_000),
        SeatTaken(day.at(14, 10), 3, "P300"),
        SeatTaken(day.at(14, 11), 7, "P700"),
        BuyIn(day.at(14, 12), 7, BuyInKind.MARKER, 100_000),
        SeatTaken(day.at(14, 15), 5, None),
        BuyIn(day.at(14, 16), 5, BuyInKind.CHIPS, 20_000),
        a,
        b,
        c,
        SeatLeft(day.at(17), 2),
        SeatTaken(day.at(17, 30), 6, "P300"),
        TableClosed(day.at(18)),
    ]


def test_the_worked_days_ratings():
    built = build_ratings(day.TABLE, worked_day_events(), idle_after=timedelta(hours=2))
    assert built.open == ()
    p100, p300, p300_again, p700 = built.closed
    # P100 at seat 2: A $100 (+$95), B $40 (+$38), C $40 (-$40): 3 rounds, $180, the house -$93;
    # theoretical: A's 250 split by wagers 10,000 : 5,000 : 2,500 -> 142, 71, 35 and the two cents
    # left to the largest remainders (seats 2 and 7): 143, 71, 36; B's 180 by 4,000 : 20,000 -> 30, 150
    assert (p100.player, p100.seat, p100.start, p100.end, p100.end_reason) == (
        "P100", 2, day.at(14), day.at(17), EndReason.LEFT,
    )  # fmt: skip
    assert (p100.rounds, p100.main_wagered, p100.bonus_wagered, p100.average_wager) == (3, 18_000, 0, 6_000)
    assert (p100.actual_win, p100.theoretical_win, p100.theoretical_rounds) == (-9_300, 173, 2)
    assert (p100.buy_in_cash, p100.buy_in_chips, p100.buy_in_markers) == (50_000, 0, 0)
    assert (p100.seconds_played, p100.round_ids) == (3 * 3600, ("r-a", "r-b", "r-c"))
    # P300 banked round C from seat 3 (+$33.25 to the banker), then moved to seat 6
    assert (p300.seat, p300.end, p300.end_reason, p300.rounds, p300.average_wager) == (
        3, day.at(17, 30), EndReason.SEAT_CHANGE, 0, None,
    )  # fmt: skip
    assert (p300.banks, p300.bank_actual_win, p300.actual_win, p300.round_ids) == (1, -3_325, 0, ("r-c",))
    assert (p300_again.seat, p300_again.start, p300_again.end_reason) == (
        6,
        day.at(17, 30),
        EndReason.TABLE_CLOSED,
    )
    # P700 at seat 7: A $25 (-$25), B $200 (-$200), C $10 (push): the house +$225
    assert (p700.rounds, p700.main_wagered, p700.actual_win, p700.theoretical_win) == (3, 23_500, 22_500, 186)
    assert (p700.buy_in_markers, p700.end, p700.end_reason) == (100_000, day.at(18), EndReason.TABLE_CLOSED)
    # the anonymous player at seat 5 and the wager at seat 4 (nobody sat there) are not rated
    assert {r.seat for r in built.closed} == {2, 3, 6, 7}


def test_an_idle_rating_ends_at_its_last_activity_and_the_next_round_starts_another():
    a, b, _ = day.rounds()
    builder = RatingBuilder(day.TABLE, idle_after=timedelta(minutes=20))
    assert builder.feed(SeatTaken(day.at(14, 50), 2, "P100")) == ()
    assert builder.feed(a) == ()  # settled 15:02
    closed = builder.feed(b)  # settled 15:31: 29 minutes after A
    assert [(r.end, r.end_reason, r.rounds) for r in closed] == [(day.at(15, 2), EndReason.IDLE, 1)]
    (reopened,) = builder.open_ratings()
    assert (reopened.start, reopened.round_ids, builder.phase(2)) == (
        day.at(15, 31),
        ("r-b",),
        SeatPhase.RATED,
    )
    assert builder.idle_until(day.at(16)) != ()
    assert builder.phase(2) is SeatPhase.IDLE
    assert builder.feed(SeatLeft(day.at(16, 1), 2)) == ()  # the idle player leaves: nothing more to close
    assert builder.phase(2) is SeatPhase.EMPTY


def test_a_seat_that_sits_out_the_idle_rounds_ends_at_its_last_activity():
    """Idle by rounds (2): seat 5 plays A and sits out B and C, so its rating ends at A's
    settlement after C; seat 4, seated before A, sits out A and B and ends at its sitting, with no
    round, after B; seat 2 plays all three and stays rated."""
    a, b, c = day.rounds()
    builder = RatingBuilder(day.TABLE, idle_after=timedelta(hours=5), idle_rounds=2)
    for seat, player in ((2, "P2"), (4, "P4"), (5, "P5")):
        builder.feed(SeatTaken(day.at(14), seat, player))
    assert builder.feed(a) == ()
    after_b = builder.feed(b)
    assert [(r.seat, r.end, r.end_reason, r.rounds) for r in after_b] == [(4, day.at(14), EndReason.IDLE, 0)]
    after_c = builder.feed(c)
    assert [(r.seat, r.end, r.rounds) for r in after_c] == [(5, a.settled_at, 1)]
    # seat 4's player, still seated, wagers in C: a new rating from C's settlement
    assert [(r.seat, r.start, r.rounds) for r in builder.open_ratings()] == [
        (2, day.at(14), 3),
        (4, c.settled_at, 1),
    ]


def test_an_idle_seat_resumed_opens_a_rating_at_its_next_round():
    _, b, c = day.rounds()
    builder = RatingBuilder(day.TABLE)
    builder.resume_idle(4, "P4", b.settled_at)
    assert builder.phase(4) is SeatPhase.IDLE and builder.open_ratings() == ()
    builder.feed(c)  # seat 4 wagers $25 in C
    assert [(r.player, r.start, r.round_ids) for r in builder.open_ratings()] == [
        ("P4", c.settled_at, ("r-c",))
    ]
    with pytest.raises(RatingError, match="taken"):
        builder.resume_idle(4, "P4", c.settled_at)
    with pytest.raises(RatingError, match="before"):
        builder.resume_idle(5, "P5", b.settled_at)


def test_exactly_the_idle_time_is_not_idle():
    builder = RatingBuilder("PG-1", idle_after=timedelta(minutes=30))
    builder.feed(SeatTaken(day.at(14), 2, "P1"))
    assert builder.idle_until(day.at(14, 30)) == ()
    assert len(builder.idle_until(day.at(14, 30) + timedelta(microseconds=1))) == 1


def test_a_card_put_in_on_an_anonymous_seat_starts_a_rating():
    builder = RatingBuilder("PG-1")
    builder.feed(SeatTaken(day.at(14), 4, None))
    assert builder.phase(4) is SeatPhase.ANONYMOUS and builder.open_ratings() == ()
    builder.feed(SeatTaken(day.at(14, 5), 4, "P4"))
    assert [(r.player, r.start) for r in builder.open_ratings()] == [("P4", day.at(14, 5))]


def test_a_buy_in_on_an_idle_seat_starts_a_new_rating():
    builder = RatingBuilder("PG-1", idle_after=timedelta(minutes=1))
    builder.feed(SeatTaken(day.at(14), 2, "P1"))
    closed = builder.feed(BuyIn(day.at(15), 2, BuyInKind.CASH, 1_000))
    assert [r.end_reason for r in closed] == [EndReason.IDLE]
    assert [(r.start, r.buy_in_cash) for r in builder.open_ratings()] == [(day.at(15), 1_000)]


@pytest.mark.parametrize(
    ("events", "match"),
    [
        ([SeatTaken(day.at(14), 2, "P1"), SeatTaken(day.at(14, 1), 2, "P2")], "taken"),
        ([SeatTaken(day.at(14), 2, None), SeatTaken(day.at(14, 1), 2, None)], "taken"),
        ([SeatLeft(day.at(14), 2)], "empty"),
        ([SeatTaken(day.at(14), 2, "P1"), SeatLeft(day.at(13), 2)], "before"),
        ([day.rounds()[0], day.rounds()[0]], "twice"),
        ([replace(day.rounds()[0], table_id="PG-9")], "table"),
        (["sit"], "not a seat event"),
    ],
)
def test_a_move_the_seat_does_not_allow_is_refused_and_changes_nothing(events, match):
    builder = RatingBuilder("PG-1")
    *first, last = events
    for event in first:
        builder.feed(event)
    before = (builder.open_ratings(), [builder.phase(s) for s in range(2, 8)])
    with pytest.raises(RatingError, match=match):
        builder.feed(last)
    assert (builder.open_ratings(), [builder.phase(s) for s in range(2, 8)]) == before


@pytest.mark.parametrize(
    ("make", "error"),
    [
        (lambda: SeatTaken(day.at(14), 1, "P1"), RatingError),  # the dealer's seat
        (lambda: SeatTaken(day.at(14), 8, "P1"), RatingError),
        (lambda: SeatTaken(day.at(14), 2, "no spaces"), RatingError),
        (lambda: SeatTaken(day.at(14), 2, ""), RatingError),
        (lambda: SeatTaken(datetime(2026, 12, 3, 14), 2, "P1"), NaiveTimeError),
        (lambda: SeatLeft(day.at(14), True), RatingError),
        (lambda: BuyIn(day.at(14), 2, BuyInKind.CASH, 0), RatingError),
        (lambda: BuyIn(day.at(14), 2, BuyInKind.CASH, 10.5), RatingError),
        (lambda: BuyIn(day.at(14), 2, "cash", 100), RatingError),
        (lambda: TableClosed("18:00"), NaiveTimeError),
        (lambda: RatingBuilder("PG-1", idle_after=timedelta(0)), RatingError),
        (lambda: RatingBuilder("PG-1").phase(9), RatingError),
        (lambda: RatingBuilder("PG-1").idle_until(datetime(2026, 12, 3)), NaiveTimeError),
    ],
)
def test_a_bad_event_is_refused(make, error):
    with pytest.raises(error):
        make()


def test_the_clock_never_runs_backwards_for_idle_until_either():
    builder = RatingBuilder("PG-1")
    builder.feed(TableClosed(day.at(18)))
    with pytest.raises(RatingError):
        builder.idle_until(day.at(17))


def test_every_transition_is_in_the_table_and_nothing_else_is():
    assert (SeatPhase.EMPTY, "leave") not in {(p, a.value) for p, a in TRANSITIONS}
    assert all(
        move.closes is None for (phase, _), move in TRANSITIONS.items() if phase is not SeatPhase.RATED
    )


def closed_rating():
    return build_ratings(day.TABLE, worked_day_events(), idle_after=timedelta(hours=2)).closed[0]


def test_an_adjustment_keeps_both_values_the_reason_and_the_actor():
    rating = closed_rating()
    why = "a second buy-in missed"
    adjusted = adjust(rating, AdjustableField.BUY_IN_CASH, 60_000, reason=why, actor="Ben", at=day.at(19))
    (change,) = adjusted.adjustments
    assert (change.old_value, change.new_value, change.reason, change.actor) == (
        50_000,
        60_000,
        "a second buy-in missed",
        "Ben",
    )
    assert adjusted.value(AdjustableField.BUY_IN_CASH) == 60_000
    assert adjusted.recorded(AdjustableField.BUY_IN_CASH) == 50_000 == adjusted.buy_in_cash
    again = adjust(
        adjusted,
        AdjustableField.BUY_IN_CASH,
        55_000,
        reason="recounted",
        actor="Eve",
        at=day.at(20),
        expected_old=60_000,
    )
    assert again.adjustments[-1].old_value == 60_000 and again.value(AdjustableField.BUY_IN_CASH) == 55_000
    assert (
        adjust(rating, AdjustableField.AVERAGE_WAGER, 7_000, reason="r", actor="Ben", at=day.at(19))
        .adjustments[0]
        .old_value
        == 6_000
    )
    lost = adjust(rating, AdjustableField.ACTUAL_WIN, -100, reason="r", actor="Ben", at=day.at(19))
    assert lost.value(AdjustableField.ACTUAL_WIN) == -100


@pytest.mark.parametrize(
    ("field", "value", "kwargs", "match"),
    [
        (AdjustableField.BUY_IN_CASH, 1, {"reason": " "}, "reason"),
        (AdjustableField.BUY_IN_CASH, 1, {"actor": ""}, "name"),
        (AdjustableField.BUY_IN_CASH, 1.5, {}, "whole"),
        (AdjustableField.BUY_IN_CASH, -1, {}, "negative"),
        (AdjustableField.BUY_IN_CASH, 1, {"expected_old": 1}, "is 50000"),
        ("rounds", 1, {}, "adjustable"),
    ],
)
def test_a_bad_adjustment_is_refused(field, value, kwargs, match):
    arguments = {"reason": "why", "actor": "Ben", "at": day.at(19), **kwargs}
    with pytest.raises(AdjustmentError, match=match):
        adjust(closed_rating(), field, value, **arguments)


def test_an_open_rating_is_not_adjusted():
    builder = RatingBuilder("PG-1")
    builder.feed(SeatTaken(day.at(14), 2, "P1"))
    with pytest.raises(AdjustmentError, match="open"):
        adjust(
            builder.open_ratings()[0], AdjustableField.BUY_IN_CASH, 1, reason="r", actor="Ben", at=day.at(15)
        )


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # a loaded machine is not a failure
@given(st.integers(-(10**9), 10**9), st.dictionaries(st.integers(2, 7), st.integers(0, 10**6), min_size=1))
def test_apportion_adds_up_exactly_and_is_within_a_unit_of_the_proportion(total, weights):
    shares = apportion(total, weights)
    whole = sum(weights.values())
    if whole == 0:
        assert set(shares.values()) == {0}
        return
    assert sum(shares.values()) == total
    for key, weight in weights.items():
        assert abs(shares[key] * whole - total * weight) < whole


# --- the identity: a rating's totals are the sums of its rounds ------------------------------

START = datetime(2026, 12, 3, 12, tzinfo=UTC)


@st.composite
def tables(draw):
    """Random seat events and rounds on one table, minute by minute, some of them refused."""
    events = []
    money = st.integers(-(10**4), 10**4)
    for minute in range(draw(st.integers(1, 60))):
        at = START + timedelta(minutes=minute)
        kind = draw(st.sampled_from(["sit", "leave", "round", "round", "buy-in", "close"]))
        seat = draw(st.integers(2, 7))
        if kind == "sit":
            events.append(SeatTaken(at, seat, draw(st.sampled_from([None, "P1", "P2", "P3"]))))
        elif kind == "leave":
            events.append(SeatLeft(at, seat))
        elif kind == "buy-in":
            events.append(BuyIn(at, seat, draw(st.sampled_from(BuyInKind)), draw(st.integers(1, 10**5))))
        elif kind == "close":
            events.append(TableClosed(at))
        else:
            seats = draw(st.lists(st.integers(2, 7), min_size=1, max_size=6, unique=True))
            bank = None
            if len(seats) > 1 and draw(st.booleans()):
                bank = BankResult(seats.pop(), 10**6, draw(st.integers(-(10**4), 10**4)))
            results = tuple(
                SeatResult(s, draw(st.integers(1, 10**4)), draw(st.integers(0, 10**3)), draw(money))
                for s in sorted(seats)
            )
            events.append(
                SettledRound(
                    round_id=f"r{minute}", table_id="PG-1", opened_at=at, settled_at=at,
                    house_result=-sum(r.net for r in results) - (bank.banker_net if bank else 0),
                    seats=results, bank=bank,
                    theoretical_win=draw(st.none() | st.integers(-100, 10**4)),
                )
            )  # fmt: skip
    return events


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # a loaded machine is not a failure
@given(tables(), st.integers(1, 30))
def test_a_ratings_totals_are_the_sums_of_its_rounds(events, idle_minutes):
    builder = RatingBuilder("PG-1", idle_after=timedelta(minutes=idle_minutes))
    closed = []
    rounds = {}
    for event in events:
        if isinstance(event, SettledRound):
            rounds[event.round_id] = event
        with contextlib.suppress(RatingError):  # a refused event changes nothing (tested above)
            closed += builder.feed(event)
    ratings = [*closed, *builder.open_ratings()]
    claimed = set()
    for rating in ratings:
        mine = [rounds[i] for i in rating.round_ids]
        plays = [s for r in mine for s in r.seats if s.seat == rating.seat]
        banks = [r.bank for r in mine if r.bank is not None and r.bank.seat == rating.seat]
        assert rating.rounds == len(plays)
        assert rating.main_wagered == sum(s.main_wager for s in plays)
        assert rating.bonus_wagered == sum(s.bonus_wager for s in plays)
        assert rating.actual_win == -sum(s.net for s in plays)
        assert (rating.banks, rating.bank_actual_win) == (len(banks), -sum(b.banker_net for b in banks))
        covered = [
            r for r in mine if r.theoretical_win is not None and any(s.seat == rating.seat for s in r.seats)
        ]
        assert rating.theoretical_rounds == len(covered)
        assert rating.theoretical_win == sum(
            apportion(r.theoretical_win, {s.seat: s.wagered for s in r.seats})[rating.seat] for r in covered
        )
        for round_id in rating.round_ids:  # a seat's part of a round is in one rating at most
            assert (round_id, rating.seat) not in claimed
            claimed.add((round_id, rating.seat))
        if rating.end is not None:
            assert rating.start <= rating.end
            assert all(rating.start <= rounds[i].settled_at <= rating.end for i in rating.round_ids)
