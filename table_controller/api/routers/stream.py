"""The live stream of the table's audit events (server-sent events), with resume (docs/api.md).

``GET /api/stream`` sends every event of the table's chain after the one the terminal names
(``Last-Event-ID`` header on a reconnect, or ``?after=``; none: from now), in chain order,
each with its ``seq`` as the SSE ``id``. A terminal that drops reconnects with the last id it
received and gets exactly the events after it. The pit's stream leaves out raw device events
(``device.*``), which only surveillance reads.

A stream lives only as long as its token (docs/api.md, "Tokens"): it checks the token at least
every ``REVALIDATE_SECONDS`` (through the token cache, which every change to people made
through the API clears) and against the store whenever a change to people (``user.*``) passes
in the chain, so a person disabled or given a new key loses their open streams within a second
and receives nothing written after the change.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Annotated, Any

import anyio.to_thread
import structlog
from fastapi import APIRouter, Query, Request
from fastapi.responses import StreamingResponse

from ...storage.models import EventPublic
from ...storage.users import Role
from ..auth import Credential, credential, forget_credential, lookup_credential
from ..deps import AuditDep
from ..errors import ApiError, responses
from ..models.events import event_view
from ..stream import EventHub
from ..tokens import Principal

router = APIRouter(prefix="/api", tags=["stream"])
log = structlog.get_logger()

KEEPALIVE_SECONDS = 15.0
REVALIDATE_SECONDS = 0.5  # a disabled person's stream ends within this (and the hub's poll)
PEOPLE_CHANGES = "user."  # chain events that change who may read: re-check the token at once
LAST_EVENT_ID = re.compile(r"[0-9]{1,15}")
# Read by hand (a plain str | None header would be documented as "string or null").
_LAST_EVENT_ID_PARAMETER = {
    "name": "Last-Event-ID",
    "in": "header",
    "required": False,
    "description": "resume after this chain seq (what a terminal sends on a reconnect)",
    "schema": {"type": "string", "pattern": "^[0-9]{1,15}$"},
}


def sse_answer(
    description: str, *, id_pattern: str, id_description: str, event_schema: str
) -> dict[str, Any]:
    """A stream's 200 in the OpenAPI document: server-sent events, each an ``id`` and the event
    (``event_schema``) as JSON in ``data`` (the table's stream here, the floor's in floor/)."""
    return {
        "description": description,
        "content": {
            "text/event-stream": {
                "schema": {
                    "type": "object",
                    "description": "one server-sent event",
                    "required": ["id", "data"],
                    "properties": {
                        "id": {"type": "string", "pattern": id_pattern, "description": id_description},
                        "data": {
                            "type": "string",
                            "contentMediaType": "application/json",
                            "contentSchema": {"$ref": f"#/components/schemas/{event_schema}"},
                        },
                    },
                }
            }
        },
    }


def _frame(event: EventPublic) -> bytes:
    data = json.dumps(event_view(event).model_dump(mode="json"), separators=(",", ":"), ensure_ascii=False)
    return f"id: {event.seq}\ndata: {data}\n\n".encode()


Valid = Callable[[bool], Awaitable[bool]]  # still_valid(from_store) -> the token still holds


async def _events(
    hub: EventHub, last: int, with_devices: bool, follow: bool, still_valid: Valid
) -> AsyncIterator[bytes]:
    quiet_since = time.monotonic()
    while not hub.closed:
        if not await still_valid(False):
            yield b": credentials revoked\n\n"
            return
        batch = hub.after(last)
        if batch is None:
            batch = await anyio.to_thread.run_sync(hub.read_store, last)
        if any(event.kind.startswith(PEOPLE_CHANGES) for event in batch) and not await still_valid(True):
            yield b": credentials revoked\n\n"
            return
        frames = [
            hub.frame(event, _frame)
            for event in batch
            if with_devices or not event.kind.startswith("device.")
        ]
        if batch:
            last = batch[-1].seq
        if frames:
            yield b"".join(frames)  # a terminal that is behind gets its events in one write
            quiet_since = time.monotonic()
        if batch:
            continue
        if not follow:
            return
        woken = await hub.wait(last, REVALIDATE_SECONDS)
        if not woken and not hub.closed and time.monotonic() - quiet_since >= KEEPALIVE_SECONDS:
            yield b": keepalive\n\n"
            quiet_since = time.monotonic()


def token_check(request: Request, who: Principal) -> Valid:
    """Whether the stream's token (or browser session, sessions.py) still names ``who``: from
    the token cache, or (``from_store``, or when the cache has forgotten it) from the store."""
    given: Credential | None = getattr(request.state, "credential", None) or credential(request.scope)
    state = request.app.state

    async def still_valid(from_store: bool) -> bool:
        if from_store and given is not None:
            forget_credential(state, given)
        try:
            now = await lookup_credential(state, given) if given is not None else None
        except Exception as error:  # the store is away: nobody can change people meanwhile either
            log.warning("stream.token_check_failed", user=who.name, error=str(error))
            return True
        # a new role or a new scope (docs/floor.md, "Who sees what") ends the stream: what it
        # was allowed to carry was decided for the old one
        return (
            now is not None
            and now.name == who.name
            and now.role is who.role
            and (now.pit, now.table_id) == (who.pit, who.table_id)
        )

    return still_valid


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
        200: sse_answer(
            "server-sent events: per event `id: <chain seq>` and `data:` the event as JSON",
            id_pattern="^[0-9]+$",
            id_description="the event's chain seq",
            event_schema="ChainEventPublic",
        ),
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
    start = resume if resume is not None else after
    if start is None:  # from now: the hub's head, read afresh if nobody was following
        await hub.fresh()
        start = hub.head
    return StreamingResponse(
        _events(hub, start, who.role is Role.SURVEILLANCE, follow, token_check(request, who)),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
