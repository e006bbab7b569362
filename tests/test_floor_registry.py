"""A table on the floor (docs/round-lifecycle.md, "Registration and heartbeat"): the daemon's
table service registers its table at start, refreshes ``seen_at`` on every heartbeat and lives
through a store outage, and a change of pit or game between starts is chained in the table's
own chain, so the chain says which pit the table was in when.

On SQLite and PostgreSQL (the ``engine`` fixture); the outage is a real SQLite lock held by
another connection, as in tests/test_service_robustness.py."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.engine import Engine
from structlog.testing import capture_logs

from table_controller.daemon.run import start_floor_heartbeat
from table_controller.game.cards import Game
from table_controller.settings import TableSettings
from table_controller.storage import list_events, make_engine, upgrade_to_head, verify_chain
from table_controller.storage.floor_tables import REGISTERED, FloorTable
from table_controller.storage.session import read_snapshot
from table_controller.table.service import TableService

START = datetime(2026, 11, 25, 21, 0, tzinfo=UTC)


def _settings(**more: object) -> TableSettings:
    values: dict[str, object] = {"table_id": "t1", "pit": "pit-a", "api_url": "https://t1.floor:8443"}
    return TableSettings(**{**values, **more})  # type: ignore[arg-type]


def _row(engine: Engine) -> FloorTable | None:
    with read_snapshot(engine) as session:
        row = session.get(FloorTable, "t1")
        if row is not None:
            session.expunge(row)  # read now, kept after the snapshot ends
        return row


def _registrations(engine: Engine) -> list[dict]:
    with read_snapshot(engine) as session:
        return [json.loads(e.payload) for e in list_events(session, table_id="t1") if e.kind == REGISTERED]


def _started(engine: Engine, **more: object) -> TableService:
    """A start of the daemon's table service, as run_table makes it (less the code's hash, which
    registration does not read): the record, then the floor."""
    service = TableService(_settings(**more), engine)
    service.resume()
    service.register_on_floor()
    return service


def test_a_start_puts_the_table_on_the_floor_and_chains_where_it_is(engine):
    _started(engine)
    row = _row(engine)
    assert row is not None
    assert (row.pit, row.game, row.house_way, row.api_url) == (
        "pit-a",
        "standard",
        "house-way-002",
        "https://t1.floor:8443",
    )
    assert row.seen_at == row.started_at
    assert _registrations(engine) == [
        {
            "pit": "pit-a",
            "game": "standard",
            "house_way": "house-way-002",
            "api_url": "https://t1.floor:8443",
            "previous": None,
        }
    ]


def test_a_restart_in_the_same_pit_chains_nothing_and_a_move_or_a_new_game_is_chained(engine):
    _started(engine)
    _started(engine)  # the same configuration: the chain already says it
    assert len(_registrations(engine)) == 1
    _started(engine, pit="pit-b")
    _started(engine, pit="pit-b", game=Game.DOUBLE_JOKER)
    moved, new_game = _registrations(engine)[1:]
    assert (moved["pit"], moved["previous"]["pit"]) == ("pit-b", "pit-a")
    assert (new_game["game"], new_game["previous"]["game"]) == ("double-joker", "standard")
    row = _row(engine)
    assert row is not None and (row.pit, row.game) == ("pit-b", "double-joker")
    with read_snapshot(engine) as session:
        assert verify_chain(session, table_id="t1").ok


def test_the_heartbeat_refreshes_seen_at_and_a_row_deleted_is_registered_again(engine):
    service = _started(engine)
    started = _row(engine).started_at  # type: ignore[union-attr]
    assert service.floor_heartbeat(START) is True
    assert _row(engine).seen_at == START  # type: ignore[union-attr]
    with engine.begin() as connection:
        connection.execute(text("DELETE FROM floor_tables"))
    assert service.floor_heartbeat(START + timedelta(seconds=5)) is True
    row = _row(engine)
    assert row is not None and row.pit == "pit-a"
    assert row.started_at == started  # still this start's, not the beat's
    assert row.seen_at == START + timedelta(seconds=5)  # alive as of the beat
    assert len(_registrations(engine)) == 1  # the chain already said where the table is


def _locked_store(folder: Path) -> Engine:
    url = f"sqlite:///{folder / 'table.sqlite3'}"
    upgrade_to_head(url)
    return make_engine(url, busy_timeout_ms=50)


def _hold_the_lock(folder: Path) -> sqlite3.Connection:
    """Another process's exclusive lock on the store: every write of the table times out."""
    other = sqlite3.connect(folder / "table.sqlite3", isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    return other


def _release(other: sqlite3.Connection) -> None:
    other.execute("COMMIT")
    other.close()


def _floor_lines(logs: list[dict]) -> list[str]:
    return [e["event"] for e in logs if e["event"].startswith("floor.")]


def test_a_store_outage_is_logged_once_and_the_beats_go_on_until_it_is_back(tmp_path):
    engine = _locked_store(tmp_path)
    try:
        service = TableService(_settings(), engine)
        service.register_on_floor()
        other = _hold_the_lock(tmp_path)
        try:
            with capture_logs() as logs:
                assert service.floor_heartbeat() is False
                assert service.floor_heartbeat() is False
        finally:
            _release(other)
        assert _floor_lines(logs) == ["floor.heartbeat_failed"]
        assert logs[0]["outage"] is True
        with capture_logs() as logs:
            assert service.floor_heartbeat(START) is True
        assert _floor_lines(logs) == ["floor.heartbeat_back"]
        assert _row(engine).seen_at == START  # type: ignore[union-attr]
    finally:
        engine.dispose()


def test_a_start_the_store_refuses_deals_all_the_same_and_the_heartbeat_registers_it(tmp_path):
    engine = _locked_store(tmp_path)
    try:
        service = TableService(_settings(), engine)
        other = _hold_the_lock(tmp_path)
        try:
            with capture_logs() as logs:
                service.register_on_floor()  # never raises
                assert service.floor_heartbeat() is False
        finally:
            _release(other)
        # the change is kept as any note of the table through an outage; one line for the outage
        assert _floor_lines(logs) == ["floor.registration_changed", "floor.register_failed"]
        assert _row(engine) is None
        assert service.floor_heartbeat() is True
        row = _row(engine)
        assert row is not None and row.pit == "pit-a"
        assert service.retry_store() is True  # the conductor's retry writes the kept notes
        [registered] = _registrations(engine)  # once: the beat did not chain it a second time
        assert (registered["pit"], "kept_from" in registered) == ("pit-a", True)
    finally:
        engine.dispose()


def test_the_daemons_heartbeat_thread_beats_until_it_is_stopped(engine):
    service = _started(engine)
    first = _row(engine).seen_at  # type: ignore[union-attr]
    stop = start_floor_heartbeat(service, 0.01)
    try:
        deadline = time.monotonic() + 10  # waiting for a beat, not timing it
        while _row(engine).seen_at == first and time.monotonic() < deadline:  # type: ignore[union-attr]
            time.sleep(0.01)
        assert _row(engine).seen_at > first  # type: ignore[union-attr]
    finally:
        stop()
    assert not [t for t in threading.enumerate() if t.name == "floor-heartbeat"]


def test_the_first_registration_chains_the_tables_state_so_the_floor_shows_its_devices(engine):
    """A new table has chained no ``table.state``; its first registration chains it (open, no
    faults, no hold), so the floor's device column reads "ok" from the first report instead of
    "not reported yet" until something changes. A second start chains it no more."""
    from table_controller.floor.overview import devices_view
    from table_controller.record.recorder import TABLE_STATE
    from table_controller.storage.floor import last_payloads

    def state() -> dict | None:
        with read_snapshot(engine) as session:
            return last_payloads(session, table_ids=["t1"], kind=TABLE_STATE).get("t1")

    def states() -> int:
        with read_snapshot(engine) as session:
            return sum(e.kind == TABLE_STATE for e in list_events(session, table_id="t1"))

    assert state() is None
    _started(engine)
    first = state()
    assert first is not None
    assert devices_view(first).status == "ok"
    assert (first["faults"], first["hold"]) == ([], None)
    _started(engine)
    assert states() == 1
    with read_snapshot(engine) as session:
        assert verify_chain(session, table_id="t1").ok
