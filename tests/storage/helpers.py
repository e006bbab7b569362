"""Helpers shared by the storage tests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import text
from sqlalchemy.engine import Engine

T0 = datetime(2024, 5, 1, 20, 15, 0, 123456, tzinfo=UTC)


def at(seconds: float) -> datetime:
    """A fixed time ``seconds`` after T0."""
    return T0 + timedelta(seconds=seconds)


def tamper(engine: Engine, statement: str, **params: object) -> int:
    """Run raw SQL behind the store's back, as someone with the database owner's rights would:
    the append-only triggers are dropped first. Returns the number of rows touched."""
    with engine.begin() as connection:
        if engine.dialect.name == "postgresql":
            connection.exec_driver_sql("ALTER TABLE events DISABLE TRIGGER USER")
        else:
            connection.exec_driver_sql("DROP TRIGGER IF EXISTS events_no_update")
            connection.exec_driver_sql("DROP TRIGGER IF EXISTS events_no_delete")
        result = connection.execute(text(statement), params)
        if engine.dialect.name == "postgresql":
            connection.exec_driver_sql("ALTER TABLE events ENABLE TRIGGER USER")
        return result.rowcount
