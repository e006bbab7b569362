"""The quick tier (a pytest plugin, see tests/conftest.py): ``pytest -m quick`` runs the game
core, the accounting core, the drivers, the round machine and storage on SQLite, for the inner
loop (docs/development.md: at most 30 s on this 2-core machine).

A test is quick when it lives in one of ``QUICK_FOLDERS``, is not marked ``slow`` and does not
run on PostgreSQL. The tier starts no process: while it runs, starting one fails the test that
did, naming the marker that moves it out (``slow``), so the tier cannot quietly grow a daemon.
Run as ``-m quick``, each property test tries a quarter of its examples (at least
``QUICK_MIN_EXAMPLES``): the whole suite, which CI runs, tries them all.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import settings

QUICK_FOLDERS = ("game", "accounting", "drivers", "round", "storage")
QUICK_EXAMPLES_SHARE = 4  # a property's examples in the quick tier: one in four
QUICK_MIN_EXAMPLES = 25
TESTS = Path(__file__).resolve().parent


def _in_quick_folder(item: pytest.Item) -> bool:
    try:
        relative = Path(item.path).resolve().relative_to(TESTS)
    except ValueError:
        return False
    return relative.parts[0] in QUICK_FOLDERS


def _on_postgres(item: pytest.Item) -> bool:
    callspec = getattr(item, "callspec", None)
    return callspec is not None and "postgresql" in callspec.id.split("-")


def is_quick(item: pytest.Item) -> bool:
    """The tier's rule, one place."""
    return _in_quick_folder(item) and item.get_closest_marker("slow") is None and not _on_postgres(item)


def _fewer_examples(item: pytest.Item) -> None:
    """Hypothesis reads a test's settings when the test is called, from this attribute."""
    test = getattr(getattr(item, "obj", None), "__func__", getattr(item, "obj", None))
    current = getattr(test, "_hypothesis_internal_use_settings", None)
    if current is None:
        return
    share = max(QUICK_MIN_EXAMPLES, current.max_examples // QUICK_EXAMPLES_SHARE)
    examples = min(current.max_examples, share)
    test._hypothesis_internal_use_settings = settings(current, max_examples=examples)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    quick_run = config.getoption("markexpr", "") == "quick"
    for item in items:
        if is_quick(item):
            item.add_marker(pytest.mark.quick)
            if quick_run:
                _fewer_examples(item)


class ProcessStartedInQuickTier(AssertionError):
    """A test of the quick tier started a process: mark it ``slow``."""


@pytest.fixture(autouse=True)
def _quick_starts_no_process(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if request.node.get_closest_marker("quick") is None:
        return

    def refuse(*args: object, **kwargs: object) -> None:
        raise ProcessStartedInQuickTier(
            f"{request.node.nodeid} is in the quick tier (tests/tiers.py) and started a process: mark it slow"
        )

    monkeypatch.setattr(subprocess.Popen, "__init__", refuse)
