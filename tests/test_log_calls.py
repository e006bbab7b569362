"""No logging call passes ``event=``: structlog's first argument is named ``event``, so such a
call raises ``TypeError`` inside whatever handler made it (a device's event task died of it
in a ``log.exception`` call, and a database outage then froze the table)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("table_controller", "drivers", "simulators", "benchmarks", "tests")
LEVELS = {"debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "msg", "log", "bind"}


def _logger_calls_with_event(tree: ast.AST) -> list[int]:
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr not in LEVELS:
            continue
        owner = node.func.value
        name = (
            owner.id
            if isinstance(owner, ast.Name)
            else owner.attr
            if isinstance(owner, ast.Attribute)
            else ""
        )
        if "log" not in name.lower():
            continue
        if any(keyword.arg == "event" for keyword in node.keywords):
            found.append(node.lineno)
    return found


def test_no_logging_call_passes_event_as_a_keyword() -> None:
    offenders = []
    for folder in SOURCES:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for line in _logger_calls_with_event(ast.parse(path.read_text(encoding="utf-8"))):
                offenders.append(f"{path.relative_to(ROOT)}:{line}")
    assert offenders == []


def test_the_check_finds_such_a_call() -> None:
    tree = ast.parse(
        "log.exception('device.observe_failed', device='x', event='LinkLost')\n"
        "self.log.info('ok', device_event='x')\n"
    )
    assert _logger_calls_with_event(tree) == [1]
