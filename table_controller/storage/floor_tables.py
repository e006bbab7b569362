"""The tables of the floor: one row per table that has started against this store (migration
0007), with its pit, game and house way, and when its daemon was last heard from
(docs/floor.md). A projection of the tables' configuration, kept by each daemon; the floor
reads it to know which tables exist and whether each is alive.

Each daemon registers its table at start (``register_table``) and refreshes ``seen_at`` every
``floor_heartbeat_seconds`` (``heartbeat``); docs/round-lifecycle.md, "Registration and
heartbeat". The row is not evidence: which pit a table was in when is the table's own chain,
``table.registered`` (``REGISTERED``), chained when what the table registers changes.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any, Final

from sqlalchemy import Index, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Field, Session, SQLModel, col, select

from .audit import last_event
from .chain import TABLE_ID_MAX, check_table_id
from .errors import InvalidFieldError
from .models import UTCDateTime

PIT_MAX: Final = 64
PIT_PATTERN: Final = r"^[A-Za-z0-9][A-Za-z0-9 _.-]*$"  # as TableSettings.pit (settings.py)
_PIT = re.compile(PIT_PATTERN)
REGISTERED: Final = "table.registered"  # the table's own chain: what it registered, when it changed


class FloorTable(SQLModel, table=True):
    """The ``floor_tables`` table."""

    __tablename__ = "floor_tables"
    __table_args__ = (Index("ix_floor_tables_pit", "pit", "table_id"),)

    table_id: str = Field(primary_key=True, max_length=TABLE_ID_MAX)
    pit: str | None = Field(default=None, max_length=PIT_MAX)
    game: str = Field(max_length=16)
    house_way: str = Field(max_length=64)
    api_url: str | None = Field(default=None, max_length=255)  # where the table's own pages are served
    started_at: datetime = Field(sa_type=UTCDateTime)  # the daemon's start (the latest)
    seen_at: datetime = Field(sa_type=UTCDateTime)  # the daemon's last heartbeat


def check_pit(value: object) -> str:
    """A pit's name: letters, digits, space and ``_ . -``, starting with a letter or digit, at
    most 64 characters (``pit-a``, ``Pit 3``)."""
    if not isinstance(value, str) or len(value) > PIT_MAX or not _PIT.fullmatch(value):
        raise InvalidFieldError(
            f"pit {value!r} is not valid: 1..{PIT_MAX} letters, digits, spaces, '_', '.' or '-',"
            " starting with a letter or digit (e.g. pit-a)"
        )
    return value


@dataclass(frozen=True, slots=True)
class Registration:
    """What a table registers on the floor: its pit (None: in no pit), game, house way and the
    address of its own pages."""

    pit: str | None
    game: str
    house_way: str
    api_url: str | None

    def payload(self, previous: Registration | None) -> dict[str, Any]:
        """The ``table.registered`` payload: this registration and the one it replaces (None at
        the table's first)."""
        return {**asdict(self), "previous": None if previous is None else asdict(previous)}

    @classmethod
    def from_payload(cls, data: dict[str, Any]) -> Registration:
        return cls(pit=data["pit"], game=data["game"], house_way=data["house_way"], api_url=data["api_url"])


def register_table(
    session: Session,
    *,
    table_id: str,
    pit: str | None,
    game: str,
    house_way: str,
    api_url: str | None,
    now: datetime,
    started_at: datetime | None = None,
) -> FloorTable:
    """Add the table to the floor or replace its row (one statement, an upsert: two starts of
    the same table never collide): its configuration, ``seen_at`` ``now`` and ``started_at``
    the daemon's start (``now`` unless given: a row registered again after the start)."""
    values = {
        "table_id": check_table_id(table_id),
        "pit": None if pit is None else check_pit(pit),
        "game": game,
        "house_way": house_way,
        "api_url": api_url,
        "started_at": now if started_at is None else started_at,
        "seen_at": now,
    }
    insert = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
    statement = insert(FloorTable).values(**values)
    statement = statement.on_conflict_do_update(
        index_elements=["table_id"],
        set_={name: statement.excluded[name] for name in values if name != "table_id"},
    )
    session.execute(statement)
    return session.exec(
        select(FloorTable).where(FloorTable.table_id == table_id).execution_options(populate_existing=True)
    ).one()


def heartbeat(session: Session, table_id: str, now: datetime) -> bool:
    """The table's daemon was heard from ``now``: refresh ``seen_at``. False when the table has
    no row (never registered, or its row was deleted): the caller registers it again."""
    result = session.execute(
        update(FloorTable).where(col(FloorTable.table_id) == table_id).values(seen_at=now)
    )
    return bool(getattr(result, "rowcount", 0))


def find_floor_table(session: Session, *, table_id: str) -> FloorTable | None:
    """The table's ``floor_tables`` row (by primary key, the session's copy when it holds one), or
    None when the table is not on the floor."""
    return session.get(FloorTable, table_id)


def last_registration(session: Session, *, table_id: str) -> Registration | None:
    """What the table's chain last said it registered (``table.registered``), or None."""
    found = last_event(session, table_id=table_id, kinds=[REGISTERED])
    if found is None:
        return None
    return Registration.from_payload(json.loads(found.payload))


__all__ = [
    "PIT_MAX",
    "PIT_PATTERN",
    "REGISTERED",
    "FloorTable",
    "Registration",
    "check_pit",
    "find_floor_table",
    "heartbeat",
    "last_registration",
    "register_table",
]
