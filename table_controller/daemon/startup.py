"""A process's start: its stack imported with Python's cyclic garbage collector paused
(README.md, "Speed of the suite"). Light on imports: the command line imports it before it
knows which command runs."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Run imports with the cyclic garbage collector paused, then freeze what they made
    (``gc.freeze``): modules, classes and tables that live as long as the process, which the
    collector would otherwise walk again and again while they are made and at every full
    collection afterwards. One collection first, so that no garbage is frozen with them (a
    command run inside a longer-lived process, as the tests do)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.collect()
        gc.freeze()
        if enabled:
            gc.enable()


__all__ = ["collector_paused"]
