"""``table-controller users add | list | disable | rotate-key`` (docs/api.md).

``add NAME --role ROLE`` creates a person and prints their bearer token once, on standard
output (only its SHA-256 is stored; a lost token is replaced, never recovered); ``rotate-key
NAME`` replaces it the same way (the old one stops at once, open live streams end within a
second); ``disable NAME`` refuses the person's token from now on; ``list`` shows everyone.
A key made here is confirmed at once: the console needs the machine itself, so it is the
second control (docs/api.md, "Two people"); a key an admin makes through the API waits for a
second admin instead. The actor of each change is ``admin-cli``. The store is the one the daemon
uses: ``--data-dir`` (SQLite), ``--db-url`` (PostgreSQL), or, with neither, the settings'.
Each change is an audit event in the table's chain (``user.added``, ``user.disabled``,
``user.key-rotated``) as well as in the people chain. Exit status: 0 done, 1 refused (name
taken, not valid, or no such person), 2 usage or store problems.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer
from sqlmodel import Session

from .cli_store import ConfigOption, DataDirOption, DbUrlOption, open_command_store
from .storage import append_event, redacted, unit_of_work
from .storage.errors import InvalidFieldError
from .storage.users import (
    Role,
    UserExistsError,
    UserNotFoundError,
    add_user,
    disable_user,
    list_users,
    rotate_token,
)

app = typer.Typer(
    no_args_is_help=True, add_completion=False, help="People who use the terminals, and their keys."
)
CLI_ACTOR = "admin-cli"


@app.callback()
def users() -> None:
    """People who use the terminals, and their keys."""


@app.command("add")
def add(
    name: Annotated[str, typer.Argument(help="the person's name as the audit chain shows it, e.g. ann")],
    role: Annotated[Role, typer.Option("--role", help="dealer, pit, surveillance or admin")],
    data_dir: DataDirOption = None,
    db_url: DbUrlOption = None,
    config: ConfigOption = None,
) -> None:
    """Add a person with a role and print their token once."""
    settings, url, engine = open_command_store(config, data_dir, db_url)
    try:
        with unit_of_work(engine) as session:
            token = add_user(session, name=name, role=role, keyed_by=CLI_ACTOR)
            append_event(
                session,
                table_id=settings.table_id,
                round_id=None,
                kind="user.added",
                actor=CLI_ACTOR,
                payload={"name": name, "role": role.value},
            )
    except (UserExistsError, InvalidFieldError) as error:
        typer.echo(f"user not added: {error}", err=True)
        raise typer.Exit(1) from None
    finally:
        engine.dispose()
    typer.echo(f"added {name} ({role.value}) to {redacted(url)}; the token is shown this once:", err=True)
    typer.echo(token)


@app.command("list")
def list_command(
    data_dir: DataDirOption = None, db_url: DbUrlOption = None, config: ConfigOption = None
) -> None:
    """Everyone who may use the terminals: name, role, whether enabled, and whose key it is."""
    _, _, engine = open_command_store(config, data_dir, db_url)
    try:
        with unit_of_work(engine) as session:
            people = list_users(session)
    finally:
        engine.dispose()
    for person in people:
        state = "disabled" if person.disabled else "enabled"
        key = "key confirmed" if person.confirmed else f"key by {person.keyed_by}, waits for a second admin"
        typer.echo(f"{person.name}\t{person.role}\t{state}\t{key}")


def _change(
    config: Path | None,
    data_dir: Path | None,
    db_url: str | None,
    name: str,
    kind: str,
    change: Callable[[Session], str | None],
) -> str | None:
    """Run ``change`` on the store and chain ``kind`` naming the person in the table's chain;
    exit 1 naming a person who does not exist."""
    settings, _, engine = open_command_store(config, data_dir, db_url)
    try:
        with unit_of_work(engine) as session:
            result = change(session)
            append_event(
                session,
                table_id=settings.table_id,
                round_id=None,
                kind=kind,
                actor=CLI_ACTOR,
                payload={"name": name},
            )
            return result
    except UserNotFoundError:
        typer.echo(f"no such person: {name}", err=True)
        raise typer.Exit(1) from None
    finally:
        engine.dispose()


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
    enabled again). From the console the key is confirmed at once, as with ``add``."""
    token = _change(
        config, data_dir, db_url, name, "user.key-rotated", lambda session: rotate_token(session, name=name)
    )
    typer.echo(f"new key for {name}; the token is shown this once:", err=True)
    typer.echo(token)


__all__ = ["app"]
