"""CI must run the PostgreSQL tests: with no server to be had they fail, they never skip."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.db_fixtures import POSTGRES_URL_ENV

ROOT = Path(__file__).resolve().parents[2]
A_POSTGRES_TEST = (
    "tests/storage/test_engine.py::test_postgres_commits_are_synchronous_even_if_the_server_says_otherwise"
)


@pytest.mark.slow
def test_postgres_tests_fail_when_no_server_can_be_had() -> None:
    nowhere = "postgresql+psycopg://postgres@127.0.0.1:1/test"
    run = subprocess.run(
        [sys.executable, "-m", "pytest", A_POSTGRES_TEST, "-q", "-n", "0", "-p", "no:cacheprovider"],
        cwd=ROOT,
        env={**os.environ, POSTGRES_URL_ENV: nowhere},
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert run.returncode == 1, run.stdout
    assert "PostgreSQL is required for the storage tests" in run.stdout
    assert "1 error" in run.stdout and "skipped" not in run.stdout
