"""Name the rows holding a value the store never writes (docs/api.md, "A forged stored value").

An insider with the database owner's rights can put anything in a column: a ``created_at`` as
``2026-01-01T00:00:00+02:00`` or ``garbage`` (SQLite keeps times as text), a payload that is not
JSON, money as ``'abc'`` or ``12.5`` in an integer column (SQLite's columns take any type), a card
code no deck has. A read of such a row fails somewhere in the models or the views; this module
is what runs *after* that failure, on a fresh snapshot, to say which row it was, so that the API
answers with the row named (a finding, as ``audit verify`` names it) instead of a traceback.

It is only run on that error path, and reads what it needs without the models (a forged row
would stop them again): raw text of the times, ``typeof`` of the integer columns (SQLite; a
PostgreSQL integer column holds integers only), each payload of the tables asked for parsed as
JSON. Nothing here writes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Final

from sqlalchemy import Integer, Text, func, select, type_coerce
from sqlmodel import Session, SQLModel

from .audit import stored_time_text
from .record_rows import unreadable_times

LISTED: Final = 20  # rows named in one answer; the rest are counted
_PROJECTIONS: Final = ("rounds", "round_positions")  # the money and cards a person reads


def forged_values(session: Session, *, table_ids: Sequence[str] | None = None) -> list[str]:
    """One line per stored value the store never writes, at most ``LISTED`` (then a count): the
    times outside ``events`` (storage/record_rows.unreadable_times), the events of ``table_ids``
    (every table when None) whose time or payload is not one the store writes, and the
    ``rounds`` / ``round_positions`` integers that are not integers."""
    found: list[str] = []
    more = 0
    for line in _all(session, table_ids):
        if len(found) < LISTED:
            found.append(line)
        else:
            more += 1
    if more:
        found.append(f"... and {more} more row(s) with a value the store never writes")
    return found


def _all(session: Session, table_ids: Sequence[str] | None) -> Iterator[str]:
    for table, key, column, text in unreadable_times(session):
        yield f"{table} row {key}: {column} stored as {text!r}: not a time the store writes"
    yield from _events(session, table_ids)
    yield from _integers(session)


def _events(session: Session, table_ids: Sequence[str] | None) -> Iterator[str]:
    events = SQLModel.metadata.tables["events"]
    when = type_coerce(events.c.created_at, Text)  # the stored text: the model would refuse it
    query = select(events.c.table_id, events.c.seq, events.c.kind, when, events.c.payload).order_by(
        events.c.table_id, events.c.seq
    )
    if table_ids is not None:
        query = query.where(events.c.table_id.in_(list(table_ids)))
    sqlite = session.get_bind().dialect.name == "sqlite"
    for table_id, seq, kind, created_at, payload in session.execute(query):
        where = f"table {table_id}, seq {seq} ({kind})"
        if sqlite:
            try:
                stored_time_text(created_at)
            except ValueError:
                yield f"{where}: created_at stored as {created_at!r}: not a time the store writes"
        try:
            parsed = json.loads(payload)
        except (TypeError, ValueError) as error:
            yield f"{where}: payload is not JSON ({error}): {str(payload)[:60]!r}"
            continue
        if not isinstance(parsed, dict):
            yield f"{where}: payload is not a JSON object: {str(payload)[:60]!r}"


def _integers(session: Session) -> Iterator[str]:
    """SQLite keeps any type in any column: an integer column holding text or a real number."""
    if session.get_bind().dialect.name != "sqlite":
        return
    for name in _PROJECTIONS:
        table = SQLModel.metadata.tables[name]
        keys = list(table.primary_key.columns)
        for column in (c for c in table.columns if isinstance(c.type, Integer) and not c.primary_key):
            kind = func.typeof(column)
            query = select(*keys, type_coerce(column, Text), kind).where(kind.not_in(["integer", "null"]))
            for row in session.execute(query):
                key = "/".join(str(value) for value in row[: len(keys)])
                yield f"{name} row {key}: {column.name} stored as {row[-2]!r} ({row[-1]}): not an integer"


__all__ = ["LISTED", "forged_values"]
