"""``table-controller dealers sign-in --as NAME [--dealer NAME]``, ``dealers sign-out --as NAME``
and ``dealers today`` (docs/dealers.md).

The dealers on the table's box from the command line, for a table whose terminals are down: the
same ``dealer.signed-in`` and ``dealer.signed-out`` events and ``dealer_stints`` rows the API
writes, through the same desk (table/dealers.py). The person named by ``--as`` proves it is them
with their own API token, as ``round void`` asks it (``--token-file``, ``TABLE_API_TOKEN`` or the
prompt): a dealer signs in themselves, a pit user may name the dealer (``--dealer``). A running
daemon sees the dealer at its next round's opening (the recorder reads who is on the box in the
round's own transaction). ``today`` prints the gaming day's stints and hands per hour.
Exit status: 0 done, 1 refused (not that person, a dealer naming another, the dealer on a box
already, nobody on the box), 2 usage or store problems.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..storage import redacted
from ..storage.errors import StorageError, is_outage
from ..storage.users import Role
from .main import HELP_MARKUP, LAZY_GROUPS
from .round import ActorOption, TokenFileOption, _refused, proven_person, read_token
from .store import ConfigOption, DataDirOption, DbUrlOption, open_command_store

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

    from ..settings import TableSettings

app = typer.Typer(
    no_args_is_help=True, add_completion=False, rich_markup_mode=HELP_MARKUP, help=LAZY_GROUPS["dealers"].help
)


@app.callback()
def dealers_() -> None:
    """The dealers on the table's box, without the API."""


@contextlib.contextmanager
def _at_the_box(
    what: str,
    actor: str,
    token_file: Path | None,
    config: Path | None,
    data_dir: Path | None,
    db_url: str | None,
) -> Iterator[tuple[TableSettings, str, Engine, Role]]:
    """The store, once ``actor`` proved it is them (a dealer or a pit user); a refusal of the
    desk exits 1 naming it, the store away exits 2, the engine is disposed in every case."""
    from ..accounting.errors import AccountingError

    token = read_token(token_file)
    settings, url, engine = open_command_store(config, data_dir, db_url)
    try:
        role = proven_person(
            engine, settings, actor, token, what, roles=(Role.DEALER, Role.PIT), words="dealer or pit user"
        )
        try:
            yield settings, url, engine, role
        except (AccountingError, StorageError) as refused:
            if is_outage(refused):
                raise
            raise _refused(what, str(refused)) from None
    except Exception as error:
        if not isinstance(error, StorageError) and not is_outage(error):
            raise
        typer.echo(f"cannot write to the store: {error}", err=True)
        raise typer.Exit(2) from None
    finally:
        engine.dispose()


@app.command("sign-in")
def sign_in(
    actor: ActorOption,
    dealer: Annotated[
        str | None, typer.Option("--dealer", help="the dealer who goes on the box (a pit user names them)")
    ] = None,
    token_file: TokenFileOption = None,
    data_dir: DataDirOption = None,
    db_url: DbUrlOption = None,
    config: ConfigOption = None,
) -> None:
    """A dealer goes on the box, relieving the dealer on it (the push)."""
    from ..table.dealers import DealerDesk
    from ..table.dealers import sign_in as sign_in_

    what = "dealer not signed in"
    with _at_the_box(what, actor, token_file, config, data_dir, db_url) as (settings, url, engine, role):
        named = dealer or actor
        if named != actor and role is not Role.PIT:
            raise _refused(what, f"{actor} signs in only themselves: the pit names another dealer")
        started, relieved = sign_in_(engine, DealerDesk.of(settings), dealer=named, by=actor)
    after = "" if relieved is None else f", relieving {relieved.dealer}"
    typer.echo(f"{started.dealer} is on the box of {settings.table_id} in {redacted(url)}{after}")


@app.command("sign-out")
def sign_out(
    actor: ActorOption,
    token_file: TokenFileOption = None,
    data_dir: DataDirOption = None,
    db_url: DbUrlOption = None,
    config: ConfigOption = None,
) -> None:
    """The dealer on the box leaves it, nobody relieving them."""
    from ..table.dealers import DealerDesk
    from ..table.dealers import sign_out as sign_out_

    what = "dealer not signed out"
    with _at_the_box(what, actor, token_file, config, data_dir, db_url) as (settings, url, engine, _):
        ended = sign_out_(engine, DealerDesk.of(settings), by=actor)
    typer.echo(f"{ended.dealer} left the box of {settings.table_id} in {redacted(url)}")


@app.command("today")
def today(data_dir: DataDirOption = None, db_url: DbUrlOption = None, config: ConfigOption = None) -> None:
    """The gaming day's stints on the box and each dealer's and the table's hands per hour."""
    from ..storage.session import read_snapshot
    from ..table.dealers import DealerDesk, day_pace

    settings, _, engine = open_command_store(config, data_dir, db_url)
    try:
        with read_snapshot(engine) as session:
            found = day_pace(session, DealerDesk.of(settings))
    except StorageError as error:
        typer.echo(f"cannot read the store: {error}", err=True)
        raise typer.Exit(2) from None
    finally:
        engine.dispose()
    typer.echo(f"table {found.table_id}, gaming day {found.period.day.isoformat()}")
    for record in found.stints:
        until = (
            "on the box" if record.stint.end is None else f"to {record.stint.end:%H:%M} ({record.end_reason})"
        )
        typer.echo(f"  {record.dealer}: from {record.stint.start:%H:%M} UTC {until}")
    for pace in (*found.pace.dealers, found.pace.table):
        rate = "no time on the box" if pace.hands_per_hour is None else f"{pace.hands_per_hour} hands an hour"
        typer.echo(f"  {pace.dealer or 'the table'}: {pace.hands} hands in {pace.seconds_on_box} s: {rate}")
