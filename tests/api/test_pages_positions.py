"""The pages take the banker's position and the players' from the API (``banker_position``,
``player_positions`` of GET /api/table and GET /api/rounds/{id}), never from literals of their
own: the positions have one definition, game/deal.py."""

from __future__ import annotations

from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parents[2] / "table_controller" / "api" / "static"
SCRIPTS = sorted(STATIC.glob("*.js"))
LITERALS = ["[2, 3, 4, 5, 6, 7]", "position === 1", "(position 1)"]


def test_there_are_scripts_to_read():
    assert {"commands.js", "round.js", "table.js"} <= {path.name for path in SCRIPTS}


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.name)
def test_no_script_writes_out_the_positions(script):
    text = script.read_text(encoding="utf-8")
    assert [literal for literal in LITERALS if literal in text] == []
