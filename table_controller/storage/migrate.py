"""Schema migrations, run from code at start: no ``alembic.ini`` on the user's side (docs/round-lifecycle.md).

The migration scripts live in ``migrations/`` next to this module. The whole upgrade runs
in one transaction (PostgreSQL and SQLite both have transactional DDL): a failed upgrade
leaves the schema as it was.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Final

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.engine import Connection, Engine

from .engine import SQLITE_BEGIN_OPTION, is_sqlite, make_engine
from .errors import SchemaVersionError

MIGRATIONS_DIR: Final = Path(__file__).resolve().parent / "migrations"
# PostgreSQL advisory lock held while migrating: tables of one casino floor sharing a database
# may start together; the second waits for the first, then finds the schema at head.
MIGRATION_LOCK_KEY: Final = 0x5047_4D49  # "PGMI"


def alembic_config(connection: Connection | None = None) -> Config:
    """An Alembic config pointing at the shipped scripts (and at ``connection`` if given)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


@functools.cache
def head_revision() -> str:
    """The revision the models of this code correspond to (read from the shipped migration
    scripts once: they are this code's, and do not change while it runs)."""
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    if head is None:  # pragma: no cover - the package ships its scripts
        raise SchemaVersionError(None, "a head revision (no migration scripts found)")
    return head


def current_revision(engine: Engine) -> str | None:
    """The revision the database is at, or None for an empty database."""
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def upgrade_to_head(engine_or_url: Engine | str) -> str:
    """Bring the database's schema to the head revision; return that revision.

    Idempotent: a database already at head is left alone. On PostgreSQL concurrent callers
    queue on an advisory lock, so daemons starting together do not race.
    """
    engine = make_engine(engine_or_url) if isinstance(engine_or_url, str) else engine_or_url
    try:
        with engine.connect() as connection:
            if is_sqlite(engine):
                connection = connection.execution_options(**{SQLITE_BEGIN_OPTION: "IMMEDIATE"})
            with connection.begin():
                if not is_sqlite(engine):
                    connection.execute(
                        text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK_KEY}
                    )
                command.upgrade(alembic_config(connection), "head")
        return head_revision()
    finally:
        if isinstance(engine_or_url, str):
            engine.dispose()


def check_schema_current(engine: Engine) -> str:
    """Raise :class:`SchemaVersionError` unless the database is at the head revision."""
    expected = head_revision()
    current = current_revision(engine)
    if current != expected:
        raise SchemaVersionError(current, expected)
    return current


__all__ = [
    "MIGRATIONS_DIR",
    "alembic_config",
    "check_schema_current",
    "current_revision",
    "head_revision",
    "upgrade_to_head",
]
