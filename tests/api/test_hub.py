"""The live stream's hub: the ring buffer, the fall-back to the store, closing (docs/api.md)."""

from __future__ import annotations

import threading
import time

import httpx

from table_controller.api import create_app
from table_controller.api.server import serving
from table_controller.api.stream import EventHub
from table_controller.settings import TableSettings
from table_controller.storage import append_event, make_engine, unit_of_work
from table_controller.table.service import TableService

from .conftest import add_people


def write(engine, count: int) -> None:
    with unit_of_work(engine) as session:
        for n in range(count):
            append_event(
                session, table_id="t1", round_id=None, kind="table.note", actor="system", payload={"n": n}
            )


async def test_a_terminal_behind_the_buffer_is_served_from_the_store(engine):
    hub = EventHub(engine, "t1", poll_interval=0.01, buffer_size=3)
    write(engine, 2)
    await hub.start()
    try:
        assert hub.head == 2 and hub.after(2) == []
        write(engine, 6)
        assert await hub.wait(2, timeout=5)
        while hub.head < 8:
            await hub.wait(hub.head, timeout=5)
        assert [e.seq for e in hub.after(5)] == [6, 7, 8]  # the buffer holds the newest three
        assert hub.after(4) is None  # seq 5 has left the buffer: read the store
        assert [e.seq for e in hub.read_store(1)] == [2, 3, 4, 5, 6, 7, 8]
    finally:
        await hub.stop()


async def test_frames_are_kept_only_for_the_buffered_events(engine):
    """A frame is made once for every terminal, and kept no longer than its event is buffered:
    the frames cache never outgrows the buffer (the soak's memory, docs/development.md)."""
    hub = EventHub(engine, "t1", poll_interval=0.01, buffer_size=3)
    await hub.start()
    try:
        made: list[int] = []

        def render(event) -> bytes:
            made.append(event.seq)
            return f"{event.seq}".encode()

        write(engine, 8)
        while hub.head < 8:
            await hub.wait(hub.head, timeout=5)
        for event in hub.read_store(0):  # a terminal from the start: every event framed
            hub.frame(event, render)
        for event in hub.after(5):  # and the newest three again, for a second terminal
            hub.frame(event, render)
        assert made == [1, 2, 3, 4, 5, 6, 7, 8]  # each made once while it was kept
        assert len(hub._frames) <= 3 and set(hub._frames) <= {6, 7, 8}
    finally:
        await hub.stop()


def another_writer(engine):
    """An engine of its own on the same store: its commits poke no hub of ``engine``, as a
    writer in another process (a CLI command, another daemon)."""
    return make_engine(engine.url.render_as_string(hide_password=False))


async def test_an_idle_hub_reads_nothing_until_a_terminal_waits(engine):
    """With nobody waiting there is nobody to tell: the poller reads only when poked."""
    import asyncio

    from sqlalchemy import event

    statements: list[str] = []

    def seen(_conn, _cursor, statement, *_args) -> None:
        statements.append(statement)

    hub = EventHub(engine, "t1", poll_interval=0.01)
    other = another_writer(engine)
    await hub.start()
    try:
        await asyncio.sleep(0.05)  # the poller's first read is done; nobody waits
        event.listen(engine, "before_cursor_execute", seen)
        write(other, 2)
        await asyncio.sleep(0.2)  # twenty polls' time
        assert statements == [] and hub.head == 0
        assert await hub.wait(0, timeout=5)  # a terminal waits: the hub reads at once, then polls
        assert hub.head == 2 and statements
        write(other, 1)
        assert await hub.wait(2, timeout=5) and hub.head == 3  # no poke: found by the poll
    finally:
        event.remove(engine, "before_cursor_execute", seen)
        await hub.stop()
        other.dispose()


async def test_a_view_older_than_a_poll_is_read_afresh_before_a_stream_starts_from_it(engine):
    """A stream "from now" starts at the hub's head: after an idle spell the head is read again
    first (``fresh``), so events written meanwhile elsewhere are not sent as new."""
    import asyncio

    hub = EventHub(engine, "t1", poll_interval=0.05)
    other = another_writer(engine)
    await hub.start()
    try:
        await asyncio.sleep(0.1)  # idle for two polls
        write(other, 3)
        assert hub.head == 0
        await hub.fresh()
        assert hub.head == 3 and hub.after(3) == []
        write(other, 1)
        await hub.fresh()  # read within the poll: the view stands as it would between two polls
        assert hub.head == 3
    finally:
        await hub.stop()
        other.dispose()


async def test_waiting_times_out_and_closing_wakes_the_waiters(engine):
    hub = EventHub(engine, "t1", poll_interval=0.01)
    await hub.start()
    try:
        assert await hub.wait(0, timeout=0.05) is False
        await hub.close()
        assert await hub.wait(0, timeout=5) is False and hub.closed
    finally:
        await hub.stop()


def test_stopping_the_server_ends_open_streams_at_once(tmp_path, engine):
    settings = TableSettings(table_id="t1")
    service = TableService(settings, engine)
    tokens = add_people(engine)
    app = create_app(settings, service, engine, poll_interval=0.02)
    connected, ended = threading.Event(), threading.Event()

    def follow(base: str) -> None:
        with (
            httpx.Client(timeout=30) as client,
            client.stream(
                "GET", f"{base}/api/stream", headers={"Authorization": f"Bearer {tokens['pit']}"}
            ) as answer,
        ):
            connected.set()
            for _ in answer.iter_lines():
                pass
        ended.set()

    with serving(app) as base:
        reader = threading.Thread(target=follow, args=(base,))
        reader.start()
        assert connected.wait(10)
        began = time.monotonic()
    reader.join(timeout=10)
    assert ended.is_set() and time.monotonic() - began < 3


async def test_a_commit_in_this_process_wakes_the_hub_without_waiting_for_the_poll(engine):
    """The poll is an hour: only the after-commit poke can bring the events in time."""
    import asyncio

    hub = EventHub(engine, "t1", poll_interval=3600)
    await hub.start()
    try:
        await asyncio.sleep(0.05)  # the poller has read once and now waits for a poke
        writer = threading.Thread(target=write, args=(engine, 3))  # another thread, as the service's
        writer.start()
        writer.join(10)
        assert await hub.wait(0, timeout=5)
        while hub.head < 3:
            assert await hub.wait(hub.head, timeout=5)
        assert [e.seq for e in hub.after(0)] == [1, 2, 3]
    finally:
        await hub.stop()


async def test_a_stopped_hub_no_longer_listens_for_commits(engine):
    from sqlalchemy import event
    from sqlalchemy.orm import Session

    hub = EventHub(engine, "t1", poll_interval=3600)
    await hub.start()
    assert event.contains(Session, "after_commit", hub._committed)
    await hub.stop()
    assert not event.contains(Session, "after_commit", hub._committed)
    write(engine, 1)  # a commit after the stop pokes nothing and raises nothing
