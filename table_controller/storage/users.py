"""People who use the terminals: a name, a role and a hashed bearer token (docs/api.md).

Roles (docs/api.md, "Who may do what"): ``dealer`` submits settings and opens rounds; ``pit``
does what the dealer does plus void, override, acknowledge alerts, open and close the table;
``surveillance`` reads everything and changes nothing; ``admin`` keeps configuration and
user keys. What each role may call is the table in ``table_controller.api.roles``.

Tokens: 32 random bytes from ``secrets`` (``token_urlsafe``), prefixed ``pgt_`` so a leaked
one is recognisable, shown once and never stored. The store keeps ``sha256(token)`` in hex.
A slow password KDF (scrypt, argon2) protects low-entropy secrets a person chose against
brute force; a 256-bit random token cannot be brute-forced, so one SHA-256 is enough, and
it lets a request be authenticated by one indexed lookup (every request authenticates).

Two people for a key (docs/api.md, "Two people"): an admin who creates a person or gives them a
new key through the API receives that person's token, so the account is *unconfirmed*
(``keyed_by`` names the admin, ``confirmed`` is false) and may change nothing until a second
admin confirms it (``confirm_user``). The console (``table-controller users add``, run with the
machine's own access) and an admin re-keying their own account make confirmed keys.
"""

from __future__ import annotations

import enum
import hashlib
import re
import secrets
from datetime import UTC, datetime
from typing import Annotated, Final

from pydantic import Field as PydanticField
from sqlalchemy import CheckConstraint, Integer, UniqueConstraint
from sqlmodel import Field, Session, SQLModel, col, select
from sqlmodel._compat import SQLModelConfig  # model_config's type; not exported yet (sqlmodel#2091)

from .chain import TABLE_ID_MAX, check_table_id
from .errors import InvalidFieldError, StorageError
from .floor_tables import check_pit
from .models import UTCDateTime
from .people import chain_person

TOKEN_PREFIX: Final = "pgt_"
TOKEN_BYTES: Final = 32
NAME_MAX: Final = 64
NAME_PATTERN: Final = r"^[a-z0-9][a-z0-9_.-]{0,63}$"
_NAME = re.compile(NAME_PATTERN)
RESERVED_NAMES: Final = frozenset({"system", "admin-cli"})  # actors the controller itself uses


class Role(enum.StrEnum):
    """Who a person is at the table (docs/api.md)."""

    DEALER = "dealer"
    PIT = "pit"
    SURVEILLANCE = "surveillance"
    ADMIN = "admin"


class UserExistsError(StorageError, ValueError):
    """A user with that name already exists."""


class UserNotFoundError(StorageError, LookupError):
    """No user with that name."""


class ScopeNotForRoleError(StorageError, ValueError):
    """A scope the person's role does not take: a pit is for a pit user, a table for a dealer;
    surveillance and admin see every table (docs/api.md, "Who sees what")."""


class UserConfirmError(StorageError, PermissionError):
    """A key confirmed by the admin who made it, by its own holder, or confirmed twice."""

    def __init__(self, detail: str, *, rule: str) -> None:
        super().__init__(detail)
        self.rule = rule


def check_user_name(value: object) -> str:
    """A person's name as it appears in the audit chain: lowercase letters, digits, ``_ . -``.

    1..64 characters, starting with a letter or digit (so never ``device:shuffler``); the
    controller's own actors ``system`` and ``admin-cli`` are refused by :func:`add_user`.
    """
    if not isinstance(value, str) or not _NAME.fullmatch(value):
        raise InvalidFieldError(
            f"user name {value!r} is not valid: 1..{NAME_MAX} lowercase letters, digits, '_', '.' or '-',"
            " starting with a letter or digit"
        )
    return value


def hash_token(token: str) -> str:
    """The stored form of a token: SHA-256 of its UTF-8 bytes, 64 lowercase hex digits."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    """A fresh bearer token: ``pgt_`` and 32 random bytes, URL-safe base64 (43 characters)."""
    return TOKEN_PREFIX + secrets.token_urlsafe(TOKEN_BYTES)


UserName = Annotated[
    str, PydanticField(min_length=1, max_length=NAME_MAX, pattern=NAME_PATTERN, examples=["ann"])
]
"""A person's name in a request body: the rule of :func:`check_user_name`, as the schema says it."""


class UserBase(SQLModel):
    name: str = Field(max_length=NAME_MAX)


class UserCreate(UserBase):
    """A new person: name and role; the token is made by :func:`add_user`."""

    model_config = SQLModelConfig(extra="forbid")

    name: UserName
    role: Role


class User(UserBase, table=True):
    """The ``users`` table. Never returned: :class:`UserPublic` goes out (no token hash)."""

    __tablename__ = "users"
    __table_args__ = (
        UniqueConstraint("name", name="uq_users_name"),
        UniqueConstraint("token_hash", name="uq_users_token_hash"),
        CheckConstraint("role IN ('dealer', 'pit', 'surveillance', 'admin')", name="ck_users_role"),
        {"sqlite_autoincrement": True},
    )

    id: int | None = Field(default=None, primary_key=True, sa_type=Integer)
    role: str = Field(max_length=16)
    token_hash: str = Field(max_length=64)
    created_at: datetime = Field(sa_type=UTCDateTime)
    disabled: bool = False
    keyed_by: str | None = Field(default=None, max_length=NAME_MAX)  # who made the current key
    confirmed: bool = True  # false: keyed by an admin through the API, a second admin has not confirmed
    confirmed_by: str | None = Field(default=None, max_length=NAME_MAX)
    # the floor (migration 0007): a pit user sees only this pit's tables, a dealer deals only at
    # this table; None leaves the person unscoped (docs/floor.md, "Who sees what")
    pit: str | None = Field(default=None, max_length=64)
    table_id: str | None = Field(default=None, max_length=TABLE_ID_MAX)


class UserPublic(UserBase):
    """A person as shown to an admin: no token, no hash."""

    model_config = SQLModelConfig(frozen=True)

    role: Role
    created_at: datetime
    disabled: bool
    keyed_by: str | None = None
    confirmed: bool = True
    confirmed_by: str | None = None
    pit: str | None = None
    table_id: str | None = None


def add_user(
    session: Session,
    *,
    name: str,
    role: Role | str,
    now: datetime | None = None,
    keyed_by: str | None = None,
    confirmed: bool = True,
    pit: str | None = None,
    table_id: str | None = None,
) -> str:
    """Create a person and return their bearer token (shown once: only its hash is stored).
    ``keyed_by`` is who made the key; ``confirmed=False`` leaves it waiting for a second admin;
    ``pit`` (a pit user) or ``table_id`` (a dealer) scopes them (:func:`set_scope`).
    Chained as ``user.added`` (storage/people.py) in the same transaction.

    Raises :class:`UserExistsError` if the name is taken, :class:`InvalidFieldError` for a bad
    name, pit or table, :class:`ScopeNotForRoleError` for a scope the role does not take,
    ``ValueError`` for an unknown role.
    """
    data = UserCreate(name=check_user_name(name), role=Role(role))
    pit, table_id = check_scope(data.name, data.role, pit=pit, table_id=table_id)
    if data.name in RESERVED_NAMES:
        raise UserExistsError(f"user name {data.name!r} is reserved for the controller's own actors")
    if session.exec(select(User.id).where(User.name == data.name)).first() is not None:
        raise UserExistsError(f"user {data.name!r} already exists")
    token = new_token()
    row = User(
        name=data.name,
        role=data.role.value,
        token_hash=hash_token(token),
        created_at=now or datetime.now(UTC),
        keyed_by=keyed_by,
        confirmed=confirmed,
        pit=pit,
        table_id=table_id,
    )
    session.add(row)
    session.flush()
    chain_person(session, kind="user.added", actor=keyed_by or "system", row=row)
    return token


def _row(session: Session, name: str) -> User:
    row = session.exec(select(User).where(User.name == name)).first()
    if row is None:
        raise UserNotFoundError(f"no user {name!r}")
    return row


def _public(row: User) -> UserPublic:
    return UserPublic(
        name=row.name,
        role=Role(row.role),
        created_at=row.created_at,
        disabled=row.disabled,
        keyed_by=row.keyed_by,
        confirmed=row.confirmed,
        confirmed_by=row.confirmed_by,
        pit=row.pit,
        table_id=row.table_id,
    )


def user_for_token(session: Session, *, token: str) -> UserPublic | None:
    """The enabled person holding ``token``, or None (unknown token and disabled user alike)."""
    row = session.exec(select(User).where(User.token_hash == hash_token(token))).first()
    if row is None or row.disabled:
        return None
    return _public(row)


def user_for_session(session: Session, *, name: str) -> tuple[UserPublic, str] | None:
    """The enabled person named ``name`` and the hash of their current token, or None: what a
    browser session is checked against (api/sessions.py), so a new token or a disabled person
    ends every session made with the old one."""
    row = session.exec(select(User).where(User.name == name)).first()
    if row is None or row.disabled:
        return None
    return _public(row), row.token_hash


def list_users(session: Session) -> list[UserPublic]:
    """Everyone, by name."""
    return [_public(row) for row in session.exec(select(User).order_by(col(User.name)))]


def get_user(session: Session, *, name: str) -> UserPublic:
    return _public(_row(session, name))


def disable_user(session: Session, *, name: str, actor: str = "system") -> UserPublic:
    """Refuse the person's token from now on (the row stays: the audit chain names them).
    Chained as ``user.disabled``."""
    row = _row(session, name)
    row.disabled = True
    session.add(row)
    session.flush()
    chain_person(session, kind="user.disabled", actor=actor, row=row)
    return _public(row)


def change_role(session: Session, *, name: str, role: Role | str, actor: str = "system") -> UserPublic:
    """Give the person another role. Chained as ``user.role-changed``. A scope the new role does
    not take is cleared with it (a dealer made pit user leaves their table; docs/api.md, "Who
    sees what"), so nobody keeps a scope their role cannot be checked against."""
    row = _row(session, name)
    row.role = Role(role).value
    if row.role != Role.PIT.value:
        row.pit = None
    if row.role != Role.DEALER.value:
        row.table_id = None
    session.add(row)
    session.flush()
    chain_person(session, kind="user.role-changed", actor=actor, row=row)
    return _public(row)


_A: Final = {
    Role.DEALER: "a dealer",
    Role.PIT: "a pit user",
    Role.SURVEILLANCE: "a surveillance user",
    Role.ADMIN: "an admin",
}
_TAKES: Final = {  # what each role does take, for a refusal's words
    Role.DEALER: "a dealer is scoped to one table",
    Role.PIT: "a pit user is scoped to a pit",
    Role.SURVEILLANCE: "surveillance sees every table and takes no scope",
    Role.ADMIN: "an admin sees every table and takes no scope",
}


def check_scope(
    name: str, role: Role | str, *, pit: str | None, table_id: str | None
) -> tuple[str | None, str | None]:
    """The ``(pit, table_id)`` a person of ``role`` may be given (docs/api.md, "Who sees what"):
    a pit for a pit user, a table for a dealer, one or none. Raises :class:`InvalidFieldError`
    for a malformed pit or table or both at once, :class:`ScopeNotForRoleError` for a scope the role
    does not take."""
    role = Role(role)
    if pit is not None and table_id is not None:
        raise InvalidFieldError(f"{name}: give a pit or a table, not both")
    if pit is not None:
        check_pit(pit)
        if role is not Role.PIT:
            raise ScopeNotForRoleError(f"{name} is {_A[role]}: a pit is for a pit user; {_TAKES[role]}")
    if table_id is not None:
        check_table_id(table_id)
        if role is not Role.DEALER:
            raise ScopeNotForRoleError(f"{name} is {_A[role]}: a table is for a dealer; {_TAKES[role]}")
    return pit, table_id


def set_scope(
    session: Session, *, name: str, pit: str | None, table_id: str | None, actor: str = "system"
) -> UserPublic:
    """Scope the person to a pit (a pit user) or a table (a dealer), or clear their scope (both
    None): a scoped person may use only the tables of their pit, or their one table (docs/api.md,
    "Who sees what"). Chained as ``user.scope-changed`` in the same transaction.

    Raises :class:`UserNotFoundError`, :class:`InvalidFieldError` (a malformed pit or table, or
    both) and :class:`ScopeNotForRoleError` (a pit for anyone but a pit user, a table for
    anyone but a dealer)."""
    row = _row(session, name)
    row.pit, row.table_id = check_scope(name, row.role, pit=pit, table_id=table_id)
    session.add(row)
    session.flush()
    chain_person(session, kind="user.scope-changed", actor=actor, row=row)
    return _public(row)


def rotate_token(session: Session, *, name: str, keyed_by: str | None = None) -> str:
    """Give the person a new token (the old one stops working) and enable them; returns it once.

    A key an admin makes for someone else waits for a second admin (``confirm_user``); a person
    re-keying their own account (or the console, ``keyed_by=None``) keeps it confirmed."""
    row = _row(session, name)
    token = new_token()
    row.token_hash = hash_token(token)
    row.disabled = False
    row.keyed_by = keyed_by
    row.confirmed = keyed_by is None or keyed_by == name
    row.confirmed_by = None
    session.add(row)
    session.flush()
    chain_person(session, kind="user.key-rotated", actor=keyed_by or "system", row=row)
    return token


def confirm_user(session: Session, *, name: str, actor: str) -> UserPublic:
    """A second admin confirms the key another admin made (docs/api.md, "Two people").

    Refused (:class:`UserConfirmError`) for the admin who made the key, for the key's own holder
    and for a key already confirmed."""
    row = _row(session, name)
    if row.confirmed:
        raise UserConfirmError(f"the key of {name} is confirmed already", rule="already-confirmed")
    if actor == row.keyed_by:
        raise UserConfirmError(
            f"{actor} made the key of {name}: a second admin must confirm it", rule="same-admin"
        )
    if actor == name:
        raise UserConfirmError(f"{actor} may not confirm their own key", rule="own-key")
    row.confirmed = True
    row.confirmed_by = actor
    session.add(row)
    session.flush()
    chain_person(session, kind="user.confirmed", actor=actor, row=row)
    return _public(row)


__all__ = [
    "RESERVED_NAMES",
    "TOKEN_PREFIX",
    "Role",
    "ScopeNotForRoleError",
    "User",
    "UserBase",
    "UserConfirmError",
    "UserCreate",
    "UserExistsError",
    "UserName",
    "UserNotFoundError",
    "UserPublic",
    "add_user",
    "change_role",
    "check_scope",
    "check_user_name",
    "confirm_user",
    "disable_user",
    "get_user",
    "hash_token",
    "list_users",
    "new_token",
    "rotate_token",
    "set_scope",
    "user_for_session",
    "user_for_token",
]
