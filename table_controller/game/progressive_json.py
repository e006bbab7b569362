"""A progressive pool's records and level parameters as plain JSON data and back, so the
records can be chained and the meters re-derived from the chain by ``progressive.replay``
(docs/progressive.md). Pure: no I/O.

``record_as_dict`` gives a mapping of JSON types with the record's ``kind``;
``record_from_dict`` rebuilds the frozen record and refuses anything else with a
ProgressiveError naming what is wrong.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from typing import Any, Final

from .progressive import (
    AdjustmentReason,
    AdjustmentRecord,
    ContributionRecord,
    HitBatchRecord,
    HitClaim,
    HitRecord,
    LevelContribution,
    LevelParams,
    OverflowPolicy,
    ParameterChangeRecord,
    PaymentRecord,
    PercentBase,
    PoolStatusRecord,
    ProgressiveError,
    Record,
    SimultaneousRule,
)

KINDS: Final = ("contribution", "hits", "payment", "adjustment", "parameters", "status")


class RecordFormatError(ProgressiveError):
    """Data that is not a progressive record."""


def record_as_dict(record: Record) -> dict[str, Any]:
    """The record as JSON data: its fields, nested records as mappings, enums as strings."""
    return {"kind": record.kind, **_plain(asdict(record))}


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, str):
        return str(value)  # a StrEnum member as its plain value
    return value


def params_as_dict(params: LevelParams) -> dict[str, Any]:
    result: dict[str, Any] = _plain(asdict(params))
    return result


def params_from_dict(data: Mapping[str, Any]) -> LevelParams:
    values = dict(data)
    values["overflow"] = OverflowPolicy(values.get("overflow", OverflowPolicy.ROLL_FORWARD))
    return LevelParams(**values)


def hit_from_dict(data: Mapping[str, Any]) -> HitRecord:
    """One hit of a batch (a pool's ``recent_hits`` too) from its JSON data."""
    values = dict(data)
    values["claim"] = HitClaim(**values["claim"])
    return HitRecord(**values)


def record_from_dict(data: Mapping[str, Any]) -> Record:
    """The record ``record_as_dict`` gave; RecordFormatError for anything else."""
    kind = data.get("kind") if isinstance(data, Mapping) else None
    if kind not in KINDS:
        raise RecordFormatError(f"not a progressive record: kind {kind!r}, expected one of {KINDS}")
    values = {key: value for key, value in data.items() if key != "kind"}
    try:
        if kind == "contribution":
            values["levels"] = tuple(LevelContribution(**level) for level in values["levels"])
            return ContributionRecord(**values)
        if kind == "hits":
            values["rule"] = SimultaneousRule(values["rule"])
            values["percent_base"] = PercentBase(values["percent_base"])
            values["hits"] = tuple(hit_from_dict(hit) for hit in values["hits"])
            return HitBatchRecord(**values)
        if kind == "payment":
            return PaymentRecord(**values)
        if kind == "adjustment":
            values["reason"] = AdjustmentReason(values["reason"])
            return AdjustmentRecord(**values)
        if kind == "parameters":
            values["before"] = params_from_dict(values["before"])
            values["after"] = params_from_dict(values["after"])
            return ParameterChangeRecord(**values)
        return PoolStatusRecord(**values)
    except (KeyError, TypeError, ValueError) as error:
        raise RecordFormatError(f"a {kind} record that does not read: {error}") from error


__all__ = [
    "KINDS",
    "RecordFormatError",
    "hit_from_dict",
    "params_as_dict",
    "params_from_dict",
    "record_as_dict",
    "record_from_dict",
]
