"""Admin: people and their keys, and the table's configuration (issue 5: "admin (configuration,
user keys)"). Adding, disabling and re-keying a person are audit events naming the admin."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path
from pydantic import BaseModel, Field

from ...storage import append_event, redacted
from ...storage.session import unit_of_work
from ...storage.users import UserCreate, UserPublic, add_user, disable_user, get_user, list_users, rotate_token
from ..deps import AdminDep, EngineDep, ServiceDep, SessionDep, SettingsDep
from ..errors import responses

router = APIRouter(prefix="/api", tags=["admin"])

UserName = Annotated[str, Path(min_length=1, max_length=64, pattern=r"^[a-z0-9][a-z0-9_.-]*$")]


class UserKeyPublic(BaseModel):
    """A person and their new token: shown this once, only its hash is kept."""

    user: UserPublic
    token: str = Field(description="the bearer token; store it now, it cannot be shown again")


class ConfigPublic(BaseModel):
    """The table's settings as the daemon runs with them (the database password masked)."""

    settings: dict[str, Any]


@router.get("/users", response_model=list[UserPublic], responses=responses(), tags=["admin"])
def get_users(_: AdminDep, session: SessionDep) -> list[UserPublic]:
    """Everyone who may use the terminals (no tokens: only their hashes are stored)."""
    return list_users(session)


@router.post("/users", status_code=201, response_model=UserKeyPublic, responses=responses(409, 503))
def create_user(body: UserCreate, who: AdminDep, engine: EngineDep, service: ServiceDep) -> UserKeyPublic:
    """Add a person with a role; the answer carries their token once. 409 if the name is taken."""
    with unit_of_work(engine) as session:
        token = add_user(session, name=body.name, role=body.role)
        append_event(session, table_id=service.table_id, round_id=None, kind="user.added", actor=who.name,
                     payload={"name": body.name, "role": body.role.value})
        user = get_user(session, name=body.name)
    return UserKeyPublic(user=user, token=token)


@router.post("/users/{name}/disable", response_model=UserPublic, responses=responses(404, 503))
def disable(name: UserName, who: AdminDep, engine: EngineDep, service: ServiceDep) -> UserPublic:
    """Refuse the person's token from now on."""
    with unit_of_work(engine) as session:
        user = disable_user(session, name=name)
        append_event(session, table_id=service.table_id, round_id=None, kind="user.disabled", actor=who.name,
                     payload={"name": name})
    return user


@router.post("/users/{name}/token", response_model=UserKeyPublic, responses=responses(404, 503))
def new_key(name: UserName, who: AdminDep, engine: EngineDep, service: ServiceDep) -> UserKeyPublic:
    """Give the person a new token (the old one stops working; a disabled person is enabled)."""
    with unit_of_work(engine) as session:
        token = rotate_token(session, name=name)
        append_event(session, table_id=service.table_id, round_id=None, kind="user.key-rotated", actor=who.name,
                     payload={"name": name})
        user = get_user(session, name=name)
    return UserKeyPublic(user=user, token=token)


@router.get("/config", response_model=ConfigPublic, responses=responses())
def get_config(_: AdminDep, settings: SettingsDep) -> ConfigPublic:
    """The table's settings in force (read-only: configuration is changed in the TOML file or the
    environment, and takes effect at the next start)."""
    data = settings.model_dump(mode="json")
    if data.get("db_url"):
        data["db_url"] = redacted(data["db_url"])
    return ConfigPublic(settings=data)
