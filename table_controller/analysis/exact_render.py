"""The exact house edge as a rich table and CSV rows (the JSON is ``ExactEdge.as_dict``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.table import Table

_COUNT_ROWS = (
    ("pairs", "ordered pairs of disjoint hands (player, dealer)"),
    ("wins", "player wins both hands"),
    ("pushes", "pushes"),
    ("push_copies", "  of which a copy in one hand, the other won"),
    ("dealer_not_qualified", "  of which the dealer does not qualify (003)"),
    ("losses", "player loses (copies go to the banker)"),
    ("loss_copies", "  of which with a copy"),
    ("premiums", "premium paid (003)"),
    ("dealer_pair_or_better", "dealer can make a pair or better (003)"),
    ("dealer_four_or_better", "dealer can make four of a kind or better (003)"),
)


def _sources(doc: dict[str, Any]) -> str:
    prov = doc.get("provenance") or {}
    lines = []
    if prov:
        way = prov["house_way"]
        lines.append(
            f"game {prov['game']} (wheel {prov['wheel']}, joker wild in low: {prov['joker_wild_in_low']})"
        )
        lines.append(f"house way {way['name']} sha256 {way['sha256']}")
    rules = doc.get("table_rules")
    if rules:
        lines.append(f"table rules sha256 {rules['sha256']}")
    return "\n".join(lines)


def exact_table(doc: dict[str, Any]) -> Table:
    counts = doc["counts"]
    edge = doc["house_edge"]
    title = f"Exact main game, house way against house way, {counts['deck_cards']}-card deck: " + (
        f"house edge {edge['percent']}" if edge else "house edge not per unit wagered (flat fee)"
    )
    table = Table(title=title, caption=_sources(doc))
    for column in ("", "pairs", "share"):
        table.add_column(column, justify="left" if not column else "right")
    pairs = counts["pairs"]
    for key, label in _COUNT_ROWS:
        if (key in ("premiums", "dealer_not_qualified") and not counts[key]) or counts[key] is None:
            continue
        share = counts[key] / pairs
        table.add_row(label, f"{counts[key]:,}", f"{share * 100:.6f}%")
    commission = doc["commission"]
    table.add_row(
        "commission", "", f"{commission} of a win (exact)" if commission is not None else "flat fee"
    )
    if edge:
        table.add_row("house edge (player's wager)", edge["fraction"], edge["percent"], style="bold")
    banker = doc["banker_return"]
    if banker:
        table.add_row("a banking player's return", banker["fraction"], banker["percent"])
    table.add_row("computed in", "", f"{doc['seconds']:.1f} s" + (" (cached)" if doc.get("cached") else ""))
    return table


def exact_rows(doc: dict[str, Any]) -> Iterable[list[Any]]:
    yield ["figure", "count", "fraction", "decimal"]
    pairs = doc["counts"]["pairs"]
    yield ["pairs", pairs, "1", 1.0]
    for name, share in doc["rates"].items():
        yield [name, share["count"], share["fraction"], share["decimal"]]
    for name in ("house_edge", "banker_return"):
        value = doc[name]
        if value:
            yield [name, "", value["fraction"], value["decimal"]]
    for name in ("dealer_pair_or_better", "dealer_four_or_better"):
        count = doc["counts"][name]
        if count is not None:
            yield [name, count, "", count / pairs]
    for name, count in doc["counts"]["cells"].items():
        yield [f"cell:{name}", count, "", count / pairs]
    prov = doc.get("provenance") or {}
    if prov:
        yield ["house_way", prov["house_way"]["name"], prov["house_way"]["sha256"], ""]
    if doc.get("table_rules"):
        yield ["table_rules", doc["table_rules"]["game"], doc["table_rules"]["sha256"], ""]


__all__ = ["exact_rows", "exact_table"]
