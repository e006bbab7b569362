"""Test plugins: the leak check every test runs under, and the database fixtures."""

import gc
import logging
import os
import sys

import anyio
import pytest

# anyio imports its public names on first use (anyio._lazyimport), and pytest rewrites anyio's
# modules as a plugin's, parsing them with ast.parse; CPython 3.11's ast.parse is not safe in two
# threads at once (gh-106905): a file served by a test's API thread (``anyio.open_file``) while the
# test's thread compiled something else failed with "AST constructor recursion depth mismatch".
# Import them all here, in one thread, before any test starts a server.
for _name in dir(anyio):
    getattr(anyio, _name)

# Python's bytecode cache for every process of the run: a host that sets PYTHONDONTWRITEBYTECODE
# (this one does) makes each daemon, CLI command and simulator the tests start compile the
# project again, about 1.3 s of CPU each, and each worker rewrite every test module again
# (docs/development.md, "Speed of the suite"). The cache is Python's own, in the gitignored __pycache__.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

# Daemons started by tests serve their API on any free port, never on the production 8080.
os.environ.setdefault("TABLE_PORT", "0")

pytest_plugins = [
    "tests.leaks",  # fails a test that leaves a port, thread, pty or asyncio task open
    "tests.db_fixtures",  # engine (SQLite and PostgreSQL) and postgres_url
    "tests.browser",  # one headless browser per test process, for the web-page tests
    "tests.tiers",  # the quick tier: pytest -m quick
]


def pytest_xdist_auto_num_workers(config) -> int:
    """``-n auto`` (the README's test command): half again as many workers as cores. About a
    third of the suite's time is spent waiting on real processes (daemons, simulators, the
    browser), and a third worker computes meanwhile: on 2 cores, 3 workers."""
    return max(2, (os.cpu_count() or 1) * 3 // 2)


WHOLE_HEAP_EVERY = 100  # middle-generation collections between two whole-heap ones (Python: 10)


def pytest_collection_finish(session) -> None:
    """A worker's whole-heap collections a tenth as often: Python runs one after every ten
    middle-generation collections whose survivors grew the old generation by a quarter, and a
    worker's heap (the app, the test modules, hypothesis) made each one walk some 200,000 objects
    again, about 13% of a worker's own CPU (docs/development.md, "Speed of the suite"). Cycles still go at
    the next whole-heap collection; the young generations are collected as before."""
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, WHOLE_HEAP_EVERY)


@pytest.fixture(autouse=True)
def _root_logging_restored():
    """A command run in-process (typer's CliRunner) configures logging onto the runner's own
    stderr, closed when the command returns: the root logger's handlers are put back after each
    test, so a later test's log line (Alembic's "Running upgrade") is not written to a closed file
    ("--- Logging error ---")."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
