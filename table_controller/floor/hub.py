"""The floor's event hub: one poller of every table's audit chain for all the floor's streams
(docs/floor.md, "The live stream"), as ``api/stream.py``'s ``EventHub`` is for one table.

Each poll is one SELECT of the events after the hub's head of each chain (``uq_events_table_seq``):
a table's seqs are gap-free and each commits after the one before it (``append_event`` holds
the table's lock), so reading "after my last seq" per table never skips an event. A global
order would not do: PostgreSQL serials commit out of order. The tables come from
``floor_tables``, read again every ``tables_every`` seconds: a table that joins the floor is
followed from its daemon's start. The ``people`` chain is followed too, not to send it but so that a stream
re-checks its token at once when a person changes.

The hub keeps each table's newest events in a ring buffer, tagged with the order it read them
in; a stream that is behind, or resumes from older seqs than the buffers hold, is served from
the store. A commit in this process on the hub's engine (an acknowledgement through the floor)
pokes it to read at once, as the table's hub does.
"""

from __future__ import annotations

import heapq
import itertools
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import anyio.to_thread
import structlog
from sqlalchemy.engine import Engine

from ..api.stream import PolledHub
from ..storage.audit import events_readable, stream_events_after
from ..storage.errors import is_outage
from ..storage.floor import chain_heads, events_after, floor_tables
from ..storage.models import EventPublic
from ..storage.people import PEOPLE_CHAIN
from ..storage.session import read_snapshot

log = structlog.get_logger()

BUFFER_SIZE = 1024  # events kept per table
STORE_PAGE = 500
TABLES_EVERY = 2.0  # seconds between reads of floor_tables

Vector = dict[str, int]  # chain -> the last seq of it read (or sent)


@dataclass(frozen=True)
class _Tables:
    """What one read of ``floor_tables`` found: every table's pit, and where to follow each new
    chain from (the people chain's head too, at start)."""

    pits: dict[str, str | None]
    heads: Vector


def merge(batches: Mapping[str, list[tuple[int, EventPublic]]]) -> list[EventPublic]:
    """One list of several tables' events, each table's in seq order, by the order they were read."""
    return [item[1] for item in heapq.merge(*batches.values(), key=lambda item: item[0])]


class FloorHub(PolledHub):
    """Follows every table's chain of the floor and wakes the streams waiting on them."""

    def __init__(
        self,
        engine: Engine,
        *,
        poll_interval: float = 0.25,
        buffer_size: int = BUFFER_SIZE,
        tables_every: float = TABLES_EVERY,
    ) -> None:
        super().__init__(engine, poll_interval)
        self.tables_every = tables_every
        self.buffer_size = buffer_size
        self.pits: dict[str, str | None] = {}  # the floor's tables -> their pit
        self.heads: Vector = {}  # each table's last seq read
        self.since: Vector = {}  # each table's seq when the hub started following it
        self.people = 0  # the people chain's last seq
        self._buffers: dict[str, deque[tuple[int, EventPublic]]] = {}
        self._order = itertools.count()
        self._tables_read = float("-inf")
        self._data: dict[tuple[str, int], bytes] = {}  # an event's JSON, made once for every stream

    # -- the poller ---------------------------------------------------------------------------

    async def start(self) -> None:
        self._prepare()
        self._apply(await anyio.to_thread.run_sync(self._read_tables, frozenset(), True))
        self._launch("floor-hub")

    def _read_tables(self, known: frozenset[str], first: bool) -> _Tables:
        """The floor's tables now (in a worker thread; applied on the loop by ``_apply``). At
        start each table is followed from its chain's head; a table that joins later, from its
        daemon's start (``started_at``), so nothing it wrote since it joined is missed while the
        hub had not read ``floor_tables`` yet."""
        with read_snapshot(self.engine) as session:
            rows = floor_tables(session)
            new = [row for row in rows if row.table_id not in known]
            chains = [row.table_id for row in new]
            if first:
                heads = chain_heads(session, chains=[*chains, PEOPLE_CHAIN])
            else:
                heads = chain_heads(
                    session, chains=chains, before={row.table_id: row.started_at for row in new}
                )
        return _Tables({row.table_id: row.pit for row in rows}, heads)

    def _apply(self, tables: _Tables) -> None:
        self.pits = tables.pits
        for table_id, seq in tables.heads.items():
            if table_id == PEOPLE_CHAIN:
                self.people = seq
            else:
                self.heads[table_id] = self.since[table_id] = seq
                self._buffers[table_id] = deque(maxlen=self.buffer_size)
        self._tables_read = time.monotonic()

    def read_store(self, after: Mapping[str, int], limit: int = STORE_PAGE) -> list[EventPublic]:
        """The events after ``after`` (chain -> seq) from the store, each chain's in seq order; a
        row that cannot be read comes as ``record.unreadable`` in its place, never a stalled poll
        (storage/audit.stream_events)."""
        with read_snapshot(self.engine) as session:
            try:
                found = events_after(session, after=after, limit=limit)
                if events_readable(found):
                    return found
            except Exception as error:
                if is_outage(error):
                    raise
            return stream_events_after(session, after=after, limit=limit)

    def _poll(self, tables_due: bool, heads: Vector) -> tuple[_Tables | None, list[EventPublic]]:
        """In a worker thread: the tables when due, and the events after ``heads``. The hub's
        own state is changed on the event loop only (``_follow``)."""
        tables = self._read_tables(frozenset(heads), first=False) if tables_due else None
        if tables is not None:
            heads = {**heads, **tables.heads}
        return tables, self.read_store({**heads, PEOPLE_CHAIN: self.people})

    async def _follow(self) -> None:
        assert self._poked is not None
        while not self.closed:
            tables_due = time.monotonic() - self._tables_read >= self.tables_every
            try:
                tables, new = await self._counted_read(self._poll, tables_due, dict(self.heads))
            except Exception as error:  # the store is away for a moment: keep the streams waiting
                log.warning("floor.stream.poll_failed", error=str(error))
                tables, new = None, []
            if tables is not None:
                self._apply(tables)
            for found in new:
                if found.table_id == PEOPLE_CHAIN:
                    self.people = found.seq
                else:
                    self._buffers[found.table_id].append((next(self._order), found))
                    self.heads[found.table_id] = found.seq
            if new:
                self._notify()
                if len(new) == STORE_PAGE:
                    continue
            await self._pause()

    # -- the streams --------------------------------------------------------------------------

    def data(self, found: EventPublic, render: Callable[[EventPublic], bytes]) -> bytes:
        """The event's JSON for the stream, rendered once however many streams send it."""
        key = (found.table_id, found.seq)
        made = self._data.get(key)
        if made is None:
            made = render(found)
            if len(self._data) >= 4 * self.buffer_size:
                self._data.clear()  # bounded: only costs renders again
            self._data[key] = made
        return made

    def after(self, last: Mapping[str, int]) -> list[EventPublic] | None:
        """The buffered events after ``last`` (table -> seq) of those tables, merged in the order
        the hub read them; [] when nothing is newer yet; None when a buffer does not reach back
        to a table's seq (read the store)."""
        batches: dict[str, list[tuple[int, EventPublic]]] = {}
        for table_id, seq in last.items():
            head = self.heads.get(table_id, 0)
            if seq >= head:
                continue
            buffer = self._buffers.get(table_id)
            if not buffer or buffer[0][1].seq > seq + 1:
                return None
            # a chain's seqs are consecutive, so the place of ``seq + 1`` in the buffer is arithmetic
            batches[table_id] = list(itertools.islice(buffer, seq + 1 - buffer[0][1].seq, None))
        return merge(batches)

    def behind(self, last: Mapping[str, int]) -> bool:
        return any(seq < self.heads.get(table_id, 0) for table_id, seq in last.items())

    async def wait(self, last: Mapping[str, int], people: int, timeout: float) -> bool:
        """Wait until an event after ``last`` is known, or the people chain moves past
        ``people`` (True), or ``timeout`` passes (False)."""
        return await self._wait_until(lambda: self.behind(last) or self.people != people, timeout)


__all__ = ["FloorHub", "Vector", "merge"]
