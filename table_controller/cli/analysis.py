"""``table-controller analyze``: the table's own math (docs/math.md).

- ``par-sheet``: exact enumeration of every seven-card hand of the table's deck: the best
  five-card hand distribution, the Big Hand Bonus and Joker Bonus pay tables priced (003);
  on a 53-card table, the Fortune Bonus with its envy and the progressive (docs/progressive.md).
- ``house-edge``: the main game by simulation, the dealer by the house way against a
  player by the house way and by the "highest legal low hand" strategy (004);
  ``--exact``: every pair of hands counted, house way against house way (analysis/exact.py).

Both read the configured table (``--config``, ``TABLE_`` variables) unless ``--game``,
``--house-way`` or pay-table files are given; every result names the files it was computed
for with their SHA-256. Output: rich tables, ``--json`` or ``--csv``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from ..analysis.exact import cached_exact_edge
from ..analysis.exact_render import exact_rows, exact_table
from ..analysis.fortune_render import fortune_rows, fortune_sections, fortune_tables
from ..analysis.lookup import LoadedLookup, default_cache_dir, get_lookup
from ..analysis.par_sheet import build_par_sheet
from ..analysis.render import house_edge_rows, house_edge_table, par_sheet_rows, par_sheet_tables, to_csv
from ..analysis.simulate import STRATEGIES, sim_params, simulate
from ..analysis.table import analysed_table
from ..game.cards import Game
from ..game.house_way import load_house_way
from ..game.paytables import PayTableError
from ..game.progressive import ProgressiveError
from .main import HELP_MARKUP, LAZY_GROUPS

app = typer.Typer(
    no_args_is_help=True, add_completion=False, rich_markup_mode=HELP_MARKUP, help=LAZY_GROUPS["analyze"].help
)

ConfigOption = Annotated[
    Path | None, typer.Option("--config", help="table settings TOML (default: the shipped one)")
]
GameOption = Annotated[Game | None, typer.Option("--game", help="standard (53 cards) or double-joker (54)")]
WayOption = Annotated[str | None, typer.Option("--house-way", help="a house way name (config/house_ways)")]
BigHandOption = Annotated[Path | None, typer.Option("--big-hand", help="Big Hand Bonus pay table file")]
JokerOption = Annotated[Path | None, typer.Option("--joker-bonus", help="Joker Bonus pay table file")]
FortuneOption = Annotated[
    Path | None,
    typer.Option("--fortune", help="Fortune Bonus pay table file (default: the table's [fortune] paytable)"),
]
ProgressiveOption = Annotated[
    Path | None,
    typer.Option(
        "--progressive", help="progressive pay table file (default: the table's [progressive] paytable)"
    ),
]
MeterOption = Annotated[
    int | None, typer.Option("--meter", min=1, help="a progressive meter in cents to price the wager at")
]
JsonOption = Annotated[bool, typer.Option("--json", help="one JSON document on standard output")]
CsvOption = Annotated[bool, typer.Option("--csv", help="CSV rows on standard output")]
FORMATS = ("table", "json", "csv")
FormatOption = Annotated[
    str | None, typer.Option("--format", help="table, json or csv (the same as --json, --csv)")
]


def _formats(output: str | None, as_json: bool, as_csv: bool) -> tuple[bool, bool]:
    """(json, csv) from ``--format`` or the flags."""
    if output is None:
        return as_json, as_csv
    if output not in FORMATS:
        raise typer.BadParameter(f"one of {', '.join(FORMATS)}, got {output!r}", param_hint="--format")
    if as_json or as_csv:
        raise typer.BadParameter("give --format or --json/--csv, not both", param_hint="--format")
    return output == "json", output == "csv"


def _stderr() -> Console:
    return Console(stderr=True)


@contextmanager
def _progress(label: str, enabled: bool) -> Iterator[Callable[[int, int], None] | None]:
    """A progress bar on a terminal (standard error); a callback (done, total)."""
    if not enabled:
        yield None
        return
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=_stderr(), transient=True) as bar:
        task = bar.add_task(label, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


def _emit(
    document: Any, as_json: bool, as_csv: bool, tables: Callable[[], list[Any]], rows: Callable[[], Any]
) -> None:
    if as_json and as_csv:
        raise typer.BadParameter("give --json or --csv, not both")
    if as_json:
        sys.stdout.write(json.dumps(document, indent=2) + "\n")
    elif as_csv:
        sys.stdout.write(to_csv(rows()))
    else:
        console = Console()
        for table in tables():
            console.print(table)


@app.command("par-sheet")
def par_sheet(
    config: ConfigOption = None,
    game: GameOption = None,
    house_way: WayOption = None,
    big_hand: BigHandOption = None,
    joker_bonus: JokerOption = None,
    fortune: FortuneOption = None,
    progressive: ProgressiveOption = None,
    meter: MeterOption = None,
    as_json: JsonOption = False,
    as_csv: CsvOption = False,
    output: FormatOption = None,
) -> None:
    """Exact par sheet of the table: every seven-card hand counted (docs/math.md); on a
    53-card table the Fortune Bonus, envy and progressive too (docs/progressive.md)."""
    as_json, as_csv = _formats(output, as_json, as_csv)
    table = analysed_table(config, game, house_way, big_hand, joker_bonus)
    if table.settings.game is not Game.STANDARD and (fortune is not None or progressive is not None):
        raise typer.BadParameter(
            "the Fortune Bonus and its progressive are dealt from 53 cards (standard game)"
        )
    with _progress("enumerating", _stderr().is_terminal) as progress:
        sheet = build_par_sheet(
            table.settings.game, table.provenance, table.big_hand, table.joker_bonus, progress
        )
    document = sheet.as_dict()
    extra_tables: Callable[[dict[str, Any]], list[Any]] = lambda doc: []  # noqa: E731
    extra_rows: Callable[[dict[str, Any]], Any] = lambda doc: []  # noqa: E731
    if table.settings.game is Game.STANDARD:  # the Fortune is dealt from 53 cards
        # the table's configured Fortune and progressive tables and envy minimum ([fortune],
        # [progressive]: the shipped ones when the table names none), unless given here
        side = table.settings
        try:
            document.update(
                fortune_sections(
                    fortune or side.fortune.file,
                    progressive or side.progressive.file,
                    meter,
                    envy_wager=side.fortune.envy_minimum,
                )
            )
        except (PayTableError, ProgressiveError) as error:  # a bad file: its own words, no traceback
            raise typer.BadParameter(str(error)) from error
        extra_tables, extra_rows = fortune_tables, fortune_rows
    _emit(
        document,
        as_json,
        as_csv,
        lambda: [*par_sheet_tables(document), *extra_tables(document)],
        lambda: [*par_sheet_rows(document), *extra_rows(document)],
    )


@app.command("house-edge")
def house_edge(
    config: ConfigOption = None,
    game: GameOption = None,
    house_way: WayOption = None,
    rounds: Annotated[int, typer.Option("--rounds", min=1, help="rounds per strategy")] = 20_000_000,
    seed: Annotated[int, typer.Option("--seed", help="the same seed gives the same figures")] = 1,
    workers: Annotated[
        int | None, typer.Option("--workers", min=1, help="processes (default: every core)")
    ] = None,
    strategy: Annotated[
        list[str], typer.Option("--strategy", help=f"player strategy, repeatable: {', '.join(STRATEGIES)}")
    ] = list(STRATEGIES),  # noqa: B006 - typer declares a repeatable option's default as a list; never mutated
    wager: Annotated[
        int, typer.Option("--wager", min=1, help="main wager in cents (the commission rounds on it)")
    ] = 2500,
    cache_dir: Annotated[
        Path | None,
        typer.Option(
            "--cache-dir",
            help="the analysis cache (default the machine's, the daemon's too: docs/math.md)",
        ),
    ] = None,
    rebuild: Annotated[
        bool, typer.Option("--rebuild", help="rebuild the house-way lookup (and the exact counts)")
    ] = False,
    exact: Annotated[
        bool,
        typer.Option(
            "--exact",
            help="count every pair of hands, house way against house way (about a minute; "
            "kept in the cache); --rounds, --seed, --strategy and --wager do not apply",
        ),
    ] = False,
    as_json: JsonOption = False,
    as_csv: CsvOption = False,
    output: FormatOption = None,
) -> None:
    """House edge of the main game by simulation (Ctrl-C stops with the figures so far), or
    exact with --exact."""
    as_json, as_csv = _formats(output, as_json, as_csv)
    for name in strategy:
        if name not in STRATEGIES:
            raise typer.BadParameter(
                f"unknown strategy {name!r}; one of {', '.join(STRATEGIES)}", param_hint="--strategy"
            )
    table = analysed_table(config, game, house_way)
    err = _stderr()
    way = load_house_way(table.house_way)
    folder = cache_dir or default_cache_dir()
    with _progress("building the house-way lookup", err.is_terminal) as progress:
        loaded = get_lookup(
            way, table.provenance.house_way.sha256, table.rules.ranking, folder, rebuild, progress
        )
    if loaded.built:
        err.print(f"built the house-way lookup of {way.name} in {loaded.seconds:.1f} s: {loaded.path}")
    lookup_info = {
        "path": str(loaded.path),
        "built": loaded.built,
        "seconds": round(loaded.seconds, 3),
        **loaded.lookup.meta,
    }
    if exact:
        _exact(table, loaded, lookup_info, folder, rebuild, workers, as_json, as_csv)
        return
    results = []
    for name in strategy:
        params = sim_params(table.rules, wager, name)
        with _progress(f"player by {name}", err.is_terminal) as progress:
            done = [0]

            def advance(
                count: int, progress: Callable[[int, int], None] | None = progress, done: list[int] = done
            ) -> None:
                done[0] += count
                if progress is not None:
                    progress(done[0], rounds)

            result = simulate(loaded.path, params, rounds, seed, workers, advance)
        result.provenance = table.provenance.as_dict()
        result.lookup = lookup_info
        results.append(result.as_dict())
        if result.interrupted:
            err.print(f"interrupted: the figures of the {result.tally.rounds:,} rounds done")
            break
    if not results or not results[0]["rounds"]:
        raise typer.Exit(1)
    _emit(
        results if len(results) > 1 else results[0],
        as_json,
        as_csv,
        lambda: [house_edge_table(results)],
        lambda: house_edge_rows(results),
    )


def _exact(
    table: Any,
    loaded: LoadedLookup,
    lookup_info: dict[str, Any],
    folder: Path,
    rebuild: bool,
    workers: int | None,
    as_json: bool,
    as_csv: bool,
) -> None:
    """``house-edge --exact``: the counts (cached per lookup and game), the money of the table."""
    from ..record.pinned_rules import table_rules_bytes
    from ..storage.rules_store import sha256_hex

    rules_json = table.rules.model_dump(mode="json")
    table_rules = {"game": table.rules.game.value, "sha256": sha256_hex(table_rules_bytes(rules_json))}
    with _progress("counting every pair of hands (hands visited)", _stderr().is_terminal) as progress:
        result = cached_exact_edge(
            loaded,
            table.rules,
            folder,
            rebuild=rebuild,
            workers=workers,
            progress=progress,
            provenance=table.provenance.as_dict(),
            lookup=lookup_info,
            table_rules={**table_rules, "rules": rules_json},
        )
    document = result.as_dict()
    _emit(document, as_json, as_csv, lambda: [exact_table(document)], lambda: exact_rows(document))


__all__ = ["app"]
