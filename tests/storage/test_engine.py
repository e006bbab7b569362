"""Engines: URLs, SQLite pragmas in force, the write lock taken up front, PostgreSQL commits."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from table_controller.storage import (
    UnsupportedDatabaseURLError,
    make_engine,
    redacted,
    sqlite_path,
    sqlite_url,
    unit_of_work,
)


def test_sqlite_url_names_the_file_in_the_data_dir(tmp_path: Path) -> None:
    assert sqlite_url(tmp_path) == f"sqlite:///{tmp_path.resolve()}/table.sqlite3"
    assert sqlite_path(sqlite_url(tmp_path)) == tmp_path.resolve() / "table.sqlite3"


def test_in_memory_and_postgres_urls_have_no_file() -> None:
    assert sqlite_path("sqlite://") is None
    assert sqlite_path("sqlite:///:memory:") is None
    assert sqlite_path("postgresql+psycopg://u@h/db") is None


@pytest.mark.parametrize(
    "url",
    [
        "mysql://u@h/db",
        "postgresql+psycopg2://u@h/db",
        "postgresql+asyncpg://u@h/db",
        "oracle://u@h/db",
        "not a url",
        "",
    ],
)
def test_unsupported_urls_are_refused(url: str) -> None:
    with pytest.raises(UnsupportedDatabaseURLError):
        make_engine(url)


def test_refusal_does_not_show_the_password() -> None:
    with pytest.raises(UnsupportedDatabaseURLError) as caught:
        make_engine("mysql://ann:s3cret@h/db")
    assert "s3cret" not in str(caught.value)
    assert redacted("postgresql://ann:s3cret@h/db") == "postgresql://ann:***@h/db"


def test_plain_postgresql_scheme_means_psycopg() -> None:
    engine = make_engine("postgresql://u@h/db")
    assert engine.dialect.driver == "psycopg"
    engine.dispose()


def test_sqlite_pragmas_are_in_force_on_every_connection(tmp_path: Path) -> None:
    engine = make_engine(sqlite_url(tmp_path), busy_timeout_ms=1234)
    try:
        connections = [engine.connect() for _ in range(2)]  # two pooled connections
        expected = {"journal_mode": "wal", "synchronous": 2, "foreign_keys": 1, "busy_timeout": 1234}
        for connection in connections:  # synchronous 2 is FULL
            found = {name: connection.exec_driver_sql(f"PRAGMA {name}").scalar() for name in expected}
            assert found == expected
        for connection in connections:
            connection.close()
    finally:
        engine.dispose()


def test_wal_mode_is_kept_in_the_file(tmp_path: Path) -> None:
    engine = make_engine(sqlite_url(tmp_path))
    with engine.connect() as connection:
        connection.exec_driver_sql("SELECT 1")
    engine.dispose()
    raw = sqlite3.connect(tmp_path / "table.sqlite3")
    assert raw.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    raw.close()


def test_unit_of_work_takes_the_sqlite_write_lock_before_any_write(tmp_path: Path) -> None:
    engine = make_engine(sqlite_url(tmp_path))
    with engine.begin() as connection:
        connection.exec_driver_sql("CREATE TABLE t (x INTEGER)")
    other = sqlite3.connect(tmp_path / "table.sqlite3", timeout=0, isolation_level=None)
    try:
        with (
            unit_of_work(engine),  # no statement run yet
            pytest.raises(sqlite3.OperationalError, match="locked"),
        ):
            other.execute("BEGIN IMMEDIATE")
        other.execute("BEGIN IMMEDIATE")  # free again once the unit of work ended
        other.execute("ROLLBACK")
    finally:
        other.close()
        engine.dispose()


def test_in_memory_sqlite_is_one_shared_database() -> None:
    engine = make_engine("sqlite://")
    try:
        with engine.begin() as connection:
            connection.exec_driver_sql("CREATE TABLE t (x INTEGER)")
            connection.exec_driver_sql("INSERT INTO t VALUES (7)")
        with engine.connect() as connection:
            assert connection.exec_driver_sql("SELECT x FROM t").scalar() == 7
            assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    finally:
        engine.dispose()


def test_postgres_commits_are_synchronous_even_if_the_server_says_otherwise(postgres_url: str) -> None:
    url = make_url(postgres_url).update_query_dict({"options": "-csynchronous_commit=off"})
    engine = make_engine(url.render_as_string(hide_password=False))
    try:
        with engine.connect() as connection:
            assert connection.exec_driver_sql("SHOW synchronous_commit").scalar() == "on"
        assert engine.dialect.driver == "psycopg"
    finally:
        engine.dispose()


def test_postgres_reads_start_no_parallel_workers(postgres_url: str) -> None:
    """A page of history stops after a few rows: two parallel workers made the card filter on a
    year of rounds 3x slower (benchmarks/bench_api.py), so the controller's sessions start none."""
    url = make_url(postgres_url).update_query_dict({"options": "-cmax_parallel_workers_per_gather=4"})
    engine = make_engine(url.render_as_string(hide_password=False))
    try:
        with engine.connect() as connection:
            assert connection.exec_driver_sql("SHOW max_parallel_workers_per_gather").scalar() == "0"
    finally:
        engine.dispose()
