"""docs/progressive.md maps every PRG-nn of progressive-research.md to a test that exists (or
to a stated reason): a renamed or deleted test makes this fail instead of leaving the table
naming a test that is gone."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "progressive.md"
ROW = re.compile(r"^\| (\d\d) \| [^|]+ \| (.+) \|$")
REFERENCE = re.compile(r"`((?:\w+/)*\w+\.py)?::(\w+)")


def _rows() -> dict[int, str]:
    return {int(m.group(1)): m.group(2) for line in DOC.read_text().splitlines() if (m := ROW.match(line))}


def test_every_requirement_has_a_row() -> None:
    assert sorted(_rows()) == list(range(1, 53))


def test_every_named_test_exists() -> None:
    named = 0
    for number, cell in _rows().items():
        path = None
        for match in REFERENCE.finditer(cell):
            path = match.group(1) or path
            assert path is not None, f"PRG-{number:02d}: a test without its file"
            source = (ROOT / "tests" / path).read_text()
            name = match.group(2)
            assert re.search(rf"^(def {name}\(|{name} = )", source, re.M), f"PRG-{number:02d}: {path}::{name}"
            named += 1
        assert "::" in cell or "integration (not yet built)" in cell or "does not apply" in cell, number
    assert named > 52
