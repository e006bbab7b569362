"""docs/round-lifecycle.md shows the transition table as it is: exactly render_mermaid()'s output."""

from __future__ import annotations

from pathlib import Path

from table_controller.round.diagram import render_mermaid

DOC = Path(__file__).resolve().parents[2] / "docs" / "round-lifecycle.md"


def test_the_lifecycle_page_holds_exactly_the_diagram_rendered_from_the_transition_table():
    text = DOC.read_text(encoding="utf-8")
    blocks = text.split("```mermaid\n")[1:]
    assert len(blocks) == 1
    assert blocks[0].split("```")[0] == render_mermaid()
