"""Shifts (docs/floor-reports.md, "Shifts"): opened and closed with the people on duty named,
each change chained in the store's ``floor`` chain (storage/shifts.py).

Who may open or close a shift (``may_run_shift``): a pit's shift, a pit user of that pit or an
admin; the whole floor's shift (no pit), an admin. A key still waiting for a second admin's
confirmation changes nothing (403 ``unconfirmed-key``). Who may read shifts: pit users (their
pit's and the whole floor's), surveillance and admins (every shift).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

import structlog
from fastapi import APIRouter, Query
from pydantic import BaseModel, ConfigDict, Field
from sqlmodel import Session

from ...api.deps import RoleDep, StoreDep
from ...api.errors import ApiError, responses
from ...api.roles import Permission, allowed
from ...api.tokens import Principal
from ...storage.errors import InvalidFieldError
from ...storage.floor_tables import PIT_MAX
from ...storage.shifts import (
    NAMES_MAX,
    NOTE_MAX,
    ShiftConflictError,
    ShiftNotFoundError,
    ShiftRecord,
    close_shift,
    get_shift,
    list_shifts,
    open_shift,
)
from ...storage.users import Role
from ..deps import ScopeDep
from ..reports import ShiftPublic, shift_public
from ..scope import Scope

log = structlog.get_logger()
router = APIRouter(prefix="/api/floor/shifts", tags=["floor shifts"])

Names = Annotated[
    list[Annotated[str, Field(min_length=1, max_length=64)]], Field(min_length=1, max_length=NAMES_MAX)
]


class ShiftOpen(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pit: str | None = Field(None, min_length=1, max_length=PIT_MAX, description="null: the whole floor")
    on_duty: Names = Field(description="the people on duty, each an enabled user", examples=[["ann", "bob"]])


class ShiftClose(BaseModel):
    model_config = ConfigDict(extra="forbid")

    signed_off: Names = Field(description="the people signing the shift's report off, each an enabled user")
    note: str | None = Field(None, max_length=NOTE_MAX)


def may_run_shift(principal: Principal, pit: str | None) -> bool:
    """A pit's shift: a pit user of that pit, or an admin; the whole floor's: an admin."""
    if principal.role is Role.ADMIN:
        return True
    return principal.role is Role.PIT and pit is not None and principal.pit == pit


def _check_runner(principal: Principal, pit: str | None, what: str) -> None:
    if not principal.confirmed:
        raise ApiError(
            403,
            f"the key of {principal.name} was made by an admin and waits for a second admin's"
            f" confirmation: it may not {what} a shift yet",
            "unconfirmed-key",
        )
    if not may_run_shift(principal, pit):
        where = f"pit {pit}" if pit is not None else "the whole floor"
        who = "a pit user of that pit or an admin" if pit is not None else "an admin"
        log.warning("floor.shift_forbidden", user=principal.name, role=principal.role.value, pit=pit)
        raise ApiError(403, f"{principal.name} may not {what} the shift of {where}: only {who}")


def _check_reader(principal: Principal) -> None:
    if not (allowed(principal.role, Permission.AUDIT) or principal.role is Role.ADMIN):
        raise ApiError(
            403, f"role {principal.role.value} may not read shifts (allowed: admin, pit, surveillance)"
        )


def _sees(scope: Scope, shift: ShiftRecord) -> bool:
    return scope.everything or shift.pit is None or shift.pit == scope.pit


def _open(session: Session, principal: Principal, body: ShiftOpen) -> ShiftRecord:
    try:
        return open_shift(
            session, pit=body.pit, on_duty=body.on_duty, actor=principal.name, now=datetime.now(UTC)
        )
    except ShiftConflictError as error:
        raise ApiError(409, str(error), "shift-open") from None
    except InvalidFieldError as error:
        raise ApiError(422, str(error)) from None


def _close(session: Session, principal: Principal, shift_id: int, body: ShiftClose) -> ShiftRecord:
    try:
        shift = get_shift(session, shift_id=shift_id)
        _check_runner(principal, shift.pit, "close")
        return close_shift(
            session,
            shift_id=shift_id,
            actor=principal.name,
            signed_off=body.signed_off,
            note=body.note,
            now=datetime.now(UTC),
        )
    except ShiftNotFoundError:
        raise ApiError(404, f"no shift {shift_id}") from None
    except ShiftConflictError as error:
        raise ApiError(409, str(error), "shift-closed") from None
    except InvalidFieldError as error:
        raise ApiError(422, str(error)) from None


# the roles as the OpenAPI document lists them (the rule is may_run_shift, not one permission)
_RUNNERS = {"x-roles": ["admin", "pit"]}
_READERS = {"x-roles": ["admin", "pit", "surveillance"]}


@router.post(
    "", response_model=ShiftPublic, status_code=201, responses=responses(409), openapi_extra=_RUNNERS
)
async def open_a_shift(principal: RoleDep, store: StoreDep, body: ShiftOpen) -> ShiftPublic:
    """Open the shift of a pit (or of the whole floor) with the people on duty; 409 while that
    pit has an open shift. Roles: a pit user of that pit, or admin."""
    _check_runner(principal, body.pit, "open")
    found = await store.write(_open, principal, body)
    log.info("floor.shift_opened", shift_id=found.id, pit=found.pit, actor=principal.name)
    return shift_public(found)


@router.post(
    "/{shift_id}/close", response_model=ShiftPublic, responses=responses(404, 409), openapi_extra=_RUNNERS
)
async def close_a_shift(principal: RoleDep, store: StoreDep, shift_id: int, body: ShiftClose) -> ShiftPublic:
    """Close a shift with the people who sign its report off, and a note; 409 when it is closed
    already. Roles: a pit user of the shift's pit, or admin."""
    found = await store.write(_close, principal, shift_id, body)
    log.info("floor.shift_closed", shift_id=found.id, pit=found.pit, actor=principal.name)
    return shift_public(found)


def _list(session: Session, scope: Scope, open_only: bool, limit: int) -> list[ShiftRecord]:
    pits = None if scope.everything else [scope.pit, None]
    return list_shifts(session, pits=pits, open_only=open_only, limit=limit)


@router.get("", response_model=list[ShiftPublic], responses=responses(), openapi_extra=_READERS)
async def list_of_shifts(
    principal: RoleDep,
    scope: ScopeDep,
    store: StoreDep,
    open: Annotated[bool, Query(description="open shifts only")] = False,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
) -> list[ShiftPublic]:
    """The newest shifts first: every shift for surveillance and admins; a pit user's pit's and
    the whole floor's for a pit user."""
    _check_reader(principal)
    return [shift_public(record) for record in await store.read(_list, scope, open, limit)]


def _one(session: Session, scope: Scope, shift_id: int) -> ShiftRecord:
    try:
        found = get_shift(session, shift_id=shift_id)
    except ShiftNotFoundError:
        found = None
    if found is None or not _sees(scope, found):
        raise ApiError(404, f"no shift {shift_id}")
    return found


@router.get("/{shift_id}", response_model=ShiftPublic, responses=responses(404), openapi_extra=_READERS)
async def one_shift(principal: RoleDep, scope: ScopeDep, store: StoreDep, shift_id: int) -> ShiftPublic:
    """One shift and its people."""
    _check_reader(principal)
    return shift_public(await store.read(_one, scope, shift_id))


__all__ = ["ShiftClose", "ShiftOpen", "may_run_shift", "router"]
