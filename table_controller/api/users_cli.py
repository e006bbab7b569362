"""``table-controller users add NAME --role ROLE [--data-dir DIR | --db-url URL]`` (docs/api.md).

Creates a person and prints their bearer token once, on standard output (only its SHA-256 is
stored; a lost token is replaced, never recovered). The addition is an audit event
(``user.added``, actor ``admin-cli``) in the table's chain. The store is the one the daemon
uses: ``--data-dir`` (SQLite), ``--db-url`` (PostgreSQL), or, with neither, the settings'.
Exit status: 0 added, 1 refused (name taken or not valid), 2 usage or store problems.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..settings import load_settings
from ..storage import append_event, open_store, redacted, store_url, unit_of_work
from ..storage.errors import InvalidFieldError, StorageError
from ..storage.users import Role, UserExistsError, add_user

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
    data_dir: Annotated[
        Path | None, typer.Option("--data-dir", help="the table's data folder (SQLite)")
    ] = None,
    db_url: Annotated[str | None, typer.Option("--db-url", help="a PostgreSQL URL")] = None,
    config: Annotated[Path | None, typer.Option("--config", help="the table's TOML settings")] = None,
) -> None:
    """Add a person with a role and print their token once."""
    if data_dir is not None and db_url is not None:
        raise typer.BadParameter("give --data-dir or --db-url, not both")
    try:
        settings = load_settings(config, data_dir=data_dir, db_url=db_url)
        url = (
            store_url(db_url=db_url)
            if db_url
            else store_url(data_dir=data_dir)
            if data_dir
            else settings.database_url
        )
        engine = open_store(url)
    except (ValueError, OSError, StorageError) as error:
        typer.echo(f"cannot open the store: {error}", err=True)
        raise typer.Exit(2) from None
    try:
        with unit_of_work(engine) as session:
            token = add_user(session, name=name, role=role)
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
