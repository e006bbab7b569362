"""The device events and commands the journal chained (conductor/journal.py), as read back.

The table service reads them for the conductor (a restarted table's deal, the pairs already
stored); they live in the record, below both, so that the service does not import the conductor
that drives it (docs/design.md, "Layers").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine import Engine

from ..storage import head_of_chain, list_events, read_snapshot
from .recorder import json_payload

RECENT_EVENTS = 2000  # chain events read back at start to know what is already stored


@dataclass(frozen=True, slots=True)
class DeviceRecord:
    """One journalled device event or command, as read back from the chain."""

    device: str
    what: str
    round_id: str | None
    payload: Mapping[str, Any]

    @property
    def key(self) -> tuple[int, int] | None:
        session, event_id = self.payload.get("session"), self.payload.get("event_id")
        return (session, event_id) if session is not None and event_id is not None else None


def parse_kind(kind: str) -> tuple[str, str] | None:
    """``device.<device>.<what>`` -> (device, what); None for other kinds."""
    parts = kind.split(".")
    if len(parts) != 3 or parts[0] != "device":
        return None
    return parts[1], parts[2]


def recent_device_events(engine: Engine, table_id: str, *, limit: int = RECENT_EVENTS) -> list[DeviceRecord]:
    """The device events among the table's last ``limit`` chain events, oldest first."""
    with read_snapshot(engine) as session:
        head = head_of_chain(session, table_id=table_id)
        if head is None:
            return []
        stored = list_events(session, table_id=table_id, after_seq=max(head.last_seq - limit, 0))
    return _records(stored)


def round_device_events(engine: Engine, table_id: str, round_id: str) -> list[DeviceRecord]:
    """Every device event and command journalled while ``round_id`` was the table's round."""
    with read_snapshot(engine) as session:
        stored = list_events(session, table_id=table_id, round_id=round_id)
    return _records(stored)


def _records(stored: list[Any]) -> list[DeviceRecord]:
    records = []
    for row in stored:
        parsed = parse_kind(row.kind)
        if parsed is not None:
            records.append(DeviceRecord(parsed[0], parsed[1], row.round_id, json_payload(row.payload)))
    return records


__all__ = ["RECENT_EVENTS", "DeviceRecord", "parse_kind", "recent_device_events", "round_device_events"]
