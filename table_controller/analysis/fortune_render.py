"""The par sheet's Fortune Bonus and progressive sections: the document (JSON), rich tables
and CSV rows (docs/progressive.md). The Fortune is dealt from 53 cards: a Double Joker table
has no Fortune section."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, Final

from rich.table import Table

from ..game.fortune import load_fortune_paytable
from ..game.money import format_cents
from ..game.paytables import paytables_dir
from ..game.progressive_paytable import load_progressive_paytable, progressive_dir
from .fortune_math import fortune_math
from .progressive_math import progressive_math
from .provenance import FileRef

ENVY_WAGER: Final = 500  # cents: the envy's value is quoted on a $5 wager (§1.4)
OTHERS: Final = (0, 1, 3, 5)  # other occupied positions for the edge with envy
FORTUNE_READING: Final = (
    "Best line of the position's seven cards, however set; trips stands above a straight (it pays more); "
    "royal + royal match = a royal (the joker may fill it) and a natural K-Q of another suit "
    "(progressive-research.md §1.2, docs/progressive.md)."
)


def fortune_sections(
    fortune: Path | None = None,
    progressive: Path | None = None,
    meter: int | None = None,
    envy_wager: int = ENVY_WAGER,
) -> dict[str, Any]:
    """The Fortune and progressive sections for the given files (default: the shipped ones);
    the envy's value and the edge with envy quoted on a Fortune wager of ``envy_wager`` cents
    (a table's envy minimum: the smallest wager that is paid envy, where envy is worth most)."""
    fortune_file = fortune or paytables_dir() / "fortune-a.toml"
    progressive_file = progressive or progressive_dir() / "fortune-progressive.toml"
    fortune_table = load_fortune_paytable(fortune_file)
    math = fortune_math(fortune_table)
    fortune_doc = math.as_dict(envy_wager)
    fortune_doc["file"] = _ref(fortune_file)
    fortune_doc["reading"] = FORTUNE_READING
    fortune_doc["edge_with_envy"] = [
        {
            "others": k,
            "edge": str(math.edge_with_envy(envy_wager, k)),
            "edge_decimal": float(math.edge_with_envy(envy_wager, k)),
        }
        for k in OTHERS
    ]
    progressive_table = load_progressive_paytable(progressive_file)
    prog = progressive_math(progressive_table)
    prog.check_probabilities()
    progressive_doc = prog.as_dict(meter)
    progressive_doc["file"] = _ref(progressive_file)
    return {"fortune": fortune_doc, "progressive": progressive_doc}


def _ref(path: Path) -> dict[str, str]:
    ref = FileRef.of(path.stem, path)
    return {"name": ref.name, "path": ref.path, "sha256": ref.sha256}


def _pct(value: float, places: int = 6) -> str:
    return f"{value * 100:.{places}f}%"


def fortune_tables(doc: dict[str, Any]) -> list[Table]:
    fortune, progressive = doc["fortune"], doc["progressive"]
    edges = "; ".join(
        f"{row['others']} other{'' if row['others'] == 1 else 's'} {_pct(row['edge_decimal'], 4)}"
        for row in fortune["edge_with_envy"]
    )
    table = Table(
        title=f"Fortune Bonus {fortune['table']}: house edge {_pct(fortune['house_edge_decimal'])} = "
        f"{fortune['house_edge']}; hit rate {_pct(fortune['hit_rate_decimal'], 4)}",
        caption=f"Envy per other position: {fortune['envy_per_other_position_cents_decimal']:.4f} cents = "
        f"{_pct(fortune['envy_value_decimal'], 4)} of {format_cents(fortune['envy_wager_cents'])}; "
        f"a qualifying hand {_pct(fortune['envy_hit_rate_decimal'], 4)} per position. "
        f"Edge of a {format_cents(fortune['envy_wager_cents'])} wager with envy: {edges}.\n"
        f"Reading used: {fortune['reading']}\n"
        f"{fortune['file']['name']} sha256 {fortune['file']['sha256'][:16]}…",
    )
    for column in ("line", "pays", "envy", "combinations", "probability", "return"):
        table.add_column(column, justify="left" if column == "line" else "right")
    for line in fortune["lines"]:
        odds = line["odds"]
        table.add_row(
            line["line"],
            f"{odds} to 1" if odds != "loss" else "loss",
            format_cents(line["envy_cents"]) if line["envy_cents"] else "",
            f"{line['combinations']:,}",
            f"{line['probability_decimal']:.10f}",
            f"{line['contribution_decimal']:+.8f}",
        )
    table.add_row(
        "total",
        "",
        "",
        f"{fortune['total_combinations']:,}",
        "1",
        f"{-fortune['house_edge_decimal']:+.8f}",
        style="bold",
    )
    lines = Table(
        title=f"Progressive {progressive['table']}: {format_cents(progressive['wager_cents'])} wager; "
        f"long-run return {_pct(progressive['long_run_return_decimal'], 4)}",
        caption=f"Hits together: {progressive['simultaneous']}, "
        f"percentages of the {progressive['percent_base']}.\n{progressive['source']}\n"
        f"{progressive['file']['name']} sha256 {progressive['file']['sha256'][:16]}…",
    )
    for column in ("line", "award", "combinations", "probability"):
        lines.add_column(column, justify="left" if column in ("line", "award") else "right")
    for line in progressive["lines"]:
        lines.add_row(
            line["line"], line["award"], f"{line['combinations']:,}", f"{line['probability_decimal']:.10f}"
        )
    levels = Table(title="Progressive levels (PRG-01, PRG-02)")
    columns = ("level", "base", "reset", "increment", "reserve", "limit", "1 in", "return at reset")
    for column in (*columns, "return at meter", "break-even meter"):
        levels.add_column(column, justify="left" if column == "level" else "right")
    for level in progressive["levels"]:
        at_meter = level["return_at_meter"]
        meter_text = (
            f"{_pct(at_meter, 4)} at {format_cents(progressive['meter_cents'])}"
            if at_meter is not None
            else "-"
        )
        even = level["break_even_meter_cents_decimal"]
        levels.add_row(
            level["level"],
            format_cents(level["base_cents"]),
            format_cents(level["reset_cents"]),
            f"{level['increment_bp'] / 100:g}%",
            f"{level['reserve_bp'] / 100:g}%",
            format_cents(level["limit_cents"]) if level["limit_cents"] is not None else "none",
            f"{level['one_in']:,.1f}" if level["one_in"] else "-",
            _pct(level["return_at_reset"], 4),
            meter_text,
            format_cents(round(even)) if even is not None else "-",  # to the nearest cent
        )
    return [table, lines, levels]


def fortune_rows(doc: dict[str, Any]) -> Iterable[list[Any]]:
    """CSV rows in the par sheet's columns (section, line, odds, combinations, probability,
    probability_decimal, contribution)."""
    fortune, progressive = doc["fortune"], doc["progressive"]
    section = f"fortune:{fortune['table']}"
    for line in fortune["lines"]:
        yield [
            section,
            line["line"],
            line["odds"],
            line["combinations"],
            line["probability"],
            line["probability_decimal"],
            line["contribution"],
        ]
    yield [section, "hit-rate", "", "", fortune["hit_rate"], fortune["hit_rate_decimal"], ""]
    yield [section, "house-edge", "", "", fortune["house_edge"], fortune["house_edge_decimal"], ""]
    yield [section, "envy-value-5-dollars", "", "", fortune["envy_value"], fortune["envy_value_decimal"], ""]
    section = f"progressive:{progressive['table']}"
    for line in progressive["lines"]:
        yield [
            section,
            line["line"],
            line["award"],
            line["combinations"],
            line["probability"],
            line["probability_decimal"],
            "",
        ]
    for level in progressive["levels"]:
        yield [
            section,
            f"{level['level']}:break-even-meter-cents",
            "",
            "",
            level["break_even_meter_cents"],
            level["break_even_meter_cents_decimal"],
            "",
        ]
        yield [section, f"{level['level']}:return-at-reset", "", "", "", level["return_at_reset"], ""]
    yield [
        section,
        "long-run-return",
        "",
        "",
        progressive["long_run_return"],
        progressive["long_run_return_decimal"],
        "",
    ]


__all__ = ["fortune_rows", "fortune_sections", "fortune_tables"]
