"""Test plugins: the leak check every test runs under, and the database fixtures."""

import os

# Daemons started by tests serve their API on any free port, never on the production 8080.
os.environ.setdefault("TABLE_PORT", "0")

pytest_plugins = [
    "tests.leaks",  # fails a test that leaves a port, thread, pty or asyncio task open
    "tests.db_fixtures",  # engine (SQLite and PostgreSQL) and postgres_url
]
