"""Dependencies of the floor's endpoints: the person's scope (floor/scope.py), on top of the
table API's authentication and roles (api/deps.py), so the floor answers as one table does."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends

from ..api.deps import RoleDep
from ..api.errors import ApiError
from .scope import NoScopeError, Scope, scope_of


async def get_scope(principal: RoleDep) -> Scope:
    """The tables the person may see; 403 ``no-scope`` for a pit user with no pit or a dealer
    with no table (they have no place on the floor until an admin sets one)."""
    try:
        return scope_of(principal.name, principal.role, principal.pit, principal.table_id)
    except NoScopeError as error:
        raise ApiError(403, str(error), "no-scope") from None


ScopeDep = Annotated[Scope, Depends(get_scope)]

__all__ = ["ScopeDep", "get_scope"]
