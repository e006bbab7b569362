"""A SELECT that never changes, run without Core's per-statement work (docs/api.md, Speed).

For the reads made on every request a terminal makes (storage/history.py: a history page of
each shape, a time range's first and last round, a round's row, positions and events;
rules_store.py, the evidence by hash; storage/floor.py, the floor's), Core's execution context,
result object and rows cost more than the indexed query itself. ``FixedRead`` compiles its statement
once per dialect and runs it on the DBAPI cursor of the session's own connection, inside its
transaction: each value bound and each column read through its type's processors, as Core's
execution does, and a driver's error raised as Core raises it (wrapped, a lost connection
invalidated; that step uses ``Connection._handle_dbapi_exception``, SQLAlchemy's own, so a
SQLAlchemy upgrade is checked by tests/storage/test_fixed_read.py). These reads do not pass
through SQLAlchemy's statement events or echo log.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select
from sqlalchemy.engine import Dialect
from sqlmodel import Session


@dataclass(frozen=True, slots=True)
class _Compiled:
    sql: str
    names: tuple[str, ...]  # the parameters, in the order of a positional paramstyle
    fixed: dict[str, Any]  # the values the statement itself carries (``phase == "closed"``), by name
    positional: bool
    binds: tuple[Callable[[Any], Any] | None, ...]  # each parameter's bind processor
    results: list[tuple[Callable[[Any], Any] | None, ...]]  # the columns' result processors, once known


class FixedRead:
    """A SELECT compiled once per dialect and run on the session connection's DBAPI cursor
    (module docstring). Its parameters are single values: named in the statement
    (``bindparam("name")``, given to ``rows``) or literal values it carries (``case((c, 1),
    else_=0)``); none expanding (``in_`` of a list)."""

    def __init__(self, statement: Select[Any]) -> None:
        self.statement = statement
        self._compiled: weakref.WeakKeyDictionary[Dialect, _Compiled] = weakref.WeakKeyDictionary()

    def _compile(self, dialect: Dialect) -> _Compiled:
        compiled: Any = self.statement.compile(dialect=dialect)
        binds = compiled.binds
        fixed: dict[str, Any] = {}
        for name, bind in binds.items():
            if bind.expanding or (not bind.required and bind.callable is not None):
                raise ValueError(f"a fixed read binds only single values: {name!r}")
            if not bind.required:
                fixed[name] = bind.value
        names = tuple(compiled.positiontup) if compiled.positional else tuple(binds)
        done = _Compiled(
            sql=compiled.string,
            names=names,
            fixed=fixed,
            positional=compiled.positional,
            binds=tuple(binds[name].type.dialect_impl(dialect).bind_processor(dialect) for name in names),
            results=[],
        )
        self._compiled[dialect] = done
        return done

    def rows(self, session: Session, params: Mapping[str, Any]) -> Sequence[Sequence[Any]]:
        """Every row of the statement with ``params``, as sequences of processed values."""
        connection = session.connection()
        dialect = connection.dialect
        compiled = self._compiled.get(dialect) or self._compile(dialect)
        given = {**compiled.fixed, **params} if compiled.fixed else params
        values = [
            given[name] if process is None else process(given[name])
            for name, process in zip(compiled.names, compiled.binds, strict=True)
        ]
        bound: Any = values if compiled.positional else dict(zip(compiled.names, values, strict=True))
        cursor = connection.connection.cursor()
        try:
            cursor.execute(compiled.sql, bound)
            fetched = cursor.fetchall()
            if not compiled.results:
                columns = self.statement.selected_columns
                compiled.results.append(
                    tuple(
                        column.type.dialect_impl(dialect).result_processor(dialect, described[1])
                        for column, described in zip(columns, cursor.description, strict=True)
                    )
                )
        except dialect.loaded_dbapi.Error as error:
            connection._handle_dbapi_exception(error, compiled.sql, bound, cursor, None)
        finally:
            cursor.close()
        processed = [(index, process) for index, process in enumerate(compiled.results[0]) if process]
        if not processed:
            return fetched
        rows = []
        for fetched_row in fetched:
            row = list(fetched_row)
            for index, process in processed:
                row[index] = process(row[index])
            rows.append(row)
        return rows


__all__ = ["FixedRead"]
