"""What a person reads of a failure (logs.error_text): the error's message, never a Python class
name; the log line keeps the class and the traceback."""

from __future__ import annotations

import json

import pytest
from sqlalchemy.exc import OperationalError

from table_controller.logs import error_text
from table_controller.storage.errors import RoundClosedError


@pytest.mark.quick
@pytest.mark.parametrize(
    ("error", "read"),
    [
        (RuntimeError("the auto-dealer lost its way\nsecond line"), "the auto-dealer lost its way"),
        (RoundClosedError(), "round closed"),
        (ConnectionResetError(), "connection reset"),
        (KeyError(), "key"),
        (
            OperationalError("BEGIN", {}, ConnectionRefusedError("the database is down")),
            "the database is down",
        ),
        (ValueError("x" * 500), "x" * 200),
        (
            json.JSONDecodeError("Expecting value", "{", 1),
            "not JSON (Expecting value: line 1 column 2 (char 1))",
        ),
    ],
)
def test_a_failure_is_told_in_words(error, read):
    assert error_text(error) == read
