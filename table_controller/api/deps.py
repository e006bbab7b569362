"""Dependencies of the endpoints: the store, the table service, the person and their role.

One thread-pool hop per request (docs/api.md, Speed): the dependencies here are ``async`` and
do no I/O on the event loop; an endpoint runs its store work in one call, ``await
store.read(work, ...)`` (one consistent read snapshot) or ``await store.run(call, ...)``
(a command through the table service). ``RoleDep`` is the person behind the bearer token,
looked up once and then remembered for a few seconds (``tokens.TokenCache``); the
per-permission aliases (``PlayDep``, ``AuditDep``...) also check that the person's role holds
the permission (``roles.GRANTS``). Wrong or missing credentials answer 401 with the same words
whether or not the user exists (docs/api.md); the person is found before the request's body is
read (``auth.Authentication``). A key an admin made for someone else changes nothing until a
second admin confirms it: 403 ``unconfirmed-key``, chained (docs/api.md, "Two people").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import structlog
from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.engine import Engine
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..round.machine import TransitionRefused
from ..settings import TableSettings
from ..storage.approvals import TwoPersonRefusedError
from ..storage.errors import StorageError, StoredValueError, is_outage
from ..storage.forged import forged_values
from ..storage.session import read_snapshot, unit_of_work
from ..table.approvals import refuse
from ..table.service import TableRefused, TableService
from .auth import CSRF, credential, lookup_credential
from .errors import ApiError, unauthorized
from .roles import CHANGES_STATE, Permission, allowed, roles_for
from .sessions import csrf_refusal
from .tokens import Principal, TokenCache

T = TypeVar("T")
# what a read may raise on purpose, each with its own answer (api/errors.py); anything else a
# read raises comes from a stored value (StoredValueError)
_REFUSALS = (StorageError, ApiError, StarletteHTTPException, TableRefused, TransitionRefused)

_bearer = HTTPBearer(auto_error=False, description="a person's token, from `table-controller users add`")
# the bearer credentials as ``_bearer`` documents them in the OpenAPI document
Credentials = Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]


class Store:
    """The store as an endpoint uses it: all its I/O in one thread-pool call.

    ``read_engine`` is a read-only copy of the store (a streaming replica: ``read_db_url``,
    docs/floor.md, "Reads off the primary") that ``read`` uses when given; ``read_current``,
    ``write`` and ``run`` always use the primary ``engine`` (who a token belongs to, and every
    command, must be current)."""

    def __init__(self, engine: Engine, read_engine: Engine | None = None) -> None:
        self.engine = engine
        self.read_engine = read_engine if read_engine is not None else engine

    @staticmethod
    def _within(
        transaction: Callable[[Engine], Any],
        engine: Engine,
        work: Callable[..., T],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> T:
        with transaction(engine) as session:
            return work(session, *args, **kwargs)

    @staticmethod
    def _reading(engine: Engine, work: Callable[..., T], args: tuple[Any, ...], kwargs: dict[str, Any]) -> T:
        """A read; a stored value the store never writes (a forged time, payload, amount) that
        stops it is a StoredValueError naming the rows (storage/forged.py), never a traceback.
        A failure with no forged row to name is raised as it is: a fault of the code is a 500
        with its traceback in the log, never passed off as a finding of the record."""
        try:
            return Store._within(read_snapshot, engine, work, args, kwargs)
        except Exception as error:
            if isinstance(error, _REFUSALS) or is_outage(error):
                raise  # a typed refusal has its own answer; an outage is a 503
            cause = f"{type(error).__name__}: {str(error).splitlines()[0][:300] if str(error) else ''}"
            with read_snapshot(engine) as session:
                findings = forged_values(session)
            if not findings:  # no stored value to blame: a fault of the code, never called a forgery
                raise
            structlog.get_logger().warning("api.stored_value_unreadable", cause=cause, findings=findings)
            raise StoredValueError(cause, findings) from None

    async def read(self, work: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        """``work(session, *args, **kwargs)`` on one consistent read snapshot (``read_snapshot``:
        REPEATABLE READ, READ ONLY on PostgreSQL), in the thread pool; rolled back at the end."""
        return await run_in_threadpool(self._reading, self.read_engine, work, args, kwargs)

    async def read_current(self, work: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        """As :meth:`read`, on the primary: for what must never be behind (a person's token)."""
        return await run_in_threadpool(self._reading, self.engine, work, args, kwargs)

    async def write(self, work: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        """``work(session, *args, **kwargs)`` in one write transaction (``unit_of_work``: all or
        nothing), in the thread pool."""
        return await run_in_threadpool(self._within, unit_of_work, self.engine, work, args, kwargs)

    async def run(self, call: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        """``call(*args, **kwargs)`` in the thread pool: a command, which makes its own transactions."""
        return await run_in_threadpool(call, *args, **kwargs)


async def get_store(request: Request) -> Store:
    store: Store = request.app.state.store
    return store


async def get_service(request: Request) -> TableService:
    service: TableService = request.app.state.service
    return service


async def get_settings(request: Request) -> TableSettings:
    settings: TableSettings = request.app.state.settings
    return settings


async def get_tokens(request: Request) -> TokenCache:
    tokens: TokenCache = request.app.state.tokens
    return tokens


StoreDep = Annotated[Store, Depends(get_store)]
ServiceDep = Annotated[TableService, Depends(get_service)]
SettingsDep = Annotated[TableSettings, Depends(get_settings)]
TokensDep = Annotated[TokenCache, Depends(get_tokens)]


async def authenticate(request: Request, _: Credentials) -> Principal:
    """The person holding the bearer token (or the browser session, sessions.py), as
    ``auth.Authentication`` found them before the body was read; 401 for none, an unknown
    token or a disabled user. (``_bearer`` documents the
    scheme in the OpenAPI document.)"""
    principal: Principal | None = getattr(request.state, "principal", None)
    if principal is None:  # a route outside /api that asks for a person: look the token up here
        given = credential(request.scope)
        principal = None if given is None else await lookup_credential(request.app.state, given)
        if principal is None:
            raise unauthorized()
        refused = None if given is None or given.cookie is None else csrf_refusal(request.scope)
        if refused is not None:  # a browser session's change from another site (sessions.py)
            raise ApiError(403, refused, error=CSRF)
        request.state.principal = principal
        request.state.credential = given
    return principal


RoleDep = Annotated[Principal, Depends(authenticate)]


class Authorizer:
    """Finds the person as :func:`authenticate` does, then checks that the role holds
    ``permission`` (403 if not)."""

    def __init__(self, permission: Permission) -> None:
        self.permission = permission

    async def refused_on(self, request: Request, principal: Principal) -> str:
        """The chain an unconfirmed key's refusal is chained on: this table's."""
        service: TableService = request.app.state.service
        return service.table_id

    async def __call__(self, request: Request, credentials: Credentials) -> Principal:
        # authenticate called here, not depended on: one dependency fewer to solve per request
        principal = await authenticate(request, credentials)
        if not principal.confirmed and self.permission in CHANGES_STATE:
            table_id = await self.refused_on(request, principal)
            store: Store = request.app.state.store
            error = TwoPersonRefusedError(
                f"the key of {principal.name} was made by an admin and waits for a second admin's"
                f" confirmation: it may not {self.permission.value} yet",
                rule="unconfirmed-key",
            )
            raise await store.run(
                refuse,
                store.engine,
                table_id,
                actor=principal.name,
                error=error,
                round_id=None,
                permission=self.permission.value,
            )
        if not allowed(principal.role, self.permission):
            structlog.get_logger().warning(
                "api.forbidden",
                user=principal.name,
                role=principal.role.value,
                permission=self.permission.value,
            )
            raise ApiError(
                403,
                f"role {principal.role.value} may not {self.permission.value}"
                f" (allowed: {', '.join(roles_for(self.permission))})",
            )
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
ConfirmDep = _needs(Permission.CONFIRM)
LimitsDep = _needs(Permission.LIMITS)


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
    "ConfirmDep",
    "DeviceFramesDep",
    "LimitsDep",
    "OpenCloseDep",
    "OverrideDep",
    "PlayDep",
    "Principal",
    "ReadTableDep",
    "RoleDep",
    "ServiceDep",
    "SettingsDep",
    "Store",
    "StoreDep",
    "TokensDep",
    "VoidDep",
    "authenticate",
    "route_permission",
]
