"""The dealers' time on the box and the hands per hour (docs/dealers.md, "Hands per hour"):
worked by hand from hands x 3600 / seconds on the box, one place, half-even."""

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from table_controller.accounting.dealers import Stint, check_stints, hands_per_hour, pace
from table_controller.accounting.errors import DealerError, NaiveTimeError


def at(hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 12, 3, hour, minute, tzinfo=UTC)


@pytest.mark.parametrize(
    ("hands", "on_box", "expected"),
    [
        (30, timedelta(hours=1), Decimal("30.0")),
        (25, timedelta(minutes=40), Decimal("37.5")),  # 25 x 60 / 40
        (1, timedelta(minutes=7), Decimal("8.6")),  # 60 / 7 = 8.571...
        (1, timedelta(hours=4), Decimal("0.2")),  # 0.25: half-even to the even tenth
        (3, timedelta(hours=4), Decimal("0.8")),  # 0.75: half-even to the even tenth
        (0, timedelta(minutes=20), Decimal("0.0")),
        (7, timedelta(microseconds=3_600_000_000), Decimal("7.0")),
    ],
)
def test_hands_per_hour_worked_by_hand(hands, on_box, expected):
    assert hands_per_hour(hands, on_box) == expected


def test_no_time_on_the_box_has_no_pace():
    assert hands_per_hour(5, timedelta(0)) is None
    assert hands_per_hour(0, timedelta(0)) is None


@pytest.mark.parametrize("hands", [-1, 1.5, True, "3"])
def test_hands_must_be_a_whole_number(hands):
    with pytest.raises(DealerError, match="hands must be a whole number"):
        hands_per_hour(hands, timedelta(hours=1))


def test_a_shift_of_pushes_ann_bob_ann():
    """ann 14:00-14:40 (bob relieves her), bob 14:40-15:20 (ann relieves him), ann from 15:20,
    now 15:50. ann dealt 40 hands, bob 20, and dee 3 before sign-ins were kept (no stint)."""
    stints = [
        Stint("ann", at(14), at(14, 40)),
        Stint("bob", at(14, 40), at(15, 20)),
        Stint("ann", at(15, 20)),
    ]
    found = pace(stints, {"ann": 40, "bob": 20, "dee": 3}, start=at(6), end=at(15, 50))
    ann, bob, dee = found.dealers
    # ann: 40 + 30 = 70 minutes, 40 x 60 / 70 = 34.285... -> 34.3
    assert (ann.dealer, ann.hands, ann.seconds_on_box, ann.hands_per_hour) == (
        "ann",
        40,
        4200,
        Decimal("34.3"),
    )
    # bob: 40 minutes, 20 x 60 / 40 = 30.0
    assert (bob.dealer, bob.hands, bob.seconds_on_box, bob.hands_per_hour) == (
        "bob",
        20,
        2400,
        Decimal("30.0"),
    )
    assert (dee.dealer, dee.hands, dee.seconds_on_box, dee.hands_per_hour) == ("dee", 3, 0, None)
    # the table: 63 hands over 110 minutes: 63 x 60 / 110 = 34.363... -> 34.4
    table = found.table
    assert (table.dealer, table.hands, table.seconds_on_box, table.hands_per_hour) == (
        None,
        63,
        6600,
        Decimal("34.4"),
    )
    assert found.of("bob") == bob and found.of("zed") is None


def test_a_stint_is_cut_to_the_period():
    """A stint from 05:00 to 07:00 lies one hour in a period from 06:00; an open one runs to its end."""
    found = pace([Stint("ann", at(5), at(7)), Stint("bob", at(7))], {"ann": 12}, start=at(6), end=at(7, 30))
    assert [(p.dealer, p.seconds_on_box) for p in found.dealers] == [("ann", 3600), ("bob", 1800)]
    assert found.of("ann").hands_per_hour == Decimal("12.0")
    assert found.of("bob").hands_per_hour == Decimal("0.0")
    outside = pace([Stint("cy", at(1), at(2))], {}, start=at(6), end=at(7))
    assert outside.dealers == () and outside.table.hands_per_hour is None


def test_a_stint_that_ends_before_it_starts_is_refused():
    with pytest.raises(DealerError, match="before it starts"):
        Stint("ann", at(14), at(13))


@pytest.mark.parametrize("name", ["", "   ", None, 7])
def test_a_stint_needs_a_dealer(name):
    with pytest.raises(DealerError, match="the dealer on the box must be a person's name"):
        Stint(name, at(14))


def test_a_naive_time_is_refused():
    with pytest.raises(NaiveTimeError):
        Stint("ann", datetime(2026, 12, 3, 14))
    with pytest.raises(NaiveTimeError):
        pace([], {}, start=datetime(2026, 12, 3, 6), end=at(7))


def test_two_dealers_on_one_box_are_refused():
    with pytest.raises(DealerError, match="one dealer on a table's box at a time"):
        check_stints([Stint("ann", at(14), at(15)), Stint("bob", at(14, 30), at(16))])
    with pytest.raises(DealerError, match="one dealer on a table's box at a time"):
        check_stints([Stint("ann", at(14)), Stint("bob", at(15))])  # ann never relieved
    touching = check_stints([Stint("bob", at(15), at(16)), Stint("ann", at(14), at(15))])
    assert [s.dealer for s in touching] == ["ann", "bob"]  # a relief: one ends as the next starts


def test_a_period_backwards_and_bad_hands_are_refused():
    with pytest.raises(DealerError, match="before it starts"):
        pace([], {}, start=at(7), end=at(6))
    with pytest.raises(DealerError, match="ann's hands must be a whole number"):
        pace([], {"ann": -2}, start=at(6), end=at(7))
