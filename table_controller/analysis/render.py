"""Par sheets and house-edge results as rich tables and CSV rows (the JSON is ``as_dict``)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from typing import Any

from rich.table import Table


def _pct(value: float, places: int = 4) -> str:
    return f"{value * 100:.{places}f}%"


def _source(prov: dict[str, Any]) -> str:
    parts = [f"game {prov['game']} (wheel {prov['wheel']}, joker wild in low: {prov['joker_wild_in_low']})"]
    parts.append(f"house way {prov['house_way']['name']} sha256 {prov['house_way']['sha256'][:16]}…")
    for key in ("big_hand", "joker_bonus"):
        if prov.get(key):
            parts.append(f"{key.replace('_', ' ')} {prov[key]['name']} sha256 {prov[key]['sha256'][:16]}…")
    return "; ".join(parts)


def par_sheet_tables(sheet: dict[str, Any]) -> list[Table]:
    """The par sheet as rich tables: the hand distribution, then one per bonus."""
    tables = []
    dist = Table(
        title=f"Best five-card hand of seven, {sheet['deck_cards']}-card deck: {sheet['hands']:,} hands",
        caption=f"{sheet['best_five_reading']}\n{_source(sheet['provenance'])}",
    )
    for column in ("hand", "combinations", "probability"):
        dist.add_column(column, justify="left" if column == "hand" else "right")
    for row in sheet["best_five"]:
        dist.add_row(row["category"], f"{row['combinations']:,}", f"{row['probability_decimal']:.8f}")
    dist.add_row("total", f"{sheet['hands']:,}", "1.00000000", style="bold")
    tables.append(dist)
    for bonus in sheet["bonuses"]:
        published = bonus["published_hit_rate"]
        note = f"003 prints a {published} hit rate: " + (
            "reproduced." if bonus["published_hit_rate_reproduced"] else "NOT reproduced by this enumeration."
        )
        table = Table(
            title=f"{bonus['bonus']}: house edge {_pct(bonus['house_edge_decimal'])} = "
            f"{bonus['house_edge']}; hit rate {_pct(bonus['hit_rate_decimal'])}",
            caption=f"{note}\nReading used: {bonus['reading']}",
        )
        for column in ("line", "pays", "combinations", "probability", "return"):
            table.add_column(column, justify="left" if column == "line" else "right")
        for line in bonus["lines"]:
            odds = line["odds"]
            table.add_row(
                line["line"],
                f"{odds} to 1" if odds != "loss" else "loss",
                f"{line['combinations']:,}",
                f"{line['probability_decimal']:.10f}",
                f"{line['contribution_decimal']:+.8f}",
            )
        table.add_row(
            "total",
            "",
            f"{bonus['total_combinations']:,}",
            "1",
            f"{-bonus['house_edge_decimal']:+.8f}",
            style="bold",
        )
        tables.append(table)
    return tables


def par_sheet_rows(sheet: dict[str, Any]) -> Iterable[list[Any]]:
    yield ["section", "line", "odds", "combinations", "probability", "probability_decimal", "contribution"]
    for row in sheet["best_five"]:
        yield [
            "best-five",
            row["category"],
            "",
            row["combinations"],
            row["probability"],
            row["probability_decimal"],
            "",
        ]
    for bonus in sheet["bonuses"]:
        for line in bonus["lines"]:
            yield [
                bonus["bonus"],
                line["line"],
                line["odds"],
                line["combinations"],
                line["probability"],
                line["probability_decimal"],
                line["contribution"],
            ]
        yield [bonus["bonus"], "hit-rate", "", "", bonus["hit_rate"], bonus["hit_rate_decimal"], ""]
        yield [bonus["bonus"], "house-edge", "", "", bonus["house_edge"], bonus["house_edge_decimal"], ""]


_EDGE_ROWS = (
    ("rounds", "rounds simulated", lambda v: f"{v:,}"),
    ("house_edge", "house edge (player's wager)", _pct),
    ("standard_error", "standard error", _pct),
    ("interval_95", "95% interval", lambda v: f"{_pct(v[0])} .. {_pct(v[1])}"),
    ("win_rate", "player wins", _pct),
    ("push_rate", "pushes", _pct),
    ("loss_rate", "player loses", _pct),
    ("high_copy_rate", "high hands copy", _pct),
    ("low_copy_rate", "low hands copy", _pct),
    ("any_copy_rate", "a copy in either hand", _pct),
    ("dealer_not_qualified_rate", "dealer not qualified (003)", _pct),
    ("premium_rate", "premium paid (003)", _pct),
    ("commission_per_hand_cents", "commission per hand", lambda v: f"{v:.2f} cents"),
    ("fees_per_hand_cents", "fees per hand", lambda v: f"{v:.2f} cents"),
    ("rounds_per_second", "rounds per second", lambda v: f"{v:,}" if v else "-"),
)


def house_edge_table(results: list[dict[str, Any]]) -> Table:
    first = results[0]
    table = Table(
        title=f"Main game, dealer by the house way, wager {first['wager_cents']} cents, seed {first['seed']}",
        caption=_source(first["provenance"]) + f"\nlookup {first['lookup'].get('path', '')}",
    )
    table.add_column("")
    for result in results:
        label = f"player by {result['strategy']}" + (" (interrupted)" if result["interrupted"] else "")
        table.add_column(label, justify="right")
    for key, label, fmt in _EDGE_ROWS:
        table.add_row(label, *(fmt(result[key]) for result in results))
    return table


def house_edge_rows(results: list[dict[str, Any]]) -> Iterable[list[Any]]:
    yield ["strategy", *(key for key, _, _ in _EDGE_ROWS)]
    for result in results:
        row = [result["strategy"]]
        for key, _, _ in _EDGE_ROWS:
            value = result[key]
            row.append(";".join(map(str, value)) if isinstance(value, list) else value)
        yield row


def to_csv(rows: Iterable[list[Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for row in rows:
        writer.writerow(row)
    return out.getvalue()


__all__ = ["house_edge_rows", "house_edge_table", "par_sheet_rows", "par_sheet_tables", "to_csv"]
