"""``FixedRead`` (storage/fixed_read.py): a fixed SELECT run on the DBAPI cursor answers what
Core's own execution answers, value for value and type for type, on both backends, and a
driver's error is raised as Core raises it (the API's 503 handler reads Core's errors)."""

from __future__ import annotations

import pytest
from sqlalchemy import bindparam, literal_column, select, table
from sqlalchemy.dialects import sqlite
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError

from table_controller.storage import history, read_snapshot
from table_controller.storage.fixed_read import FixedRead
from table_controller.storage.models import Event

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
