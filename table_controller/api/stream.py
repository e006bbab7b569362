"""The live stream's event hub: one poller of the table's audit chain for every terminal.

Writers are many (the device conductor, the auto-dealer, the API), so the hub does not rely
on being told: while a terminal waits on it, it reads the chain after the last ``seq`` it has
seen every ``poll_interval`` seconds (one indexed query, ``(table_id, seq)``) and keeps the
newest events in a ring buffer. A commit made in this process on the hub's engine
(SQLAlchemy's ``after_commit``) pokes it to read at once, so events written by the daemon
reach the terminals in milliseconds; the poll remains for writers in other processes. With
no terminal waiting the hub reads only when poked: nobody would be told, and a stream that
starts reads first if the hub's view is older than one poll (``fresh``). A terminal resuming from
``Last-Event-ID`` is served from the buffer when it covers the gap, else from the store, so
nothing is missed and nothing is sent twice: the event id is the chain ``seq``, which only
grows (docs/api.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections import deque
from collections.abc import AsyncIterator, Callable
from typing import Any, TypeVar

import anyio.to_thread
import structlog
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from ..storage.audit import stream_events
from ..storage.floor import chain_heads
from ..storage.models import EventPublic
from ..storage.session import READ_ONLY, read_snapshot

log = structlog.get_logger()

T = TypeVar("T")

# events kept for terminals catching up (about 35 rounds); a reconnect further behind reads the store
BUFFER_SIZE = 1024
STORE_PAGE = 500


class PolledHub:
    """What a hub polling the store shares (a table's EventHub here, the floor's FloorHub): its
    poller task, the poke after a commit in this process, and waking the waiting streams."""

    def __init__(self, engine: Engine, poll_interval: float) -> None:
        if poll_interval <= 0:
            raise ValueError("poll_interval must be > 0")
        self.engine = engine
        self.poll_interval = poll_interval
        self.closed = False
        self._changed: asyncio.Event | None = None  # replaced by a fresh one at each change
        self._poked: asyncio.Event | None = None  # set when a commit in this process may have added events
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[None] | None = None
        self._waiting = 0  # terminals waiting for news: the poll runs only while there are some
        self._reads = 0  # reads of the store finished (or failed) since the start
        self._reading = False
        self._read_at = float("-inf")  # loop time the last read finished
        self._read: asyncio.Event | None = None  # replaced by a fresh one after each read

    def _prepare(self) -> None:
        """On the event loop, before the first read of the store."""
        self._changed = asyncio.Event()
        self._poked = asyncio.Event()
        self._read = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        self._read_at = self._loop.time()  # the subclass's start reads the store first

    def _launch(self, name: str) -> None:
        """After the first read: listen for this process's commits and start the poller."""
        event.listen(Session, "after_commit", self._committed)
        self._task = asyncio.create_task(self._follow(), name=name)

    async def start(self) -> None:
        raise NotImplementedError

    async def _follow(self) -> None:
        raise NotImplementedError

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Started for an app's life (its lifespan), stopped at its end."""
        await self.start()
        try:
            yield
        finally:
            await self.stop()

    def _committed(self, session: Session) -> None:
        """After any commit on this hub's engine, in whatever thread made it: read now. A
        read-only session's commit (PostgreSQL ends every read with one, the hub's own reads
        too) added nothing: were it a poke, the hub would read again at once, forever."""
        if session.info.get(READ_ONLY):
            return
        if session.bind is self.engine and self._loop is not None and self._poked is not None:
            with contextlib.suppress(RuntimeError):  # RuntimeError: the loop has closed, the poller is gone
                self._loop.call_soon_threadsafe(self._poked.set)

    async def stop(self) -> None:
        if event.contains(Session, "after_commit", self._committed):
            event.remove(Session, "after_commit", self._committed)
        await self.close()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def close(self) -> None:
        """End every stream (the server is shutting down)."""
        self.closed = True
        self._notify()
        if self._poked is not None:
            self._poked.set()

    async def _wait_until(self, done: Callable[[], bool], timeout: float) -> bool:
        """Wait, woken at each change, until ``done()`` or the hub closes (then ``done()``), or
        ``timeout`` passes (False)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        self._waiting += 1
        if self._waiting == 1 and self._poked is not None:
            self._poked.set()  # the poller may be idle: read now, then every poll while waited on
        try:
            while not done() and not self.closed:
                assert self._changed is not None
                remaining = deadline - loop.time()
                if remaining <= 0:
                    return False
                try:
                    await asyncio.wait_for(self._changed.wait(), remaining)
                except TimeoutError:
                    return False
            return done()
        finally:
            self._waiting -= 1

    async def fresh(self, timeout: float = 5.0) -> None:
        """Before a stream starts from the hub's view (its heads, "from now"): if the hub has
        not read the store within one poll (nobody was waiting), a read that begins now is
        finished first. A store that does not answer in ``timeout`` leaves the view as it is,
        as a failed poll would."""
        assert self._loop is not None and self._poked is not None
        if self._loop.time() - self._read_at <= self.poll_interval:
            return
        target = self._reads + (2 if self._reading else 1)  # a read under way began before now
        self._poked.set()
        deadline = self._loop.time() + timeout
        while self._reads < target and not self.closed:
            assert self._read is not None
            remaining = deadline - self._loop.time()
            if remaining <= 0:
                return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._read.wait(), remaining)

    async def _counted_read(self, read: Callable[..., T], *args: Any) -> T:
        """The poller's read of the store, ``read(*args)`` in a worker thread, counted for
        ``fresh`` (a failed one too)."""
        self._reading = True
        try:
            return await anyio.to_thread.run_sync(read, *args)
        finally:
            self._reading = False
            self._reads += 1
            assert self._loop is not None and self._read is not None
            self._read_at = self._loop.time()
            done, self._read = self._read, asyncio.Event()
            done.set()

    async def _pause(self) -> None:
        """Between two reads: one poll while a terminal waits; with none waiting, until a
        commit in this process or a terminal starting to wait pokes the poller."""
        assert self._poked is not None
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._poked.wait(), self.poll_interval if self._waiting else None)
        self._poked.clear()

    def _notify(self) -> None:
        """Wake every waiting terminal (an Event per change: waiting needs no lock, so a
        terminal cancelled while waiting leaves nothing half-held)."""
        if self._changed is not None:
            changed, self._changed = self._changed, asyncio.Event()
            changed.set()


class EventHub(PolledHub):
    """Follows one table's chain and wakes the terminals waiting on it."""

    def __init__(
        self, engine: Engine, table_id: str, *, poll_interval: float = 0.1, buffer_size: int = BUFFER_SIZE
    ) -> None:
        super().__init__(engine, poll_interval)
        self.table_id = table_id
        self.head = 0
        self._buffer: deque[EventPublic] = deque(maxlen=buffer_size)
        self._frames: dict[int, bytes] = {}  # seq -> the event's SSE frame, made once for every terminal

    # -- the poller ---------------------------------------------------------------------------

    async def start(self) -> None:
        self._prepare()
        self.head = await anyio.to_thread.run_sync(self._last_seq)
        self._launch(f"event-hub-{self.table_id}")

    def _last_seq(self) -> int:
        with read_snapshot(self.engine) as session:
            return chain_heads(session, chains=[self.table_id])[self.table_id]

    def read_store(self, after: int, limit: int = STORE_PAGE) -> list[EventPublic]:
        with read_snapshot(self.engine) as session:
            return stream_events(session, table_id=self.table_id, after_seq=after, limit=limit)

    async def _follow(self) -> None:
        assert self._changed is not None
        while not self.closed:
            try:
                new = await self._counted_read(self.read_store, self.head)
            except Exception as error:  # the store is down for a moment: keep the terminals waiting
                log.warning("stream.poll_failed", error=str(error))
                new = []
            if new:
                self._buffer.extend(new)
                self.head = new[-1].seq
                self._notify()
                if len(new) == STORE_PAGE:
                    continue
            await self._pause()

    # -- the terminals ------------------------------------------------------------------------

    def frame(self, event: EventPublic, render: Callable[[EventPublic], bytes]) -> bytes:
        """The event's frame, rendered once however many terminals send it."""
        frame = self._frames.get(event.seq)
        if frame is None:
            frame = render(event)
            if len(self._frames) >= self._buffer.maxlen:  # type: ignore[operator]
                # frames only of the events still buffered: a terminal further behind reads the
                # store and is sent frames made for it (the soak's memory stays flat)
                first = self._buffer[0].seq if self._buffer else event.seq
                for seq in [seq for seq in self._frames if seq < first] or sorted(self._frames)[:1]:
                    del self._frames[seq]
            self._frames[event.seq] = frame
        return frame

    def after(self, seq: int) -> list[EventPublic] | None:
        """Buffered events after ``seq``; [] when there is nothing newer yet; None when the
        buffer does not reach back to ``seq`` (read the store)."""
        if seq >= self.head:
            return []
        buffer = self._buffer
        if not buffer or buffer[0].seq > seq + 1:
            return None
        # a chain's seqs are consecutive, so the place of ``seq + 1`` in the buffer is arithmetic
        return list(itertools.islice(buffer, seq + 1 - buffer[0].seq, None))

    async def wait(self, seq: int, timeout: float) -> bool:
        """Wait until an event after ``seq`` is known (True) or ``timeout`` passes (False)."""
        return await self._wait_until(lambda: self.head > seq, timeout)


__all__ = ["EventHub"]
