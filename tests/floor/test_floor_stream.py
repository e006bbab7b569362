"""The floor's live stream (docs/floor.md, "The live stream"): the events of every visible
table in one stream, each table's in chain order, and a reconnect with ``Last-Event-ID`` that
gets exactly the rest, across tables, including events committed while it was away. A real
uvicorn server on a loopback port; the terminal is an httpx client. SQLite and PostgreSQL."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

import httpx
import pytest
from sqlalchemy.engine import Engine

from table_controller.api.server import serving
from table_controller.floor.app import create_floor_app
from table_controller.floor.settings import FloorSettings
from table_controller.storage import append_event, list_events, read_snapshot, unit_of_work
from table_controller.storage.floor_tables import register_table
from table_controller.storage.users import disable_user

from .conftest import add_people, put_tables


@dataclass
class Served:
    base: str
    engine: Engine
    tokens: dict[str, str]
    hub: object


@pytest.fixture
def served(engine: Engine) -> Iterator[Served]:
    tokens = add_people(engine)
    put_tables(engine)
    app = create_floor_app(FloorSettings(db_url="sqlite://", poll_interval=0.02), engine)
    with serving(app) as base:
        yield Served(base, engine, tokens, app.state.hub)


def write(engine: Engine, table_id: str, count: int = 1, kind: str = "test.note") -> None:
    """``count`` events of one table, each in its own transaction, as its daemon writes them."""
    for _ in range(count):
        with unit_of_work(engine) as session:
            append_event(session, table_id=table_id, round_id=None, kind=kind, actor="system", payload={})


def stored(engine: Engine, table_id: str) -> list[int]:
    with read_snapshot(engine) as session:
        return [e.seq for e in list_events(session, table_id=table_id)]


class Terminal:
    """Follows /api/floor/stream as the floor page does: remembers the last id it received."""

    def __init__(self, base: str, token: str, query: str = "") -> None:
        self.url = f"{base}/api/floor/stream{query}"
        self.headers = {"Authorization": f"Bearer {token}"}
        self.received: list[tuple[str, int, str]] = []  # (table, seq, kind)
        self.last_id: str | None = None

    def read(self, count: int, *, timeout: float = 10.0) -> str:
        """Connect (resuming from the last id), read ``count`` events, then drop the connection.
        Returns the comment that ended the stream, if the server ended it."""
        headers = dict(self.headers)
        if self.last_id is not None:
            headers["Last-Event-ID"] = self.last_id
        got = 0
        with (
            httpx.Client(timeout=timeout) as client,
            client.stream("GET", self.url, headers=headers) as answer,
        ):
            assert answer.status_code == 200, answer.read()
            event: dict[str, str] = {}
            for line in answer.iter_lines():
                if line.startswith(": credentials"):
                    return line
                if line == "":
                    if "data" in event:
                        data = json.loads(event["data"])
                        self.received.append((data["table_id"], data["seq"], data["kind"]))
                        position = dict(part.split(":") for part in event["id"].split(","))
                        assert int(position[data["table_id"]]) == data["seq"]  # the id names this event
                        self.last_id = event["id"]
                        got += 1
                        if got == count:
                            return ""
                    event = {}
                elif not line.startswith(":"):
                    name, _, value = line.partition(":")
                    event[name] = value.removeprefix(" ")
        return ""

    def seqs(self, table_id: str) -> list[int]:
        return [seq for table, seq, _ in self.received if table == table_id]


def test_interleaved_tables_in_one_stream_each_in_chain_order(served: Served):
    for table_id in ("t1", "t2", "t3", "t2", "t1", "t3", "t1"):
        write(served.engine, table_id)
    terminal = Terminal(served.base, served.tokens["cy"], "?after=t1:0,t2:0,t3:0")
    terminal.read(7)
    assert (terminal.seqs("t1"), terminal.seqs("t2"), terminal.seqs("t3")) == ([1, 2, 3], [1, 2], [1, 2])
    assert terminal.last_id == "t1:3,t2:2,t3:2"

    pit = Terminal(served.base, served.tokens["pia"], "?after=t1:0,t2:0,t3:0")  # pit-a: t1 and t2 only
    pit.read(5)
    assert {table for table, _, _ in pit.received} == {"t1", "t2"}
    assert pit.last_id == "t1:3,t2:2"

    one_pit = Terminal(served.base, served.tokens["cy"], "?pit=pit-b&after=t3:0")  # surveillance, one pit
    one_pit.read(2)
    assert one_pit.received == [("t3", 1, "test.note"), ("t3", 2, "test.note")]
    assert one_pit.last_id == "t3:2"


def test_a_reconnect_gets_exactly_the_rest_across_tables(served: Served):
    write(served.engine, "t1", 3)
    write(served.engine, "t2", 2)
    terminal = Terminal(served.base, served.tokens["cy"], "?after=t1:0,t2:0,t3:0")
    terminal.read(4)  # mid-way: some of t1's and t2's events, not all
    for table_id, count in (("t3", 2), ("t1", 2), ("t2", 3)):  # committed while it is away
        write(served.engine, table_id, count)
    terminal.read(16 - 4 - 4)  # all the rest: 5 + 5 + 2 = 12 events in all, 4 read
    for table_id in ("t1", "t2", "t3"):
        assert terminal.seqs(table_id) == stored(served.engine, table_id)  # none lost, none twice
    assert len(terminal.received) == 12 and terminal.last_id == "t1:5,t2:5,t3:2"


def test_concurrent_writers_and_a_terminal_that_keeps_dropping(served: Served):
    """Three tables written at once (on PostgreSQL their commits interleave in any order) while
    the terminal drops every few events and resumes: every table's events arrive exactly once."""
    per_table = 25
    terminal = Terminal(served.base, served.tokens["cy"], "?after=t1:0,t2:0,t3:0")
    writers = [
        threading.Thread(target=write, args=(served.engine, table_id, per_table))
        for table_id in ("t1", "t2", "t3")
    ]
    for writer in writers:
        writer.start()
    try:
        while len(terminal.received) < 3 * per_table:
            terminal.read(min(7, 3 * per_table - len(terminal.received)))
    finally:
        for writer in writers:
            writer.join()
    for table_id in ("t1", "t2", "t3"):
        assert terminal.seqs(table_id) == list(range(1, per_table + 1))


def test_device_events_go_to_surveillance_only(served: Served):
    write(served.engine, "t1", kind="device.frame")
    write(served.engine, "t1")
    pit = Terminal(served.base, served.tokens["pia"], "?after=t1:0,t2:0")
    pit.read(1)
    assert pit.received == [("t1", 2, "test.note")]
    watcher = Terminal(served.base, served.tokens["cy"], "?table=t1&after=t1:0")
    watcher.read(2)
    assert [kind for _, _, kind in watcher.received] == ["device.frame", "test.note"]


def test_a_table_that_joins_the_floor_is_followed(served: Served):
    served.hub.tables_every = 0.02  # type: ignore[attr-defined]
    terminal = Terminal(served.base, served.tokens["cy"], "?after=t1:0,t2:0,t3:0")
    write(served.engine, "t9")  # before its daemon started on this floor: not the floor's
    with unit_of_work(served.engine) as session:
        register_table(
            session,
            table_id="t9",
            pit="pit-b",
            game="standard",
            house_way="house-way-002",
            api_url=None,
            now=datetime.now(UTC),
        )
    write(served.engine, "t1")
    terminal.read(1)
    write(served.engine, "t9")
    terminal.read(1)
    assert terminal.received == [("t1", 1, "test.note"), ("t9", 2, "test.note")]
    assert terminal.last_id == "t1:1,t2:0,t3:0,t9:2"


def test_a_disabled_persons_stream_ends(served: Served):
    terminal = Terminal(served.base, served.tokens["cy"], "?after=t1:0")
    write(served.engine, "t1")

    def disable() -> None:
        # once cy has the event written before (not after a fixed delay, which a busy machine
        # can outlast before the stream has even started)
        deadline = time.monotonic() + 10
        while not terminal.received and time.monotonic() < deadline:
            time.sleep(0.01)
        with unit_of_work(served.engine) as session:
            disable_user(session, name="cy", actor="dee")
        write(served.engine, "t1")  # written after the change: never sent to cy

    changer = threading.Thread(target=disable)
    changer.start()
    try:
        ended = terminal.read(10, timeout=15)
    finally:
        changer.join()
    assert ended == ": credentials revoked"
    assert terminal.received == [("t1", 1, "test.note")]


def test_a_malformed_position_is_refused(served: Served):
    with httpx.Client(base_url=served.base) as client:
        headers = {"Authorization": f"Bearer {served.tokens['cy']}", "Last-Event-ID": "t1=3;t2"}
        answer = client.get("/api/floor/stream", headers=headers)
    assert answer.status_code == 422
    assert "stream position" in answer.json()["detail"]


@pytest.mark.parametrize("forged", ["created_at", "payload"])
def test_a_forged_row_comes_as_unreadable_and_the_stream_goes_on(engine: Engine, forged: str):
    """A row of a table whose time or payload cannot be read (forged behind the store's back)
    never stalls the floor's poll: read from the store, it comes in its place as
    ``record.unreadable`` (its seq, the finding), and the table's rows after it follow."""
    from ..storage.helpers import tamper

    tokens = add_people(engine)
    put_tables(engine)
    write(engine, "t1", 3)
    seqs = stored(engine, "t1")
    target = seqs[1]
    if forged == "created_at":
        if engine.dialect.name == "postgresql":
            pytest.skip("a timestamptz holds no text to forge")
        tamper(
            engine, "UPDATE events SET created_at = 'garbage' WHERE table_id = 't1' AND seq = :s", s=target
        )
    else:
        tamper(engine, "UPDATE events SET payload = '[1]' WHERE table_id = 't1' AND seq = :s", s=target)
    write(engine, "t1", 1)
    app = create_floor_app(FloorSettings(db_url="sqlite://", poll_interval=0.02), engine)
    with serving(app) as base:
        terminal = Terminal(base, tokens["cy"])
        terminal.last_id = "t1:0"
        terminal.read(len(seqs) + 1)
    assert terminal.seqs("t1") == [*seqs, seqs[-1] + 1]
    kinds = {seq: kind for table, seq, kind in terminal.received if table == "t1"}
    assert kinds[target] == "record.unreadable"
    assert [kind for seq, kind in kinds.items() if seq != target] == ["test.note"] * len(seqs)
