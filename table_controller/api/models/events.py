"""Audit events as the terminals see them: the chain's own fields, the payload parsed."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from ...storage.models import EventPublic


class ChainEventPublic(BaseModel):
    """One event of the table's audit chain (docs/audit-chain.md)."""

    seq: int = Field(description="the event's place in the table's chain; the stream's event id")
    kind: str
    round_id: str | None
    actor: str
    created_at: datetime
    payload: dict[str, Any]
    prev_hash: str
    hash: str


class EventPage(BaseModel):
    events: list[ChainEventPublic]
    next_after: int | None = Field(description="give as ?after= for the next page; None at the end")


def event_view(event: EventPublic) -> ChainEventPublic:
    return ChainEventPublic(
        seq=event.seq,
        kind=event.kind,
        round_id=event.round_id,
        actor=event.actor,
        created_at=event.created_at,
        payload=json.loads(event.payload),
        prev_hash=event.prev_hash,
        hash=event.hash,
    )
