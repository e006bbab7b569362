"""Command line: ``table-controller``.

- ``run [--config FILE] [--data-dir DIR] [--simulate [--manual]] [--rounds N] [--port N]``: the table daemon
  (table_controller/daemon/run.py, docs/round-lifecycle.md).
- ``floor [--config FILE] [--db-url URL] [--host H] [--port N] [--workers N]``: the floor service,
  every table of the store for the pit and surveillance (table_controller/floor/, docs/floor.md);
  ``floor demo --db-url URL [--tables N] [--pits P]``: a demo floor of simulated tables (floor/demo.py).
- ``audit verify [--data-dir DIR | --db-url URL] [--checkpoints FILE] [--public-key HEX]``: check
  the whole record (docs/audit-chain.md); ``audit keygen --key-file PATH``: the checkpoint key;
  ``audit release --key-file IT.key --out FILE``: the signed manifest of the release's files.
- ``round void --reason TEXT --as NAME``: the pit's void when the API is down, and ``round confirm
  SEQ --as NAME``: a second pit user's confirmation of a large round's void (cli/round.py).
- ``analyze par-sheet | house-edge``: the table's math (cli/analysis.py, docs/math.md).

The game questions asked at the table (and in batch by tests and audits):

- ``rank CARDS...``: a five- or two-card hand's category and score.
- ``house-way CARDS...``: how the house way (or, in Double Joker, the overqualifier) sets
  seven cards, and the id of the rule that fired.

Both take ``--batch FILE`` (``-`` for standard input): one hand per line, space-separated
codes; one JSON object per line out, in the same order; a bad line gives
``{"line": N, "error": "..."}`` (its only report: no log line too) and the rest go on. Blank
lines and ``#`` comment lines are skipped (line numbers still count them). Exit status: 0 all
good, 1 if any hand failed, 2 for usage errors.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any, Final, NamedTuple

import structlog
import typer
from typer import _click as click  # typer's own copy of click, whose classes TyperGroup uses
from typer.core import TyperGroup

from ..daemon.startup import collector_paused
from ..game.cards import Game, codes, parse_hand
from ..game.evaluator import RankingRules, Wheel, high_category, low_category, rank_high, rank_low
from ..logs import configure_logging


class LazyGroup(NamedTuple):
    """A command group imported when it is used: the module whose ``app`` it is, and its one-line
    help, which the group's ``app`` takes from here so that the top-level ``--help`` can list it
    without the import."""

    module: str
    help: str


LAZY_GROUPS = {
    # imported on use, so that ``rank`` and ``house-way`` load the game core only, not the store
    # or the analysis (numba), and ``--help`` lists the groups without loading either
    "users": LazyGroup("table_controller.cli.users", "People who use the terminals, and their keys."),
    "round": LazyGroup("table_controller.cli.round", "The table's open round, without the API."),
    "analyze": LazyGroup("table_controller.cli.analysis", "The table's math: par sheets and house edge."),
    "dealers": LazyGroup("table_controller.cli.dealers", "The dealers on the table's box, without the API."),
}


class _Commands(TyperGroup):
    """The top-level commands, with the groups of ``LAZY_GROUPS`` imported on first use."""

    listing = False  # while the top-level help is written: a group not yet imported is listed as such

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [*super().list_commands(ctx), *(name for name in LAZY_GROUPS if name not in self.commands)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in LAZY_GROUPS and cmd_name not in self.commands:
            lazy = LAZY_GROUPS[cmd_name]
            if self.listing:
                return TyperGroup(name=cmd_name, help=lazy.help)
            with collector_paused():
                module = importlib.import_module(lazy.module)
            group = typer.main.get_command(module.app)
            group.name = cmd_name
            self.commands[cmd_name] = group
        return super().get_command(ctx, cmd_name)

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        self.listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self.listing = False


# Help texts are docstrings wrapped at the source's width: read as Markdown, a paragraph is
# re-wrapped to the terminal's (rich's default mode keeps every source line break)
HELP_MARKUP: Final = "markdown"

app = typer.Typer(
    cls=_Commands,
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=HELP_MARKUP,
    help="Pai Gow Poker table controller.",
)
log = structlog.get_logger()

Answer = Callable[[list[str]], dict[str, Any]]

GameOption = Annotated[Game, typer.Option("--game", help="standard (53 cards) or double-joker (54 cards)")]
WheelOption = Annotated[
    Wheel, typer.Option("--wheel", help="nevada: A-2-3-4-5 second-highest straight; california: lowest")
]
WildLowOption = Annotated[
    bool, typer.Option("--joker-wild-in-low", help="the joker is fully wild in the low hand")
]
BatchOption = Annotated[
    str | None, typer.Option("--batch", metavar="FILE", help="one hand per line; '-' reads standard input")
]
CardsArgument = Annotated[list[str] | None, typer.Argument(metavar="CARDS...", show_default=False)]


def _emit(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")


def _batch_lines(source: str) -> Iterator[tuple[int, str]]:
    """Numbered lines of the batch file (or standard input for ``-``), but blanks and ``#`` comments."""
    if source == "-":
        opened: Any = contextlib.nullcontext(sys.stdin)
    else:
        path = Path(source)
        if not path.is_file():
            raise typer.BadParameter(f"no such file: {source}", param_hint="--batch")
        opened = path.open(encoding="utf-8")
    with opened as stream:
        for number, line in enumerate(stream, start=1):
            if line.strip() and not line.lstrip().startswith("#"):
                yield number, line


def _run(cards: list[str] | None, batch: str | None, answer: Answer) -> None:
    """Answer one hand from the arguments, or every line of a batch; set the exit status."""
    if bool(cards) == bool(batch):
        raise typer.BadParameter("give either CARDS or --batch FILE, not both and not neither")
    failed = False
    if batch is None:
        hands: Iterator[tuple[int | None, list[str]]] = iter([(None, list(cards or []))])
    else:
        hands = ((number, line.split()) for number, line in _batch_lines(batch))
    for number, hand in hands:
        try:
            _emit(answer(hand))
        except ValueError as error:
            failed = True
            _emit({"error": str(error)} if number is None else {"line": number, "error": str(error)})
    if failed:
        raise typer.Exit(1)


@app.command()
def rank(
    cards: CardsArgument = None,
    batch: BatchOption = None,
    game: GameOption = Game.STANDARD,
    wheel: WheelOption = Wheel.NEVADA,
    joker_wild_in_low: WildLowOption = False,
) -> None:
    """Rank a five-card (high) or two-card (low) hand: category and score.

    Among hands of the same size a larger score wins; equal scores are a copy.
    """
    rules = RankingRules(wheel=wheel, joker_wild_in_low=joker_wild_in_low)

    def answer(hand: list[str]) -> dict[str, Any]:
        parsed = parse_hand(hand, game, sizes=(5, 2))
        if len(parsed) == 5:
            score = rank_high(parsed, rules)
            category = high_category(score).label
        else:
            score = rank_low(parsed, rules)
            category = low_category(score).label
        return {"cards": codes(parsed), "category": category, "score": score}

    _run(cards, batch, answer)


@app.command("house-way")
def house_way(
    cards: CardsArgument = None,
    batch: BatchOption = None,
    game: GameOption = Game.STANDARD,
    way: Annotated[str, typer.Option("--way", help="house way name (a file under config/house_ways/)")] = (
        "house-way-002"
    ),
    wheel: WheelOption = Wheel.NEVADA,
) -> None:
    """Set seven cards by the house way: high and low hand, and the rule that fired.

    In the double-joker game a hand that can make four of a kind or better is set by the
    overqualifier rule of 003.
    """
    from ..game.dealer import required_setting
    from ..game.house_way import load_house_way

    try:
        house = load_house_way(way)
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--way") from error
    rules = RankingRules(wheel=wheel)

    def answer(hand: list[str]) -> dict[str, Any]:
        parsed = parse_hand(hand, game, sizes=(7,))
        required = required_setting(parsed, game=game, way=house, rules=rules)
        return {
            "cards": codes(parsed),
            "high": codes(required.setting.high),
            "low": codes(required.setting.low),
            "rule": required.rule_id,
        }

    _run(cards, batch, answer)


audit_app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=HELP_MARKUP,
    help="The tamper-evident audit chain.",
)
app.add_typer(audit_app, name="audit")


def _settings_error(error: Exception) -> str:
    """A bad configuration in words an operator can act on: every field and what is wrong with
    it, all at once (the settings collect them: settings.TableSettings._rules_and_way)."""
    from pydantic import ValidationError

    if isinstance(error, ValidationError):
        lines = []
        for problem in error.errors():
            where = ".".join(str(part) for part in problem["loc"]) or "settings"
            # pydantic's "Value error, " prefix says nothing to an operator
            words = problem["msg"].removeprefix("Value error, ")
            lines.append(f"  {where}: {words} (got {problem.get('input')!r})")
        return "invalid settings:\n" + "\n".join(lines)
    return f"invalid settings: {error}"


@app.command("run")
def run_command(
    config: Annotated[
        Path | None, typer.Option("--config", help="TOML settings file (default config/table.toml)")
    ] = None,
    data_dir: Annotated[
        Path | None, typer.Option("--data-dir", help="the table's data folder (default ./var)")
    ] = None,
    db_url: Annotated[
        str | None, typer.Option("--db-url", help="PostgreSQL URL instead of SQLite in the data folder")
    ] = None,
    simulate: Annotated[
        bool, typer.Option("--simulate", help="start both simulators and the auto-dealer")
    ] = False,
    rounds: Annotated[
        int | None, typer.Option("--rounds", min=1, help="stop after N settled rounds (exit 0)")
    ] = None,
    auto_dealer: Annotated[
        bool, typer.Option("--auto-dealer", help="the auto-dealer plays (real or configured devices)")
    ] = False,
    manual: Annotated[
        bool,
        typer.Option(
            "--manual",
            help="with --simulate: the simulators but no auto-dealer (deal from the pages or the API)",
        ),
    ] = False,
    seed: Annotated[
        int | None, typer.Option("--seed", help="seed the auto-dealer and the simulators")
    ] = None,
    step_delay: Annotated[
        float | None, typer.Option("--step-delay", min=0, help="seconds between the steps of a round")
    ] = None,
    host: Annotated[
        str | None, typer.Option("--host", help="address the API listens on (default 127.0.0.1)")
    ] = None,
    port: Annotated[
        int | None,
        typer.Option("--port", min=0, max=65535, help="the API's port (default 8080; 0: any free port)"),
    ] = None,
) -> None:
    """Run the table: devices, rounds, the durable record. Resumes where the last run stopped.

    Nothing inside a round stops it: a round that fails is held for the pit, a store that goes away stops play until it answers, a deck that keeps misdealing holds the table.

    Exit status:

    0: N settled rounds played (--rounds), or a stop asked for (SIGTERM, SIGINT);

    1: the store could not be opened at start (database unreachable, schema not at this version's revision): fix it, then start again;

    2: a bad configuration (a setting, a device port), or the API's address cannot be listened on (already in use: stop what holds it or choose another --port), refused before anything starts;

    3: a device could not be started (a simulator printed no port within simulator.start_timeout, or exited): start again, or raise the timeout on a loaded machine; its log is under the data folder's simulators/.
    """  # noqa: E501 - one paragraph per line: the help text keeps line breaks
    with collector_paused():
        from sqlalchemy.exc import SQLAlchemyError

        from ..daemon.run import ConfigError, DeviceStartError, ExitStatus, ListenError
        from ..daemon.run import main as run_daemon
        from ..settings import load_settings
        from ..storage import StorageError

    overrides: dict[str, Any] = {
        "data_dir": data_dir,
        "db_url": db_url,
        "step_delay": step_delay,
        "host": host,
        "port": port,
    }
    nested: dict[str, dict[str, Any]] = {"auto_dealer": {}, "simulator": {}}
    if auto_dealer:
        nested["auto_dealer"]["enabled"] = True
    if seed is not None:
        nested["auto_dealer"]["seed"] = seed
        nested["simulator"]["seed"] = seed
    overrides.update({name: values for name, values in nested.items() if values})
    if manual and not simulate:
        typer.echo("--manual goes with --simulate (the simulators without the auto-dealer)", err=True)
        raise typer.Exit(2)
    if manual and auto_dealer:
        typer.echo("--manual and --auto-dealer contradict each other: choose one", err=True)
        raise typer.Exit(2)
    try:
        settings = load_settings(config, **overrides)
    except (ValueError, OSError) as error:  # a bad value (ValidationError), a missing or malformed file
        typer.echo(_settings_error(error), err=True)
        raise typer.Exit(2) from None
    configure_logging(settings.log_format, settings.log_level)
    try:
        code = run_daemon(settings, simulate=simulate, rounds=rounds, manual=manual)
    except ListenError as error:  # logged where it was found (api.cannot_listen)
        typer.echo(str(error), err=True)
        raise typer.Exit(ExitStatus.CONFIG) from None
    except ConfigError as error:
        log.error("daemon.config_error", error=str(error))
        typer.echo(f"invalid settings: {error}", err=True)
        raise typer.Exit(ExitStatus.CONFIG) from None
    except DeviceStartError as error:
        log.error("daemon.device_start_failed", error=str(error))
        typer.echo(f"a device could not be started: {error}", err=True)
        raise typer.Exit(ExitStatus.DEVICE_START) from None
    except (StorageError, SQLAlchemyError) as error:
        log.error("daemon.store_unavailable", error=str(error))
        typer.echo(f"cannot open the store: {error}", err=True)
        raise typer.Exit(ExitStatus.STORE) from None
    raise typer.Exit(code)


floor_app = typer.Typer(
    invoke_without_command=True,
    add_completion=False,
    rich_markup_mode=HELP_MARKUP,
)
app.add_typer(floor_app, name="floor")


@floor_app.callback()
def floor_command(
    ctx: typer.Context,
    config: Annotated[
        Path | None, typer.Option("--config", help="TOML settings file (see config/floor.toml)")
    ] = None,
    db_url: Annotated[
        str | None, typer.Option("--db-url", help="the store the floor's tables write to")
    ] = None,
    host: Annotated[
        str | None, typer.Option("--host", help="address the floor listens on (default 127.0.0.1)")
    ] = None,
    port: Annotated[
        int | None,
        typer.Option("--port", min=0, max=65535, help="the floor's port (default 8090; 0: any free port)"),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option("--workers", min=1, help="floor processes on the one port (default 1; docs/floor.md)"),
    ] = None,
) -> None:
    """Serve the floor: the pit and surveillance terminals for every table (docs/floor.md).

    Prints "floor listening on URL" once the port is bound.

    Exit status:

    0: a stop asked for (SIGTERM, SIGINT);

    1: the store could not be opened (database unreachable, schema not at this version's
    revision), or the workers kept dying;

    2: a bad configuration (every bad setting is named), or an address it cannot listen on.

    `floor demo` starts a whole demo floor of simulated tables instead (its own --help).
    """
    if ctx.invoked_subcommand is not None:
        return
    with collector_paused():
        from sqlalchemy.exc import SQLAlchemyError

        from ..floor.settings import load_floor_settings
        from ..floor.workers import Workers, floor_url, floor_worker, listen, serve_floor
        from ..storage import StorageError, open_read_store, open_store

    try:
        settings = load_floor_settings(config, db_url=db_url, host=host, port=port, workers=workers)
    except (ValueError, OSError) as error:  # a bad value (ValidationError), a missing or malformed file
        typer.echo(_settings_error(error), err=True)
        raise typer.Exit(2) from None
    configure_logging(settings.log_format, settings.log_level)
    try:  # each floor process opens engines of its own: these only migrate and check
        open_store(settings.db_url).dispose()  # migrated here, once, before any floor process serves
        if settings.read_db_url is not None:
            open_read_store(settings.read_db_url).dispose()
    except (StorageError, SQLAlchemyError) as error:
        log.error("floor.store_unavailable", error=str(error))
        typer.echo(f"cannot open the store: {error}", err=True)
        raise typer.Exit(1) from None
    try:
        sock = listen(settings.host, settings.port)
    except OSError as error:
        log.error("floor.cannot_listen", host=settings.host, port=settings.port, error=str(error))
        typer.echo(f"cannot listen on {settings.host}:{settings.port}: {error}", err=True)
        raise typer.Exit(2) from None
    with sock:
        url = floor_url(settings, sock)
        typer.echo(f"floor listening on {url}")
        log.info("floor.listening", url=url, workers=settings.workers)
        if settings.workers == 1:
            serve_floor(settings, sock)
            code = 0
        else:
            code = Workers(settings.workers, floor_worker, (settings.model_dump(), sock)).run()
    raise typer.Exit(code)


@floor_app.command("demo")
def floor_demo_command(
    db_url: Annotated[
        str, typer.Option("--db-url", help="the PostgreSQL store of the demo's tables and floor")
    ],
    tables: Annotated[int, typer.Option("--tables", min=1, help="how many simulated tables")] = 6,
    pits: Annotated[int, typer.Option("--pits", min=1, help="how many pits they are laid out in")] = 2,
    data_dir: Annotated[
        Path, typer.Option("--data-dir", help="the tables' data folders and every child's log")
    ] = Path("var/demo"),
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, help="the floor's port (0: any free port)")
    ] = 8090,
    rounds: Annotated[
        int | None, typer.Option("--rounds", min=1, help="each table stops after N settled rounds")
    ] = None,
    seed: Annotated[int | None, typer.Option("--seed", help="table i is seeded SEED+i")] = None,
    step_delay: Annotated[
        float | None, typer.Option("--step-delay", min=0, help="seconds between the steps of a round")
    ] = None,
    config: Annotated[
        Path | None, typer.Option("--config", help="the tables' TOML settings (default config/table.toml)")
    ] = None,
) -> None:
    """Start a demo floor: N simulated tables (each `run --simulate` on a free port, registered
    with its pit) and the floor on one store, with a pit user per pit (docs/floor.md).

    Prints the floor's URL and each pit user's token; every child's log is in the data folder.
    SIGINT (Ctrl-C) or SIGTERM stops every table, then the floor.

    Exit status:

    0: a stop asked for, or every table done with its --rounds;

    1: the store could not be opened, or a table or the floor stopped on its own (its log says why);

    2: a bad option.
    """
    with collector_paused():
        from sqlalchemy.exc import SQLAlchemyError

        from ..floor.demo import (
            DemoError,
            DemoFloor,
            demo_pit_users,
            describe,
            free_ports,
            plan_tables,
            stop_on_signals,
        )
        from ..storage import StorageError

    configure_logging("auto", "INFO")
    try:
        plan = plan_tables(tables, pits, free_ports(tables))
    except DemoError as error:
        typer.echo(str(error), err=True)
        raise typer.Exit(2) from None
    try:
        tokens = demo_pit_users(db_url, sorted({table.pit for table in plan}))
    except (StorageError, SQLAlchemyError, ValueError) as error:
        log.error("floor_demo.store_unavailable", error=str(error))
        typer.echo(f"cannot open the store: {error}", err=True)
        raise typer.Exit(1) from None
    data_dir.mkdir(parents=True, exist_ok=True)
    demo = DemoFloor(
        db_url=db_url,
        plan=plan,
        data_dir=data_dir,
        floor_port=port,
        rounds=rounds,
        seed=seed,
        step_delay=step_delay,
        config=config,
    )
    code = 1
    with stop_on_signals(demo):
        try:
            demo.start_tables()
            url = demo.start_floor()
            for line in describe(plan, db_url):
                typer.echo(line)
            typer.echo(f"floor listening on {url}")
            for name, token in tokens.items():
                typer.echo(f"pit user {name} (sign in at {url}/ui/): {token}")
            typer.echo(f"logs in {data_dir}/; Ctrl-C stops every table and the floor", err=True)
            code = demo.watch()
        except DemoError as error:
            typer.echo(str(error), err=True)
            code = 0 if demo.stopping.is_set() else 1
        finally:
            demo.stop()
    raise typer.Exit(code)


@audit_app.command("verify")
def audit_verify_command(
    data_dir: Annotated[
        Path | None, typer.Option("--data-dir", help="the table's data folder (default ./var)")
    ] = None,
    db_url: Annotated[str | None, typer.Option("--db-url", help="the PostgreSQL store's URL")] = None,
    checkpoints: Annotated[
        Path | None,
        typer.Option(
            "--checkpoints", help="a checkpoint file copied off the machine: the chain must reach each"
        ),
    ] = None,
    public_key: Annotated[
        str | None,
        typer.Option("--public-key", help="the checkpoint key's public half (hex; default: the config's)"),
    ] = None,
    config: Annotated[
        Path | None, typer.Option("--config", help="settings file whose [audit] public_key is used")
    ] = None,
) -> None:
    """Check the whole record (docs/audit-chain.md): every chain's links, every round re-derived
    against its chained settlement and its projections, people, rules contents, and signed
    checkpoints. Exit 0 whole, 1 naming every break and finding, 2 not checked."""
    with collector_paused():
        from ..record.check import audit_verify_record
        from ..settings import load_settings

    if data_dir is None and db_url is None:
        data_dir = Path("var")
    if public_key is None and (config is not None or checkpoints is not None):
        try:
            public_key = load_settings(config).audit.public_key
        except (ValueError, OSError) as error:
            typer.echo(f"audit chain NOT CHECKED: {_settings_error(error)}")
            raise typer.Exit(2) from None
    code, text = audit_verify_record(
        data_dir=data_dir, db_url=db_url, checkpoints_file=checkpoints, public_key=public_key
    )
    typer.echo(text)
    raise typer.Exit(code)


@audit_app.command("keygen")
def audit_keygen_command(
    key_file: Annotated[
        Path, typer.Option("--key-file", help="where to write the private key (not over a file)")
    ],
) -> None:
    """Make the Ed25519 key pair that signs checkpoints: the private key to the file (mode 0600),
    the public half printed for public_key in the configuration's audit section (docs/audit-chain.md)."""
    from ..storage.checkpoints import generate_key_file

    try:
        public = generate_key_file(key_file)
    except FileExistsError:
        typer.echo(f"{key_file} exists: a key is never overwritten (move it away first)", err=True)
        raise typer.Exit(2) from None
    except OSError as error:
        typer.echo(f"cannot write {key_file}: {error}", err=True)
        raise typer.Exit(2) from None
    typer.echo(f"private key written to {key_file}; put these in the table's configuration:")
    typer.echo("[audit]")
    typer.echo(f'key_file = "{key_file}"')
    typer.echo(f'public_key = "{public}"')


@audit_app.command("release")
def audit_release_command(
    key_file: Annotated[Path, typer.Option("--key-file", help="IT's Ed25519 release key (PEM)")],
    out: Annotated[Path, typer.Option("--out", help="where to write the signed manifest (not over a file)")],
) -> None:
    """Sign the manifest of the installed package's files (each path and SHA-256, and the code
    hash each start chains) for the daemon to compare with at start (docs/audit-chain.md)."""
    from ..record.release import write_release
    from ..storage.checkpoints import CheckpointKeyError, load_private_key

    try:
        signed = write_release(out, load_private_key(key_file))
    except (CheckpointKeyError, OSError) as error:
        typer.echo(f"release not written: {error}", err=True)
        raise typer.Exit(2) from None
    body = signed["manifest"]
    typer.echo(f"{out}: {body['file_count']} files, code {body['code_sha256']}; in the configuration:")
    typer.echo("[audit]")
    typer.echo(f'release_manifest = "{out}"')
    typer.echo(f'release_public_key = "{signed["public_key"]}"')


@app.callback()
def _configure() -> None:
    configure_logging()


def main() -> None:
    app()
