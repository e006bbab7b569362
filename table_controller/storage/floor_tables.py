"""The tables of the floor: one row per table that has started against this store (migration
0007), with its pit, game and house way, and when its daemon was last heard from
(docs/floor.md). A projection of the tables' configuration, kept by each daemon; the floor
reads it to know which tables exist and whether each is alive."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index
from sqlmodel import Field, SQLModel

from .chain import TABLE_ID_MAX
from .models import UTCDateTime

PIT_MAX = 64


class FloorTable(SQLModel, table=True):
    """The ``floor_tables`` table."""

    __tablename__ = "floor_tables"
    __table_args__ = (Index("ix_floor_tables_pit", "pit", "table_id"),)

    table_id: str = Field(primary_key=True, max_length=TABLE_ID_MAX)
    pit: str | None = Field(default=None, max_length=PIT_MAX)
    game: str = Field(max_length=16)
    house_way: str = Field(max_length=64)
    api_url: str | None = Field(default=None, max_length=255)  # where the table's own pages are served
    started_at: datetime = Field(sa_type=UTCDateTime)
    seen_at: datetime = Field(sa_type=UTCDateTime)  # the daemon's last heartbeat
