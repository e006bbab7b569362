"""Opening the store, the read-only check behind ``audit verify``, and a writer killed mid-append."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine

from table_controller.storage import (
    BreakKind,
    SchemaVersionError,
    StoreNotFoundError,
    StoreUnavailableError,
    append_event,
    audit_verify,
    make_engine,
    open_store,
    sqlite_url,
    store_url,
    unit_of_work,
    verify_store,
)

from .helpers import at, tamper


def _url(engine: Engine) -> str:
    return engine.url.render_as_string(hide_password=False)


def test_open_store_creates_the_data_folder_and_migrates(tmp_path: Path) -> None:
    data_dir = tmp_path / "data" / "table"
    engine = open_store(sqlite_url(data_dir))
    try:
        with unit_of_work(engine) as session:
            append_event(
                session, table_id="PG-3", round_id=None, kind="table.opened", actor="system", payload={}
            )
    finally:
        engine.dispose()
    assert (data_dir / "table.sqlite3").is_file()


def test_store_url_takes_a_data_dir_or_a_url(tmp_path: Path) -> None:
    assert store_url(data_dir=tmp_path) == sqlite_url(tmp_path)
    assert store_url(db_url="postgresql+psycopg://u@h/db") == "postgresql+psycopg://u@h/db"
    with pytest.raises(ValueError, match="exactly one"):
        store_url()
    with pytest.raises(ValueError, match="exactly one"):
        store_url(data_dir=tmp_path, db_url="sqlite://")


def test_verify_store_passes_a_whole_chain_and_names_a_broken_link(engine: Engine) -> None:
    with unit_of_work(engine) as session:
        for i in range(4):
            append_event(
                session,
                table_id="PG-3",
                round_id="PG-3-1",
                kind="pile.dealt",
                actor="system",
                payload={"pile": i + 1},
                now=at(i),
            )
    report = verify_store(_url(engine))
    assert report.ok and report.events_checked == 4
    tamper(engine, "UPDATE events SET payload = :p WHERE seq = 3", p='{"pile":9}')
    report = verify_store(_url(engine))
    assert not report.ok
    found = report.first_break
    assert found is not None and (found.table_id, found.seq, found.kind) == (
        "PG-3",
        3,
        BreakKind.HASH_MISMATCH,
    )
    assert "table PG-3, seq 3 (event id " in report.describe()


def test_verify_store_never_creates_a_missing_sqlite_file(tmp_path: Path) -> None:
    with pytest.raises(StoreNotFoundError, match="no store at"):
        verify_store(sqlite_url(tmp_path))
    assert list(tmp_path.iterdir()) == []


def test_verify_store_refuses_an_unmigrated_database(empty_engine: Engine) -> None:
    with empty_engine.begin() as connection:
        connection.execute(text("CREATE TABLE unrelated (x INTEGER)"))
    with pytest.raises(SchemaVersionError):
        verify_store(_url(empty_engine))


def test_verify_store_reports_an_unreachable_server() -> None:
    with pytest.raises(StoreUnavailableError, match="cannot open"):
        verify_store("postgresql+psycopg://postgres@127.0.0.1:1/test?connect_timeout=2")


# --------------------------------------------------------------------------- SIGKILL


_WRITER = textwrap.dedent(
    """
    import sys
    from table_controller.storage import append_event, make_engine, unit_of_work
    engine = make_engine(sys.argv[1])
    n = 0
    while True:
        n += 1
        with unit_of_work(engine) as session:
            event = append_event(session, table_id="PG-3", round_id=None, kind="device.event",
                                 actor="device:shuffler", payload={"n": n})
            append_event(session, table_id="PG-3", round_id=None, kind="device.ack",
                         actor="system", payload={"n": n})
        print(event.seq, flush=True)  # acknowledged: the commit has returned
    """
)


@pytest.mark.slow
def test_a_writer_killed_mid_append_loses_nothing_it_acknowledged(engine: Engine) -> None:
    url = _url(engine)
    writer = subprocess.Popen(
        [sys.executable, "-c", _WRITER, url],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    acknowledged: list[int] = []
    try:
        assert writer.stdout is not None
        for line in writer.stdout:
            acknowledged.append(int(line))
            if len(acknowledged) == 40:
                writer.send_signal(signal.SIGKILL)
                break
    finally:
        writer.kill()
        writer.wait(10)
        assert writer.stdout is not None and writer.stderr is not None
        errors = writer.stderr.read()
        writer.stdout.close()
        writer.stderr.close()
    assert len(acknowledged) == 40, errors
    assert acknowledged == list(range(1, 80, 2))  # two events per step, the first one's seq printed

    report = verify_store(url)
    assert report.ok, report.describe()
    check = make_engine(url)
    try:
        with check.connect() as connection:
            stored = connection.execute(text("SELECT count(*) FROM events")).scalar_one()
            unpaired = connection.execute(
                text(
                    "SELECT count(*) FROM events e WHERE kind = 'device.event' AND NOT EXISTS"
                    " (SELECT 1 FROM events a WHERE a.kind = 'device.ack' AND a.seq = e.seq + 1)"
                )
            ).scalar_one()
    finally:
        check.dispose()
    assert stored >= 80 and stored % 2 == 0  # every acknowledged step, and no half step
    assert unpaired == 0


# --------------------------------------------------------------------------- the command's contract


def test_audit_verify_exits_0_on_a_whole_chain(tmp_path: Path) -> None:
    engine = open_store(sqlite_url(tmp_path))
    with unit_of_work(engine) as session:
        append_event(
            session,
            table_id="PG-3",
            round_id=None,
            kind="table.opened",
            actor="system",
            payload={},
            now=at(0),
        )
    engine.dispose()
    assert audit_verify(data_dir=tmp_path) == (0, "audit chain whole: 1 events in 1 table chain(s) verified")


def test_audit_verify_exits_1_naming_the_first_broken_link(engine: Engine) -> None:
    with unit_of_work(engine) as session:
        for i in range(3):
            append_event(
                session, table_id="PG-3", round_id=None, kind="x", actor="system", payload={}, now=at(i)
            )
    tamper(engine, "DELETE FROM events WHERE seq = 2")
    code, shown = audit_verify(db_url=_url(engine))
    assert code == 1
    assert shown.splitlines() == [
        "audit chain BROKEN: 2 events in 1 table chain(s) checked; first broken link:",
        "  table PG-3, seq 2 (row missing): seq-gap: seq 2 missing (deleted);"
        " next stored row is seq 3 (event id 3)",
    ]


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"db_url": "mysql://u@h/db"},
        {"db_url": "postgresql+psycopg://postgres@127.0.0.1:1/x?connect_timeout=2"},
    ],
)
def test_audit_verify_exits_2_when_the_store_cannot_be_checked(options: dict) -> None:
    code, shown = audit_verify(**options)
    assert code == 2 and shown.startswith("audit chain NOT CHECKED: ")


def test_audit_verify_exits_2_on_a_missing_data_dir(tmp_path: Path) -> None:
    assert audit_verify(data_dir=tmp_path / "nowhere") == (
        2,
        f"audit chain NOT CHECKED: no store at {(tmp_path / 'nowhere').resolve()}/table.sqlite3",
    )
    assert not (tmp_path / "nowhere").exists()
