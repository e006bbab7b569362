"""Dependencies of the endpoints: the store session, the table service, the person and their role.

``SessionDep`` is one consistent read snapshot of the store per request. ``RoleDep`` is the
person behind the bearer token; the per-permission aliases (``PlayDep``, ``AuditDep``...)
also check that the person's role holds the permission (``roles.GRANTS``). Wrong or missing
credentials answer 401 with the same words whether or not the user exists (issue 5).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Annotated, Any

import structlog
from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.engine import Engine
from sqlmodel import Session

from ..service import TableService
from ..settings import TableSettings
from ..storage.session import read_snapshot
from ..storage.users import Role, user_for_token
from .errors import ApiError, unauthorized
from .roles import Permission, allowed, roles_for

_bearer = HTTPBearer(auto_error=False, description="a person's token, from `table-controller users add`")
_TOKEN_MAX = 200


@dataclass(frozen=True, slots=True)
class Principal:
    """The person making the request: their name (the actor in the audit chain) and role."""

    name: str
    role: Role


# Dependencies without I/O are ``async``: they run on the event loop, not in the thread pool.


async def get_engine(request: Request) -> Engine:
    engine: Engine = request.app.state.engine
    return engine


async def get_service(request: Request) -> TableService:
    service: TableService = request.app.state.service
    return service


async def get_settings(request: Request) -> TableSettings:
    settings: TableSettings = request.app.state.settings
    return settings


def get_session(request: Request) -> Iterator[Session]:
    """One consistent read snapshot for the request (``read_snapshot``: REPEATABLE READ, READ
    ONLY on PostgreSQL), rolled back at the end."""
    with read_snapshot(request.app.state.engine) as session:
        yield session


SessionDep = Annotated[Session, Depends(get_session)]
ServiceDep = Annotated[TableService, Depends(get_service)]
SettingsDep = Annotated[TableSettings, Depends(get_settings)]
EngineDep = Annotated[Engine, Depends(get_engine)]


def authenticate(
    request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]
) -> Principal:
    """The person holding the bearer token; 401 for none, an unknown token or a disabled user."""
    if credentials is None or credentials.scheme.lower() != "bearer":
        raise unauthorized()
    token = credentials.credentials.strip()
    if not token or len(token) > _TOKEN_MAX or not token.isascii():
        raise unauthorized()
    with read_snapshot(request.app.state.engine) as session:
        user = user_for_token(session, token=token)
    if user is None:
        raise unauthorized()
    principal = Principal(name=user.name, role=user.role)
    request.state.principal = principal
    return principal


RoleDep = Annotated[Principal, Depends(authenticate)]


class Authorizer:
    """Depends on :func:`authenticate`, then checks that the role holds ``permission`` (403 if not)."""

    def __init__(self, permission: Permission) -> None:
        self.permission = permission

    async def __call__(self, principal: RoleDep) -> Principal:
        if not allowed(principal.role, self.permission):
            structlog.get_logger().warning("api.forbidden", user=principal.name, role=principal.role.value,
                                           permission=self.permission.value)
            raise ApiError(403, f"role {principal.role.value} may not {self.permission.value}"
                                f" (allowed: {', '.join(roles_for(self.permission))})")
        return principal

    def __repr__(self) -> str:
        return f"Authorizer({self.permission.value})"


def _needs(permission: Permission) -> Any:
    return Annotated[Principal, Depends(Authorizer(permission))]


ReadTableDep = _needs(Permission.READ_TABLE)
PlayDep = _needs(Permission.PLAY)
VoidDep = _needs(Permission.VOID)
OverrideDep = _needs(Permission.OVERRIDE)
AcknowledgeDep = _needs(Permission.ACKNOWLEDGE)
OpenCloseDep = _needs(Permission.OPEN_CLOSE)
AuditDep = _needs(Permission.AUDIT)
DeviceFramesDep = _needs(Permission.DEVICE_FRAMES)
AdminDep = _needs(Permission.ADMIN)


def route_permission(route: Any) -> Permission | None:
    """The permission an API route needs (found in its dependencies), or None for a public one."""
    stack = list(getattr(getattr(route, "dependant", None), "dependencies", []))
    while stack:
        dependant = stack.pop()
        if isinstance(dependant.call, Authorizer):
            return dependant.call.permission
        stack.extend(dependant.dependencies)
    return None


__all__ = [
    "AcknowledgeDep",
    "AdminDep",
    "AuditDep",
    "Authorizer",
    "DeviceFramesDep",
    "EngineDep",
    "OpenCloseDep",
    "OverrideDep",
    "PlayDep",
    "Principal",
    "ReadTableDep",
    "RoleDep",
    "ServiceDep",
    "SessionDep",
    "SettingsDep",
    "VoidDep",
    "authenticate",
    "route_permission",
]
