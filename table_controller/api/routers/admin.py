"""Admin: people and their keys, and the table's configuration (docs/api.md: "admin (configuration,
user keys)"). Adding, disabling, re-keying, confirming and scoping a person are audit events naming
the admin. A scope keeps a pit user to one pit's tables or a dealer to one table (docs/api.md, "Who
sees what").

Two people for a key (docs/api.md, "Two people"): the admin who adds a person or gives them a
new key receives their token, so that key changes nothing until a second admin confirms it
(``POST /api/users/{name}/confirm``); the admin who made it, or its holder, is refused (403,
chained)."""

from __future__ import annotations

from typing import Annotated, Any

import structlog
from fastapi import APIRouter, Path
from pydantic import BaseModel, ConfigDict, Field, model_validator
from sqlmodel import Session

from ...storage import append_event, redacted
from ...storage.approvals import TwoPersonRefusedError
from ...storage.checkpoints import sign_people
from ...storage.session import unit_of_work
from ...storage.users import (
    NAME_MAX,
    ScopeNotForRoleError,
    UserConfirmError,
    UserCreate,
    UserPublic,
    add_user,
    confirm_user,
    disable_user,
    get_user,
    list_users,
    rotate_token,
    set_scope,
)
from ...table.approvals import refuse
from ...table.service import TableService
from ..deps import AdminDep, ServiceDep, SettingsDep, StoreDep, TokensDep
from ..errors import ApiError, responses
from ..patterns import NAME_PATTERN
from ..tokens import Principal

router = APIRouter(prefix="/api", tags=["admin"])

# a person's name in a path: storage's UserName rule, carried by Path
UserNameParam = Annotated[str, Path(min_length=1, max_length=NAME_MAX, pattern=NAME_PATTERN)]


class UserKeyPublic(BaseModel):
    """A person and their new token: shown this once, only its hash is kept."""

    user: UserPublic
    token: str = Field(description="the bearer token; store it now, it cannot be shown again")


class ScopeChange(BaseModel):
    """Where a person may work: a pit (pit users), a table (dealers), or neither (no scope: every
    table, as on a single table)."""

    model_config = ConfigDict(extra="forbid")

    pit: str | None = Field(default=None, examples=["pit-a"], description="a pit user's pit")
    table_id: str | None = Field(default=None, examples=["PG-3"], description="a dealer's table")

    @model_validator(mode="after")
    def _one(self) -> ScopeChange:
        if self.pit is not None and self.table_id is not None:
            raise ValueError("give a pit or a table_id, not both")
        return self


class ConfigPublic(BaseModel):
    """The table's settings as the daemon runs with them (the database password masked)."""

    settings: dict[str, Any]


def _audit(session: Session, service: TableService, who: Principal, kind: str, **payload: str | None) -> None:
    """The change to people as an audit event naming the admin, in the change's transaction."""
    append_event(
        session, table_id=service.table_id, round_id=None, kind=kind, actor=who.name, payload=payload
    )
    if service.record.key is not None:  # signed as it is made (docs/audit-chain.md, "Anchoring")
        sign_people(session, key=service.record.key, actor=who.name)


@router.get("/users", response_model=list[UserPublic], responses=responses(), tags=["admin"])
async def get_users(_: AdminDep, store: StoreDep) -> list[UserPublic]:
    """Everyone who may use the terminals (no tokens: only their hashes are stored)."""
    return await store.read(list_users)


@router.post("/users", status_code=201, response_model=UserKeyPublic, responses=responses(409, 503))
async def create_user(body: UserCreate, who: AdminDep, store: StoreDep, service: ServiceDep) -> UserKeyPublic:
    """Add a person with a role; the answer carries their token once. 409 if the name is taken.
    The key changes nothing until a second admin confirms it."""

    def added(session: Session) -> UserKeyPublic:
        token = add_user(session, name=body.name, role=body.role, keyed_by=who.name, confirmed=False)
        _audit(session, service, who, "user.added", name=body.name, role=body.role.value)
        return UserKeyPublic(user=get_user(session, name=body.name), token=token)

    return await store.write(added)


@router.post("/users/{name}/disable", response_model=UserPublic, responses=responses(404, 503))
async def disable(
    name: UserNameParam, who: AdminDep, store: StoreDep, service: ServiceDep, tokens: TokensDep
) -> UserPublic:
    """Refuse the person's token from now on (from the next request on)."""

    def disabled(session: Session) -> UserPublic:
        user = disable_user(session, name=name, actor=who.name)
        _audit(session, service, who, "user.disabled", name=name)
        return user

    try:
        return await store.write(disabled)
    finally:
        tokens.clear()  # committed or not: no remembered token outlives a change to people


@router.post("/users/{name}/token", response_model=UserKeyPublic, responses=responses(404, 503))
async def new_key(
    name: UserNameParam, who: AdminDep, store: StoreDep, service: ServiceDep, tokens: TokensDep
) -> UserKeyPublic:
    """Give the person a new token (the old one stops working; a disabled person is enabled). A
    key made for someone else changes nothing until a second admin confirms it."""

    def rotated(session: Session) -> UserKeyPublic:
        token = rotate_token(session, name=name, keyed_by=who.name)
        _audit(session, service, who, "user.key-rotated", name=name)
        return UserKeyPublic(user=get_user(session, name=name), token=token)

    try:
        return await store.write(rotated)
    finally:
        tokens.clear()


@router.post("/users/{name}/confirm", response_model=UserPublic, responses=responses(404, 409, 503))
async def confirm(
    name: UserNameParam, who: AdminDep, store: StoreDep, service: ServiceDep, tokens: TokensDep
) -> UserPublic:
    """A second admin confirms the key another admin made: from now on it may do what its role
    may. 403 for the admin who made it and for its holder; 409 when it is confirmed already."""

    def confirmed() -> UserPublic:
        try:
            with unit_of_work(store.engine) as session:
                user = confirm_user(session, name=name, actor=who.name)
                _audit(session, service, who, "user.confirmed", name=name)
                return user
        except UserConfirmError as error:
            if error.rule == "already-confirmed":
                raise
            raise refuse(
                store.engine,
                service.table_id,
                actor=who.name,
                error=TwoPersonRefusedError(str(error), rule=error.rule),
                round_id=None,
                name=name,
            ) from None

    try:
        return await store.run(confirmed)
    finally:
        tokens.clear()  # the holder's remembered person says "unconfirmed" until forgotten


@router.post("/users/{name}/scope", response_model=UserPublic, responses=responses(404, 409, 503))
async def scope(
    name: UserNameParam,
    body: ScopeChange,
    who: AdminDep,
    store: StoreDep,
    service: ServiceDep,
    tokens: TokensDep,
) -> UserPublic:
    """Keep a pit user to one pit's tables (``pit``) or a dealer to one table (``table_id``), or
    clear the scope (neither). Each table's API refuses a scoped person outside it (403
    ``out-of-scope``) from the next request here, within seconds elsewhere. 409
    ``scope-not-for-role`` for a pit given to anyone but a pit user or a table to anyone but a
    dealer (surveillance and admin see every table); 422 for a malformed pit or table."""

    def scoped(session: Session) -> UserPublic:
        user = set_scope(session, name=name, pit=body.pit, table_id=body.table_id, actor=who.name)
        _audit(session, service, who, "user.scope-changed", name=name, pit=body.pit, table_id=body.table_id)
        return user

    try:
        return await store.write(scoped)
    except ScopeNotForRoleError as error:
        structlog.get_logger().warning("admin.scope_refused", user=name, actor=who.name, detail=str(error))
        raise ApiError(409, str(error), "scope-not-for-role") from None
    finally:
        tokens.clear()  # the person's remembered scope goes with it


@router.get("/config", response_model=ConfigPublic, responses=responses())
async def get_config(_: AdminDep, settings: SettingsDep) -> ConfigPublic:
    """The table's settings in force (read-only: configuration is changed in the TOML file or the
    environment, and takes effect at the next start)."""
    data = settings.model_dump(mode="json")
    if data.get("db_url"):
        data["db_url"] = redacted(data["db_url"])
    return ConfigPublic(settings=data)
