"""The table service stores each settled round's theoretical win, and raises one alert a day
when today's actual result leaves its 95% band (docs/math.md, "Theoretical win and hold").

The table's math here is written by hand (a 4 x 4 joint distribution of two positions'
outcomes), so every expected figure is worked out below, not read from the simulation."""

from __future__ import annotations

import json
from fractions import Fraction

from table_controller.analysis.theoretical import TableMath
from table_controller.round.events import DiceRolled, PilesDealt, Wager
from table_controller.settings import TableSettings
from table_controller.storage import get_round, list_events
from table_controller.storage.session import read_snapshot
from table_controller.table.service import TableService

from .round.tables import BANKER, POSITION_3, deal

LOSE, PUSH, WIN = Fraction(3, 10), Fraction(4, 10), Fraction(3, 10)


def _math(settings: TableSettings, marginal: tuple[Fraction, ...]) -> TableMath:
    """Two positions independent of each other (the joint is the product of the marginals)."""
    joint = tuple(tuple(a * b for b in marginal) for a in marginal)
    return TableMath(settings.table_rules(), joint, None, None, "by-hand", 0, 0, {})


def _settled_round(service: TableService) -> str:
    """Position 3 (As Ah Kd Kh 9c 8c 2c) beats the banker (Ac Qd 9h 7s 5c 3d 2h) both ways: the
    house pays 2500 less 5% commission (125), a house result of -2375 (tests/round/tables.py)."""
    state = service.open_round({3: Wager(main=2500)}, actor="dealer-ann")
    service.record_dice(DiceRolled(faces=(1, 1, 1), source="rng"))
    piles, unused = deal({1: BANKER, 3: POSITION_3}, start=3)
    service.record_deal(PilesDealt(piles=piles, unused=unused))
    service.set_player(3, ["As", "Ah", "9c", "8c", "2c"], ["Kd", "Kh"], actor="dealer-ann")
    service.set_dealer(["Ac", "9h", "5c", "3d", "2h"], ["Qd", "7s"], actor="dealer-ann")
    assert service.settle().result.house_result == -2375
    return state.round_id


def _row(engine, round_id):
    with read_snapshot(engine) as session:
        return get_round(session, round_id=round_id)


def test_a_settled_round_carries_its_theoretical_win_and_variance(engine):
    settings = TableSettings(table_id="t1")
    service = TableService(settings, engine)
    before_math = _settled_round(service)
    assert (
        _row(engine, before_math).theoretical_win_cents,
        _row(engine, before_math).theoretical_variance,
    ) == (None, None)  # the math was not known yet: missing, never 0
    service.set_table_math(_math(settings, (LOSE, PUSH, WIN, Fraction(0))))
    round_id = _settled_round(service)
    # the house on a 2500 wager: +2500 when the player loses, -(2500 - 125) when the player wins
    # mean = 0.3 * 2500 - 0.3 * 2375 = 37.5 -> 38 (half to even); variance = 0.3 * 2500^2 +
    # 0.3 * 2375^2 - 37.5^2 = 3565781.25 -> 3565781
    row = _row(engine, round_id)
    assert (row.theoretical_win_cents, row.theoretical_variance) == (38, 3565781)


def test_a_day_outside_its_band_raises_one_alert(engine):
    settings = TableSettings(table_id="t1")
    service = TableService(settings, engine)
    # every hand a push: theoretical 0, variance 0, so the band is 0..0 and -2375 lies outside it
    service.set_table_math(_math(settings, (Fraction(0), Fraction(1), Fraction(0), Fraction(0))))
    _settled_round(service)
    _settled_round(service)
    with read_snapshot(engine) as session:
        alerts = [
            json.loads(e.payload) for e in list_events(session, table_id="t1") if e.kind == "alert.raised"
        ]
    [outside] = [a for a in alerts if a["alert"] == "outside-band"]  # one a day, not one a round
    assert (
        outside["actual_cents"],
        outside["theoretical_cents"],
        outside["low_cents"],
        outside["high_cents"],
    ) == (-2375, 0, 0, 0)
    assert outside["detail"] == (  # what the pit reads: dollars, never cents
        "today's result -$23.75 is outside its 95% band $0.00 to $0.00 around the theoretical win "
        "$0.00 (1 round)"
    )
