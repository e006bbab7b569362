"""The round package is pure (docs/design.md, "Layers"): it imports no storage, API, device or
database module, and reads no file: a round's house way is handed to it (record/pinned_rules.py)."""

from __future__ import annotations

import ast
from pathlib import Path

ROUND = Path(__file__).resolve().parents[2] / "table_controller" / "round"
FORBIDDEN = (
    "table_controller.storage",
    "table_controller.api",
    "table_controller.floor",
    "table_controller.conductor",
    "table_controller.game.house_way.loader",
    "drivers",
    "simulators",
    "sqlalchemy",
    "sqlmodel",
)
FILE_READERS = {"load_house_way", "paytables_dir", "open"}


def _imports(path: Path):
    """(module, names) of every import in ``path``, relative ones made absolute."""
    package = "table_controller.round"
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, set()
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            module = ".".join(part for part in (base, node.module or "") if part)
            yield module, {alias.name for alias in node.names}


def test_the_round_package_imports_no_io_layer_and_no_file_reader():
    found = [
        (path.name, module, sorted(names & FILE_READERS))
        for path in sorted(ROUND.glob("*.py"))
        for module, names in _imports(path)
        if module.startswith(FORBIDDEN) or names & FILE_READERS
    ]
    assert found == []


def test_a_dice_rolled_event_names_its_source_as_the_drivers_dice_source_does():
    """The round spells the dice's source out (it imports no driver): the words are the drivers'
    ``DiceSource`` values, the one definition the store uses too."""
    from typing import get_args

    from drivers.dice_shaker.roll import DiceSource
    from table_controller.round.events import DiceRolled
    from table_controller.storage import DiceSource as StoredDiceSource

    assert set(get_args(DiceRolled.model_fields["source"].annotation)) == {s.value for s in DiceSource}
    assert StoredDiceSource is DiceSource
