"""Giving freed memory back to the system, so a long-running daemon's resident size stays flat
(docs/development.md, "The soak").

glibc's allocator keeps the pages a thread's arena freed for that arena's next use; with the
API's worker threads, each on its own arena, the daemon's resident size climbs for its first
minutes to the sum of every arena's high-water mark even though the Python heap stays flat
(tracemalloc measured it: 111.04 MB at minute 3 and 111.69 MB at minute 13 of the soak while
the resident size climbed). ``malloc_trim(0)`` returns those free pages. It is called from a
daemon thread every ``every`` seconds; it costs a few milliseconds and holds no Python lock.
Where the C library has no ``malloc_trim`` (not glibc) nothing is trimmed, and the start says so.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import threading
from collections.abc import Callable

import structlog

log = structlog.get_logger()

TRIM_EVERY = 60.0  # seconds between trims


def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None where the C library has none."""
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        trim = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


def start_memory_trim(every: float = TRIM_EVERY) -> Callable[[], None]:
    """Trim the allocator every ``every`` seconds from a daemon thread; returns the stopper."""
    trim = _malloc_trim()
    if trim is None:
        log.info("memory.trim_unavailable", reason="the C library has no malloc_trim")
        return lambda: None
    stopping = threading.Event()

    def run() -> None:
        while not stopping.wait(every):
            trim(0)

    thread = threading.Thread(target=run, name="memory-trim", daemon=True)
    thread.start()

    def stop() -> None:
        stopping.set()
        thread.join(5)

    return stop


__all__ = ["TRIM_EVERY", "start_memory_trim"]
