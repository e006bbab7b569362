"""Workers for the supervisor's tests (tests/floor/test_floor_workers.py), in a module of their
own that imports nothing of the controller: a spawned worker imports its target's module, and
these start in a fraction of a second instead of the two a whole floor takes."""

from __future__ import annotations

import signal
import sys
from pathlib import Path


def exit_at_once(code: int, _number: int, _parent: int) -> None:
    sys.exit(code)


def until_sigterm(folder: str, number: int, _parent: int) -> None:
    """Serve nothing until SIGTERM, then exit 0, as a floor worker ends its streams and stops;
    a file named by its number in ``folder`` says it is up."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    (Path(folder) / str(number)).touch()
    signal.sigwait({signal.SIGTERM})
    sys.exit(0)


def deaf_to_sigterm(folder: str, number: int, _parent: int) -> None:
    """A worker that does not stop when asked (hung on something): only SIGKILL ends it."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    (Path(folder) / str(number)).touch()
    while True:
        signal.pause()
