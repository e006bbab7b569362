"""Transactions: a unit of work is all or nothing; a snapshot reads one consistent state."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError

from table_controller.storage import (
    RoundCreate,
    RoundNotFoundError,
    RoundPositionCreate,
    RoundUpdate,
    add_position,
    append_event,
    create_round,
    list_events,
    read_snapshot,
    unit_of_work,
    update_round,
)

from .helpers import T0, at

TABLES = ("events", "chain_heads", "rounds", "round_positions")


def _counts(engine: Engine) -> dict[str, int]:
    with engine.connect() as connection:
        return {
            name: connection.execute(text(f"SELECT count(*) FROM {name}")).scalar_one() for name in TABLES
        }


def _open_round(session, table_id: str = "PG-3"):  # type: ignore[no-untyped-def]
    append_event(
        session, table_id=table_id, round_id=None, kind="round.opened", actor="ann", payload={}, now=T0
    )
    return create_round(
        session,
        data=RoundCreate(table_id=table_id, game="standard", dealer="ann", phase="betting", opened_at=T0),
    )


class Boom(Exception):
    pass


def test_an_error_after_writes_leaves_nothing_behind(engine: Engine) -> None:
    with pytest.raises(Boom), unit_of_work(engine) as session:
        round_ = _open_round(session)
        add_position(session, round_id=round_.round_id, data=RoundPositionCreate(position=1))
        update_round(session, round_id=round_.round_id, changes=RoundUpdate(wagered_cents=5000))
        raise Boom
    assert _counts(engine) == {name: 0 for name in TABLES}


def test_a_refused_write_in_the_middle_undoes_the_whole_step(engine: Engine) -> None:
    with unit_of_work(engine) as session:
        _open_round(session)
    before = _counts(engine)
    with pytest.raises(RoundNotFoundError), unit_of_work(engine) as session:
        append_event(
            session,
            table_id="PG-3",
            round_id="PG-3-1",
            kind="pile.dealt",
            actor="system",
            payload={},
            now=at(1),
        )
        add_position(session, round_id="PG-3-99", data=RoundPositionCreate(position=2))
    assert _counts(engine) == before


def test_a_database_error_in_the_middle_undoes_the_whole_step(engine: Engine) -> None:
    with pytest.raises(DBAPIError), unit_of_work(engine) as session:
        append_event(session, table_id="PG-3", round_id=None, kind="x", actor="system", payload={}, now=T0)
        orphan = text("INSERT INTO round_positions (round_id, position) VALUES ('nope', 1)")
        session.exec(orphan)  # type: ignore[call-overload]
    assert _counts(engine) == {name: 0 for name in TABLES}


def test_a_committed_step_is_seen_by_a_new_engine(engine: Engine) -> None:
    with unit_of_work(engine) as session:
        _open_round(session)
    assert _counts(engine) == {"events": 1, "chain_heads": 1, "rounds": 1, "round_positions": 0}


def test_a_snapshot_does_not_see_commits_made_while_it_reads(engine: Engine) -> None:
    with unit_of_work(engine) as session:
        append_event(session, table_id="PG-3", round_id=None, kind="a", actor="system", payload={}, now=T0)
    with read_snapshot(engine) as reader:
        assert len(list_events(reader, table_id="PG-3")) == 1
        with unit_of_work(engine) as writer:
            append_event(
                writer, table_id="PG-3", round_id=None, kind="b", actor="system", payload={}, now=at(1)
            )
        assert len(list_events(reader, table_id="PG-3")) == 1
    with read_snapshot(engine) as reader:
        assert len(list_events(reader, table_id="PG-3")) == 2


@pytest.mark.parametrize(
    "empty_engine", ["postgresql"], indirect=True
)  # SQLite has no read-only transactions
def test_a_snapshot_cannot_write_on_postgres(engine: Engine) -> None:
    with pytest.raises(DBAPIError, match="read-only"), read_snapshot(engine) as session:
        append_event(session, table_id="PG-3", round_id=None, kind="a", actor="system", payload={}, now=T0)
    assert _counts(engine)["events"] == 0


@pytest.mark.parametrize("empty_engine", ["sqlite"], indirect=True)
def test_what_a_snapshot_wrote_on_sqlite_is_thrown_away(engine: Engine) -> None:
    """SQLite has no read-only transaction: a snapshot ends in ROLLBACK, so nothing it did stays."""
    with read_snapshot(engine) as session:
        append_event(session, table_id="PG-3", round_id=None, kind="a", actor="system", payload={}, now=T0)
        session.flush()
        assert len(list_events(session, table_id="PG-3")) == 1
    assert _counts(engine)["events"] == 0


@pytest.mark.parametrize("empty_engine", ["postgresql"], indirect=True)
def test_snapshots_on_postgres_keep_the_statements_psycopg_prepared(engine: Engine) -> None:
    """A snapshot ends in COMMIT on PostgreSQL (it is READ ONLY): psycopg forgets its prepared
    statements at every ROLLBACK, so a reader ending in ROLLBACK would plan every page afresh.
    psycopg prepares a statement at its fifth run on a connection."""
    for _ in range(6):
        with read_snapshot(engine) as session:
            list_events(session, table_id="PG-3")
    with read_snapshot(engine) as session:
        prepared = (
            session.connection()
            .exec_driver_sql(
                "SELECT count(*) FROM pg_prepared_statements WHERE strpos(statement, 'FROM events') > 0"
            )
            .scalar_one()
        )
    assert prepared >= 1
