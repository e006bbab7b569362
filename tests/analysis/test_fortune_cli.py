"""``analyze par-sheet`` prints the Fortune Bonus and progressive sections of a 53-card table
(docs/progressive.md)."""

from __future__ import annotations

import csv
import io
import json
from fractions import Fraction
from pathlib import Path

from typer.testing import CliRunner

from table_controller.cli.analysis import app
from table_controller.game.paytables import paytables_dir


def test_the_par_sheet_carries_the_fortune_and_progressive_sections() -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["par-sheet", "--json", "--meter", "5000000"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    fortune, progressive = document["fortune"], document["progressive"]
    assert fortune["table"] == "fortune-a"
    assert Fraction(fortune["house_edge"]) == Fraction(11_970_096, 154_143_080)
    assert f"{fortune['envy_value_decimal'] * 100:.4f}" == "0.9268"
    assert fortune["file"]["name"] == "fortune-a" and len(fortune["file"]["sha256"]) == 64
    level = progressive["levels"][0]
    assert progressive["meter_cents"] == 5_000_000 and level["return_at_meter"] > level["return_at_reset"]
    assert level["break_even_meter_cents_decimal"] > level["reset_cents"]


def test_table_b_by_file_in_csv_and_the_rich_tables() -> None:
    runner = CliRunner()
    table_b = str(paytables_dir() / "fortune-b.toml")
    result = runner.invoke(app, ["par-sheet", "--csv", "--fortune", table_b])
    assert result.exit_code == 0, result.output
    rows = {(row[0], row[1]): row for row in csv.reader(io.StringIO(result.stdout))}
    assert f"{float(rows[('fortune:fortune-b', 'house-edge')][5]) * 100:.4f}" == "7.8279"
    assert rows[("fortune:fortune-b", "three-of-a-kind")][3] == "7672500"
    text = runner.invoke(app, ["par-sheet", "--fortune", table_b], terminal_width=240).stdout
    assert "Fortune Bonus fortune-b: house edge 7.827854%" in text and "0.9185% of $5.00" in text


def test_the_fortune_is_refused_on_a_double_joker_table() -> None:
    result = CliRunner().invoke(
        app, ["par-sheet", "--game", "double-joker", "--fortune", str(paytables_dir() / "fortune-a.toml")]
    )
    assert result.exit_code == 2 and "53 cards" in result.output


def test_a_bad_fortune_or_progressive_file_is_refused_in_words(tmp_path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('bonus = "fortune"\n[odds]\nstraight = 2\n', encoding="utf-8")
    result = CliRunner().invoke(app, ["par-sheet", "--fortune", str(bad)])
    assert result.exit_code == 2 and "lacks line(s)" in result.output
    result = CliRunner().invoke(app, ["par-sheet", "--progressive", str(tmp_path / "none.toml")])
    assert result.exit_code == 2 and "cannot read progressive pay table" in result.output


def test_the_par_sheet_prices_the_tables_the_table_is_configured_with(tmp_path) -> None:
    """The Fortune and progressive files a table's settings name ([fortune], [progressive]) and
    its envy minimum, not the shipped defaults. Table B's envy per other position, worked from
    progressive-research.md §1.2: $3,000 x 32 + $1,000 x 72 + $500 x 196 + $250 x 1,128 +
    $50 x 26,020 + $20 x 184,644 + $5 x 307,472 = 707,924,000 cents over C(53,7) hands; on a
    $10 minimum that is 707,924,000 / (154,143,080 x 1,000) of the wager."""
    progressive = tmp_path / "our-progressive.toml"
    shipped = (Path(__file__).parents[2] / "config" / "progressive" / "fortune-progressive.toml").read_text()
    progressive.write_text(shipped.replace('name = "fortune-progressive-example"', 'name = "ours"'))
    config = tmp_path / "table.toml"
    config.write_text(
        'table_id = "t9"\n'
        '[fortune]\nenabled = true\npaytable = "fortune-b.toml"\nenvy_minimum = 1000\n'
        f'[progressive]\nenabled = true\npaytable = "{progressive}"\n',
        encoding="utf-8",
    )
    result = CliRunner().invoke(app, ["par-sheet", "--json", "--config", str(config), "--meter", "2000000"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    fortune, prog = document["fortune"], document["progressive"]
    assert fortune["table"] == "fortune-b" and fortune["envy_wager_cents"] == 1000
    assert Fraction(fortune["envy_value"]) == Fraction(707_924_000, 154_143_080 * 1000)
    assert prog["table"] == "ours" and prog["file"]["path"].endswith("our-progressive.toml")
    # the return at $20,000 and the break-even meter, as docs/progressive.md works them
    level = prog["levels"][0]
    assert level["return_at_meter"] > level["return_at_reset"]
    assert Fraction(level["break_even_meter_cents"]) == Fraction(6_555_470_000, 143)
    text = CliRunner().invoke(app, ["par-sheet", "--config", str(config)], env={"COLUMNS": "240"}).stdout
    # table B's 7.8279% less one other position's envy on $10, half its 0.9185% on $5
    assert "$10.00 wager with envy: 0 others 7.8279%; 1 other 7.3686%" in text and "$458,424.48" in text
