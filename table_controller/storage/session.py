"""Transactions: one unit of work per step of a round, all of it or nothing (issue 4).

``unit_of_work`` is the write path: the state machine appends the step's event(s) and
updates the projection inside it; it commits when the block ends and rolls everything
back if anything raises, so a round is never half-written. On SQLite it begins with
``BEGIN IMMEDIATE``: the write lock is taken before the first read, so a second writer
waits (busy timeout) instead of failing at its first write on a stale snapshot.

``read_snapshot`` is for readers that need one consistent view of many rows (the chain
verifier): a ``REPEATABLE READ, READ ONLY`` transaction on PostgreSQL, a deferred
transaction on SQLite (in WAL mode a reader sees one snapshot until it ends). It never
commits.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy.engine import Engine
from sqlmodel import Session

from .engine import SQLITE_BEGIN_OPTION, is_sqlite


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
    """A session reading one consistent snapshot; rolled back at the end, never commits."""
    with Session(engine, expire_on_commit=False, autoflush=False) as session:
        if is_sqlite(engine):
            session.connection()
        else:
            session.connection(
                execution_options={"isolation_level": "REPEATABLE READ", "postgresql_readonly": True}
            )
        try:
            yield session
        finally:
            session.rollback()


__all__ = ["read_snapshot", "unit_of_work"]
