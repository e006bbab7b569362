"""What an installed wheel carries: the shipped configuration and every package (shipped.py)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from table_controller.shipped import CONFIG_DIR

REPO = Path(__file__).resolve().parents[1]
SETUPTOOLS = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]


def test_the_configuration_is_the_top_level_config_folder_mapped_into_the_package():
    assert CONFIG_DIR == REPO / "config"
    assert SETUPTOOLS["package-dir"] == {"table_controller.config": "config"}


def test_every_shipped_config_file_is_package_data():
    """A house way, pay table or settings file that the package-data globs miss would be in a
    checkout and missing from an installed wheel: the daemon would not find its house way."""
    patterns = SETUPTOOLS["package-data"]["table_controller.config"]
    shipped = {path for pattern in patterns for path in CONFIG_DIR.glob(pattern)}
    present = {path for path in CONFIG_DIR.rglob("*") if path.is_file() and path.suffix == ".toml"}
    assert present, "no configuration found"
    assert present - shipped == set()
    assert {p.relative_to(CONFIG_DIR).as_posix() for p in present} >= {
        "table.toml",
        "house_ways/house-way-002.toml",
        "paytables/big-hand-003.toml",
        "paytables/joker-bonus-003.toml",
    }


def test_every_package_folder_is_listed_for_the_wheel():
    """The package-dir mapping needs the packages listed by hand: a new folder of code that is
    not listed would be missing from an installed wheel."""
    folders = {
        ".".join(path.parent.relative_to(REPO).parts)
        for top in ("table_controller", "drivers", "simulators")
        for path in (REPO / top).rglob("*.py")
        if "__pycache__" not in path.parts
    }
    assert folders | {"table_controller.config"} == set(SETUPTOOLS["packages"])


def test_every_library_the_package_imports_is_an_installed_dependency():
    """The README's first command installs the runtime dependencies only: a library imported by
    the package (drivers and simulators included) but listed for the tests alone would stop
    the daemon at start (httpx did, for the ratings' push)."""
    import ast
    import re
    import sys
    from importlib.metadata import PackageNotFoundError, packages_distributions, requires

    def name(spec: str) -> str:  # a requirement's distribution, normalised (PEP 503)
        return re.sub(r"[-_.]+", "-", re.split(r"[<>=!~\[; (]", spec.strip(), maxsplit=1)[0]).lower()

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    listed = {name(spec) for spec in project["dependencies"]}
    todo = list(listed)
    while todo:  # what the listed ones install with them (starlette with fastapi...)
        try:
            needed = requires(todo.pop()) or []
        except PackageNotFoundError:  # a platform's marker left it out here (tzdata off Windows)
            continue
        for spec in needed:
            if "extra ==" not in spec and name(spec) not in listed:
                listed.add(name(spec))
                todo.append(name(spec))
    ours = {"table_controller", "drivers", "simulators"}
    imported: set[str] = set()
    for folder in ours:
        for path in (REPO / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    imported |= {alias.name.split(".")[0] for alias in node.names}
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    imported.add(node.module.split(".")[0])
    outside = {m for m in imported - ours - set(sys.stdlib_module_names) if not m.startswith("_")}
    owners = packages_distributions()
    missing = {
        module: owners.get(module, ["?"])
        for module in sorted(outside)
        if not {re.sub(r"[-_.]+", "-", dist).lower() for dist in owners.get(module, [])} & listed
    }
    assert not missing, f"imported but not in [project] dependencies: {missing}"
