"""Engines for the store: SQLite in a local data folder, or PostgreSQL by URL (docs/round-lifecycle.md).

Never created at import time: the daemon, the CLI and the tests each call
:func:`make_engine` with the URL from their settings.

SQLite connections get ``journal_mode=WAL``, ``synchronous=FULL`` (a commit is on disk when
it returns), ``foreign_keys=ON`` and a busy timeout. Transactions are begun by this module,
not by the ``sqlite3`` driver, so that :func:`table_controller.storage.session.unit_of_work`
can take the write lock up front (``BEGIN IMMEDIATE``) and two writers queue instead of
failing half way. PostgreSQL goes through psycopg 3 with ``synchronous_commit=on``
forced per connection (a database default of ``off`` would lose acknowledged commits).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from sqlalchemy import event
from sqlalchemy.engine import URL, Connection, Engine, create_engine, make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.pool import StaticPool

from .errors import UnsupportedDatabaseURLError

SQLITE_FILE_NAME: Final = "table.sqlite3"
DEFAULT_BUSY_TIMEOUT_MS: Final = 5000

# Execution option read by the "begin" hook: DEFERRED (reads) or IMMEDIATE (writes).
SQLITE_BEGIN_OPTION: Final = "table_controller_sqlite_begin"
_SQLITE_BEGIN_MODES: Final = frozenset({"DEFERRED", "IMMEDIATE", "EXCLUSIVE"})

_SQLITE_DRIVERS: Final = frozenset({"sqlite", "sqlite+pysqlite"})
_POSTGRES_DRIVERS: Final = frozenset({"postgresql", "postgresql+psycopg"})


def sqlite_url(data_dir: Path) -> str:
    """URL of the table's SQLite file in ``data_dir``: ``<data_dir>/table.sqlite3``."""
    return f"sqlite:///{(Path(data_dir) / SQLITE_FILE_NAME).resolve()}"


def sqlite_path(url: str) -> Path | None:
    """The file a SQLite URL points at, or None for an in-memory or non-SQLite URL."""
    parsed = _parse(url)
    if parsed.get_backend_name() != "sqlite":
        return None
    database = parsed.database
    if not database or database == ":memory:" or database.startswith("file::memory:"):
        return None
    return Path(database)


def redacted(url: str) -> str:
    """``url`` with any password masked, for messages and logs."""
    return _parse(url).render_as_string(hide_password=True)


def _parse(url: str) -> URL:
    try:
        return make_url(url)
    except (ArgumentError, ValueError) as exc:
        raise UnsupportedDatabaseURLError(str(url), f"not a database URL ({exc})") from None


def make_engine(url: str, *, busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS, echo: bool = False) -> Engine:
    """An engine for ``url``: ``sqlite:///path`` or ``postgresql+psycopg://...``.

    ``postgresql://`` means psycopg 3, the only PostgreSQL driver shipped. In-memory SQLite
    (``sqlite://``) is allowed for tests and tools: one shared connection, no WAL. Any other
    scheme or driver raises :class:`UnsupportedDatabaseURLError`.
    """
    parsed = _parse(url)
    driver = parsed.drivername
    if driver in _SQLITE_DRIVERS:
        return _sqlite_engine(parsed, busy_timeout_ms=busy_timeout_ms, echo=echo)
    if driver in _POSTGRES_DRIVERS:
        return _postgres_engine(parsed.set(drivername="postgresql+psycopg"), echo=echo)
    raise UnsupportedDatabaseURLError(
        parsed.render_as_string(hide_password=True),
        f"driver {driver!r}; use sqlite:///<file> or postgresql+psycopg://<user>@<host>/<database>",
    )


def _sqlite_engine(parsed: URL, *, busy_timeout_ms: int, echo: bool) -> Engine:
    if busy_timeout_ms < 0:
        raise ValueError(f"busy_timeout_ms must be >= 0, got {busy_timeout_ms}")
    in_memory = sqlite_path(parsed.render_as_string(hide_password=False)) is None
    kwargs: dict[str, Any] = {"echo": echo}
    if in_memory:
        kwargs.update(poolclass=StaticPool, connect_args={"check_same_thread": False})
    engine = create_engine(parsed, **kwargs)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # The driver must not open transactions on its own: the "begin" hook does it.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            if not in_memory:
                cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=FULL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        mode = connection.get_execution_options().get(SQLITE_BEGIN_OPTION, "DEFERRED")
        if mode not in _SQLITE_BEGIN_MODES:
            raise ValueError(f"unknown SQLite begin mode {mode!r}")
        connection.exec_driver_sql(f"BEGIN {mode}")

    return engine


POSTGRES_SESSION_SETTINGS: dict[str, str] = {
    "synchronous_commit": "on",
    # The controller's reads are small indexed walks that stop at a page: starting parallel
    # workers costs more than the query (the history's card filter on a year of rounds: 7.1 ms
    # with two workers, 2.4 ms without; benchmarks/bench_api.py).
    "max_parallel_workers_per_gather": "0",
}


def _postgres_engine(parsed: URL, *, echo: bool) -> Engine:
    engine = create_engine(parsed, echo=echo, pool_pre_ping=True)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        apply_postgres_session_settings(dbapi_connection)

    return engine


def apply_postgres_session_settings(dbapi_connection: Any) -> None:
    """``POSTGRES_SESSION_SETTINGS`` on a psycopg connection (outside any transaction)."""
    autocommit = dbapi_connection.autocommit
    dbapi_connection.autocommit = True
    try:
        with dbapi_connection.cursor() as cursor:
            for name, value in POSTGRES_SESSION_SETTINGS.items():
                cursor.execute(f"SET {name} TO {value}")
    finally:
        dbapi_connection.autocommit = autocommit


def is_sqlite(engine: Engine | Connection) -> bool:
    return engine.dialect.name == "sqlite"


__all__ = [
    "DEFAULT_BUSY_TIMEOUT_MS",
    "POSTGRES_SESSION_SETTINGS",
    "SQLITE_FILE_NAME",
    "apply_postgres_session_settings",
    "is_sqlite",
    "make_engine",
    "redacted",
    "sqlite_path",
    "sqlite_url",
]
