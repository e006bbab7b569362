"""``table-controller round void --reason TEXT --as NAME`` and ``round confirm SEQ --as NAME``
(docs/round-lifecycle.md, "When things go wrong"; docs/api.md, "Two people").

The pit's void from the command line, for when the API is down: the same ``round.voided``
event and ``void`` alert the API writes, through the same table service and its checks (the
round must be open; a held round may be voided), with the person named by ``--as``, who must
be an enabled pit user whose key is confirmed, and who proves it is them with their own API
token, exactly as the API asks it: from ``--token-file`` (a file only its owner may read:
mode 0600 or stricter, owned by the user running the command), from ``TABLE_API_TOKEN``, or
typed at the prompt. A token that is not ``--as``'s is refused and chained
(``two-person.refused``, rule ``not-that-person``). A round whose wagers total more than the table's
``second_pit_above`` is not voided by one person: ``round void`` stores the request (the
API's ``approval.requested``) and a second pit user confirms it with ``round confirm SEQ``,
or through the API; the person who asked is refused (chained). A running daemon notices the
change within a second (or at its next step) and ends the round as voided, as a void through
the API does (docs/round-lifecycle.md, "When things go wrong").
Exit status: 0 voided, 1 refused (no open round, not a pit user, the reason too short, the
same person confirming), 2 usage or store problems, 3 requested: waits for a second pit user.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from sqlalchemy.engine import Engine

from ..storage import redacted
from ..storage.errors import StorageError
from ..storage.session import read_snapshot
from ..storage.users import Role, UserNotFoundError, get_user, user_for_token
from .main import HELP_MARKUP, LAZY_GROUPS
from .store import ConfigOption, DataDirOption, DbUrlOption, open_command_store

if TYPE_CHECKING:
    from ..settings import TableSettings
    from ..table.service import TableService

app = typer.Typer(
    no_args_is_help=True, add_completion=False, rich_markup_mode=HELP_MARKUP, help=LAZY_GROUPS["round"].help
)
WAITS = 3  # exit status: the void is requested, a second pit user confirms it
TOKEN_ENV = "TABLE_API_TOKEN"  # the acting person's API token, when no --token-file is given

ActorOption = Annotated[
    str, typer.Option("--as", help="the pit user who acts (an enabled, confirmed pit user)")
]
TokenFileOption = Annotated[
    Path | None,
    typer.Option(
        "--token-file",
        help=f"a file holding your API token, readable only by you (else ${TOKEN_ENV} or a prompt)",
    ),
]


@app.callback()
def round_() -> None:
    """The table's open round, without the API."""


def _refused(what: str, why: str) -> typer.Exit:
    typer.echo(f"{what}: {why}", err=True)
    return typer.Exit(1)


def read_token(token_file: Path | None) -> str:
    """The acting person's API token: from ``token_file`` (refused unless only its owner, the
    user running the command, may read or write it), else ``TABLE_API_TOKEN``, else a prompt."""
    if token_file is not None:
        try:
            facts = token_file.stat()
            if facts.st_uid != os.getuid() or facts.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
                raise typer.BadParameter(
                    f"{token_file} may be read by others (mode {stat.filemode(facts.st_mode)}): keep it"
                    " yours alone (chmod 600)",
                    param_hint="--token-file",
                )
            return token_file.read_text(encoding="utf-8").strip()
        except OSError as error:
            raise typer.BadParameter(str(error), param_hint="--token-file") from None
    from_env = os.environ.get(TOKEN_ENV, "").strip()
    if from_env:
        return from_env
    return str(typer.prompt("your API token", hide_input=True)).strip()


def _pit_user(engine: Engine, settings: TableSettings, actor: str, token: str, what: str) -> None:
    """``actor`` is an enabled, confirmed pit user, and ``token`` is theirs (the API's proof)."""
    proven_person(engine, settings, actor, token, what, roles=(Role.PIT,), words="pit user")


def proven_person(
    engine: Engine,
    settings: TableSettings,
    actor: str,
    token: str,
    what: str,
    *,
    roles: tuple[Role, ...],
    words: str,
) -> Role:
    """``actor`` is an enabled, confirmed person of one of ``roles`` (``words``: "pit user"),
    and ``token`` is theirs (the API's proof); their role. A token that is another person's is
    refused and chained (``two-person.refused``, rule ``not-that-person``)."""
    from ..storage.approvals import TwoPersonRefusedError
    from ..table.approvals import refuse

    try:
        with read_snapshot(engine) as session:
            person = get_user(session, name=actor)
            holder = user_for_token(session, token=token) if token else None
    except UserNotFoundError:
        raise _refused(what, f"no user {actor!r}") from None
    if person.role not in roles or person.disabled or not person.confirmed:
        state = ", disabled" if person.disabled else "" if person.confirmed else ", key not confirmed"
        raise _refused(what, f"{actor} is not an enabled {words} (role {person.role.value}{state})")
    if holder is None or holder.name != actor:
        error = TwoPersonRefusedError(
            f"the token given is not {actor}'s: a person acts from the console only as themselves",
            rule="not-that-person",
        )
        refuse(
            engine,
            settings.table_id,
            actor=holder.name if holder is not None else "unknown-token",
            error=error,
            round_id=None,
            claimed=actor,
        )
        raise _refused(what, str(error))
    return person.role


def _open_service(settings: TableSettings, engine: Engine, what: str) -> TableService:
    from ..table.service import TableService

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
    token_file: TokenFileOption = None,
    data_dir: DataDirOption = None,
    db_url: DbUrlOption = None,
    config: ConfigOption = None,
) -> None:
    """Void the table's open round (a held one too): wagers returned, nothing settled. Above the
    table's second_pit_above, ask a second pit user to confirm it (exit status 3)."""
    from ..round.machine import TransitionRefused
    from ..storage.approvals import Approval
    from ..table import approvals
    from ..table.service import TableRefused

    what = "round not voided"
    token = read_token(token_file)
    settings, url, engine = open_command_store(config, data_dir, db_url)
    try:
        _pit_user(engine, settings, actor, token, what)
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
            f" table-controller round confirm {done.seq} --as NAME --token-file FILE"
        )
        raise typer.Exit(WAITS)
    typer.echo(f"voided {done.round_id} in {redacted(url)} by {actor}: {reason.strip()}")


@app.command("confirm")
def confirm(
    seq: Annotated[
        int, typer.Argument(min=1, help="the request's id (its chain seq), as round void printed it")
    ],
    actor: ActorOption,
    token_file: TokenFileOption = None,
    data_dir: DataDirOption = None,
    db_url: DbUrlOption = None,
    config: ConfigOption = None,
) -> None:
    """A second pit user confirms a requested void or override: it is done now, naming both."""
    from ..round.machine import TransitionRefused
    from ..storage.approvals import ApprovalClosedError, ApprovalNotFoundError, TwoPersonRefusedError
    from ..table import approvals
    from ..table.service import TableRefused

    what = f"request {seq} not confirmed"
    token = read_token(token_file)
    settings, url, engine = open_command_store(config, data_dir, db_url)
    try:
        _pit_user(engine, settings, actor, token, what)
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
