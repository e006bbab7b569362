"""Who am I: the person behind the token, their role and what it may do (any role).

The terminal pages ask it once when they load, to offer only the commands the role may use
(a surveillance terminal gets no forms, a dealer's no void, override or open/close) and to
send an admin to the admin page. The API still checks every command itself.
"""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, Field

from ...storage.users import Role
from ..deps import RoleDep
from ..errors import responses
from ..roles import GRANTS, Permission

router = APIRouter(prefix="/api", tags=["me"])

ALL_ROLES = sorted(role.value for role in Role)


class MePublic(BaseModel):
    """The person making the request."""

    name: str = Field(examples=["ann"], description="as the audit chain names them")
    role: Role
    permissions: list[Permission] = Field(description="what the role may do (docs/api.md, roles.GRANTS)")
    confirmed: bool = Field(
        description="false while a key an admin made waits for a second admin: it reads, changes nothing"
    )


@router.get(
    "/me",
    response_model=MePublic,
    # Any authenticated person: no permission to check, so never a 403; no parameters, so no 422.
    responses={status: answer for status, answer in responses().items() if status in (401, 503)},
    openapi_extra={"x-permission": "authenticated", "x-roles": ALL_ROLES},
)
async def me(who: RoleDep) -> MePublic:
    """The person behind the bearer token: name, role and the permissions the role holds.

    Roles: admin, dealer, pit, surveillance."""
    return MePublic(
        name=who.name,
        role=who.role,
        permissions=[p for p in Permission if who.role in GRANTS[p]],
        confirmed=who.confirmed,
    )
