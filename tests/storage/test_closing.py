"""The ratings computed again from the rounds in the query (storage/closing.py,
``ratings_from_rounds``; docs/accounting.md, "The day in the reports"), on both backends, with
the split of each round's theoretical win worked out by hand as accounting/ratings.py's
``apportion`` does it (floor of theoretical x wager / all wagers, the cents left to the largest
remainders, ties to the lower seat).

Table t1, ratings R3 (seat 3) and R5 (seat 5), both from 10:00 to 12:00 UTC:

- A, house-banked, theoretical 52: seat 3 wagers 2,500 (net +2,375), seat 5 1,000 (net 0).
  52 x 2,500 / 3,500 = 37.14 -> 37 (remainder 500), 52 x 1,000 / 3,500 = 14.86 -> 14
  (remainder 3,000); the cent left to seat 5: 37 and 15.
- B, banked by seat 4, theoretical -7: position 7 is seat (4 + 7 - 2) mod 7 + 1 = 3, wagering
  1,000 and a 100 bonus (net -1,100); position 2 is seat 5, wagering 900 (net +855). All wagers
  2,000: -7 x 1,100 / 2,000 = -3.85 -> floor -4 (remainder 300), -7 x 900 / 2,000 = -3.15 -> -4
  (remainder 1,700); -7 - (-8) = 1 cent left, to seat 5: -4 and -3. Position 1 (the banker's
  row) counts for no seat.
- C, house-banked, no theoretical: seat 3 wagers 500 (net -500).
- D at 12:30, after both ratings ended: seat 3 wagers 99,900: in neither.

R4 at seat 4 banked B: the player-banker's net (``banker_result_cents``) +245, so the bank's
actual win from the house's side is -245: 1 bank, -245, no round played.

R3: 3 rounds, main 2,500 + 1,000 + 500 = 4,000, bonus 100, actual -(2,375 - 1,100 - 500) = -775,
theoretical 37 - 4 = 33 over 2 rounds. R5: 2 rounds, main 1,900, actual -(0 + 855) = -855,
theoretical 15 - 3 = 12 over 2 rounds.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

from sqlalchemy.engine import Engine

from table_controller.accounting.ratings import apportion
from table_controller.game.cards import Game
from table_controller.storage import RoundCreate, RoundUpdate, create_round, unit_of_work, update_round
from table_controller.storage.closing import RatingFromRounds, ratings_from_rounds
from table_controller.storage.models import RoundPosition
from table_controller.storage.ratings import RatingRow


def at(hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 12, 3, hour, minute, tzinfo=UTC)


def _round(
    engine: Engine,
    settled: datetime,
    theory: int | None,
    banker_seat: int | None,
    seats: list,
    banker_result: int | None = None,
) -> None:
    with unit_of_work(engine) as session:
        found = create_round(
            session,
            data=RoundCreate(
                table_id="t1", game=Game.STANDARD, dealer="ann", phase="open", opened_at=settled
            ),
        )
        update_round(
            session,
            round_id=found.round_id,
            changes=RoundUpdate(
                phase="closed",
                closed_at=settled,
                theoretical_win_cents=theory,
                theoretical_variance=None if theory is None else 1_000,
                banker_seat=banker_seat,
                banker_result_cents=banker_result,
            ),
        )
        for position, main, bonus, net in seats:
            session.add(
                RoundPosition(
                    round_id=found.round_id,
                    position=position,
                    wager_cents=main,
                    big_hand_bonus_cents=bonus,
                    joker_bonus_cents=0,
                    net_cents=net,
                )
            )


def _rating(engine: Engine, rating_id: str, seat: int) -> None:
    with unit_of_work(engine) as session:
        session.add(
            RatingRow(
                rating_id=rating_id,
                table_id="t1",
                player=f"P-{seat}",
                seat=seat,
                gaming_day=at(0).date(),
                started_at=at(10),
                started_by="ann",
                last_at=at(12),
                ended_at=at(12),
                end_reason="left",
                seated=False,
                round_ids=json.dumps([]),
            )
        )


def test_ratings_are_computed_again_from_the_rounds_in_the_query(engine: Engine) -> None:
    assert apportion(52, {3: 2_500, 5: 1_000}) == {3: 37, 5: 15}  # the hand-worked splits
    assert apportion(-7, {3: 1_100, 5: 900}) == {3: -4, 5: -3}
    _rating(engine, "R3", 3)
    _rating(engine, "R5", 5)
    _rating(engine, "R4", 4)
    _round(engine, at(10, 10), 52, None, [(3, 2_500, 0, 2_375), (5, 1_000, 0, 0)])
    _round(engine, at(10, 20), -7, 4, [(1, 0, 0, 245), (7, 1_000, 100, -1_100), (2, 900, 0, 855)], 245)
    _round(engine, at(10, 30), None, None, [(3, 500, 0, -500)])
    _round(engine, at(12, 30), 10, None, [(3, 99_900, 0, 0)])
    with unit_of_work(engine) as session:
        found = ratings_from_rounds(session, table_ids=["t1"], start=at(6), end=at(23))
        assert ratings_from_rounds(session, table_ids=[], start=at(6), end=at(23)) == {}
        assert ratings_from_rounds(session, table_ids=["t1"], start=at(11), end=at(23)) == {}
    assert found == {
        "R3": RatingFromRounds(
            rounds=3,
            main_wagered=4_000,
            bonus_wagered=100,
            actual_win=-775,
            theoretical_win=33,
            theoretical_rounds=2,
        ),
        "R5": RatingFromRounds(
            rounds=2,
            main_wagered=1_900,
            bonus_wagered=0,
            actual_win=-855,
            theoretical_win=12,
            theoretical_rounds=2,
        ),
        "R4": RatingFromRounds(banks=1, bank_actual_win=-245),
    }
