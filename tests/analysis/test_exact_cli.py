"""``analyze house-edge --exact``: the counts kept per lookup and game, the result named by
content hash, the table and CSV carrying the same figures as the JSON."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
from rich.console import Console
from typer.testing import CliRunner

from table_controller.analysis.exact import cache_path, cached_exact_edge
from table_controller.analysis.exact_brute import deck_hands
from table_controller.analysis.exact_classes import Deck
from table_controller.analysis.exact_render import exact_rows, exact_table
from table_controller.analysis.lookup import LoadedLookup, build_lookup, hand_keys, pattern_of_key
from table_controller.analysis.provenance import provenance
from table_controller.cli.analysis import app
from table_controller.game.cards import Game
from table_controller.game.house_way import load_house_way
from table_controller.game.money import FlatFee
from table_controller.game.table_rules import TableRules

DECK = Deck((9, 10, 11, 12), 1)  # J-A in four suits and a joker: 17 cards


def _loaded(tmp_path: Path) -> LoadedLookup:
    keys = np.unique(hand_keys(deck_hands(DECK)))
    lookup = build_lookup(load_house_way("house-way-002"), pattern_list=[pattern_of_key(k) for k in keys])
    return LoadedLookup(lookup, tmp_path / "lookup-test.npz", built=True, seconds=0.0)


def test_counts_are_kept_and_read_back(tmp_path: Path) -> None:
    loaded, rules = _loaded(tmp_path), TableRules()
    first = cached_exact_edge(loaded, rules, tmp_path, deck=DECK)
    assert not first.cached and cache_path(tmp_path, loaded.path, rules, DECK).is_file()
    again = cached_exact_edge(loaded, rules, tmp_path, deck=DECK)
    assert again.cached and again.counts.cells == first.counts.cells and again.house_edge == first.house_edge
    # another game is counted apart, and --rebuild counts again
    assert not cached_exact_edge(loaded, TableRules(game=Game.DOUBLE_JOKER), tmp_path, deck=DECK).cached
    assert not cached_exact_edge(loaded, rules, tmp_path, deck=DECK, rebuild=True).cached


def test_table_and_csv_carry_the_json_figures(tmp_path: Path) -> None:
    rules = TableRules()
    prov = provenance(Game.STANDARD, rules.ranking, "house-way-002").as_dict()
    result = cached_exact_edge(
        _loaded(tmp_path),
        rules,
        tmp_path,
        deck=DECK,
        provenance=prov,
        table_rules={"game": "standard", "sha256": "ab" * 32},
    )
    doc = json.loads(json.dumps(result.as_dict()))
    assert doc["house_edge"]["fraction"] == str(result.house_edge)
    assert doc["provenance"]["house_way"]["sha256"] == prov["house_way"]["sha256"]
    rows = {row[0]: row for row in exact_rows(doc)}
    assert rows["win"][1] == result.counts.wins and rows["house_edge"][2] == str(result.house_edge)
    assert rows["house_way"][2] == prov["house_way"]["sha256"] and rows["table_rules"][2] == "ab" * 32
    out = io.StringIO()
    Console(file=out, width=200).print(exact_table(doc))
    text = out.getvalue()
    assert doc["house_edge"]["percent"] in text and f"{result.counts.pairs:,}" in text
    assert prov["house_way"]["sha256"] in text


def test_a_bad_format_is_refused_before_any_work() -> None:
    runner = CliRunner()
    bad = runner.invoke(app, ["house-edge", "--exact", "--format", "xml"])
    assert bad.exit_code == 2 and "table, json, csv" in bad.output
    both = runner.invoke(app, ["house-edge", "--exact", "--format", "json", "--csv"])
    assert both.exit_code == 2 and "not both" in both.output


def test_double_joker_and_flat_fee_tables_render(tmp_path: Path) -> None:
    """The Double Joker dealer's rows appear; a flat fee has no per-unit edge and says so."""
    loaded = _loaded(tmp_path)
    dj = cached_exact_edge(loaded, TableRules(game=Game.DOUBLE_JOKER), tmp_path, deck=DECK).as_dict()
    assert dj["counts"]["dealer_pair_or_better"] is not None and dj["banker_return"] is None
    flat = cached_exact_edge(loaded, TableRules(commission=FlatFee(fee=100)), tmp_path, deck=DECK).as_dict()
    assert flat["house_edge"] is None and flat["commission"] is None and "flat fee" in flat["commission_note"]
    for doc, expected in ((dj, "dealer can make a pair or better"), (flat, "flat fee")):
        out = io.StringIO()
        Console(file=out, width=200).print(exact_table(doc))
        assert expected in out.getvalue()
        assert [row[0] for row in exact_rows(doc)][:2] == ["figure", "pairs"]
