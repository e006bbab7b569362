"""The positions have one definition, game/deal.py (docs/design.md, "Naming"): 1..7 counted
counter-clockwise, the banker is 1 (000_f88fa0f023e5142c.txt, 004_60e2fc6346e3399b.txt)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from table_controller.game.deal import BANKER_POSITION, PLAYER_POSITIONS, POSITIONS

PACKAGE = Path(__file__).resolve().parents[2] / "table_controller"
DEAL = PACKAGE / "game" / "deal.py"
BANKING = PACKAGE / "game" / "banking.py"

# 1..7 or 2..7 written out: a range, or the numbers listed
LITERAL = re.compile(r"range\(\s*[12]\s*,\s*8\s*\)|[(\[]\s*(1,\s*)?2,\s*3,\s*4,\s*5,\s*6,\s*7\s*[)\]]")
# the table's seats are another thing (game/banking.py): places counted from the dealer's seat
SEAT_LINES = {"SEATS: Final = tuple(range(1, 8))", "PLAYER_SEATS: Final = tuple(range(2, 8))"}
NAMES = {"POSITIONS", "PLAYER_POSITIONS", "BANKER_POSITION"}


def sources() -> list[Path]:
    return sorted(path for path in PACKAGE.rglob("*.py") if path != DEAL)


def test_the_positions_are_one_to_seven_the_banker_one_and_the_players_the_rest():
    assert POSITIONS == (1, 2, 3, 4, 5, 6, 7)
    assert BANKER_POSITION == 1
    assert PLAYER_POSITIONS == (2, 3, 4, 5, 6, 7)


def test_no_module_writes_out_the_positions_of_its_own():
    found = []
    for path in sources():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if path == BANKING and line.strip() in SEAT_LINES:
                continue
            if LITERAL.search(line):
                found.append(f"{path.relative_to(PACKAGE.parent)}:{number}: {line.strip()}")
    assert found == []


def test_no_module_defines_a_positions_name_of_its_own():
    """Only game/deal.py assigns the positions' names (storage calls its table of a round's
    positions ``POSITION_ROWS``)."""
    found = []
    for path in sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, ast.AnnAssign):
                targets = [node.target]
            else:
                continue
            named = {t.id for t in targets if isinstance(t, ast.Name)} & NAMES
            if named:
                found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {sorted(named)}")
    assert found == []
