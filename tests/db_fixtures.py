"""Database fixtures (a pytest plugin, see tests/conftest.py): every test using ``engine`` runs
on SQLite and on a real PostgreSQL.

PostgreSQL is found at ``TABLE_TEST_POSTGRES_URL`` (default
``postgresql+psycopg://postgres@127.0.0.1:5432/test``, trust auth). The fixtures only connect:
``scripts/setup-test-host.sh`` (run by ``.ci/run`` and the README's test command) starts the
server. If nothing answers the tests FAIL, naming that script, never skip: CI must run them.
Each test gets its own schema (dropped after).
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import OperationalError

from table_controller.storage import current_revision, head_revision, make_engine, sqlite_url, upgrade_to_head
from table_controller.storage.engine import sqlite_path

POSTGRES_URL_ENV = "TABLE_TEST_POSTGRES_URL"
DEFAULT_POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
SETUP_SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "setup-test-host.sh"
BACKENDS = ["sqlite", "postgresql"]


def _probe(url: str) -> str | None:
    """None if a server answers at ``url``, else why not."""
    engine = make_engine(f"{url}{'&' if '?' in url else '?'}connect_timeout=3")
    try:
        with engine.connect() as connection:
            connection.exec_driver_sql("SELECT 1")
        return None
    except OperationalError as exc:
        return str(exc.orig).strip()
    finally:
        engine.dispose()


@pytest.fixture(scope="session")
def postgres_url() -> str:
    url = os.environ.get(POSTGRES_URL_ENV, DEFAULT_POSTGRES_URL)
    problem = _probe(url)
    if problem is not None:
        pytest.fail(
            f"PostgreSQL is required for the storage tests and none answers at {url}: {problem}\n"
            f"start it with: bash {SETUP_SCRIPT.relative_to(SETUP_SCRIPT.parents[1])} "
            f"(or set {POSTGRES_URL_ENV})",
            pytrace=False,
        )
    return url


_ADMINS: dict[str, Engine] = {}  # per server URL, for this test process's life (disposed at its end)


def _admin(postgres_url: str, statement: str) -> None:
    """Run one statement (a test's schema made or dropped) on the process's administrative
    connection: one for all the tests of a worker, instead of a new server backend twice per
    test (a pre-ping finds it again if a test restarted the server)."""
    admin = _ADMINS.get(postgres_url)
    if admin is None:
        admin = _ADMINS[postgres_url] = make_engine(postgres_url)
    with admin.begin() as connection:
        connection.exec_driver_sql(statement)


@pytest.fixture(scope="session", autouse=True)
def _admins_closed() -> Iterator[None]:
    yield
    for admin in _ADMINS.values():
        admin.dispose()
    _ADMINS.clear()


def _postgres_engine(postgres_url: str) -> Iterator[Engine]:
    schema = f"test_{uuid.uuid4().hex[:16]}"
    _admin(postgres_url, f'CREATE SCHEMA "{schema}"')
    url = make_url(postgres_url).update_query_dict({"options": f"-csearch_path={schema}"})
    engine = make_engine(url.render_as_string(hide_password=False))
    try:
        yield engine
    finally:
        engine.dispose()
        _admin(postgres_url, f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture(params=BACKENDS)
def empty_engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    """An engine on an empty database (no schema), SQLite file or PostgreSQL schema."""
    if request.param == "sqlite":
        engine = make_engine(sqlite_url(tmp_path))
        try:
            yield engine
        finally:
            engine.dispose()
    else:
        yield from _postgres_engine(request.getfixturevalue("postgres_url"))


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file migrated to head by ``upgrade_to_head``, once per test process (see ``engine``)."""
    folder = tmp_path_factory.mktemp("sqlite-template")
    engine = make_engine(sqlite_url(folder))
    try:
        upgrade_to_head(engine)
        assert current_revision(engine) == head_revision()
    finally:
        engine.dispose()  # the last connection closed: the write-ahead log is checkpointed into the file
    path = sqlite_path(sqlite_url(folder))
    assert path is not None and not path.with_name(path.name + "-wal").exists()
    return path


@pytest.fixture(scope="session")
def migration_sql() -> list[tuple[str, Any]]:
    """The SQL the migration to head ran on PostgreSQL, recorded by the first test (see ``engine``)."""
    return []


def _record_migration(engine: Engine) -> list[tuple[str, Any]]:
    recorded: list[tuple[str, Any]] = []

    def record(_conn: Any, _cursor: Any, statement: str, parameters: Any, _context: Any, _many: bool) -> None:
        if not statement.lstrip().upper().startswith(("BEGIN", "COMMIT", "ROLLBACK")):
            recorded.append((statement, parameters))

    event.listen(engine, "before_cursor_execute", record)
    try:
        upgrade_to_head(engine)
    finally:
        event.remove(engine, "before_cursor_execute", record)
    return recorded


@pytest.fixture
def engine(empty_engine: Engine, request: pytest.FixtureRequest) -> Engine:
    """An engine on a database migrated to head.

    SQLite: a copy of a file ``upgrade_to_head`` migrated once per test process (about 1 ms,
    against 25-30 ms to replay the migration's SQL). PostgreSQL: the first test runs
    ``upgrade_to_head`` and records its SQL; later tests replay that SQL into their fresh schema
    in one transaction (same schema, a tenth of the time). ``test_migrations.py`` runs the real
    migration from empty on every backend.
    """
    if empty_engine.dialect.name == "sqlite":
        path = sqlite_path(str(empty_engine.url))
        assert path is not None and not path.exists(), "the test's SQLite file is new"
        shutil.copyfile(request.getfixturevalue("sqlite_template"), path)
        return empty_engine
    recorded: list[tuple[str, Any]] = request.getfixturevalue("migration_sql")
    if not recorded:
        recorded.extend(_record_migration(empty_engine))
    else:
        with empty_engine.begin() as connection:
            for statement, parameters in recorded:
                connection.exec_driver_sql(statement, parameters if parameters else None)
    assert current_revision(empty_engine) == head_revision()
    return empty_engine
