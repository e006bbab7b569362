"""``table-controller users add NAME --role ROLE [--data-dir DIR | --db-url URL]`` (docs/api.md).

Creates a person and prints their bearer token once, on standard output (only its SHA-256 is
stored; a lost token is replaced, never recovered). The key is confirmed at once: the console
needs the machine itself, so it is the second control (docs/api.md, "Two people"); a key an
admin makes through the API waits for a second admin instead. The addition is an audit event
(``user.added``, actor ``admin-cli``) in the table's chain. The store is the one the daemon
uses: ``--data-dir`` (SQLite), ``--db-url`` (PostgreSQL), or, with neither, the settings'.
Exit status: 0 added, 1 refused (name taken or not valid), 2 usage or store problems.
"""

from __future__ import annotations

from typing import Annotated

import typer

from .cli_store import ConfigOption, DataDirOption, DbUrlOption, open_command_store
from .storage import append_event, redacted, unit_of_work
from .storage.errors import InvalidFieldError
from .storage.users import Role, UserExistsError, add_user

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


__all__ = ["app"]
