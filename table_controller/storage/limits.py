"""The table's limits changed on the fly, as the chain keeps them (docs/dealers.md, "Table limits").

A change is one event of the table's chain, ``table.limits-changed``: the limits before and
after (``old``, ``new``: ``min_main_cents``, ``max_main_cents``, ``max_bonus_cents``,
``max_fortune_cents``, the last null where the table offers no Fortune Bonus), who changed
them (the event's actor) and the first round they hold for (``effective_from_round``). The
chain is the record: no projection table; a restart reads the newest change back
(``limits_for_round``), through the ``(table_id, kind, seq)`` index.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Final

from sqlmodel import Session, col, select

from .audit import append_event, lock_table
from .models import Event

LIMITS_CHANGED: Final = "table.limits-changed"
LIMIT_FIELDS: Final = ("min_main_cents", "max_main_cents", "max_bonus_cents", "max_fortune_cents")


def record_change(
    session: Session,
    *,
    table_id: str,
    old: Mapping[str, int | None],
    new: Mapping[str, int | None],
    effective_from_round: int,
    actor: str,
    now: datetime | None = None,
) -> int:
    """Chain a change of the limits (checked by the caller, table/limits.py); its seq."""
    lock_table(session, table_id=table_id)
    payload = {
        "old": {name: old.get(name) for name in LIMIT_FIELDS},
        "new": {name: new.get(name) for name in LIMIT_FIELDS},
        "effective_from_round": effective_from_round,
    }
    event = append_event(
        session, table_id=table_id, round_id=None, kind=LIMITS_CHANGED, actor=actor, payload=payload, now=now
    )
    return event.seq


def limits_for_round(session: Session, *, table_id: str, number: int | None) -> dict[str, Any] | None:
    """The newest change's ``new`` limits that hold for round ``number`` (None: for the next
    round, whatever its number), with the change's ``actor``, ``seq`` and ``changed_at``; None
    when the limits were never changed (the configured ones hold)."""
    rows = session.exec(
        select(Event.seq, Event.actor, Event.created_at, Event.payload)
        .where(Event.table_id == table_id, Event.kind == LIMITS_CHANGED)
        .order_by(col(Event.seq).desc())
    )
    for seq, actor, created_at, payload in rows:
        data = json.loads(payload) if isinstance(payload, str) else dict(payload)
        if number is None or int(data["effective_from_round"]) <= number:
            return {
                **data["new"],
                "effective_from_round": int(data["effective_from_round"]),
                "actor": actor,
                "seq": seq,
                "changed_at": created_at,
            }
    return None


__all__ = ["LIMITS_CHANGED", "LIMIT_FIELDS", "limits_for_round", "record_change"]
