"""A progressive pool's whole state as plain JSON data, and the pool re-derived from the events
of its chain (docs/progressive.md, "The pool at the table"). Pure: no I/O.

``pool_as_dict`` is what the store's ``progressive_pools`` projection keeps and what the API
serves; ``replay_events`` rebuilds the pool from its chain: the ``progressive.created`` event
(the levels it started with) and every record after it, each re-run by
``progressive.apply``, which refuses a record that does not come out the same. Other events
of the chain (requests, refusals) are notes, not records.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict
from typing import Any, Final

from .progressive import LevelMeters, PendingHit, Pool, ProgressiveError, apply, new_pool
from .progressive_json import KINDS, hit_from_dict, params_as_dict, params_from_dict, record_from_dict

CREATED: Final = "progressive.created"
RECORD_PREFIX: Final = "progressive."  # + a record's kind: progressive.contribution, .hits ...


def _plain(value: Any) -> Any:
    """Enums as their plain values (progressive_json's records hold StrEnums)."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return str(value) if isinstance(value, str) else value


def record_kind(kind: str) -> str:
    """The chain's event kind of a record kind (``hits`` -> ``progressive.hits``)."""
    return RECORD_PREFIX + kind


def created_payload(pool: Pool) -> dict[str, Any]:
    """The ``progressive.created`` payload: the pool's name and its levels' parameters."""
    return {"name": pool.name, "levels": [params_as_dict(params) for params in pool.params.values()]}


def pool_as_dict(pool: Pool) -> dict[str, Any]:
    """Every meter of every level, the hits pending payment, the last hits: JSON data."""
    return {
        "name": pool.name,
        "open": pool.open,
        "next_hit_id": pool.next_hit_id,
        "levels": {
            name: {"params": params_as_dict(params), "meters": asdict(pool.meters[name])}
            for name, params in pool.params.items()
        },
        "pending": [asdict(hit) for hit in pool.pending],
        "recent_hits": [_plain(asdict(hit)) for hit in pool.recent_hits],
    }


def pool_from_dict(data: Mapping[str, Any]) -> Pool:
    """The pool ``pool_as_dict`` gave (a linked pool's row, read under its lock:
    table/progressive_link.py); ProgressiveError for data that is not one."""
    try:
        levels = data["levels"]
        pool = Pool(
            name=str(data["name"]),
            params={name: params_from_dict(level["params"]) for name, level in levels.items()},
            meters={name: LevelMeters(**level["meters"]) for name, level in levels.items()},
            open=bool(data["open"]),
            pending=tuple(PendingHit(**hit) for hit in data["pending"]),
            recent_hits=tuple(hit_from_dict(hit) for hit in data["recent_hits"]),
            next_hit_id=int(data["next_hit_id"]),
        )
        pool.check_ledger()
    except (KeyError, TypeError, ValueError, AttributeError, AssertionError) as error:
        raise ProgressiveError(f"a pool's state that does not read: {error}") from error
    return pool


def meters_pool(data: Mapping[str, Any]) -> Pool:
    """The part of a pool's state (``pool_as_dict``'s) that a contribution reads and changes:
    its levels' parameters and meters and whether it is open, without its hits (a linked
    pool's contribution, table/progressive_link.py: the rest is carried over untouched)."""
    try:
        levels = data["levels"]
        return Pool(
            name=str(data["name"]),
            params={name: params_from_dict(level["params"]) for name, level in levels.items()},
            meters={name: LevelMeters(**level["meters"]) for name, level in levels.items()},
            open=bool(data["open"]),
            next_hit_id=int(data["next_hit_id"]),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise ProgressiveError(f"a pool's state that does not read: {error}") from error


def with_meters(data: Mapping[str, Any], pool: Pool) -> dict[str, Any]:
    """``data`` (a pool's state) with ``pool``'s meters and open flag: what ``pool_as_dict``
    gives for the whole pool when only its meters moved."""
    levels = {name: {**level, "meters": asdict(pool.meters[name])} for name, level in data["levels"].items()}
    return {**data, "open": pool.open, "levels": levels}


def replay_events(events: Iterable[tuple[str, Mapping[str, Any]]]) -> Pool:
    """The pool its chain's ``(kind, payload)`` events make, in order (PRG-37). ProgressiveError
    when the chain does not begin with its creation or a record does not replay."""
    pool: Pool | None = None
    for kind, payload in events:
        if kind == CREATED:
            if pool is not None:
                raise ProgressiveError("the pool's chain creates it twice")
            pool = new_pool(str(payload["name"]), [params_from_dict(level) for level in payload["levels"]])
            continue
        record_kind_name = kind.removeprefix(RECORD_PREFIX)
        if not kind.startswith(RECORD_PREFIX) or record_kind_name not in KINDS:
            continue  # a note of the chain (a request, a refusal): not a record
        if pool is None:
            raise ProgressiveError(f"a {kind} record before the pool's creation")
        pool = apply(pool, record_from_dict(payload))
    if pool is None:
        raise ProgressiveError("the pool's chain holds no progressive.created event")
    return pool


__all__ = [
    "CREATED",
    "created_payload",
    "meters_pool",
    "pool_as_dict",
    "pool_from_dict",
    "record_kind",
    "replay_events",
    "with_meters",
]
