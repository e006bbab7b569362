"""``table-controller round void --reason TEXT --as NAME`` (docs/round-lifecycle.md, "When things go wrong").

The pit's void from the command line, for when the API is down: the same ``round.voided``
event and ``void`` alert the API writes, through the same table service and its checks (the
round must be open; a held round may be voided), with the person named by ``--as``, who must
be an enabled pit user. Run it while the daemon is stopped: a running daemon keeps its own
view of the round in memory (docs/round-lifecycle.md).
Exit status: 0 voided, 1 refused (no open round, not a pit user, the reason too short),
2 usage or store problems.
"""

from __future__ import annotations

from typing import Annotated

import typer

from .cli_store import ConfigOption, DataDirOption, DbUrlOption, open_command_store
from .storage import redacted
from .storage.errors import StorageError
from .storage.session import read_snapshot
from .storage.users import Role, UserNotFoundError, get_user

app = typer.Typer(no_args_is_help=True, add_completion=False, help="The table's open round, without the API.")


@app.callback()
def round_() -> None:
    """The table's open round, without the API."""


@app.command("void")
def void(
    reason: Annotated[
        str, typer.Option("--reason", help="why the round is void, as the audit chain shows it")
    ],
    actor: Annotated[str, typer.Option("--as", help="the pit user who voids it (an enabled pit user)")],
    data_dir: DataDirOption = None,
    db_url: DbUrlOption = None,
    config: ConfigOption = None,
) -> None:
    """Void the table's open round (a held one too): wagers returned, nothing settled."""
    from .round.machine import TransitionRefused
    from .service import TableRefused, TableService

    settings, url, engine = open_command_store(config, data_dir, db_url)
    try:
        try:
            with read_snapshot(engine) as session:
                person = get_user(session, name=actor)
        except UserNotFoundError:
            typer.echo(f"round not voided: no user {actor!r}", err=True)
            raise typer.Exit(1) from None
        if person.role is not Role.PIT or person.disabled:
            typer.echo(
                f"round not voided: {actor} is not an enabled pit user (role {person.role.value}"
                f"{', disabled' if person.disabled else ''})",
                err=True,
            )
            raise typer.Exit(1)
        if len(reason.strip()) < 3:
            typer.echo("round not voided: give a reason of at least 3 characters", err=True)
            raise typer.Exit(1)
        service = TableService(settings, engine)
        state = service.resume()
        if state is None or state.phase.is_final:
            typer.echo(f"round not voided: table {settings.table_id} has no open round", err=True)
            raise typer.Exit(1)
        try:
            state = service.void(actor, reason.strip())
        except (TableRefused, TransitionRefused) as refused:
            typer.echo(f"round not voided: {refused}", err=True)
            raise typer.Exit(1) from None
    except StorageError as error:
        typer.echo(f"cannot write to the store: {error}", err=True)
        raise typer.Exit(2) from None
    finally:
        engine.dispose()
    typer.echo(f"voided {state.round_id} in {redacted(url)} by {actor}: {reason.strip()}")
