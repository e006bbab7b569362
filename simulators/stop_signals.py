"""SIGINT and SIGTERM ask a simulator process to stop, safely.

A Python signal handler runs in the main thread between two bytecodes, possibly in the middle
of ``threading.Event.set()`` or ``wait()``, whose lock is not reentrant. A handler that calls
``Event.set()`` itself can then wait forever on a lock its own thread holds: a simulator
started by the daemon hung that way when the daemon was killed and it received SIGTERM
(``PR_SET_PDEATHSIG``) more than once. So the handler here only sets a flag, and the main
thread polls it.
"""

from __future__ import annotations

import signal
import threading
import time
from types import FrameType
from typing import Any

SIGNALS = (signal.SIGINT, signal.SIGTERM)
POLL_SECONDS = 0.1


class StopSignals:
    """``with StopSignals() as stop: stop.wait(...)``: installs the handlers (main thread only),
    restores the previous ones on exit."""

    def __init__(self) -> None:
        self.requested = False
        self._previous: dict[int, Any] = {}

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.requested = True  # a plain store: no lock, nothing that can block

    def __enter__(self) -> StopSignals:
        if threading.current_thread() is threading.main_thread():
            for signum in SIGNALS:
                self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, *_: object) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous.clear()

    def wait(self, timeout: float | None = None, also: threading.Event | None = None) -> bool:
        """Until a signal came (True), ``also`` is set (True) or ``timeout`` passed (False)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self.requested and not (also is not None and also.is_set()):
            left = POLL_SECONDS if deadline is None else min(POLL_SECONDS, deadline - time.monotonic())
            if left <= 0:
                return False
            time.sleep(left)
        return True


__all__ = ["StopSignals"]
