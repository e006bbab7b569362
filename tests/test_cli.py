"""The command line: rank and house-way, single hands and batch mode, exit statuses."""

import gc
import importlib
import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from table_controller.cli.main import LAZY_GROUPS, app
from table_controller.daemon.startup import collector_paused
from table_controller.game.cards import CARD_CODE_FORMAT

runner = CliRunner()


def run(*args, input=None):
    result = runner.invoke(app, list(args), input=input)
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    return result.exit_code, lines


def test_rank_five_card_hand_prints_cards_category_and_score():
    code, [out] = run("rank", "as", "Ks", "10s", "Js", "JK")
    assert code == 0
    assert out["cards"] == ["As", "Ks", "Ts", "Js", "JK"]
    assert out["category"] == "royal-flush"
    assert isinstance(out["score"], int)


@pytest.mark.parametrize(
    ("better", "worse"),
    [
        ("As Ah Ad Ac JK", "As Ks Qs Js Ts"),  # five aces beat a royal flush (002)
        ("Ah 2d 3h 4s 5c", "Kc Qd Jh Ts 9s"),  # A-2-3-4-5 above K-high (001)
        ("Ah Kd Qh Js Tc", "Ah 2d 3h 4s 5c"),  # and below A-high
    ],
)
def test_rank_scores_order_hands_of_the_same_size(better, worse):
    _, [a] = run("rank", *better.split())
    _, [b] = run("rank", *worse.split())
    assert a["score"] > b["score"]


def test_rank_california_wheel_is_the_lowest_straight():
    _, [wheel] = run("rank", "--wheel", "california", "Ah", "2d", "3h", "4s", "5c")
    _, [six] = run("rank", "--wheel", "california", "6h", "2d", "3h", "4s", "5c")
    assert wheel["category"] == six["category"] == "straight"
    assert wheel["score"] < six["score"]


def test_rank_two_card_hand_and_copy():
    _, [pair] = run("rank", "2c", "2d")
    _, [ace_king] = run("rank", "Ac", "Kd")
    _, [copy] = run("rank", "Ah", "Ks")
    assert pair["category"] == "pair" and ace_king["category"] == "high-card"
    assert pair["score"] > ace_king["score"] == copy["score"]


def test_rank_bad_single_hand_exits_1_naming_the_code():
    code, [out] = run("rank", "As", "Zs")
    assert code == 1
    assert out == {"error": f"unknown card code 'Zs': {CARD_CODE_FORMAT}"}


def test_rank_batch_answers_each_line_in_order_and_reports_bad_lines(tmp_path):
    batch = tmp_path / "hands.txt"
    batch.write_text("As Ah\nKs Kd Kh 2c 2d\n\n# a comment: As Ks\nXx 2c\nJK JK\n  #\nAs Ks Qs\n")
    code, lines = run("rank", "--batch", str(batch))
    assert code == 1
    assert [line.get("category") for line in lines[:2]] == ["pair", "full-house"]
    assert lines[2:] == [
        {"line": 5, "error": f"unknown card code 'Xx': {CARD_CODE_FORMAT}"},
        {"line": 6, "error": "2 jokers, the deck holds 1"},
        {"line": 8, "error": "3 cards, expected 5 or 2"},
    ]


def test_rank_batch_from_stdin_all_good_exits_0():
    code, lines = run("rank", "--batch", "-", input="JK JK\nAs Ks Qs Js JK\n")
    assert code == 1  # two jokers are refused in the standard game
    code, lines = run("rank", "--game", "double-joker", "--batch", "-", input="JK JK\nAs Ks Qs Js JK\n")
    assert code == 0
    assert [line["category"] for line in lines] == ["pair", "royal-flush"]


@pytest.mark.parametrize(
    "args",
    [
        ["rank"],
        ["rank", "As", "Ks", "--batch", "-"],
        ["rank", "--batch", "/no/such/file"],
        ["house-way", "--game", "poker", "As"],
        ["nonsense"],
    ],
)
def test_usage_errors_exit_2(args):
    code, _ = run(*args)
    assert code == 2


def test_house_way_prints_the_split_and_the_rule():
    code, [out] = run("house-way", "As", "Ks", "Qs", "Js", "Ts", "Ah", "Ad")
    assert code == 0
    # house-way-readings.md G5: low Ah Ad, high As Ks Qs Js Ts
    assert sorted(out["low"]) == ["Ad", "Ah"]
    assert sorted(out["high"]) == sorted(["As", "Ks", "Qs", "Js", "Ts"])
    assert out["cards"] == ["As", "Ks", "Qs", "Js", "Ts", "Ah", "Ad"]
    assert out["rule"]


def test_house_way_unknown_way_is_a_usage_error():
    code, _ = run("house-way", "--way", "no-such-way", "As", "Ks", "Qs", "Js", "Ts", "Ah", "Ad")
    assert code == 2


def test_house_way_batch_double_joker(tmp_path):
    batch = tmp_path / "hands.txt"
    batch.write_text("Ks Kh Kd Kc 5s 5h 2c\nAs Ah Ad JK JK 7c\nAc Qd 9h 7s 5c 3d 2h\n")
    code, lines = run("house-way", "--game", "double-joker", "--batch", str(batch))
    assert code == 1
    assert sorted(lines[0]["low"]) == ["5h", "5s"]  # 003 overqualifier
    assert lines[1] == {"line": 2, "error": "6 cards, expected 7"}
    assert sorted(lines[2]["low"]) == ["7s", "Qd"]  # readings C1


def test_console_script_is_installed_and_runs():
    result = subprocess.run(
        [sys.executable, "-m", "table_controller", "rank", "As", "Ad"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["category"] == "pair"


def test_a_rejected_hand_is_reported_once_on_standard_output_not_also_as_a_log_line():
    result = runner.invoke(app, ["rank", "Zs", "As"])
    assert result.exit_code == 1
    assert result.stdout == json.dumps({"error": f"unknown card code 'Zs': {CARD_CODE_FORMAT}"}) + "\n"
    assert result.stderr == ""


HEAVY = {"sqlalchemy", "fastapi", "numpy", "numba"}  # the store, the API, the analysis


def _in_a_new_interpreter(code: str) -> tuple[str, list[str]]:
    """``code`` run by a Python of its own: what it printed, and every module it left imported."""
    probe = f"{code}\nimport sys\nprint()\nprint(' '.join(sorted(sys.modules)))\n"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    printed, _, modules = result.stdout.rstrip("\n").rpartition("\n")
    return printed, modules.split()


def _words(text: str) -> str:
    """Rich's help boxes as plain words: borders and line wraps gone."""
    return " ".join(text.replace("│", " ").split())


def test_the_game_commands_import_the_game_core_only():
    """``rank`` and ``house-way`` are asked at the table: they start without the store, the API
    or the analysis (their imports took seconds when the command line imported every group)."""
    _, modules = _in_a_new_interpreter("import table_controller.cli.main")
    assert [m for m in modules if m.split(".")[0] in HEAVY] == []


def test_the_help_lists_every_group_without_importing_it():
    """``table-controller --help`` names each group with its line of help, and imports neither the
    store nor the analysis to do it (it took four times as long when it imported them); a group
    is imported when it is used, and its own help is the line listed."""
    listing, modules = _in_a_new_interpreter(
        "from table_controller.cli.main import app\ntry:\n    app(['--help'])\nexcept SystemExit:\n    pass"
    )
    assert [m for m in modules if m.split(".")[0] in HEAVY or m.endswith("_cli")] == []
    for name, group in LAZY_GROUPS.items():
        assert f"{name} {group.help}" in _words(listing)
        used = runner.invoke(app, [name, "--help"])
        assert used.exit_code == 0 and group.help in _words(used.stdout)


def test_a_command_imports_the_stack_with_the_collector_paused_and_freezes_it():
    """``audit verify``, ``run`` and the lazy groups import the store (and the API) with Python's
    cyclic collector paused, then freeze what the imports made: the collector walked those objects
    again and again while they were made, a fifth of the CPU the import took. It runs again after."""
    printed, _ = _in_a_new_interpreter(
        "import gc\nfrom table_controller.cli.main import app\n"
        "try:\n    app(['audit', 'verify', '--db-url', 'postgresql://nobody@127.0.0.1:1/none'])\n"
        "except SystemExit:\n    pass\n"
        "print(gc.isenabled(), gc.get_freeze_count())"
    )
    enabled, frozen = printed.splitlines()[-1].split()
    assert enabled == "True"
    assert int(frozen) > 50_000  # the store's modules; none are frozen without the pause


def test_the_collector_runs_again_after_an_import_that_fails():
    try:
        with pytest.raises(ModuleNotFoundError), collector_paused():
            assert not gc.isenabled()
            importlib.import_module("table_controller.no_such_module")
        assert gc.isenabled()
    finally:
        gc.unfreeze()  # this test process's objects go back to the collector


def _commands(command, path=()):
    """Every command of the tree, the lazy groups imported (``LAZY_GROUPS``)."""
    import typer

    yield path, command
    if hasattr(command, "list_commands"):
        ctx = typer.main.get_command(app).make_context("table-controller", [], resilient_parsing=True)
        for name in command.list_commands(ctx):
            yield from _commands(command.get_command(ctx, name), (*path, name))


def test_every_help_text_reads_as_prose_at_the_terminals_width():
    """No literal backticks, and each paragraph of a command's text on one line of a wide
    terminal: the source's line breaks are not the reader's (cli.HELP_MARKUP)."""
    import inspect
    import re

    import typer

    checked = 0
    for path, command in _commands(typer.main.get_command(app)):
        shown = runner.invoke(app, [*path, "--help"], terminal_width=400, env={"COLUMNS": "400"})
        assert shown.exit_code == 0, (path, shown.output)
        assert "`" not in shown.output, (path, [line for line in shown.output.splitlines() if "`" in line])
        lines = [" ".join(line.strip(" │").split()) for line in shown.output.splitlines()]
        for paragraph in inspect.cleandoc(command.help or "").split("\n\n")[1:]:
            words = " ".join(paragraph.split())
            if len(words) < 300 and not re.search(r"[`*_\[]", words):
                assert words in lines, (path, words)
        checked += 1
    assert checked >= 21  # the whole tree, its lazy groups too
