"""Admin: people and their keys, and the table's configuration (docs/api.md: "admin (configuration,
user keys)"). Adding, disabling and re-keying a person are audit events naming the admin."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path
from pydantic import BaseModel, Field
from sqlmodel import Session

from ...service import TableService
from ...storage import append_event, redacted
from ...storage.users import (
    NAME_MAX,
    UserCreate,
    UserPublic,
    add_user,
    disable_user,
    get_user,
    list_users,
    rotate_token,
)
from ..deps import AdminDep, ServiceDep, SettingsDep, StoreDep, TokensDep
from ..errors import responses
from ..patterns import NAME_PATTERN
from ..tokens import Principal

router = APIRouter(prefix="/api", tags=["admin"])

UserName = Annotated[str, Path(min_length=1, max_length=NAME_MAX, pattern=NAME_PATTERN)]


class UserKeyPublic(BaseModel):
    """A person and their new token: shown this once, only its hash is kept."""

    user: UserPublic
    token: str = Field(description="the bearer token; store it now, it cannot be shown again")


class ConfigPublic(BaseModel):
    """The table's settings as the daemon runs with them (the database password masked)."""

    settings: dict[str, Any]


def _audit(session: Session, service: TableService, who: Principal, kind: str, **payload: str) -> None:
    """The change to people as an audit event naming the admin, in the change's transaction."""
    append_event(
        session, table_id=service.table_id, round_id=None, kind=kind, actor=who.name, payload=payload
    )


@router.get("/users", response_model=list[UserPublic], responses=responses(), tags=["admin"])
async def get_users(_: AdminDep, store: StoreDep) -> list[UserPublic]:
    """Everyone who may use the terminals (no tokens: only their hashes are stored)."""
    return await store.read(list_users)


@router.post("/users", status_code=201, response_model=UserKeyPublic, responses=responses(409, 503))
async def create_user(body: UserCreate, who: AdminDep, store: StoreDep, service: ServiceDep) -> UserKeyPublic:
    """Add a person with a role; the answer carries their token once. 409 if the name is taken."""

    def added(session: Session) -> UserKeyPublic:
        token = add_user(session, name=body.name, role=body.role)
        _audit(session, service, who, "user.added", name=body.name, role=body.role.value)
        return UserKeyPublic(user=get_user(session, name=body.name), token=token)

    return await store.write(added)


@router.post("/users/{name}/disable", response_model=UserPublic, responses=responses(404, 503))
async def disable(
    name: UserName, who: AdminDep, store: StoreDep, service: ServiceDep, tokens: TokensDep
) -> UserPublic:
    """Refuse the person's token from now on (from the next request on)."""

    def disabled(session: Session) -> UserPublic:
        user = disable_user(session, name=name)
        _audit(session, service, who, "user.disabled", name=name)
        return user

    try:
        return await store.write(disabled)
    finally:
        tokens.clear()  # committed or not: no remembered token outlives a change to people


@router.post("/users/{name}/token", response_model=UserKeyPublic, responses=responses(404, 503))
async def new_key(
    name: UserName, who: AdminDep, store: StoreDep, service: ServiceDep, tokens: TokensDep
) -> UserKeyPublic:
    """Give the person a new token (the old one stops working; a disabled person is enabled)."""

    def rotated(session: Session) -> UserKeyPublic:
        token = rotate_token(session, name=name)
        _audit(session, service, who, "user.key-rotated", name=name)
        return UserKeyPublic(user=get_user(session, name=name), token=token)

    try:
        return await store.write(rotated)
    finally:
        tokens.clear()


@router.get("/config", response_model=ConfigPublic, responses=responses())
async def get_config(_: AdminDep, settings: SettingsDep) -> ConfigPublic:
    """The table's settings in force (read-only: configuration is changed in the TOML file or the
    environment, and takes effect at the next start)."""
    data = settings.model_dump(mode="json")
    if data.get("db_url"):
        data["db_url"] = redacted(data["db_url"])
    return ConfigPublic(settings=data)
