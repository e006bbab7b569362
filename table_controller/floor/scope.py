"""Who sees which tables (docs/floor.md, "Who sees what").

Surveillance and admin see every table of the floor. A pit user sees the tables of their pit;
a dealer only their own table. A pit user or dealer with no pit or table set has no place on
the floor: refused with the command that sets it, never shown every table by default.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..storage.users import Role


class OutOfScopeError(PermissionError):
    """A person asked for a table or pit outside what they may see."""


class NoScopeError(PermissionError):
    """A pit user with no pit, or a dealer with no table: they have no place on the floor."""


@dataclass(frozen=True, slots=True)
class Scope:
    """What one person may see: every table (``everything``), or the tables of ``pit``, or the one
    table ``table_id``."""

    everything: bool = False
    pit: str | None = None
    table_id: str | None = None

    def sees(self, table_id: str, pit: str | None) -> bool:
        """Whether a table (of ``pit``) is within this scope."""
        if self.everything:
            return True
        if self.table_id is not None:
            return table_id == self.table_id
        return self.pit is not None and pit == self.pit

    def tables(self, tables: Iterable[tuple[str, str | None]]) -> list[str]:
        """The ids of the ``(table_id, pit)`` pairs within this scope, in the order given."""
        return [table_id for table_id, pit in tables if self.sees(table_id, pit)]


def scope_of(name: str, role: Role, pit: str | None, table_id: str | None) -> Scope:
    """The scope of a person by their role and the pit or table set on them.

    Raises :class:`NoScopeError` for a pit user without a pit or a dealer without a table."""
    if role in (Role.SURVEILLANCE, Role.ADMIN):
        return Scope(everything=True)
    if role is Role.PIT:
        if pit is None:
            raise NoScopeError(
                f"pit user {name} has no pit: set one with `table-controller users scope {name} --pit PIT`"
            )
        return Scope(pit=pit)
    if table_id is None:
        raise NoScopeError(
            f"dealer {name} has no table: set one with `table-controller users scope {name} --table TABLE`"
        )
    return Scope(table_id=table_id)


def may_use_table(
    role: Role, pit: str | None, table_id: str | None, *, table: str, table_pit: str | None
) -> bool:
    """Whether a person may use one table's own API: unscoped people may (a single table has no
    pits), a scoped one only within their scope."""
    if role is Role.PIT and pit is not None:
        return pit == table_pit
    if role is Role.DEALER and table_id is not None:
        return table_id == table
    return True
