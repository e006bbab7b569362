"""Shifts: a pit's (or the whole floor's) shift, opened and closed with the people on duty
named (migration 0007; docs/floor.md, "Shifts and reports"). Each change is also an event of
the store's ``floor`` chain."""

from __future__ import annotations

from datetime import datetime
from typing import Final

from sqlalchemy import Index, Integer, Text
from sqlmodel import Field, SQLModel

from .floor_tables import PIT_MAX
from .models import UTCDateTime

FLOOR_CHAIN: Final = "floor"  # the chain's id in the events table (no table may take it)


class Shift(SQLModel, table=True):
    """The ``shifts`` table. ``on_duty`` and ``signed_off`` are JSON lists of names."""

    __tablename__ = "shifts"
    __table_args__ = (Index("ix_shifts_pit_opened", "pit", "opened_at"), {"sqlite_autoincrement": True})

    id: int | None = Field(default=None, primary_key=True, sa_type=Integer)
    pit: str | None = Field(default=None, max_length=PIT_MAX)  # None: the whole floor
    opened_at: datetime = Field(sa_type=UTCDateTime)
    opened_by: str = Field(max_length=64)
    on_duty: str = Field(sa_type=Text)
    closed_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    closed_by: str | None = Field(default=None, max_length=64)
    signed_off: str | None = Field(default=None, sa_type=Text)
    note: str | None = Field(default=None, sa_type=Text)
