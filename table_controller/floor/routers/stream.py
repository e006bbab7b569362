"""The floor's live stream: the audit events of every table a person may see, in one resumable
stream of server-sent events (docs/floor.md, "The live stream").

The SSE ``id`` of each event is the stream's position in every table at once, a vector of
per-table chain seqs: ``t1:120,t2:98`` (table ids sorted; a table id holds no ``:`` or ``,``).
A terminal that drops reconnects with its last id as ``Last-Event-ID`` and gets, for each
table, exactly the events after that table's seq: none lost, none twice, however the tables'
events interleaved. One number would not do: the floor has no order over all its tables that
commits in order (PostgreSQL serials do not). A table the id does not name (one that joined the
floor since) is sent from when this floor process started following it.

``?pit=`` narrows the stream to a pit, ``?table=`` to one table (the table's history page on
the floor). Raw device events (``device.*``) go to surveillance only, as on a table. A stream
lives only as long as its token (as api/routers/stream.py): it ends within a second of its
person being disabled or given a new key.
"""

from __future__ import annotations

import heapq
import json
import re
import time
from collections.abc import AsyncIterator, Callable
from typing import Annotated

import anyio.to_thread
from fastapi import APIRouter, Query, Request
from fastapi.responses import StreamingResponse

from ...api.deps import AuditDep
from ...api.errors import ApiError, responses
from ...api.models.events import event_view
from ...api.routers.stream import KEEPALIVE_SECONDS, REVALIDATE_SECONDS, Valid, sse_answer, token_check
from ...storage.models import EventPublic
from ...storage.users import Role
from ..deps import ScopeDep, not_on_floor
from ..hub import FloorHub, Vector
from ..models import FloorEventPublic
from ..scope import Scope
from .tables import PitQuery

router = APIRouter(prefix="/api/floor", tags=["floor"])

MAX_ID_LENGTH = 16_384  # as a request head may hold (http.max_header_bytes)
_POSITION = re.compile(r"([A-Za-z0-9][A-Za-z0-9_.-]{0,62}):([0-9]{1,15})")
_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]*:[0-9]+(,[A-Za-z0-9][A-Za-z0-9_.-]*:[0-9]+)*$"
_LAST_EVENT_ID_PARAMETER = {
    "name": "Last-Event-ID",
    "in": "header",
    "required": False,
    "description": "resume after this position: the id of the last event received (table:seq,...)",
    "schema": {"type": "string", "pattern": _ID_PATTERN, "maxLength": MAX_ID_LENGTH},
}


class Position:
    """A stream's position and its SSE id, ``table:seq`` of each table, sorted by table,
    comma-separated (module docstring), kept up to date as it moves.

    Every event sent carries the id, and an event moves one table: that table's ``table:seq``
    is formatted again and the parts joined, instead of the whole vector sorted and formatted
    for each event of each stream (docs/floor.md, Speed)."""

    def __init__(self, last: Vector) -> None:
        self.last: Vector = dict(last)
        self._reorder()

    def _reorder(self) -> None:
        order = sorted(self.last)
        self._index: dict[str, int] = {table_id: index for index, table_id in enumerate(order)}
        self._parts: list[str] = [f"{table_id}:{self.last[table_id]}" for table_id in order]

    def join(self, table_id: str, seq: int) -> None:
        """A table the stream now follows, from ``seq`` (a table already followed keeps its own)."""
        if table_id not in self.last:
            self.last[table_id] = seq
            self._reorder()

    def advance(self, table_id: str, seq: int) -> None:
        """The table's event ``seq`` was read."""
        if table_id not in self._index:
            self.join(table_id, seq)
        self.last[table_id] = seq
        self._parts[self._index[table_id]] = f"{table_id}:{seq}"

    def encode(self) -> str:
        return ",".join(self._parts)


def parse_position(value: str | None, what: str) -> Vector | None:
    """A position given back (``Last-Event-ID`` or ``?after=``); None for none; 422 if malformed."""
    if value is None or value == "":
        return None
    parts = value.split(",")
    found: Vector = {}
    matches = [_POSITION.fullmatch(part) for part in parts] if len(value) <= MAX_ID_LENGTH else [None]
    for match in matches:
        if match is None:
            raise ApiError(
                422, f"{what} must be a stream position (table:seq,table:seq...), got {value[:60]!r}"
            )
        found[match[1]] = int(match[2])
    return found


def _data(found: EventPublic) -> bytes:
    view = FloorEventPublic(**event_view(found).model_dump(), table_id=found.table_id)
    return json.dumps(view.model_dump(mode="json"), separators=(",", ":"), ensure_ascii=False).encode()


def _in_time_order(found: list[EventPublic]) -> list[EventPublic]:
    """Events read from the store (each table's in seq order) as one list by time, each table's
    order kept (the merge never reorders one input)."""
    by_table: dict[str, list[EventPublic]] = {}
    for item in found:
        by_table.setdefault(item.table_id, []).append(item)
    return list(heapq.merge(*by_table.values(), key=lambda item: item.created_at))


async def _events(
    hub: FloorHub,
    visible: Callable[[], list[str]],
    position: Position,
    with_devices: bool,
    follow: bool,
    still_valid: Valid,
) -> AsyncIterator[bytes]:
    quiet_since = time.monotonic()
    # The token is checked against the store once the people chain's head is noted: a change to
    # people made before then (in any process) is seen now, any later one moves the head.
    people = hub.people
    if not await still_valid(True):
        yield b": credentials revoked\n\n"
        return
    while not hub.closed:
        if not await still_valid(False):
            yield b": credentials revoked\n\n"
            return
        if hub.people != people:  # a person changed: ask the store, not the token cache
            people = hub.people
            if not await still_valid(True):
                yield b": credentials revoked\n\n"
                return
        for table_id in visible():  # a table that joined the floor: from when the hub found it
            position.join(table_id, hub.since.get(table_id, 0))
        last = position.last
        batch = hub.after(last)
        if batch is None:
            batch = _in_time_order(await anyio.to_thread.run_sync(hub.read_store, dict(last)))
        frames = []
        for found in batch:
            position.advance(found.table_id, found.seq)
            if with_devices or not found.kind.startswith("device."):
                frames.append(b"id: %s\ndata: %s\n\n" % (position.encode().encode(), hub.data(found, _data)))
        if frames:
            yield b"".join(frames)  # a terminal that is behind gets its events in one write
            quiet_since = time.monotonic()
        if batch:
            continue
        if not follow:
            return
        woken = await hub.wait(last, people, REVALIDATE_SECONDS)
        if not woken and not hub.closed and time.monotonic() - quiet_since >= KEEPALIVE_SECONDS:
            yield b": keepalive\n\n"
            quiet_since = time.monotonic()


def _visible(hub: FloorHub, scope: Scope, pit: str | None, table: str | None) -> Callable[[], list[str]]:
    def visible() -> list[str]:
        return [
            table_id
            for table_id, its_pit in list(hub.pits.items())
            if scope.sees(table_id, its_pit)
            and (pit is None or its_pit == pit)
            and (table is None or table_id == table)
        ]

    return visible


@router.get(
    "/stream",
    response_class=StreamingResponse,
    openapi_extra={"parameters": [_LAST_EVENT_ID_PARAMETER]},
    responses={
        **responses(404),
        200: sse_answer(
            "server-sent events: per event `id: <table:seq,...>`, `data:` the event as JSON",
            id_pattern=_ID_PATTERN,
            id_description="the stream's position: each table's last chain seq",
            event_schema="FloorEventPublic",
        ),
    },
)
async def stream(
    request: Request,
    who: AuditDep,
    scope: ScopeDep,
    pit: PitQuery = None,
    table: Annotated[str | None, Query(min_length=1, max_length=63, description="only this table")] = None,
    after: Annotated[
        str | None,
        Query(
            max_length=MAX_ID_LENGTH,
            description="start after this position (table:seq,...); default: from now",
        ),
    ] = None,
    follow: Annotated[bool, Query(description="false: send what is stored, then close")] = True,
) -> StreamingResponse:
    """The audit events of every table the person may see (of ``pit``, or one ``table``), each
    table's in chain order; resume with ``Last-Event-ID``."""
    hub: FloorHub = request.app.state.hub
    await hub.fresh()  # the floor's tables and heads as they are now, if nobody was following
    visible = _visible(hub, scope, pit, table)
    tables = visible()
    if table is not None and not tables:
        raise not_on_floor(table)
    resume = parse_position(request.headers.get("last-event-id"), "Last-Event-ID")
    given = resume if resume is not None else parse_position(after, "after")
    if given is None:  # from now
        last = {table_id: hub.heads.get(table_id, 0) for table_id in tables}
    else:  # a table the position does not name: from when the hub started following it
        last = {table_id: given.get(table_id, hub.since.get(table_id, 0)) for table_id in tables}
    return StreamingResponse(
        _events(
            hub, visible, Position(last), who.role is Role.SURVEILLANCE, follow, token_check(request, who)
        ),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
