"""``FixedRead`` (storage/fixed_read.py): a fixed SELECT run on the DBAPI cursor answers what
Core's own execution answers, value for value and type for type, on both backends, and a
driver's error is raised as Core raises it (the API's 503 handler reads Core's errors)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import bindparam, literal_column, select, table
from sqlalchemy.dialects import sqlite
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError

from table_controller.game.cards import Game
from table_controller.storage import floor, history, read_snapshot
from table_controller.storage.alerts import ACKNOWLEDGED, RAISED
from table_controller.storage.fixed_read import FixedRead
from table_controller.storage.models import Event, PositionOutcome

from ..api.conftest import make_api, play_round


def test_a_rounds_reads_answer_as_core_does(engine: Engine) -> None:
    for api in make_api(engine):
        round_id = play_round(api, how="override")
    params = {"round_id": round_id, "table_id": "t1"}
    for read in (history._ROUND_BY_ID, history._POSITIONS_OF, history._EVENTS_OF):
        for _ in range(2):  # compiled at the first, reused at the second
            with read_snapshot(engine) as session:
                fixed = [tuple(row) for row in read.rows(session, params)]
                core = [tuple(row) for row in session.connection().execute(read.statement, params)]
            assert fixed and fixed == core
            assert [[type(v) for v in row] for row in fixed] == [[type(v) for v in row] for row in core]


def test_history_pages_and_their_time_lookups_answer_as_core_does(engine: Engine) -> None:
    """Every filter of a history page, each page shape read as a FixedRead (``_page_read``) and as
    Core runs the same statement: the same rows, the same types; the time range's lookups too."""
    for api in make_api(engine):
        played = [play_round(api, how=how) for how in ("settle", "override", "misdeal", "settle")]
    wide = {"opened_from": datetime(2000, 1, 1, tzinfo=UTC), "opened_to": datetime(2100, 1, 1, tzinfo=UTC)}
    filters = [
        history.HistoryFilter(),
        history.HistoryFilter(**wide),
        history.HistoryFilter(dealer="dan", voided=False, misdeal=False, override=True),
        history.HistoryFilter(position=3, outcome=PositionOutcome.WIN, card="As", player_banked=False),
        history.HistoryFilter(game=Game.STANDARD, misdeal=True),
    ]
    found = set()
    with read_snapshot(engine) as session:
        for where in filters:
            for newest_first, cursor in ((True, None), (False, None), (True, 3)):
                query = history.history_statement(
                    session, "t1", where, newest_first=newest_first, cursor=cursor, limit=2
                )
                assert query is not None and query.read is not None
                fixed = [tuple(row) for row in query.rows(session)]
                core = [tuple(row) for row in session.connection().execute(query.statement, query.params)]
                assert fixed == core, where
                assert [[type(v) for v in row] for row in fixed] == [[type(v) for v in row] for row in core]
                found |= {row[0] for row in fixed}
                for statement, params in query.lookups:
                    assert session.connection().execute(statement, params).scalar() in (1, len(played))
    assert found == set(played)  # every round was on some page: the comparisons were not of nothing


def test_a_driver_error_is_raised_as_core_raises_it(engine: Engine) -> None:
    missing = FixedRead(select(literal_column("1")).select_from(table("no_such_table")))
    with read_snapshot(engine) as session, pytest.raises(DBAPIError) as by_core:
        session.connection().execute(missing.statement)
    with read_snapshot(engine) as session, pytest.raises(type(by_core.value)):
        missing.rows(session, {})


def test_only_required_single_values_are_bound() -> None:
    events = Event.__table__  # type: ignore[attr-defined]
    many = FixedRead(select(events.c.seq).where(events.c.seq.in_(bindparam("seqs", expanding=True))))
    with pytest.raises(ValueError, match="seqs"):
        many._compile(sqlite.dialect())


def test_the_floors_reads_answer_as_core_does(engine: Engine) -> None:
    """Every statement the floor's terminals are answered with (storage/floor.py), literal values
    (``phase = 'closed'``, ``else 0``) bound as the statement carries them."""
    for api in make_api(engine):
        api.service.register_on_floor()
        play_round(api, how="misdeal")  # a misdeal alert, acknowledged below
        play_round(api)
        state = api.get("/api/table", "pit").json()
        [misdeal] = [a for a in state["open_alerts"] if a["alert"] == "misdeal"]
        acknowledged = api.post(f"/api/alerts/{misdeal['seq']}/acknowledge", "pit", json={"note": "seen"})
        assert acknowledged.status_code == 200, acknowledged.text
    day = {"start": datetime(2000, 1, 1, tzinfo=UTC), "end": datetime(2100, 1, 1, tzinfo=UTC)}
    reads = [
        (floor._ALL_TABLES, {}),
        (floor._PIT_TABLES, {"pit": "pit-a"}),
        (floor._latest_rounds(1), {"t0": "t1"}),
        (floor._last_payloads(1), {"t0": "t1", "kind": "round.settled"}),
        (floor._today_sums(2), {"t0": "t1", "t1": "t2", **day}),
        (floor._newest_alerts(1), {"t0": "t1", "limit": 5}),
        (floor._kinds_after(1, (RAISED, ACKNOWLEDGED)), {"c0": "t1", "s0": 0}),
        (floor._kinds_after(1, (ACKNOWLEDGED,)), {"c0": "t1", "s0": 0}),
        (floor._events_after(1), {"c0": "t1", "s0": 3, "limit": 4}),
    ]
    for read, params in reads:
        with read_snapshot(engine) as session:
            fixed = [tuple(row) for row in read.rows(session, params)]
            core = [tuple(row) for row in session.connection().execute(read.statement, params)]
        assert fixed == core
        assert [[type(v) for v in row] for row in fixed] == [[type(v) for v in row] for row in core]
        assert fixed or read is floor._PIT_TABLES, str(read.statement)[:300]
    with read_snapshot(engine) as session:
        [(table_id, rounds, settled, *_)] = floor._today_sums(1).rows(session, {"t0": "t1", **day})
    assert (table_id, rounds, settled) == ("t1", 2, 1)  # the misdealt round is voided


def test_a_value_worked_out_per_execution_is_not_fixed() -> None:
    events = Event.__table__  # type: ignore[attr-defined]
    later = FixedRead(select(events.c.seq).where(events.c.seq > bindparam("after", callable_=lambda: 3)))
    with pytest.raises(ValueError, match="after"):
        later._compile(sqlite.dialect())
