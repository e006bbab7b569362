"""What an installed wheel carries: the shipped configuration is package data (shipped.py)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from table_controller.shipped import CONFIG_DIR

REPO = Path(__file__).resolve().parents[1]


def test_every_shipped_config_file_is_package_data():
    """A house way, pay table or settings file that the package-data globs miss would be in a
    checkout and missing from an installed wheel: the daemon would not find its house way."""
    package = REPO / "table_controller"
    patterns = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"][
        "table_controller"]
    shipped = {path for pattern in patterns for path in package.glob(pattern)}
    present = {path for path in CONFIG_DIR.rglob("*") if path.is_file()}
    assert present, "no configuration found"
    assert present - shipped == set()
    assert {p.relative_to(CONFIG_DIR).as_posix() for p in present} >= {
        "table.toml", "house_ways/house-way-002.toml", "paytables/big-hand-003.toml", "paytables/joker-bonus-003.toml"}
