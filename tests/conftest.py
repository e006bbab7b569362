"""Test plugins: the leak check every test runs under, and the database fixtures."""

import os

# Daemons started by tests serve their API on any free port, never on the production 8080.
os.environ.setdefault("TABLE_PORT", "0")

pytest_plugins = [
    "tests.leaks",  # fails a test that leaves a port, thread, pty or asyncio task open
    "tests.db_fixtures",  # engine (SQLite and PostgreSQL) and postgres_url
]


def pytest_xdist_auto_num_workers(config) -> int:
    """``-n auto`` (the README's test command): half again as many workers as cores. About a
    third of the suite's time is spent waiting on real processes (daemons, simulators, the
    browser), and a third worker computes meanwhile: on 2 cores, 3 workers."""
    return max(2, (os.cpu_count() or 1) * 3 // 2)
