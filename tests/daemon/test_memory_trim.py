"""The daemon gives freed memory back every minute (daemon/memory.py, docs/development.md "The soak")."""

from __future__ import annotations

import threading

from table_controller.daemon import memory


def test_the_trim_runs_every_interval_until_stopped(monkeypatch):
    calls: list[int] = []
    trimmed = threading.Event()

    def fake_trim(pad: int) -> int:
        calls.append(pad)
        if len(calls) >= 3:
            trimmed.set()
        return 1

    monkeypatch.setattr(memory, "_malloc_trim", lambda: fake_trim)
    stop = memory.start_memory_trim(every=0.01)
    assert trimmed.wait(5)
    stop()
    after = len(calls)
    assert not trimmed.wait(0.05) or len(calls) == after  # nothing more once stopped
    assert set(calls) == {0}  # trim everything above the heap's top (no padding kept)


def test_no_malloc_trim_is_said_and_nothing_runs(monkeypatch):
    monkeypatch.setattr(memory, "_malloc_trim", lambda: None)
    before = {t.name for t in threading.enumerate()}
    stop = memory.start_memory_trim(every=0.01)
    assert "memory-trim" not in {t.name for t in threading.enumerate()} - before
    stop()


def test_glibc_malloc_trim_is_found_here():
    """This machine's C library is glibc (Debian): the real function, callable."""
    trim = memory._malloc_trim()
    assert trim is not None and trim(0) in (0, 1)
