"""The daemon's table math at start (daemon.start_table_math, docs/math.md): read from the
machine's cache in a thread when it is there, computed in a child process only when it is not."""

from __future__ import annotations

import threading
from typing import ClassVar

from table_controller.daemon import run as daemon
from table_controller.settings import TableSettings


class _Service:
    def __init__(self) -> None:
        self.math: list[object] = []

    def set_table_math(self, math: object) -> None:
        self.math.append(math)


class _Child:
    started: ClassVar[list[_Child]] = []

    def __init__(self, target, args, name, daemon) -> None:
        self.exitcode: int | None = None

    def start(self) -> None:
        _Child.started.append(self)

    def join(self, timeout: float | None = None) -> None:
        self.exitcode = 0

    def is_alive(self) -> bool:
        return False


class _Spawn:
    Process = _Child


def _finish() -> None:
    for thread in threading.enumerate():
        if thread.name == "table-math":
            thread.join(10)


def test_a_cached_math_is_read_without_a_child(monkeypatch):
    asked: list[bool] = []

    def cached(values, *, compute=True):
        asked.append(compute)
        return "the math"

    monkeypatch.setattr(daemon, "table_math_for", cached)
    monkeypatch.setattr(daemon.multiprocessing, "get_context", lambda kind: _Spawn)
    _Child.started.clear()
    service = _Service()
    stop = daemon.start_table_math(TableSettings(), service)  # type: ignore[arg-type]
    _finish()
    stop()
    assert service.math == ["the math"] and asked == [False] and _Child.started == []


def test_a_math_not_in_the_cache_is_computed_in_a_child_then_read(monkeypatch):
    answers = iter([None, "the math"])
    monkeypatch.setattr(daemon, "table_math_for", lambda values, *, compute=True: next(answers))
    monkeypatch.setattr(daemon.multiprocessing, "get_context", lambda kind: _Spawn)
    _Child.started.clear()
    service = _Service()
    stop = daemon.start_table_math(TableSettings(), service)  # type: ignore[arg-type]
    _finish()
    stop()
    assert service.math == ["the math"] and len(_Child.started) == 1
