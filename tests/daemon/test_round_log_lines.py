"""Each line of a round carries its table id and round id (docs/round-lifecycle.md, "Running it"), up to and
including the lines that end it: a settlement, a misdeal, a pit void (table/service.py keeps the
round id bound until those are logged)."""

from __future__ import annotations

import pytest
import structlog

from table_controller.round.events import DiceRolled, PilesDealt, Wager
from table_controller.settings import TableSettings
from table_controller.table.service import TableService

from ..round.tables import BANKER, POSITION_3, deal


@pytest.fixture
def service(engine):
    return TableService(TableSettings(table_id="t1"), engine)


def _lines(logs: list[dict], event: str) -> list[tuple[str | None, str | None]]:
    return [(line.get("table_id"), line.get("round_id")) for line in logs if line["event"] == event]


def _dealt(service):
    structlog.contextvars.bind_contextvars(table_id="t1")
    service.open_round({3: Wager(main=2500)}, actor="dealer-ann")
    service.record_dice(DiceRolled(faces=(1, 1, 1), source="rng"))
    return deal({1: BANKER, 3: POSITION_3}, start=3)


def test_the_settlement_line_carries_the_round_id_and_the_next_line_does_not(service):
    piles, unused = _dealt(service)
    with structlog.testing.capture_logs(processors=[structlog.contextvars.merge_contextvars]) as logs:
        service.record_deal(PilesDealt(piles=piles, unused=unused))
        service.set_player(3, ["As", "Ah", "9c", "8c", "2c"], ["Kd", "Kh"], actor="dealer-ann")
        service.set_dealer(["Ac", "9h", "5c", "3d", "2h"], ["Qd", "7s"], actor="dealer-ann")
        service.settle()
        structlog.get_logger().info("after.the.round")
    structlog.contextvars.clear_contextvars()
    assert _lines(logs, "round.settled") == [("t1", "t1-1")]
    assert _lines(logs, "after.the.round") == [("t1", None)]


def test_a_misdeal_line_and_a_void_line_carry_the_round_id(service):
    piles, unused = _dealt(service)
    unused[0] = piles[2][0]
    with structlog.testing.capture_logs(processors=[structlog.contextvars.merge_contextvars]) as logs:
        service.record_deal(PilesDealt(piles=piles, unused=unused))
        service.open_round({3: Wager(main=2500)}, actor="dealer-ann")
        service.void("pit-bob", "a player left the table")
    structlog.contextvars.clear_contextvars()
    assert _lines(logs, "round.misdeal") == [("t1", "t1-1")]
    assert [line.get("round_id") for line in logs if line["event"] == "round.opened"] == ["t1-2"]
