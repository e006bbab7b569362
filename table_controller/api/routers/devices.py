"""Raw device events for surveillance: every ``device.*`` event of the chain (docs/api.md).

The drivers journal each device event (with its raw frame) before acknowledging it
(``drivers.base.Journal``; ``TableService.journal``), as ``device.<device>.<kind>`` events.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from ...storage.audit import list_events
from ..deps import DeviceFramesDep, ServiceDep, StoreDep
from ..errors import responses
from ..models.events import EventPage, event_view
from ..patterns import DEVICE_PATTERN

router = APIRouter(prefix="/api/devices", tags=["devices"])
MAX_EVENTS = 500


@router.get("/events", response_model=EventPage, responses=responses())
async def device_events(
    _: DeviceFramesDep,
    service: ServiceDep,
    store: StoreDep,
    after: Annotated[int, Query(ge=0, le=10**15, description="events after this chain seq")] = 0,
    device: Annotated[str | None, Query(pattern=DEVICE_PATTERN, description="e.g. shuffler")] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_EVENTS)] = 100,
) -> EventPage:
    """Device events (``device.*``) in chain order after ``after``, by pages."""
    prefix = f"device.{device}." if device else "device."
    rows = await store.read(
        list_events,
        table_id=service.table_id,
        kind_prefix=prefix,
        after_seq=after,
        limit=limit + 1,
    )
    more = len(rows) > limit
    page = rows[:limit]
    return EventPage(events=[event_view(e) for e in page], next_after=page[-1].seq if more else None)
