"""A progressive pool's gaming day: its contributions, hits and payments, and the meters
reconciled (docs/progressive.md, "The day's reconciliation"; PRG-32, PRG-50, PRG-51). Pure:
the caller reads the pool's chain and hands its events in.

Per level, from the records of the pool's chain (game/progressive.py), in integer cents:

    end meter = start meter + contributions - hits + seeds + rolled forward +/- adjustments

- *start* and *end meter* are the meter **as recorded**: the ``meter_after`` of the level's
  last record before the period's start (its base when there is none) and before its end;
- *contributions* are what the period's wagers put on the meter, *hits* the awards taken off
  it, *seeds* what the resets put back (from the reserve or the house), *rolled forward* the
  overflow moved onto it after a reset, *adjustments* the signed two-person corrections.

The records hold both the amounts and the meter after them, so each event is checked: the
meter a record says it left must be the meter before it plus its amounts. An event that
breaks that is a **variance**, named with its seq; the period's variance is their sum, and a
period without one reconciles to the cent. A hit's net on the meter is its award less the seed
and overflow that follow it (the issue's "start + contributions - hits +/- adjustments").

Beside the meter: the *reserve* (start + to reserve - seeds from the reserve = end) and the
*overflow* (start + to overflow - rolled forward = end) by the same arithmetic; the *locked*
awards (start + hits - paid = end: the awards pending payment, PRG-27); payments split into
those the system made and those an attendant made (PRG-13); the period's *accrual*, all the
player money its wagers added (meter + reserve + overflow: WAC 230-15-671's daily accrual,
PRG-51); each hit with its table, position, line and the meter before and after (PRG-23,
PRG-25); each adjustment with its reason and its two people (PRG-29); each parameter change,
a change of rate carrying the notice for accounting (PRG-03); each opening and closing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from ..game.money import Cents
from ..game.progressive import (
    AdjustmentRecord,
    ContributionRecord,
    HitBatchRecord,
    ParameterChangeRecord,
    PaymentRecord,
    PoolStatusRecord,
)
from ..game.progressive_json import KINDS, params_as_dict, params_from_dict, record_from_dict
from ..game.progressive_state import CREATED, RECORD_PREFIX
from .errors import AccountingError


class PoolDayError(AccountingError):
    """A pool chain that cannot be reconciled: no creation first, or a period that ends before it starts."""


@dataclass(frozen=True, slots=True)
class PoolEntry:
    """One event of a pool's chain as the reconciliation reads it."""

    seq: int
    at: datetime
    kind: str
    actor: str
    payload: Mapping[str, Any]
    round_id: str | None = None


@dataclass(slots=True)
class LevelDay:
    """One level's period (cents; counts where named)."""

    level: str
    base: Cents
    start_meter: Cents = 0
    contributions: Cents = 0
    wagers: int = 0  # contributions counted (the in-meter count of the period)
    wagered: Cents = 0
    hits: Cents = 0  # awards taken off the meter
    hit_count: int = 0
    seeds: Cents = 0
    rolled_forward: Cents = 0
    adjustments: Cents = 0  # signed
    end_meter: Cents = 0
    start_reserve: Cents = 0
    to_reserve: Cents = 0
    seeded_from_reserve: Cents = 0
    end_reserve: Cents = 0
    start_overflow: Cents = 0
    to_overflow: Cents = 0
    end_overflow: Cents = 0
    start_locked: Cents = 0
    paid: Cents = 0
    paid_by_system: Cents = 0
    paid_by_attendant: Cents = 0
    end_locked: Cents = 0
    variance: Cents = 0  # the sum of the period's events' variances

    @property
    def computed_end_meter(self) -> Cents:
        """start + contributions - hits + seeds + rolled forward +/- adjustments."""
        return (
            self.start_meter
            + self.contributions
            - self.hits
            + self.seeds
            + self.rolled_forward
            + self.adjustments
        )

    @property
    def accrued(self) -> Cents:
        """The player money the period's wagers added: to the meter, the reserve and the overflow."""
        return self.contributions + self.to_reserve + self.to_overflow


@dataclass(frozen=True, slots=True)
class DayHit:
    hit_id: int
    seq: int
    at: datetime
    round_id: str | None
    table_id: str
    position: int
    level: str
    line: str
    share_bp: int
    order: int
    meter_before: Cents
    amount: Cents
    meter_after: Cents
    held: bool
    paid_at: datetime | None = None
    paid_by: str | None = None
    verified_by: str | None = None


@dataclass(frozen=True, slots=True)
class DayPayment:
    hit_id: int
    seq: int
    at: datetime
    level: str
    amount: Cents
    paid_by: str
    verified_by: str
    by_system: bool


@dataclass(frozen=True, slots=True)
class DayAdjustment:
    seq: int
    at: datetime
    level: str
    amount: Cents
    reason: str
    requested_by: str
    approved_by: str
    note: str
    meter_before: Cents
    meter_after: Cents


@dataclass(frozen=True, slots=True)
class DayParameterChange:
    """A level's parameters changed; ``rate_changed``: the accounting notice of PRG-03."""

    seq: int
    at: datetime
    level: str
    requested_by: str
    approved_by: str
    rate_changed: bool
    before: Mapping[str, Any]
    after: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class DayStatus:
    seq: int
    at: datetime
    open: bool
    reason: str


@dataclass(frozen=True, slots=True)
class DayVariance:
    """An event whose record does not add up: the meter it says it left against the meter
    before it plus its amounts (or a record that does not read)."""

    seq: int
    at: datetime
    level: str | None
    recorded: Cents | None
    computed: Cents | None
    detail: str

    @property
    def amount(self) -> Cents:
        return 0 if self.recorded is None or self.computed is None else self.recorded - self.computed


@dataclass(slots=True)
class TableContributions:
    """One table's (position's wagers') share of the period's contributions."""

    table_id: str
    wagers: int = 0
    wagered: Cents = 0
    to_meters: Cents = 0  # over every level
    to_reserves: Cents = 0
    to_overflows: Cents = 0


@dataclass(frozen=True, slots=True)
class PoolDay:
    """The reconciled period of one pool."""

    pool_id: str
    name: str
    start: datetime
    end: datetime
    levels: tuple[LevelDay, ...]
    per_table: tuple[TableContributions, ...]
    hits: tuple[DayHit, ...]
    payments: tuple[DayPayment, ...]
    adjustments: tuple[DayAdjustment, ...]
    parameter_changes: tuple[DayParameterChange, ...]
    statuses: tuple[DayStatus, ...]
    variances: tuple[DayVariance, ...]
    events: int  # the period's events of the chain
    last_seq: int  # the chain's last seq read (the period's end or before)

    @property
    def reconciled(self) -> bool:
        return not self.variances

    @property
    def notices(self) -> tuple[DayParameterChange, ...]:
        """The parameter changes accounting must be told of (a changed rate, PRG-03)."""
        return tuple(change for change in self.parameter_changes if change.rate_changed)


@dataclass(slots=True)
class _Walk:
    """The running state of a walk over the chain: what each level is at, as recorded and as
    computed, and the period's sums (kept in ``days``, opened at the period's start)."""

    recorded: dict[str, Cents] = field(default_factory=dict)
    reserve: dict[str, Cents] = field(default_factory=dict)
    overflow: dict[str, Cents] = field(default_factory=dict)
    locked: dict[str, Cents] = field(default_factory=dict)


def pool_day(
    entries: Iterable[PoolEntry], *, pool_id: str, start: datetime, end: datetime, system: str
) -> PoolDay:
    """The period ``[start, end)`` of the pool whose chain is ``entries`` (in seq order, from its
    creation; entries at or after ``end`` are ignored). ``system`` is the payer's name of a hit
    the table paid itself (table/progressive_pool.SYSTEM): every other payer is an attendant."""
    if end <= start:
        raise PoolDayError(f"a period ends after it starts: {start.isoformat()} to {end.isoformat()}")
    walk = _Walk()
    days: dict[str, LevelDay] | None = None
    name = ""
    base: dict[str, Cents] = {}
    per_table: dict[str, TableContributions] = {}
    hits: dict[int, DayHit] = {}
    payments: list[DayPayment] = []
    adjustments: list[DayAdjustment] = []
    changes: list[DayParameterChange] = []
    statuses: list[DayStatus] = []
    variances: list[DayVariance] = []
    events = 0
    last_seq = 0
    created = False

    def open_period() -> dict[str, LevelDay]:
        return {
            level: LevelDay(
                level=level,
                base=base[level],
                start_meter=walk.recorded[level],
                start_reserve=walk.reserve[level],
                start_overflow=walk.overflow[level],
                start_locked=walk.locked[level],
            )
            for level in base
        }

    for entry in entries:
        if entry.at >= end:
            break
        last_seq = entry.seq
        if entry.kind == CREATED:
            if created:
                raise PoolDayError(f"pool {pool_id}: its chain creates it twice (seq {entry.seq})")
            created = True
            name = str(entry.payload.get("name", ""))
            for data in entry.payload.get("levels", []):
                params = params_from_dict(data)
                base[params.name] = params.base
                walk.recorded[params.name] = params.base
                walk.reserve[params.name] = walk.overflow[params.name] = walk.locked[params.name] = 0
            if entry.at >= start:  # created inside the period: its levels start at their base
                days = open_period()
                events += 1
            continue
        if days is None and entry.at >= start and created:
            days = open_period()
        in_period = days is not None
        events += in_period
        kind = entry.kind.removeprefix(RECORD_PREFIX)
        if not entry.kind.startswith(RECORD_PREFIX) or kind not in KINDS:
            continue  # a note of the chain (a request, a refusal): moves no money
        if not created:
            raise PoolDayError(f"pool {pool_id}: a {entry.kind} record (seq {entry.seq}) before its creation")
        try:
            record = record_from_dict(entry.payload)
            _apply(
                walk,
                record,
                entry,
                days,
                per_table,
                hits,
                payments,
                adjustments,
                changes,
                statuses,
                variances if in_period else None,
                system,
            )
        except (ValueError, KeyError, TypeError) as error:
            if in_period:
                variances.append(DayVariance(entry.seq, entry.at, None, None, None, f"unreadable: {error}"))
    if not created:
        raise PoolDayError(f"pool {pool_id}: no {CREATED} event before {end.isoformat()}")
    if days is None:  # nothing happened in the period: it starts and ends where the chain is
        days = open_period()
    for level, day in days.items():
        day.end_meter = walk.recorded[level]
        day.end_reserve = walk.reserve[level]
        day.end_overflow = walk.overflow[level]
        day.end_locked = walk.locked[level]
        day.variance = sum(v.amount for v in variances if v.level == level)
    return PoolDay(
        pool_id=pool_id,
        name=name,
        start=start,
        end=end,
        levels=tuple(days.values()),
        per_table=tuple(per_table[table] for table in sorted(per_table)),
        hits=tuple(hits[hit_id] for hit_id in sorted(hits)),
        payments=tuple(payments),
        adjustments=tuple(adjustments),
        parameter_changes=tuple(changes),
        statuses=tuple(statuses),
        variances=tuple(variances),
        events=events,
        last_seq=last_seq,
    )


def _check(
    variances: list[DayVariance] | None, entry: PoolEntry, level: str, recorded: Cents, computed: Cents
) -> None:
    if variances is not None and recorded != computed:
        variances.append(
            DayVariance(
                entry.seq,
                entry.at,
                level,
                recorded,
                computed,
                f"{entry.kind}: the record leaves the meter at {recorded} cents, its amounts at {computed}",
            )
        )


def _apply(
    walk: _Walk,
    record: Any,
    entry: PoolEntry,
    days: dict[str, LevelDay] | None,
    per_table: dict[str, TableContributions],
    hits: dict[int, DayHit],
    payments: list[DayPayment],
    adjustments: list[DayAdjustment],
    changes: list[DayParameterChange],
    statuses: list[DayStatus],
    variances: list[DayVariance] | None,
    system: str,
) -> None:
    """One record: the walk moved on, and the period's sums when ``days`` is open."""
    if isinstance(record, ContributionRecord):
        table = per_table.setdefault(record.table_id, TableContributions(record.table_id)) if days else None
        if table is not None:
            table.wagers += 1
            table.wagered += record.wager
        for part in record.levels:
            _check(variances, entry, part.level, part.meter_after, walk.recorded[part.level] + part.to_meter)
            walk.recorded[part.level] = part.meter_after
            walk.reserve[part.level] += part.to_reserve
            walk.overflow[part.level] += part.to_overflow
            if days is not None and table is not None:
                day = days[part.level]
                day.contributions += part.to_meter
                day.wagers += 1
                day.wagered += record.wager
                day.to_reserve += part.to_reserve
                day.to_overflow += part.to_overflow
                table.to_meters += part.to_meter
                table.to_reserves += part.to_reserve
                table.to_overflows += part.to_overflow
    elif isinstance(record, HitBatchRecord):
        computed = dict(walk.recorded)
        for hit in record.hits:
            level = hit.claim.level
            computed[level] += hit.seeded + hit.rolled_forward - hit.amount
            walk.recorded[level] = hit.meter_after
            walk.reserve[level] -= hit.seeded_from_reserve
            walk.overflow[level] -= hit.rolled_forward
            walk.locked[level] += hit.amount
            if days is not None:
                day = days[level]
                day.hits += hit.amount
                day.hit_count += 1
                day.seeds += hit.seeded
                day.seeded_from_reserve += hit.seeded_from_reserve
                day.rolled_forward += hit.rolled_forward
                hits[hit.hit_id] = DayHit(
                    hit_id=hit.hit_id,
                    seq=entry.seq,
                    at=entry.at,
                    round_id=entry.round_id,
                    table_id=hit.claim.table_id,
                    position=hit.claim.position,
                    level=level,
                    line=hit.claim.line,
                    share_bp=hit.claim.share_bp,
                    order=hit.order,
                    meter_before=hit.meter_before,
                    amount=hit.amount,
                    meter_after=hit.meter_after,
                    held=hit.held,
                )
        for level in {hit.claim.level for hit in record.hits}:  # a batch adds up as a whole
            _check(variances, entry, level, walk.recorded[level], computed[level])
    elif isinstance(record, PaymentRecord):
        walk.locked[record.level] -= record.amount
        if days is not None:
            by_system = record.paid_by == system
            day = days[record.level]
            day.paid += record.amount
            if by_system:
                day.paid_by_system += record.amount
            else:
                day.paid_by_attendant += record.amount
            payments.append(
                DayPayment(
                    record.hit_id,
                    entry.seq,
                    entry.at,
                    record.level,
                    record.amount,
                    record.paid_by,
                    record.verified_by,
                    by_system,
                )
            )
            made = hits.get(record.hit_id)
            if made is not None:
                hits[record.hit_id] = _paid(made, entry.at, record)
    elif isinstance(record, AdjustmentRecord):
        _check(
            variances, entry, record.level, record.meter_after, walk.recorded[record.level] + record.amount
        )
        walk.recorded[record.level] = record.meter_after
        if days is not None:
            days[record.level].adjustments += record.amount
            adjustments.append(
                DayAdjustment(
                    entry.seq,
                    entry.at,
                    record.level,
                    record.amount,
                    record.reason.value,
                    record.requested_by,
                    record.approved_by,
                    record.note,
                    record.meter_before,
                    record.meter_after,
                )
            )
    elif isinstance(record, ParameterChangeRecord):
        if days is not None:
            changes.append(
                DayParameterChange(
                    entry.seq,
                    entry.at,
                    record.after.name,
                    record.requested_by,
                    record.approved_by,
                    record.rate_changed,
                    params_as_dict(record.before),
                    params_as_dict(record.after),
                )
            )
    elif isinstance(record, PoolStatusRecord) and days is not None:
        statuses.append(DayStatus(entry.seq, entry.at, record.open, record.reason))


def _paid(hit: DayHit, at: datetime, record: PaymentRecord) -> DayHit:
    return replace(hit, paid_at=at, paid_by=record.paid_by, verified_by=record.verified_by)


@dataclass(frozen=True, slots=True)
class DisplayVariance:
    """A meter the displays show (the pool's projection, which the meter page and the table page
    read) that is not the meter its chain gives at the period's end: the sign-to-meter check of
    PRG-32."""

    level: str
    field: str
    displayed: Cents
    chained: Cents

    @property
    def amount(self) -> Cents:
        return self.displayed - self.chained


_DISPLAYED = (
    ("meter", "end_meter"),
    ("reserve", "end_reserve"),
    ("overflow", "end_overflow"),
    ("locked", "end_locked"),
)


def display_variances(
    day: PoolDay, displayed: Mapping[str, Mapping[str, Any]]
) -> tuple[DisplayVariance, ...]:
    """Each meter of ``displayed`` (level -> its meters, game/progressive_state.pool_as_dict's
    ``levels[name]["meters"]``) that differs from the day's end; a level shown or chained but not
    both is a difference of its whole meter. Meaningful only when the day reaches the chain's last
    event (nothing written after it)."""
    found: list[DisplayVariance] = []
    chained = {level.level: level for level in day.levels}
    for name in sorted(set(chained) | set(displayed)):
        level = chained.get(name)
        shown = displayed.get(name, {})
        for field_name, end_name in _DISPLAYED:
            ends = 0 if level is None else int(getattr(level, end_name))
            value = shown.get(field_name, 0)
            value = value if isinstance(value, int) and not isinstance(value, bool) else 0
            if value != ends:
                found.append(DisplayVariance(name, field_name, value, ends))
    return tuple(found)


def entries_of(events: Sequence[Any]) -> list[PoolEntry]:
    """The chain's stored events (storage's EventPublic: ``seq``, ``created_at``, ``kind``,
    ``actor``, ``payload_data()``, ``round_id``) as the reconciliation reads them."""
    return [
        PoolEntry(event.seq, event.created_at, event.kind, event.actor, event.payload_data(), event.round_id)
        for event in events
    ]


__all__ = [
    "DayAdjustment",
    "DayHit",
    "DayParameterChange",
    "DayPayment",
    "DayStatus",
    "DayVariance",
    "DisplayVariance",
    "LevelDay",
    "PoolDay",
    "PoolDayError",
    "PoolEntry",
    "TableContributions",
    "display_variances",
    "entries_of",
    "pool_day",
]
