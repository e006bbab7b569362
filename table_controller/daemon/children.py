"""What the daemon's child processes share: they die with it, and the table's math is computed in
one of them. Light on imports: a spawned child imports this module, not the daemon's (the API,
the store, the devices), before it starts its own work."""

from __future__ import annotations

import ctypes
import ctypes.util
import signal
import sys
from typing import Any

PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:  # pragma: no cover - runs in the child
    """Linux: the child gets SIGTERM when the daemon dies, even by SIGKILL."""
    name = ctypes.util.find_library("c")
    if name:
        ctypes.CDLL(name, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def table_math_for(values: dict[str, Any], *, compute: bool = True) -> Any:
    """The table's math for the settings ``values`` (a ``TableSettings`` dump), from the machine's
    cache, keyed by the content of the way, rules and pay tables, or computed and cached
    (``compute``; otherwise None when the cache does not hold it)."""
    from ..analysis.lookup import default_cache_dir  # numpy and the house-way lookup: loaded here only
    from ..analysis.theoretical import cached_table_math, table_math
    from ..settings import TableSettings

    settings = TableSettings(**values)
    if compute:
        return table_math(settings, cache_dir=default_cache_dir())
    return cached_table_math(settings, cache_dir=default_cache_dir())


def compute_table_math(values: dict[str, Any]) -> None:  # pragma: no cover - runs in the child
    """The child's work: compute the table's math into the machine's cache."""
    if sys.platform.startswith("linux"):
        die_with_parent()
    table_math_for(values)


__all__ = ["PR_SET_PDEATHSIG", "compute_table_math", "die_with_parent", "table_math_for"]
