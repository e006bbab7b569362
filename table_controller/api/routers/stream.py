"""The live stream of the table's audit events (server-sent events), with resume (docs/api.md).

``GET /api/stream`` sends every event of the table's chain after the one the terminal names
(``Last-Event-ID`` header on a reconnect, or ``?after=``; none: from now), in chain order,
each with its ``seq`` as the SSE ``id``. A terminal that drops reconnects with the last id it
received and gets exactly the events after it. The pit's stream leaves out raw device events
(``device.*``), which only surveillance reads.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from typing import Annotated

import anyio.to_thread
from fastapi import APIRouter, Query, Request
from fastapi.responses import StreamingResponse

from ...storage.models import EventPublic
from ...storage.users import Role
from ..deps import AuditDep
from ..errors import ApiError, responses
from ..models.events import event_view
from ..stream import EventHub

router = APIRouter(prefix="/api", tags=["stream"])

KEEPALIVE_SECONDS = 15.0
LAST_EVENT_ID = re.compile(r"[0-9]{1,15}")
# Read by hand (a plain str | None header would be documented as "string or null").
_LAST_EVENT_ID_PARAMETER = {
    "name": "Last-Event-ID",
    "in": "header",
    "required": False,
    "description": "resume after this chain seq (what a terminal sends on a reconnect)",
    "schema": {"type": "string", "pattern": "^[0-9]{1,15}$"},
}


def _frame(event: EventPublic) -> bytes:
    data = json.dumps(event_view(event).model_dump(mode="json"), separators=(",", ":"), ensure_ascii=False)
    return f"id: {event.seq}\ndata: {data}\n\n".encode()


async def _events(hub: EventHub, last: int, with_devices: bool, follow: bool) -> AsyncIterator[bytes]:
    while not hub.closed:
        batch = hub.after(last)
        if batch is None:
            batch = await anyio.to_thread.run_sync(hub.read_store, last)
        frames = [
            hub.frame(event, _frame)
            for event in batch
            if with_devices or not event.kind.startswith("device.")
        ]
        if batch:
            last = batch[-1].seq
        if frames:
            yield b"".join(frames)  # a terminal that is behind gets its events in one write
        if batch:
            continue
        if not follow:
            return
        if not await hub.wait(last, KEEPALIVE_SECONDS) and not hub.closed:
            yield b": keepalive\n\n"


def _event_id(value: str | None, what: str) -> int | None:
    if value is None or value == "":
        return None
    if not LAST_EVENT_ID.fullmatch(value):
        raise ApiError(422, f"{what} must be a chain seq (a whole number >= 0), got {value[:40]!r}")
    return int(value)


@router.get(
    "/stream",
    response_class=StreamingResponse,
    openapi_extra={"parameters": [_LAST_EVENT_ID_PARAMETER]},
    responses={
        **responses(),
        200: {
            "description": "server-sent events: per event `id: <chain seq>` and `data:` the event as JSON",
            "content": {
                "text/event-stream": {
                    "schema": {
                        "type": "object",
                        "description": "one server-sent event",
                        "required": ["id", "data"],
                        "properties": {
                            "id": {
                                "type": "string",
                                "pattern": "^[0-9]+$",
                                "description": "the event's chain seq",
                            },
                            "data": {
                                "type": "string",
                                "contentMediaType": "application/json",
                                "contentSchema": {"$ref": "#/components/schemas/ChainEventPublic"},
                            },
                        },
                    }
                }
            },
        },
    },
)
async def stream(
    request: Request,
    who: AuditDep,
    after: Annotated[
        int | None, Query(ge=0, le=10**15, description="start after this chain seq; default: from now")
    ] = None,
    follow: Annotated[bool, Query(description="false: send what is stored, then close")] = True,
) -> StreamingResponse:
    """The table's audit events as they are stored, in chain order; resume with ``Last-Event-ID``."""
    hub: EventHub = request.app.state.hub
    resume = _event_id(request.headers.get("last-event-id"), "Last-Event-ID")
    start = resume if resume is not None else after if after is not None else hub.head
    return StreamingResponse(
        _events(hub, start, who.role is Role.SURVEILLANCE, follow),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
