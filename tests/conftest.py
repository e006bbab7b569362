"""Test plugins: the leak check every test runs under, and the database fixtures."""

pytest_plugins = [
    "tests.leaks",  # fails a test that leaves a port, thread, pty or asyncio task open
    "tests.db_fixtures",  # engine (SQLite and PostgreSQL) and postgres_url
]
