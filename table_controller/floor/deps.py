"""Dependencies of the floor's endpoints: the person's scope (floor/scope.py), on top of the
table API's authentication and roles (api/deps.py), so the floor answers as one table does."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Request

from ..api.deps import Authorizer, RoleDep, Store
from ..api.errors import ApiError
from ..api.roles import Permission
from ..api.tokens import Principal
from ..storage.session import read_snapshot
from .overview import visible_table
from .scope import NoScopeError, Scope, scope_of


async def get_scope(principal: RoleDep) -> Scope:
    """The tables the person may see; 403 ``no-scope`` for a pit user with no pit or a dealer
    with no table (they have no place on the floor until an admin sets one)."""
    try:
        return scope_of(principal.name, principal.role, principal.pit, principal.table_id)
    except NoScopeError as error:
        raise ApiError(403, str(error), "no-scope") from None


ScopeDep = Annotated[Scope, Depends(get_scope)]


def not_on_floor(table_id: str) -> ApiError:
    """The answer for a table that is not on the floor and for one outside the person's scope:
    the same words, so scope does not tell which tables exist."""
    return ApiError(404, f"no table {table_id!r} on this floor")


def _visible(store: Store, scope: Scope, table_id: str) -> bool:
    with read_snapshot(store.engine) as session:
        return visible_table(session, scope, table_id) is not None


class TableAuthorizer(Authorizer):
    """As ``api.deps.Authorizer``, for a command on one table of the floor (its path names it):
    a key still waiting for a second admin is refused (403 ``unconfirmed-key``) with the refusal
    chained on that table's chain, as the table's own API chains it on its own."""

    async def refused_on(self, request: Request, principal: Principal) -> str:
        """The table the path names, if the person may see it (else 404, as an unknown table)."""
        store: Store = request.app.state.store
        scope = await get_scope(principal)
        table_id = str(request.path_params.get("table_id", ""))
        if not await store.run(_visible, store, scope, table_id):
            raise not_on_floor(table_id)
        return table_id

    def __repr__(self) -> str:
        return f"TableAuthorizer({self.permission.value})"


def _needs_on_table(permission: Permission) -> Any:
    return Annotated[Principal, Depends(TableAuthorizer(permission))]


TableAcknowledgeDep = _needs_on_table(Permission.ACKNOWLEDGE)

__all__ = ["ScopeDep", "TableAcknowledgeDep", "TableAuthorizer", "get_scope", "not_on_floor"]
