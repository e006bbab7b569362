"""``table-controller round void --reason TEXT --as NAME`` and ``round confirm SEQ --as NAME``
(docs/round-lifecycle.md, "When things go wrong"; docs/api.md, "Two people").

The pit's void from the command line, for when the API is down: the same ``round.voided``
event and ``void`` alert the API writes, through the same table service and its checks (the
round must be open; a held round may be voided), with the person named by ``--as``, who must
be an enabled pit user whose key is confirmed. A round whose wagers total more than the table's
``second_pit_above`` is not voided by one person: ``round void`` stores the request (the
API's ``approval.requested``) and a second pit user confirms it with ``round confirm SEQ``,
or through the API; the person who asked is refused (chained). A running daemon notices the
change within a second (or at its next step) and ends the round as voided, as a void through
the API does (docs/round-lifecycle.md, "When things go wrong").
Exit status: 0 voided, 1 refused (no open round, not a pit user, the reason too short, the
same person confirming), 2 usage or store problems, 3 requested: waits for a second pit user.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer
from sqlalchemy.engine import Engine

from .cli import LAZY_GROUPS
from .cli_store import ConfigOption, DataDirOption, DbUrlOption, open_command_store
from .storage import redacted
from .storage.errors import StorageError
from .storage.session import read_snapshot
from .storage.users import Role, UserNotFoundError, get_user

if TYPE_CHECKING:
    from .service import TableService
    from .settings import TableSettings

app = typer.Typer(no_args_is_help=True, add_completion=False, help=LAZY_GROUPS["round"].help)
WAITS = 3  # exit status: the void is requested, a second pit user confirms it

ActorOption = Annotated[
    str, typer.Option("--as", help="the pit user who acts (an enabled, confirmed pit user)")
]


@app.callback()
def round_() -> None:
    """The table's open round, without the API."""


def _refused(what: str, why: str) -> typer.Exit:
    typer.echo(f"{what}: {why}", err=True)
    return typer.Exit(1)


def _pit_user(engine: Engine, actor: str, what: str) -> None:
    try:
        with read_snapshot(engine) as session:
            person = get_user(session, name=actor)
    except UserNotFoundError:
        raise _refused(what, f"no user {actor!r}") from None
    if person.role is not Role.PIT or person.disabled or not person.confirmed:
        state = ", disabled" if person.disabled else "" if person.confirmed else ", key not confirmed"
        raise _refused(what, f"{actor} is not an enabled pit user (role {person.role.value}{state})")


def _open_service(settings: TableSettings, engine: Engine, what: str) -> TableService:
    from .service import TableService

    service = TableService(settings, engine)
    state = service.resume()
    if state is None or state.phase.is_final:
        raise _refused(what, f"table {settings.table_id} has no open round")
    return service


@app.command("void")
def void(
    reason: Annotated[
        str, typer.Option("--reason", help="why the round is void, as the audit chain shows it")
    ],
    actor: ActorOption,
    data_dir: DataDirOption = None,
    db_url: DbUrlOption = None,
    config: ConfigOption = None,
) -> None:
    """Void the table's open round (a held one too): wagers returned, nothing settled. Above the
    table's second_pit_above, ask a second pit user to confirm it (exit status 3)."""
    from . import approvals
    from .round.machine import TransitionRefused
    from .service import TableRefused
    from .storage.approvals import Approval

    what = "round not voided"
    settings, url, engine = open_command_store(config, data_dir, db_url)
    try:
        _pit_user(engine, actor, what)
        if len(reason.strip()) < 3:
            raise _refused(what, "give a reason of at least 3 characters")
        service = _open_service(settings, engine, what)
        try:
            done = approvals.void(service, actor=actor, reason=reason.strip())
        except (TableRefused, TransitionRefused) as refused:
            raise _refused(what, str(refused)) from None
    except StorageError as error:
        typer.echo(f"cannot write to the store: {error}", err=True)
        raise typer.Exit(2) from None
    finally:
        engine.dispose()
    if isinstance(done, Approval):
        typer.echo(
            f"void of {done.round_id} requested as {done.seq} by {actor}: its wagers ({done.wagered_cents}"
            f" cents) are above {settings.second_pit_above} cents, so a second pit user confirms it:"
            f" table-controller round confirm {done.seq} --as NAME"
        )
        raise typer.Exit(WAITS)
    typer.echo(f"voided {done.round_id} in {redacted(url)} by {actor}: {reason.strip()}")


@app.command("confirm")
def confirm(
    seq: Annotated[
        int, typer.Argument(min=1, help="the request's id (its chain seq), as `round void` printed it")
    ],
    actor: ActorOption,
    data_dir: DataDirOption = None,
    db_url: DbUrlOption = None,
    config: ConfigOption = None,
) -> None:
    """A second pit user confirms a requested void or override: it is done now, naming both."""
    from . import approvals
    from .round.machine import TransitionRefused
    from .service import TableRefused
    from .storage.approvals import ApprovalClosedError, ApprovalNotFoundError, TwoPersonRefusedError

    what = f"request {seq} not confirmed"
    settings, url, engine = open_command_store(config, data_dir, db_url)
    try:
        _pit_user(engine, actor, what)
        service = _open_service(settings, engine, what)
        try:
            done = approvals.confirm(service, seq=seq, actor=actor)
        except (
            TableRefused,
            TransitionRefused,
            TwoPersonRefusedError,
            ApprovalClosedError,
            ApprovalNotFoundError,
        ) as refused:
            raise _refused(what, str(refused)) from None
    except StorageError as error:
        typer.echo(f"cannot write to the store: {error}", err=True)
        raise typer.Exit(2) from None
    finally:
        engine.dispose()
    typer.echo(
        f"confirmed request {seq} in {redacted(url)} by {actor}: round {done.round_id} is {done.phase.value}"
    )
