"""Transactions: one unit of work per step of a round, all of it or nothing (docs/round-lifecycle.md).

``unit_of_work`` is the write path: the state machine appends the step's event(s) and
updates the projection inside it; it commits when the block ends and rolls everything
back if anything raises, so a round is never half-written. On SQLite it begins with
``BEGIN IMMEDIATE``: the write lock is taken before the first read, so a second writer
waits (busy timeout) instead of failing at its first write on a stale snapshot.

``read_snapshot`` is for readers that need one consistent view of many rows (the chain
verifier): a ``REPEATABLE READ, READ ONLY`` transaction on PostgreSQL, a deferred
transaction on SQLite (in WAL mode a reader sees one snapshot until it ends). It writes
nothing: READ ONLY on PostgreSQL, rolled back on SQLite.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy.engine import Engine
from sqlmodel import Session

from .engine import SQLITE_BEGIN_OPTION, is_sqlite

#: ``Session.info`` key of a ``read_snapshot`` session: its COMMIT (PostgreSQL) wrote nothing,
#: so a listener to commits (the event hubs' poke, api/stream.py) can pass it by
READ_ONLY = "table_controller.read_only"


@contextmanager
def unit_of_work(engine: Engine) -> Iterator[Session]:
    """A session in one write transaction: committed on success, rolled back on any error."""
    with Session(engine, expire_on_commit=False, autoflush=True) as session:
        options = {SQLITE_BEGIN_OPTION: "IMMEDIATE"} if is_sqlite(engine) else {}
        session.connection(execution_options=options)  # begins now, with the write lock on SQLite
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise


@contextmanager
def read_snapshot(engine: Engine) -> Iterator[Session]:
    """A session reading one consistent snapshot; it writes nothing.

    SQLite: rolled back at the end (SQLite has no read-only transactions: whatever a reader
    might have written is thrown away). PostgreSQL: the transaction is READ ONLY, so the server
    itself refuses any write, and it ends with COMMIT when the block succeeds: psycopg forgets
    the statements it has prepared on a connection at every ROLLBACK, so readers ending in
    ROLLBACK never reuse a plan (and a page's statement, planned afresh each time from its
    values, can take the worse plan; docs/api.md, Speed). Any error rolls back.
    """
    with Session(engine, expire_on_commit=False, autoflush=False, info={READ_ONLY: True}) as session:
        sqlite = is_sqlite(engine)
        if sqlite:
            session.connection()
        else:
            session.connection(
                execution_options={"isolation_level": "REPEATABLE READ", "postgresql_readonly": True}
            )
        try:
            yield session
        except BaseException:
            session.rollback()
            raise
        if sqlite:
            session.rollback()
        else:
            session.commit()


__all__ = ["READ_ONLY", "read_snapshot", "unit_of_work"]
