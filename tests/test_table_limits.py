"""The table's limits changed on the fly by a pit user (docs/dealers.md, "Table limits"):
chained with both values and who, held from the next round, never mid-round, enforced on the
wagers, restored after a restart, and every refusal leaving nothing written."""

from __future__ import annotations

import pytest
from sqlalchemy.exc import OperationalError
from structlog.testing import capture_logs

from table_controller.round.events import DiceRolled, Wager
from table_controller.settings import Limits, TableSettings
from table_controller.storage import list_events
from table_controller.storage.limits import LIMITS_CHANGED
from table_controller.storage.session import read_snapshot
from table_controller.table.limits import LimitsError, TableLimits
from table_controller.table.service import LimitsRefused, StoreOutage, TableRefused, TableService

# approved: main $5..$1,000, bonus $25 (the defaults); the Fortune up to $300 where offered
DEFAULTS = TableSettings(table_id="t1")
FORTUNE = TableSettings(table_id="t1", fortune={"enabled": True})


def changes(engine):
    with read_snapshot(engine) as session:
        return [e for e in list_events(session, table_id="t1") if e.kind == LIMITS_CHANGED]


def test_a_change_is_chained_with_both_values_and_who_and_holds_from_the_next_round(engine):
    service = TableService(DEFAULTS, engine)
    service.open_round({3: Wager(main=500)}, actor="ann")
    service.void("pat", "wagers placed late")
    done = service.change_limits(min_main=2_500, max_main=50_000, max_bonus=0, actor="pat")
    assert done == TableLimits(Limits(min_main=2_500, max_main=50_000, max_bonus=0)) == service.limits
    (change,) = changes(engine)
    assert change.actor == "pat"
    assert change.payload_data() == {
        "old": {
            "min_main_cents": 500,
            "max_main_cents": 100_000,
            "max_bonus_cents": 2_500,
            "max_fortune_cents": None,
        },
        "new": {
            "min_main_cents": 2_500,
            "max_main_cents": 50_000,
            "max_bonus_cents": 0,
            "max_fortune_cents": None,
        },
        "effective_from_round": 2,
    }
    with pytest.raises(
        TableRefused, match=r"main wager 2000 cents is outside the table limits 2500\.\.50000"
    ):
        service.open_round({3: Wager(main=2_000)}, actor="ann")
    with pytest.raises(TableRefused, match=r"outside the table limits 2500\.\.50000"):
        service.open_round({3: Wager(main=50_001)}, actor="ann")
    assert service.open_round({3: Wager(main=2_500)}, actor="ann").round_id == "t1-2"


def test_a_change_while_the_round_takes_wagers_holds_from_the_next_one(engine):
    """The open round keeps the Fortune limit it opened under ($300); the next round has $100."""
    service = TableService(FORTUNE, engine)
    service.open_round({3: Wager(main=1_000)}, actor="ann")
    service.change_limits(min_main=500, max_main=100_000, max_bonus=2_500, max_fortune=10_000, actor="pat")
    assert changes(engine)[0].payload_data()["effective_from_round"] == 2
    assert service.wager_limits.max_fortune == 30_000 and service.limits.max_fortune == 10_000
    service.place_side_wager(3, 20_000, 0, actor="ann")  # $200: within the round's $300
    service.void("pat", "end of the test")
    with pytest.raises(TableRefused, match="fortune wager 20000 cents is above the limit 10000"):
        service.open_round({3: Wager(main=1_000, fortune=20_000)}, actor="ann")


def test_a_change_once_the_wagers_are_locked_is_refused_and_nothing_is_written(engine):
    service = TableService(DEFAULTS, engine)
    service.open_round({3: Wager(main=1_000)}, actor="ann")
    service.record_dice(DiceRolled(faces=(1, 1, 1), source="rng"))
    with capture_logs() as logs, pytest.raises(LimitsRefused, match="its wagers are locked"):
        service.change_limits(min_main=1_000, max_main=50_000, max_bonus=0, actor="pat")
    assert changes(engine) == [] and service.limits == TableLimits.approved(DEFAULTS)
    assert logs[-1]["event"] == "table.refused" and logs[-1]["command"] == "limits.change"


@pytest.mark.parametrize(
    ("values", "match"),
    [
        (
            {"min_main": 400, "max_main": 50_000, "max_bonus": 0},
            "past the table's approved limits 500..100000",
        ),
        ({"min_main": 1_000, "max_main": 100_001, "max_bonus": 0}, "past the table's approved limits"),
        (
            {"min_main": 5_000, "max_main": 1_000, "max_bonus": 0},
            "min_main_cents 5000 is above max_main_cents 1000",
        ),
        ({"min_main": 0, "max_main": 1_000, "max_bonus": 0}, "min_main_cents must be above 0"),
        (
            {"min_main": 1_000, "max_main": 5_000, "max_bonus": 2_501},
            "max_bonus_cents 2501 is above the table's approved 2500",
        ),
        ({"min_main": 1_000, "max_main": 5_000, "max_bonus": -1}, "max_bonus_cents must be at least 0"),
        (
            {"min_main": 10.5, "max_main": 5_000, "max_bonus": 0},
            "min_main_cents must be a whole number of cents",
        ),
        (
            {"min_main": 1_000, "max_main": True, "max_bonus": 0},
            "max_main_cents must be a whole number of cents",
        ),
        ({"min_main": 1_000, "max_main": 5_000, "max_bonus": "0"}, "max_bonus_cents must be a whole number"),
        (
            {"min_main": 1_000, "max_main": 5_000, "max_bonus": 0, "max_fortune": 100},
            "this table offers no Fortune Bonus",
        ),
        ({"min_main": 500, "max_main": 100_000, "max_bonus": 2_500}, "the limits in force are these already"),
    ],
)
def test_limits_the_change_cannot_take_are_refused_and_nothing_is_written(engine, values, match):
    service = TableService(DEFAULTS, engine)
    with capture_logs() as logs, pytest.raises(LimitsError, match=match):
        service.change_limits(**values, actor="pat")
    assert changes(engine) == [] and service.limits == TableLimits.approved(DEFAULTS)
    assert logs[-1]["event"] == "table.refused"


@pytest.mark.parametrize(
    ("fortune", "match"), [(30_001, "at most the table's approved 30000"), (0, "above 0")]
)
def test_a_fortune_limit_past_the_approved_one_is_refused(engine, fortune, match):
    service = TableService(FORTUNE, engine)
    with pytest.raises(LimitsError, match=match):
        service.change_limits(
            min_main=500, max_main=100_000, max_bonus=2_500, max_fortune=fortune, actor="pat"
        )
    assert changes(engine) == []


def test_a_change_while_the_store_is_away_is_refused(engine, monkeypatch):
    service = TableService(DEFAULTS, engine)

    def away(*args, **kwargs):
        raise OperationalError("INSERT", {}, Exception("connection refused"))

    monkeypatch.setattr("table_controller.table.service.record_change", away)
    with pytest.raises(StoreOutage, match=r"limits\.change not recorded"):
        service.change_limits(min_main=1_000, max_main=50_000, max_bonus=0, actor="pat")
    assert service.limits == TableLimits.approved(DEFAULTS) and service.outage is not None
    with pytest.raises(StoreOutage, match=r"limits\.change refused: the store is unavailable"):
        service.change_limits(min_main=1_000, max_main=50_000, max_bonus=0, actor="pat")


def test_a_restart_restores_the_limits_and_the_open_rounds_own(engine):
    service = TableService(FORTUNE, engine)
    service.change_limits(min_main=1_000, max_main=100_000, max_bonus=2_500, max_fortune=20_000, actor="pat")
    service.open_round({3: Wager(main=1_000)}, actor="ann")
    service.change_limits(min_main=1_000, max_main=100_000, max_bonus=2_500, max_fortune=5_000, actor="pat")
    again = TableService(FORTUNE, engine)
    again.resume()
    assert again.limits.max_fortune == 5_000 and again.limits.main.min_main == 1_000
    assert again.wager_limits.max_fortune == 20_000  # round 1 opened under the first change
    with pytest.raises(TableRefused, match="above the limit 20000"):
        again.place_side_wager(3, 20_001, 0, actor="ann")


def test_limits_the_configuration_no_longer_allows_are_not_restored(engine):
    TableService(DEFAULTS, engine).change_limits(min_main=600, max_main=90_000, max_bonus=0, actor="pat")
    narrower = TableSettings(table_id="t1", limits=Limits(min_main=1_000, max_main=90_000, max_bonus=0))
    again = TableService(narrower, engine)
    with capture_logs() as logs:
        again.resume()
    assert again.limits == TableLimits.approved(narrower)
    assert "table.limits_not_restored" in [line["event"] for line in logs]
