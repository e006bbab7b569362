"""``table-controller users add | list | disable | rotate-key | scope`` (docs/api.md).

``add NAME --role ROLE`` creates a person and prints their bearer token once, on standard
output (only its SHA-256 is stored; a lost token is replaced, never recovered); ``rotate-key
NAME`` replaces it the same way (the old one stops at once, open live streams end within a
second); ``disable NAME`` refuses the person's token from now on; ``list`` shows everyone;
``scope NAME --pit PIT | --table TABLE | --clear`` keeps a pit user to one pit's tables or a
dealer to one table (``add`` takes ``--pit`` / ``--table`` too; docs/api.md, "Who sees what").
A key made here is confirmed at once: the console needs the machine itself, so it is the
second control (docs/api.md, "Two people"); a key an admin makes through the API waits for a
second admin instead. The actor of each change is ``admin-cli``. The store is the one the daemon
uses: ``--data-dir`` (SQLite), ``--db-url`` (PostgreSQL), or, with neither, the settings'.
Each change is an audit event in the table's chain (``user.added``, ``user.disabled``,
``user.key-rotated``, ``user.scope-changed``) as well as in the people chain. Exit status: 0
done, 1 refused (name taken, not valid, no such person, a scope the role does not take), 2 usage
or store problems.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from sqlmodel import Session

from ..settings import TableSettings
from ..storage import append_event, redacted, unit_of_work
from ..storage.checkpoints import (
    Checkpoint,
    CheckpointKeyError,
    append_checkpoint_file,
    load_private_key,
    sign_people,
)
from ..storage.errors import InvalidFieldError
from ..storage.floor import floor_tables, known_table_ids
from ..storage.users import (
    Role,
    ScopeNotForRoleError,
    UserExistsError,
    UserNotFoundError,
    UserPublic,
    add_user,
    disable_user,
    get_user,
    list_users,
    rotate_token,
    set_scope,
)
from .main import HELP_MARKUP, LAZY_GROUPS
from .store import ConfigOption, DataDirOption, DbUrlOption, open_command_store

app = typer.Typer(
    no_args_is_help=True, add_completion=False, rich_markup_mode=HELP_MARKUP, help=LAZY_GROUPS["users"].help
)
CLI_ACTOR = "admin-cli"

PitOption = Annotated[
    str | None, typer.Option("--pit", help="a pit user: the pit whose tables they may use, e.g. pit-a")
]
TableOption = Annotated[
    str | None, typer.Option("--table", help="a dealer: the one table they may use, e.g. PG-3")
]


@app.callback()
def users() -> None:
    """People who use the terminals, and their keys."""


@app.command("add")
def add(
    name: Annotated[str, typer.Argument(help="the person's name as the audit chain shows it, e.g. ann")],
    role: Annotated[Role, typer.Option("--role", help="dealer, pit, surveillance or admin")],
    pit: PitOption = None,
    table: TableOption = None,
    data_dir: DataDirOption = None,
    db_url: DbUrlOption = None,
    config: ConfigOption = None,
) -> None:
    """Add a person with a role (a pit user with --pit, a dealer with --table) and print their
    token once."""
    settings, url, engine = open_command_store(config, data_dir, db_url)
    scope = {k: v for k, v in (("pit", pit), ("table_id", table)) if v is not None}
    try:
        with unit_of_work(engine) as session:
            _known_table(session, settings, table)
            token = add_user(session, name=name, role=role, keyed_by=CLI_ACTOR, pit=pit, table_id=table)
            _chain_at_table(session, settings, "user.added", {"name": name, "role": role.value, **scope})
            signed = _sign_people(settings, session)
    except (UserExistsError, InvalidFieldError, ScopeNotForRoleError, UnknownTableError) as error:
        typer.echo(f"user not added: {error}", err=True)
        raise typer.Exit(1) from None
    finally:
        engine.dispose()
    _file_people(settings, signed)
    typer.echo(f"added {name} ({role.value}) to {redacted(url)}; the token is shown this once:", err=True)
    typer.echo(token)


@app.command("list")
def list_command(
    data_dir: DataDirOption = None, db_url: DbUrlOption = None, config: ConfigOption = None
) -> None:
    """Everyone who may use the terminals: name, role, whether enabled, whose key it is, and
    the pit or table a scoped person is kept to (a fifth column only for them)."""
    _, _, engine = open_command_store(config, data_dir, db_url)
    try:
        with unit_of_work(engine) as session:
            people = list_users(session)
    finally:
        engine.dispose()
    for person in people:
        state = "disabled" if person.disabled else "enabled"
        key = "key confirmed" if person.confirmed else f"key by {person.keyed_by}, waits for a second admin"
        scope = _scope_words(person)
        typer.echo(f"{person.name}\t{person.role}\t{state}\t{key}" + (f"\t{scope}" if scope else ""))


def _scope_words(person: UserPublic) -> str:
    """``pit PIT``, ``table TABLE`` or nothing (unscoped: a single table has no pits)."""
    if person.pit is not None:
        return f"pit {person.pit}"
    return "" if person.table_id is None else f"table {person.table_id}"


def _change(
    config: Path | None,
    data_dir: Path | None,
    db_url: str | None,
    name: str,
    kind: str,
    change: Callable[[Session], str | None],
    **payload: Any,
) -> str | None:
    """Run ``change`` on the store and chain ``kind`` naming the person (and ``payload``) in the
    table's chain; exit 1 naming a person who does not exist or a change refused."""
    settings, _, engine = open_command_store(config, data_dir, db_url)
    try:
        with unit_of_work(engine) as session:
            _known_table(session, settings, payload.get("table_id"))
            result = change(session)
            _chain_at_table(session, settings, kind, {"name": name, **payload})
            signed = _sign_people(settings, session)
        _file_people(settings, signed)
        return result
    except UserNotFoundError:
        typer.echo(f"no such person: {name}", err=True)
        raise typer.Exit(1) from None
    except (InvalidFieldError, ScopeNotForRoleError, UnknownTableError, AlreadyDoneError) as error:
        typer.echo(f"not changed: {error}", err=True)
        raise typer.Exit(1) from None
    finally:
        engine.dispose()


class UnknownTableError(ValueError):
    """A dealer scoped to a table this store does not know (a typo would lock them out)."""


class AlreadyDoneError(ValueError):
    """The change asked for is already the person's state (nothing is chained)."""


def _known_table(session: Session, settings: TableSettings, table_id: str | None) -> None:
    """Refuse a table the store does not know: a floor's registered tables and every table that
    has written to its chain, or, on a single table's store, that table itself."""
    if table_id is None:
        return
    known = known_table_ids(session)
    if not floor_tables(session):
        known |= {settings.table_id}
    if table_id not in known:
        listed = ", ".join(sorted(known)) or "none"
        raise UnknownTableError(f"no table {table_id} in this store (its tables: {listed})")


def _chain_at_table(session: Session, settings: TableSettings, kind: str, payload: dict[str, Any]) -> None:
    """The console's change in this table's chain too (the people chain has it already). On a
    floor's store, whose registry does not list this table, it is not chained there: the floor
    has no such table, and a stray chain would be a table nobody runs."""
    registered = {row.table_id for row in floor_tables(session)}
    if registered and settings.table_id not in registered:
        return
    append_event(
        session, table_id=settings.table_id, round_id=None, kind=kind, actor=CLI_ACTOR, payload=payload
    )


def _sign_people(settings: TableSettings, session: Session) -> Checkpoint | None:
    """Sign the people chain's head in the change's transaction with the table's key
    (``audit.key_file``: run the console as the daemon's user). Without it the change is made
    but not signed: the table names it at its next check and deals no more until a pit user
    runs on with a chained override (docs/audit-chain.md, "Anchoring")."""
    if settings.audit.key_file is None:
        return None
    try:
        key = load_private_key(settings.audit.key_file)
    except CheckpointKeyError as error:
        typer.echo(
            f"warning: the change is not signed ({error}); the table stops at its next check", err=True
        )
        return None
    return sign_people(session, key=key, actor=CLI_ACTOR)


def _file_people(settings: TableSettings, signed: Checkpoint | None) -> None:
    """The people checkpoint appended to the table's checkpoint file, once committed."""
    if signed is None:
        return
    path = settings.audit.checkpoint_file or settings.data_dir / "checkpoints.jsonl"
    try:
        append_checkpoint_file(path, signed)
    except OSError as error:
        typer.echo(f"warning: checkpoint file {path} not written: {error}", err=True)


NameArgument = Annotated[str, typer.Argument(help="the person's name")]


@app.command("disable")
def disable(
    name: NameArgument,
    data_dir: DataDirOption = None,
    db_url: DbUrlOption = None,
    config: ConfigOption = None,
) -> None:
    """Refuse the person's token from now on (their open live streams end within a second)."""

    def disabled(session: Session) -> None:
        if get_user(session, name=name).disabled:
            raise AlreadyDoneError(f"{name} is already disabled")
        disable_user(session, name=name, actor=CLI_ACTOR)

    _change(config, data_dir, db_url, name, "user.disabled", disabled)
    typer.echo(f"disabled {name}", err=True)


@app.command("rotate-key")
def rotate_key(
    name: NameArgument,
    data_dir: DataDirOption = None,
    db_url: DbUrlOption = None,
    config: ConfigOption = None,
) -> None:
    """Give the person a new token, printed once (the old one stops at once; the person is
    enabled again). From the console the key is confirmed at once, as with add."""
    token = _change(
        config, data_dir, db_url, name, "user.key-rotated", lambda session: rotate_token(session, name=name)
    )
    typer.echo(f"new key for {name}; the token is shown this once:", err=True)
    typer.echo(token)


ClearOption = Annotated[bool, typer.Option("--clear", help="no scope: every table, as on a single table")]


@app.command("scope")
def scope(
    name: NameArgument,
    pit: PitOption = None,
    table: TableOption = None,
    clear: ClearOption = False,
    data_dir: DataDirOption = None,
    db_url: DbUrlOption = None,
    config: ConfigOption = None,
) -> None:
    """Keep a pit user to one pit's tables (--pit) or a dealer to one table (--table), or clear
    it (--clear). Each table's API refuses them elsewhere (403 out-of-scope) within seconds."""
    if [pit is not None, table is not None, clear].count(True) != 1:
        raise typer.BadParameter("give one of --pit PIT, --table TABLE or --clear")

    def scoped(session: Session) -> None:
        set_scope(session, name=name, pit=pit, table_id=table, actor=CLI_ACTOR)

    _change(config, data_dir, db_url, name, "user.scope-changed", scoped, pit=pit, table_id=table)
    typer.echo(f"{name}: {f'pit {pit}' if pit else f'table {table}' if table else 'no scope'}", err=True)


__all__ = ["app"]
