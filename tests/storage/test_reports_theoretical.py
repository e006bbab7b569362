"""Theoretical win in the period sums: summed where rounds carry it, missing (None) where none
does, the 95% band around it, and the day-so-far check (docs/math.md, "Theoretical win and hold")."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from pydantic import ValidationError
from sqlalchemy.engine import Engine

from table_controller.game.cards import Game
from table_controller.storage import (
    RoundCreate,
    RoundUpdate,
    create_round,
    read_snapshot,
    unit_of_work,
    update_round,
)
from table_controller.storage.reports import band, band_check, band_in, period_sums

from .helpers import T0, at


def _settled(
    engine: Engine,
    dealer: str,
    wagered: int,
    house: int,
    theoretical: int | None,
    variance: int | None,
    seconds: float,
) -> str:
    with unit_of_work(engine) as session:
        round_ = create_round(
            session,
            data=RoundCreate(
                table_id="PG-3", game=Game.STANDARD, dealer=dealer, phase="betting", opened_at=at(seconds)
            ),
        )
        changes = {
            "phase": "closed",
            "closed_at": at(seconds + 30),
            "wagered_cents": wagered,
            "house_result_cents": house,
        }
        if theoretical is not None:
            changes.update(theoretical_win_cents=theoretical, theoretical_variance=variance)
        update_round(session, round_id=round_.round_id, changes=RoundUpdate(**changes))
    return round_.round_id


@pytest.fixture
def three_rounds(engine: Engine) -> Engine:
    # ann: two $100 rounds, theoretical 263 cents each (2.63% of $100), variances 3,600,000 and
    # 6,400,000 cents^2 (sd $18.97 and $25.30); the house won $25 and $100. bob: a $50 round
    # settled without a theoretical win (before the table's math was wired): missing.
    _settled(engine, "ann", 10_000, 2_500, 263, 3_600_000, 0)
    _settled(engine, "ann", 10_000, 10_000, 263, 6_400_000, 60)
    _settled(engine, "bob", 5_000, -4_750, None, None, 120)
    return engine


def test_the_band_is_theoretical_plus_minus_196_standard_deviations() -> None:
    # sqrt(10,000) = 100 cents: +-196
    found = band(rounds=1, actual_cents=0, theoretical_cents=50, variance=10_000)
    assert (found.low_cents, found.high_cents, found.outside) == (-146, 246, False)
    # sqrt(10,000,000) = 3162.2776..., x 1.96 = 6198.064... -> 6198
    found = band(rounds=2, actual_cents=12_500, theoretical_cents=526, variance=10_000_000)
    assert (found.low_cents, found.high_cents, found.outside) == (526 - 6198, 526 + 6198, True)
    assert not band(
        rounds=2, actual_cents=6724, theoretical_cents=526, variance=10_000_000
    ).outside  # on the edge
    assert band(rounds=2, actual_cents=-5673, theoretical_cents=526, variance=10_000_000).outside


def test_period_sums_carry_theoretical_win_per_game_and_per_dealer(three_rounds: Engine) -> None:
    with read_snapshot(three_rounds) as session:
        sums = period_sums(session, table_id="PG-3", start=at(-1), end=at(600))
    (game,) = sums.per_game
    assert (
        game["house_result_cents"],
        game["theoretical_rounds"],
        game["theoretical_win_cents"],
        game["theoretical_variance"],
        game["covered_house_result_cents"],
        game["covered_wagered_cents"],
    ) == (7_750, 2, 526, 10_000_000, 12_500, 20_000)
    ann, bob = sums.per_dealer
    assert (ann["dealer"], ann["settled"], ann["theoretical_win_cents"], ann["theoretical_variance"]) == (
        "ann",
        2,
        526,
        10_000_000,
    )
    assert (
        bob["dealer"],
        bob["settled"],
        bob["house_result_cents"],
        bob["theoretical_win_cents"],
        bob["theoretical_variance"],
        bob["theoretical_rounds"],
    ) == ("bob", 1, -4_750, None, None, 0)


def test_a_day_outside_its_band_is_seen(three_rounds: Engine) -> None:
    with read_snapshot(three_rounds) as session:
        found = band_in(session, table_id="PG-3", start=at(-1), end=at(600))
    assert found is not None
    # the house won $125 on the two rounds with a theoretical win of $5.26 +- $61.98
    assert (found.actual_cents, found.theoretical_cents, found.low_cents, found.high_cents) == (
        12_500,
        526,
        -5_672,
        6_724,
    )
    assert found.outside


def test_band_check_reads_today_in_the_tables_zone(three_rounds: Engine) -> None:
    vegas = ZoneInfo("America/Los_Angeles")  # T0 = 2024-05-01 20:15 UTC = 13:15 in Las Vegas
    late_same_day = datetime(2024, 5, 2, 6, 0, tzinfo=UTC)  # 23:00 on May 1 in Las Vegas
    next_day = datetime(2024, 5, 2, 8, 0, tzinfo=UTC)  # 01:00 on May 2 there
    with read_snapshot(three_rounds) as session:
        today = band_check(session, table_id="PG-3", zone=vegas, now=late_same_day)
        tomorrow = band_check(session, table_id="PG-3", zone=vegas, now=next_day)
        in_utc = band_check(session, table_id="PG-3", zone=UTC, now=next_day)  # May 2 in UTC too
    assert today is not None and today.outside and today.rounds == 2
    assert tomorrow is None and in_utc is None


def test_only_missing_theoretical_values_give_none(engine: Engine) -> None:
    _settled(engine, "bob", 5_000, -4_750, None, None, 0)
    with read_snapshot(engine) as session:
        assert band_in(session, table_id="PG-3", start=T0 - timedelta(days=1), end=at(600)) is None
        (game,) = period_sums(session, table_id="PG-3", start=at(-1), end=at(600)).per_game
    assert game["theoretical_win_cents"] is None and game["theoretical_rounds"] == 0


@pytest.mark.parametrize(
    "fields", [{"theoretical_win_cents": 2.5}, {"theoretical_variance": -1}, {"theoretical_win_cents": "263"}]
)
def test_theoretical_fields_are_strict_cents(fields: dict) -> None:
    with pytest.raises(ValidationError):
        RoundUpdate(**fields)
