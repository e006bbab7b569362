"""The audit chain on both backends: append, verify, tampering caught, concurrent writers queue."""

from __future__ import annotations

import contextlib
import io
import itertools
import re
import threading
import time
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from pydantic import ValidationError
from sqlalchemy import text
from sqlalchemy.engine import Engine

from table_controller.storage import (
    GENESIS_HASH,
    BreakKind,
    ChainBreak,
    ChainHeadMismatchError,
    ChainLink,
    ChainReport,
    EventCreate,
    EventPublic,
    InvalidEventError,
    InvalidFieldError,
    InvalidTimeError,
    append_event,
    format_timestamp,
    head_of_chain,
    list_events,
    read_snapshot,
    unit_of_work,
    verify_chain,
)

from .helpers import T0, at, tamper

DOC = Path(__file__).resolve().parents[2] / "docs" / "audit-chain.md"


def _append(
    engine: Engine, table_id: str, n: int, *, start: float = 0.0, round_id: str | None = None
) -> list[EventPublic]:
    events = []
    with unit_of_work(engine) as session:
        for i in range(n):
            events.append(
                append_event(
                    session,
                    table_id=table_id,
                    round_id=round_id,
                    kind="pile.dealt",
                    actor="device:shuffler",
                    payload={"pile": i + 1, "wager_cents": 2500},
                    now=at(start + i),
                )
            )
    return events


def _verify(engine: Engine, table_id: str | None = None) -> ChainReport:
    with read_snapshot(engine) as session:
        return verify_chain(session, table_id=table_id)


# --------------------------------------------------------------------------- appending


def test_events_are_numbered_and_linked_from_the_genesis_hash(engine: Engine) -> None:
    events = _append(engine, "PG-3", 3, round_id="PG-3-1")
    assert [event.seq for event in events] == [1, 2, 3]
    assert events[0].prev_hash == GENESIS_HASH
    assert events[1].prev_hash == events[0].hash
    assert events[2].prev_hash == events[1].hash
    assert (
        events[0].hash
        == ChainLink(
            table_id="PG-3",
            seq=1,
            round_id="PG-3-1",
            kind="pile.dealt",
            actor="device:shuffler",
            created_at="2024-05-01T20:15:00.123456Z",
            prev_hash=GENESIS_HASH,
            payload='{"pile":1,"wager_cents":2500}',
        ).digest()
    )


def test_stored_events_read_back_exactly(engine: Engine) -> None:
    written = _append(engine, "PG-3", 2, round_id="PG-3-1")
    with read_snapshot(engine) as session:
        stored = list_events(session, table_id="PG-3")
    assert stored == written
    assert stored[0].created_at == T0
    assert stored[0].payload_data() == {"pile": 1, "wager_cents": 2500}


def test_time_in_another_zone_is_stored_as_the_same_utc_instant(engine: Engine) -> None:
    local = datetime(2024, 5, 1, 22, 15, 0, 123456, tzinfo=timezone(timedelta(hours=2)))
    with unit_of_work(engine) as session:
        event = append_event(
            session, table_id="PG-3", round_id=None, kind="x", actor="system", payload={}, now=local
        )
    with read_snapshot(engine) as session:
        (stored,) = list_events(session, table_id="PG-3")
    assert stored.created_at == T0 and stored.created_at.utcoffset() == timedelta(0)
    assert event.hash == stored.hash
    assert format_timestamp(stored.created_at) == "2024-05-01T20:15:00.123456Z"


def test_each_table_has_its_own_chain(engine: Engine) -> None:
    _append(engine, "PG-3", 4)
    _append(engine, "PG-4", 2)
    _append(engine, "PG-3", 1, start=10)
    with read_snapshot(engine) as session:
        assert [e.seq for e in list_events(session, table_id="PG-3")] == [1, 2, 3, 4, 5]
        assert [e.seq for e in list_events(session, table_id="PG-4")] == [1, 2]
        head = head_of_chain(session, table_id="PG-3")
        last = list_events(session, table_id="PG-3")[-1]
    assert head is not None and (head.last_seq, head.last_hash) == (5, last.hash)
    report = _verify(engine)
    assert report.ok and report.first_break is None
    assert (report.events_checked, report.tables_checked) == (7, 2)
    assert report.describe() == "audit chain whole: 7 events in 2 table chain(s) verified"


def test_events_of_a_round_in_order_with_table_events_between(engine: Engine) -> None:
    with unit_of_work(engine) as session:
        append_event(
            session,
            table_id="PG-3",
            round_id="PG-3-1",
            kind="round.opened",
            actor="ann",
            payload={},
            now=at(0),
        )
        append_event(
            session,
            table_id="PG-3",
            round_id=None,
            kind="device.fault",
            actor="device:shuffler",
            payload={},
            now=at(1),
        )
        append_event(
            session,
            table_id="PG-3",
            round_id="PG-3-1",
            kind="dice.rolled",
            actor="device:shaker",
            payload={},
            now=at(2),
        )
    with read_snapshot(engine) as session:
        kinds = [(e.seq, e.kind) for e in list_events(session, round_id="PG-3-1")]
    assert kinds == [(1, "round.opened"), (3, "dice.rolled")]


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"payload": {"wager": 25.0}}, InvalidEventError),
        ({"now": datetime(2024, 5, 1, 20, 15)}, InvalidTimeError),
        ({"kind": "Round Opened"}, InvalidFieldError),
        ({"actor": "ann\n"}, InvalidFieldError),
        ({"table_id": ""}, InvalidFieldError),
        ({"round_id": "PG 3"}, InvalidFieldError),
    ],
)
def test_a_bad_event_is_refused_and_nothing_is_written(engine: Engine, fields: dict, error: type) -> None:
    arguments = dict(table_id="PG-3", round_id="PG-3-1", kind="round.opened", actor="ann", payload={}, now=T0)
    arguments.update(fields)
    with pytest.raises(error), unit_of_work(engine) as session:
        append_event(session, **arguments)
    with engine.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM events")).scalar() == 0


def test_event_create_validates_what_an_api_caller_hands_in(engine: Engine) -> None:
    with pytest.raises(ValidationError):
        EventCreate(table_id="PG-3", kind="override", actor="pit:jane", payload={"paid": 12.5})
    with pytest.raises(ValidationError):
        EventCreate(table_id="PG-3", kind="Override", actor="pit:jane")
    data = EventCreate(
        table_id="PG-3", round_id="PG-3-1", kind="override", actor="pit:jane", payload={"paid_cents": 1250}
    )
    with unit_of_work(engine) as session:
        event = append_event(session, **data.model_dump(), now=T0)
    assert (event.seq, event.actor, event.payload) == (1, "pit:jane", '{"paid_cents":1250}')


# --------------------------------------------------------------------------- tampering


@pytest.fixture
def two_tables(engine: Engine) -> Engine:
    """PG-3 with seq 1..6, PG-4 with seq 1..3, all verified whole."""
    _append(engine, "PG-3", 6)
    _append(engine, "PG-4", 3, start=100)
    assert _verify(engine).ok
    return engine


def _event_id(engine: Engine, table_id: str, seq: int) -> int:
    with engine.connect() as connection:
        return int(
            connection.execute(
                text("SELECT id FROM events WHERE table_id = :t AND seq = :s"), {"t": table_id, "s": seq}
            ).scalar_one()
        )


def _only_break(engine: Engine) -> ChainBreak:
    report = _verify(engine)
    assert len(report.breaks) == 1, report.describe()
    assert report.first_break is not None and not report.ok
    return report.first_break


def test_edited_payload_is_caught_at_that_row(two_tables: Engine) -> None:
    event_id = _event_id(two_tables, "PG-3", 4)
    assert (
        tamper(
            two_tables,
            "UPDATE events SET payload = :p WHERE id = :i",
            p='{"pile":4,"wager_cents":250000}',
            i=event_id,
        )
        == 1
    )
    found = _only_break(two_tables)
    assert (found.table_id, found.seq, found.event_id, found.kind) == (
        "PG-3",
        4,
        event_id,
        BreakKind.HASH_MISMATCH,
    )
    assert _verify(two_tables).events_checked == 9


def test_edited_hash_is_caught_at_that_row(two_tables: Engine) -> None:
    event_id = _event_id(two_tables, "PG-3", 4)
    tamper(two_tables, "UPDATE events SET hash = :h WHERE id = :i", h="ab" * 32, i=event_id)
    found = _only_break(two_tables)
    assert (found.table_id, found.seq, found.event_id, found.kind) == (
        "PG-3",
        4,
        event_id,
        BreakKind.HASH_MISMATCH,
    )


def test_edited_time_by_one_microsecond_is_caught(two_tables: Engine) -> None:
    event_id = _event_id(two_tables, "PG-4", 2)
    with read_snapshot(two_tables) as session:
        (event,) = [e for e in list_events(session, table_id="PG-4") if e.seq == 2]
    moved = event.created_at + timedelta(microseconds=1)
    value = moved.replace(tzinfo=None) if two_tables.dialect.name == "sqlite" else moved
    tamper(two_tables, "UPDATE events SET created_at = :c WHERE id = :i", c=value, i=event_id)
    found = _only_break(two_tables)
    assert (found.table_id, found.seq, found.kind) == ("PG-4", 2, BreakKind.HASH_MISMATCH)


def test_edited_and_rehashed_row_breaks_the_next_link(two_tables: Engine) -> None:
    with read_snapshot(two_tables) as session:
        row = next(e for e in list_events(session, table_id="PG-3") if e.seq == 4)
    forged_payload = '{"pile":4,"wager_cents":1}'
    forged_hash = ChainLink(
        table_id=row.table_id,
        seq=row.seq,
        round_id=row.round_id,
        kind=row.kind,
        actor=row.actor,
        created_at=format_timestamp(row.created_at),
        prev_hash=row.prev_hash,
        payload=forged_payload,
    ).digest()
    tamper(
        two_tables,
        "UPDATE events SET payload = :p, hash = :h WHERE id = :i",
        p=forged_payload,
        h=forged_hash,
        i=row.id,
    )
    found = _only_break(two_tables)
    assert (found.table_id, found.seq, found.event_id, found.kind) == (
        "PG-3",
        5,
        _event_id(two_tables, "PG-3", 5),
        BreakKind.PREV_HASH_MISMATCH,
    )
    assert forged_hash in found.detail


def test_deleted_row_in_the_middle_is_named(two_tables: Engine) -> None:
    tamper(two_tables, "DELETE FROM events WHERE table_id = 'PG-3' AND seq = 4")
    found = _only_break(two_tables)
    assert (found.table_id, found.seq, found.event_id, found.kind) == ("PG-3", 4, None, BreakKind.SEQ_GAP)
    assert "seq 4 missing" in found.detail
    assert found.describe().startswith("table PG-3, seq 4 (row missing): seq-gap: seq 4 missing (deleted)")


def test_deleted_first_rows_are_named(two_tables: Engine) -> None:
    tamper(two_tables, "DELETE FROM events WHERE table_id = 'PG-3' AND seq IN (1, 2)")
    found = _only_break(two_tables)
    assert (found.table_id, found.seq, found.kind) == ("PG-3", 1, BreakKind.SEQ_GAP)
    assert "seqs 1..2 missing" in found.detail


def test_deleted_last_row_is_caught_by_the_chain_head(two_tables: Engine) -> None:
    tamper(two_tables, "DELETE FROM events WHERE table_id = 'PG-3' AND seq = 6")
    found = _only_break(two_tables)
    assert (found.table_id, found.seq, found.event_id, found.kind) == (
        "PG-3",
        6,
        None,
        BreakKind.DELETED_TAIL,
    )


def test_every_row_of_a_table_deleted_is_caught(two_tables: Engine) -> None:
    tamper(two_tables, "DELETE FROM events WHERE table_id = 'PG-4'")
    found = _only_break(two_tables)
    assert (found.table_id, found.seq, found.kind) == ("PG-4", 1, BreakKind.DELETED_TAIL)


def _forge(engine: Engine, *, table_id: str, seq: int, prev_hash: str, good_hash: bool) -> int:
    fields = {
        "table_id": table_id,
        "seq": seq,
        "round_id": None,
        "kind": "settled",
        "actor": "ann",
        "created_at": "2024-05-01T21:00:00.000000Z",
        "prev_hash": prev_hash,
        "payload": '{"paid_cents":100000}',
    }
    digest = ChainLink(**fields).digest() if good_hash else "cd" * 32  # type: ignore[arg-type]
    when = datetime(2024, 5, 1, 21, 0, tzinfo=UTC)
    tamper(
        engine,
        "INSERT INTO events (table_id, seq, round_id, kind, actor, created_at, payload, prev_hash, hash)"
        " VALUES (:table_id, :seq, NULL, 'settled', 'ann', :created_at, :payload, :prev_hash, :hash)",
        table_id=table_id,
        seq=seq,
        payload=fields["payload"],
        prev_hash=prev_hash,
        hash=digest,
        # SQLite: the text the store writes (a forger who knows the layout)
        created_at="2024-05-01 21:00:00.000000" if engine.dialect.name == "sqlite" else when,
    )
    with engine.connect() as connection:
        return int(connection.execute(text("SELECT max(id) FROM events")).scalar_one())


def test_forged_row_with_a_correct_hash_is_caught_by_the_chain_head(two_tables: Engine) -> None:
    with read_snapshot(two_tables) as session:
        last = list_events(session, table_id="PG-3")[-1]
    forged_id = _forge(two_tables, table_id="PG-3", seq=7, prev_hash=last.hash, good_hash=True)
    found = _only_break(two_tables)
    assert (found.table_id, found.seq, found.kind) == ("PG-3", 7, BreakKind.UNRECORDED_ROW)
    assert forged_id > last.id


def test_forged_row_with_a_made_up_hash_is_caught_at_that_row(two_tables: Engine) -> None:
    with read_snapshot(two_tables) as session:
        last = list_events(session, table_id="PG-4")[-1]
    forged_id = _forge(two_tables, table_id="PG-4", seq=4, prev_hash=last.hash, good_hash=False)
    report = _verify(two_tables)
    # two things are wrong, and both are named: the row's hash, and a row beyond the head
    assert [(b.table_id, b.seq, b.event_id, b.kind) for b in report.breaks] == [
        ("PG-4", 4, forged_id, BreakKind.HASH_MISMATCH),
        ("PG-4", 4, None, BreakKind.UNRECORDED_ROW),
    ]


def test_forged_chain_for_an_unknown_table_is_caught(two_tables: Engine) -> None:
    _forge(two_tables, table_id="PG-9", seq=1, prev_hash=GENESIS_HASH, good_hash=True)
    found = _only_break(two_tables)
    assert (found.table_id, found.seq, found.kind) == ("PG-9", 1, BreakKind.UNRECORDED_ROW)


def test_edited_chain_head_is_caught(two_tables: Engine) -> None:
    tamper(two_tables, "UPDATE chain_heads SET last_hash = :h WHERE table_id = 'PG-4'", h="ef" * 32)
    found = _only_break(two_tables)
    assert (found.table_id, found.seq, found.event_id, found.kind) == (
        "PG-4",
        3,
        _event_id(two_tables, "PG-4", 3),
        BreakKind.HEAD_MISMATCH,
    )


def test_breaks_in_two_tables_are_both_named_first_one_first(two_tables: Engine) -> None:
    tamper(two_tables, "UPDATE events SET actor = 'bob' WHERE table_id = 'PG-4' AND seq = 2")
    tamper(two_tables, "UPDATE events SET kind = 'void' WHERE table_id = 'PG-3' AND seq = 5")
    report = _verify(two_tables)
    assert [(b.table_id, b.seq, b.kind) for b in report.breaks] == [
        ("PG-3", 5, BreakKind.HASH_MISMATCH),
        ("PG-4", 2, BreakKind.HASH_MISMATCH),
    ]
    assert report.first_break == report.breaks[0]
    lines = report.describe().splitlines()
    assert lines[0] == (
        "audit chain BROKEN: 9 events in 2 table chain(s) checked; broken links, first one first:"
    )
    assert lines[1].startswith("  table PG-3, seq 5 (event id ")
    assert _verify(two_tables, "PG-4").breaks[0].seq == 2
    assert _verify(two_tables, "PG-4").events_checked == 3


@pytest.mark.parametrize("empty_engine", ["postgresql"], indirect=True)  # needs the constraint dropped
def test_two_rows_claiming_one_seq_are_caught(two_tables: Engine) -> None:
    with two_tables.begin() as connection:
        connection.exec_driver_sql("ALTER TABLE events DROP CONSTRAINT uq_events_table_seq")
    with read_snapshot(two_tables) as session:
        third = next(e for e in list_events(session, table_id="PG-4") if e.seq == 3)
    forged_id = _forge(two_tables, table_id="PG-4", seq=3, prev_hash=third.hash, good_hash=True)
    found = _only_break(two_tables)
    assert (found.table_id, found.seq, found.event_id, found.kind) == (
        "PG-4",
        3,
        forged_id,
        BreakKind.SEQ_REPEATED,
    )


def test_appends_stop_on_a_chain_whose_tail_was_deleted(two_tables: Engine) -> None:
    tamper(two_tables, "DELETE FROM events WHERE table_id = 'PG-3' AND seq = 6")
    with pytest.raises(ChainHeadMismatchError, match="chain head says seq 6"):
        _append(two_tables, "PG-3", 1, start=50)
    _append(two_tables, "PG-4", 1, start=50)  # another table's chain is not affected
    with two_tables.connect() as connection:
        assert connection.execute(text("SELECT max(seq) FROM events WHERE table_id = 'PG-3'")).scalar() == 5


def test_verifier_streams_across_batches(engine: Engine) -> None:
    _append(engine, "PG-3", 11)
    _append(engine, "PG-4", 6, start=20)

    def verify() -> ChainReport:
        with read_snapshot(engine) as session:
            return verify_chain(session, batch_size=4)

    report = verify()
    assert report.ok and (report.events_checked, report.tables_checked) == (17, 2)
    tamper(engine, "UPDATE events SET actor = 'x' WHERE table_id = 'PG-3' AND seq = 10")
    report = verify()
    assert [(b.table_id, b.seq) for b in report.breaks] == [("PG-3", 10)]


def test_the_recipe_in_the_doc_recomputes_a_real_store(tmp_path: Path) -> None:
    from table_controller.storage import open_store, sqlite_url

    engine = open_store(sqlite_url(tmp_path))
    _append(engine, "PG-3", 5)
    _append(engine, "PG-4", 2, start=10)
    engine.dispose()
    recipe = re.search(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert recipe is not None

    def run() -> str:
        output = io.StringIO()
        with contextlib.chdir(tmp_path), contextlib.redirect_stdout(output):
            exec(recipe.group(1), {})
        return output.getvalue()

    assert run() == ""
    engine = open_store(sqlite_url(tmp_path))
    tamper(engine, "UPDATE events SET payload = '{}' WHERE table_id = 'PG-3' AND seq = 4")
    engine.dispose()
    assert run() == "broken link: PG-3 4\n"


# --------------------------------------------------------------------------- concurrent writers


def test_a_second_writer_waits_for_the_first_and_links_to_its_event(engine: Engine) -> None:
    _append(engine, "PG-3", 1)
    first_appended = threading.Event()
    results: dict[str, object] = {}

    def second_writer() -> None:
        first_appended.wait(5)
        try:
            with unit_of_work(engine) as session:
                results["second"] = append_event(
                    session, table_id="PG-3", round_id=None, kind="b", actor="system", payload={}, now=at(20)
                )
        except Exception as exc:  # pragma: no cover - reported by the assertion below
            results["error"] = exc

    thread = threading.Thread(target=second_writer)
    thread.start()
    with unit_of_work(engine) as session:
        results["first"] = append_event(
            session, table_id="PG-3", round_id=None, kind="a", actor="system", payload={}, now=at(10)
        )
        first_appended.set()
        time.sleep(0.3)
        assert "second" not in results and "error" not in results  # still waiting for the lock
    thread.join(10)
    assert "error" not in results, results.get("error")
    first, second = results["first"], results["second"]
    assert isinstance(first, EventPublic) and isinstance(second, EventPublic)
    assert (first.seq, second.seq) == (2, 3)
    assert second.prev_hash == first.hash
    assert _verify(engine).ok


def test_many_concurrent_writers_never_fork_the_chain(engine: Engine) -> None:
    writers, each = 4, 15
    start = threading.Barrier(writers)
    errors: list[BaseException] = []

    def write(worker: int) -> None:
        try:
            start.wait(5)
            for i in range(each):
                with unit_of_work(engine) as session:
                    append_event(
                        session,
                        table_id="PG-3",
                        round_id=None,
                        kind="w",
                        actor=f"writer:{worker}",
                        payload={"i": i},
                        now=at(worker * 100 + i),
                    )
        except BaseException as exc:  # pragma: no cover - reported by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert errors == []
    with read_snapshot(engine) as session:
        events = list_events(session, table_id="PG-3")
    assert [e.seq for e in events] == list(range(1, writers * each + 1))
    assert all(b.prev_hash == a.hash for a, b in itertools.pairwise(events))
    report = _verify(engine)
    assert report.ok and report.events_checked == writers * each
