"""A progressive pool's meters as a pure, typed model (progressive-research.md §1.7, §1.8,
§2.1-§2.5; docs/progressive.md gives every reading).

Each operation is verify -> do on a frozen ``Pool`` and returns the new pool and a frozen
record of what it did, holding its inputs: the records are what the round chains, and
``replay`` re-derives the pool from them (a record that does not come out the same is
refused). Nothing here does I/O.

Money: integer cents. Rates are integer basis points of the wager (``money.BASIS_POINTS``).
A contribution is ``wager * rate / 10_000`` cents, **rounded down, the remainder carried**:
each level keeps the fraction of a cent (in 1/10_000 cents) and adds it to the next
contribution, so the cents on the meters always equal the exact sum of rate x wager less a
carried fraction under one cent (no cent is lost or made).

The ledger of a level, which every operation keeps (``LevelMeters.ledger``):

    meter + locked = base + contributed + seeded + rolled_forward - paid + adjusted

``locked`` is the amount of hits pending payment: a hit takes its award off the meter and
locks it, the meter reseeds at once (``reset``) so the link plays on, and the award leaves
the books only when its payment is confirmed (NJ 13:69D-1.52(f), PRG-27: nothing is paid
out before it is paid). A meter goes down only by a hit or a two-person adjustment with a
reason (PRG-29); it never shows less than its reset (PRG-07).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Final

from .money import BASIS_POINTS, Cents, MoneyError, check_amount, format_cents

RECENT_HITS: Final = 25  # NY 5320.8(b): "the last 25 hits" (PRG-11)
WHOLE_METER: Final = BASIS_POINTS  # a share of 10_000 basis points is the whole meter


class ProgressiveError(ValueError):
    """Base class of every refusal by a progressive pool."""


class LevelParamsError(ProgressiveError):
    """Level parameters that cannot hold (a reset above the base, a rate above 100% ...)."""


class PoolClosedError(ProgressiveError):
    """A wager offered while the pool is closed (link down, parameters changing: PRG-35)."""


class PoolOpenError(ProgressiveError):
    """A parameter change or adjustment while the pool is open (PRG-04)."""


class UnreasonableContributionError(ProgressiveError):
    """A contribution above the level's threshold: flagged and not applied (PRG-22)."""


class UnknownLevelError(ProgressiveError):
    """A level the pool does not have."""


class PaymentError(ProgressiveError):
    """A payment of a hit that is not pending (unknown, or already paid: never twice)."""


class TwoPersonRuleError(ProgressiveError):
    """An adjustment or parameter change without two different people (PRG-05, PRG-40, PRG-42)."""


class AdjustmentError(ProgressiveError):
    """An adjustment that breaks a rule of the meters (below reset, above limit, no reason)."""


class ReplayMismatchError(ProgressiveError):
    """A record that replaying its inputs does not reproduce."""


class OverflowPolicy(enum.StrEnum):
    """Where contributions above a level's limit go (NY 5320.8, progressive-research.md §1.7)."""

    ROLL_FORWARD = "roll-forward"  # held on the overflow meter, added after the next reset
    REVENUE = "revenue"  # counted as the house's revenue, never paid (NY 5320.8)


class SimultaneousRule(enum.StrEnum):
    """How hits resolved together on one level are paid (§1.8 question 4)."""

    IN_ORDER = "in-order"  # by sequence, each at the meter when its turn comes (the default)
    SHARED = "shared"  # equal shares of the meter at the first payment (Bermuda Poker rule)


class PercentBase(enum.StrEnum):
    """What a percentage award takes its percentage of (§1.8 question 5)."""

    AT_PAYMENT = "meter-at-payment"  # the meter when it is paid, after earlier hits (the default)
    BEFORE_BATCH = "meter-before-batch"  # the meter before any hit resolved with it


class AdjustmentReason(enum.StrEnum):
    """Why a meter is adjusted (PRG-29, PRG-30, PRG-32)."""

    MALFUNCTION_CORRECTION = "malfunction-correction"  # up or down, documented (NJ, NM, MI, FL)
    NON_DISPLAYED_PRIZE = "non-displayed-prize"  # down, WA 230-15-695
    SEED_RECOVERY = "seed-recovery"  # down, WA 230-15-695
    SIGN_VARIANCE = "sign-variance"  # up: a variance added to the sign (SD 20:18:17:24.02)


_DOWN_REASONS: Final = frozenset(
    {
        AdjustmentReason.MALFUNCTION_CORRECTION,
        AdjustmentReason.NON_DISPLAYED_PRIZE,
        AdjustmentReason.SEED_RECOVERY,
    }
)
_UP_REASONS: Final = frozenset({AdjustmentReason.MALFUNCTION_CORRECTION, AdjustmentReason.SIGN_VARIANCE})


def _check_cents(value: object, what: str, *, zero: bool = True) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < (0 if zero else 1):
        raise LevelParamsError(f"{what} must be a whole number of cents >= {0 if zero else 1}, got {value!r}")


def _check_rate(value: object, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= BASIS_POINTS:
        raise LevelParamsError(f"{what} must be 0..{BASIS_POINTS} basis points, got {value!r}")


@dataclass(frozen=True, slots=True)
class LevelParams:
    """One level's parameters, all readable (NJ 13:69E-1.39A(a), PRG-01)."""

    name: str
    base: Cents  # the starting amount
    reset: Cents  # the amount after a hit (the seed)
    increment_bp: int  # of each wager to the meter (rate of progression)
    reserve_bp: int = 0  # of each wager to the hidden reserve, which funds the next reset
    limit: Cents | None = None  # the cap; above it contributions go to overflow
    overflow: OverflowPolicy = OverflowPolicy.ROLL_FORWARD
    unreasonable_contribution: Cents = 10_000  # one contribution above this is refused (PRG-22)

    def __post_init__(self) -> None:
        if not self.name or not isinstance(self.name, str):
            raise LevelParamsError(f"a level needs a name, got {self.name!r}")
        _check_cents(self.base, f"level {self.name}: base", zero=False)
        _check_cents(self.reset, f"level {self.name}: reset", zero=False)
        _check_rate(self.increment_bp, f"level {self.name}: increment rate")
        _check_rate(self.reserve_bp, f"level {self.name}: reserve rate")
        _check_cents(
            self.unreasonable_contribution, f"level {self.name}: unreasonable contribution", zero=False
        )
        if self.increment_bp + self.reserve_bp > BASIS_POINTS:
            raise LevelParamsError(f"level {self.name}: increment and reserve rates exceed 100% of the wager")
        if self.base < self.reset:
            raise LevelParamsError(
                f"level {self.name}: base {format_cents(self.base)} is below the reset "
                f"{format_cents(self.reset)}: the meter would show less than its reset (PRG-07)"
            )
        if self.limit is not None:
            _check_cents(self.limit, f"level {self.name}: limit", zero=False)
            if self.limit < self.base:
                raise LevelParamsError(f"level {self.name}: limit below the base")
        if not isinstance(self.overflow, OverflowPolicy):
            raise LevelParamsError(f"level {self.name}: unknown overflow policy {self.overflow!r}")


@dataclass(frozen=True, slots=True)
class LevelMeters:
    """A level's meters (NJ 13:69E-1.39A(b), NY 5320.8(b): PRG-10, PRG-11)."""

    meter: Cents  # the display meter (current value)
    reserve: Cents = 0  # the hidden reserve
    overflow: Cents = 0  # above the limit: to roll forward, or counted as revenue
    meter_carry: int = 0  # the fraction of a cent carried, in 1/BASIS_POINTS cents
    reserve_carry: int = 0
    in_meter: int = 0  # qualifying wagers counted
    contributed: Cents = 0  # lifetime cents put on the meter by wagers
    to_reserve: Cents = 0  # lifetime cents put on the reserve
    to_overflow: Cents = 0  # lifetime cents put on the overflow
    seeded: Cents = 0  # put on the meter by resets (from the reserve, the rest by the house)
    seeded_from_reserve: Cents = 0
    rolled_forward: Cents = 0  # moved from the overflow to the meter
    locked: Cents = 0  # hits pending payment
    paid: Cents = 0  # hits paid ("wins")
    hits: int = 0
    adjusted: Cents = 0  # the net of adjustments

    def ledger(self, base: Cents) -> Cents:
        """What ``meter + locked`` must be: base + contributed + seeded + rolled forward -
        paid +/- adjustments."""
        return base + self.contributed + self.seeded + self.rolled_forward - self.paid + self.adjusted


@dataclass(frozen=True, slots=True)
class PendingHit:
    hit_id: int
    level: str
    amount: Cents
    sequence: int
    table_id: str
    position: int
    held: bool = False  # held for pit verification before it may be paid (PRG-28)


@dataclass(frozen=True, slots=True)
class HitClaim:
    """A hit to resolve: a share of one level's meter for a hand at a table's position,
    ordered by the controller's ``sequence`` (NY 5321.18(b)(3)(iii), PRG-24)."""

    sequence: int
    table_id: str
    position: int
    level: str
    share_bp: int = WHOLE_METER  # 10_000: the whole meter; 1_000: 10% of it
    line: str = ""  # the hand's line, for the record

    def __post_init__(self) -> None:
        if (
            isinstance(self.share_bp, bool)
            or not isinstance(self.share_bp, int)
            or not 0 < self.share_bp <= WHOLE_METER
        ):
            raise ProgressiveError(
                f"a hit's share must be 1..{WHOLE_METER} basis points, got {self.share_bp!r}"
            )


@dataclass(frozen=True, slots=True)
class Pool:
    """A progressive pool: its levels' parameters and meters, its hits pending payment."""

    name: str
    params: Mapping[str, LevelParams]
    meters: Mapping[str, LevelMeters]
    open: bool = False
    pending: tuple[PendingHit, ...] = ()
    recent_hits: tuple[HitRecord, ...] = ()
    next_hit_id: int = 1

    def level(self, name: str) -> tuple[LevelParams, LevelMeters]:
        if name not in self.params:
            raise UnknownLevelError(
                f"pool {self.name} has no level {name!r}; its levels are {list(self.params)}"
            )
        return self.params[name], self.meters[name]

    def check_ledger(self) -> None:
        """Raise AssertionError when a level's meters break the ledger (a bug, never input)."""
        for name, params in self.params.items():
            meters = self.meters[name]
            locked = sum(hit.amount for hit in self.pending if hit.level == name)
            if meters.meter + meters.locked != meters.ledger(params.base) or locked != meters.locked:
                raise AssertionError(f"level {name}: the meters break the ledger: {meters}")
            if meters.reserve != meters.to_reserve - meters.seeded_from_reserve:
                raise AssertionError(f"level {name}: the reserve breaks its ledger: {meters}")


def new_pool(name: str, levels: Sequence[LevelParams]) -> Pool:
    """A closed pool whose meters start at their base."""
    names = [level.name for level in levels]
    if not levels or len(set(names)) != len(names):
        raise LevelParamsError(f"a pool needs levels with distinct names, got {names}")
    return Pool(
        name=name,
        params={level.name: level for level in levels},
        meters={level.name: LevelMeters(meter=level.base) for level in levels},
    )


# --- records ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LevelContribution:
    level: str
    to_meter: Cents
    to_reserve: Cents
    to_overflow: Cents
    meter_after: Cents


@dataclass(frozen=True, slots=True)
class ContributionRecord:
    kind = "contribution"
    wager: Cents
    table_id: str
    position: int
    sequence: int
    levels: tuple[LevelContribution, ...]


@dataclass(frozen=True, slots=True)
class HitRecord:
    """One resolved hit: its order in the batch, the meter before and after, the award
    locked pending payment (NJ 13:69E-1.39C(b)(4), PRG-23, PRG-24, PRG-25)."""

    kind = "hit"
    hit_id: int
    order: int  # 1, 2 ... within its batch, by sequence
    claim: HitClaim
    meter_before: Cents
    amount: Cents
    seeded: Cents
    seeded_from_reserve: Cents
    rolled_forward: Cents
    meter_after: Cents
    held: bool = False  # held for pit verification (PRG-28)


@dataclass(frozen=True, slots=True)
class HitBatchRecord:
    kind = "hits"
    rule: SimultaneousRule
    percent_base: PercentBase
    hits: tuple[HitRecord, ...]
    hold_from: Cents | None = None


@dataclass(frozen=True, slots=True)
class PaymentRecord:
    kind = "payment"
    hit_id: int
    level: str
    amount: Cents
    paid_by: str
    verified_by: str = ""


@dataclass(frozen=True, slots=True)
class AdjustmentRecord:
    kind = "adjustment"
    level: str
    amount: Cents  # signed
    reason: AdjustmentReason
    requested_by: str
    approved_by: str
    note: str
    meter_before: Cents
    meter_after: Cents


@dataclass(frozen=True, slots=True)
class ParameterChangeRecord:
    """A level's parameters changed while the pool was closed; ``rate_changed`` asks for the
    accounting notice of NJ 13:69D-1.52(e)(3) (PRG-03)."""

    kind = "parameters"
    before: LevelParams
    after: LevelParams
    requested_by: str
    approved_by: str

    @property
    def rate_changed(self) -> bool:
        return (self.before.increment_bp, self.before.reserve_bp) != (
            self.after.increment_bp,
            self.after.reserve_bp,
        )


@dataclass(frozen=True, slots=True)
class PoolStatusRecord:
    kind = "status"
    open: bool
    reason: str


Record = (
    ContributionRecord
    | HitBatchRecord
    | PaymentRecord
    | AdjustmentRecord
    | ParameterChangeRecord
    | PoolStatusRecord
)


# --- operations -------------------------------------------------------------------------------


def set_open(pool: Pool, open_: bool, reason: str) -> tuple[Pool, PoolStatusRecord]:
    """Open the pool to wagers, or close it (link down, a parameter change: PRG-35, PRG-04)."""
    return replace(pool, open=open_), PoolStatusRecord(open=open_, reason=reason)


def _split(amount_scaled: int, carry: int) -> tuple[Cents, int]:
    """Whole cents of ``amount_scaled + carry`` (1/BASIS_POINTS cents), and the new carry."""
    return divmod(amount_scaled + carry, BASIS_POINTS)


def contribute(
    pool: Pool, wager: Cents, *, table_id: str, position: int, sequence: int
) -> tuple[Pool, ContributionRecord]:
    """One accepted progressive wager adds its rate to every level (PRG-20), rounded down with
    the remainder carried. Refused, nothing applied: a closed pool (PRG-35), a wager that is
    not whole cents above zero, a contribution above a level's threshold (PRG-22)."""
    if not pool.open:
        raise PoolClosedError(f"pool {pool.name} is closed: the progressive wager is not accepted")
    try:
        check_amount(wager, "progressive wager")
    except MoneyError as error:
        raise ProgressiveError(str(error)) from error
    meters = dict(pool.meters)
    levels = []
    for name, params in pool.params.items():
        level = meters[name]
        to_meter, meter_carry = _split(wager * params.increment_bp, level.meter_carry)
        to_reserve, reserve_carry = _split(wager * params.reserve_bp, level.reserve_carry)
        if to_meter + to_reserve > params.unreasonable_contribution:
            raise UnreasonableContributionError(
                f"level {name}: a contribution of {format_cents(to_meter + to_reserve)} from a wager of "
                f"{format_cents(wager)} exceeds {format_cents(params.unreasonable_contribution)}: not applied"
            )
        room = to_meter if params.limit is None else max(min(to_meter, params.limit - level.meter), 0)
        to_overflow = to_meter - room
        meters[name] = replace(
            level,
            meter=level.meter + room,
            reserve=level.reserve + to_reserve,
            overflow=level.overflow + to_overflow,
            meter_carry=meter_carry,
            reserve_carry=reserve_carry,
            in_meter=level.in_meter + 1,
            contributed=level.contributed + room,
            to_reserve=level.to_reserve + to_reserve,
            to_overflow=level.to_overflow + to_overflow,
        )
        levels.append(LevelContribution(name, room, to_reserve, to_overflow, level.meter + room))
    record = ContributionRecord(wager, table_id, position, sequence, tuple(levels))
    return replace(pool, meters=meters), record


def _reseed(params: LevelParams, level: LevelMeters) -> tuple[LevelMeters, Cents, Cents, Cents]:
    """Bring the meter back to its reset when a hit left it below (the reserve pays first,
    the house the rest), then roll the overflow forward up to the limit."""
    seed = max(params.reset - level.meter, 0)
    from_reserve = min(seed, level.reserve)
    level = replace(
        level,
        meter=level.meter + seed,
        reserve=level.reserve - from_reserve,
        seeded=level.seeded + seed,
        seeded_from_reserve=level.seeded_from_reserve + from_reserve,
    )
    rolled = 0
    if params.overflow is OverflowPolicy.ROLL_FORWARD and level.overflow:
        room = (
            level.overflow
            if params.limit is None
            else max(min(level.overflow, params.limit - level.meter), 0)
        )
        rolled = room
        level = replace(
            level,
            meter=level.meter + rolled,
            overflow=level.overflow - rolled,
            rolled_forward=level.rolled_forward + rolled,
        )
    return level, seed, from_reserve, rolled


def resolve_hits(
    pool: Pool,
    claims: Sequence[HitClaim],
    rule: SimultaneousRule = SimultaneousRule.IN_ORDER,
    percent_base: PercentBase = PercentBase.AT_PAYMENT,
    hold_from: Cents | None = None,
) -> tuple[Pool, HitBatchRecord]:
    """Resolve hits found together, ordered by sequence (PRG-24): each award is taken off
    the meter and locked pending payment, and the meter reseeds at its reset at the moment of
    the hit (PRG-25, DEQ's jackpot lock). A share is rounded down to the cent; the fraction
    stays on the meter. ``SHARED``: the claims of one level and one share split that share
    of the meter at the first one's turn equally, the odd cents one each to the earliest.
    A hit of ``hold_from`` cents or more is held for pit verification (PRG-28)."""
    ordered = sorted(claims, key=lambda claim: claim.sequence)
    if len({claim.sequence for claim in ordered}) != len(ordered):
        raise ProgressiveError("two hits with one sequence number: the order must be recorded (PRG-24)")
    for claim in ordered:
        pool.level(claim.level)
    before = {name: level.meter for name, level in pool.meters.items()}
    meters = dict(pool.meters)
    pending = list(pool.pending)
    records: list[HitRecord] = []
    next_id = pool.next_hit_id
    shared: dict[tuple[str, int], list[Cents]] = {}  # (level, share) -> amounts still to hand out
    for order, claim in enumerate(ordered, start=1):
        params, level = pool.params[claim.level], meters[claim.level]
        key = (claim.level, claim.share_bp)
        if rule is SimultaneousRule.SHARED and key in shared:
            amount = shared[key].pop(0)  # already taken off the meter at the first one's turn
            taken = 0
        else:
            value = (
                level.meter
                if claim.share_bp == WHOLE_METER or percent_base is PercentBase.AT_PAYMENT
                else before[claim.level]
            )
            amount = value * claim.share_bp // BASIS_POINTS
            taken = amount
            if rule is SimultaneousRule.SHARED:
                group = sum(1 for other in ordered if (other.level, other.share_bp) == key)
                each, odd = divmod(amount, group)
                shares = [each + (1 if i < odd else 0) for i in range(group)]
                amount, shared[key] = shares[0], shares[1:]
        meter_before = level.meter
        # What is taken off the meter is locked whole: a shared award's other parts wait locked
        # for their own claims, later in this batch.
        level = replace(level, meter=level.meter - taken, locked=level.locked + taken, hits=level.hits + 1)
        level, seed, from_reserve, rolled = _reseed(params, level)
        meters[claim.level] = level
        held = hold_from is not None and amount >= hold_from
        pending.append(
            PendingHit(next_id, claim.level, amount, claim.sequence, claim.table_id, claim.position, held)
        )
        records.append(
            HitRecord(
                next_id, order, claim, meter_before, amount, seed, from_reserve, rolled, level.meter, held
            )
        )
        next_id += 1
    recent = (pool.recent_hits + tuple(records))[-RECENT_HITS:]
    batch = HitBatchRecord(rule, percent_base, tuple(records), hold_from)
    return replace(
        pool, meters=meters, pending=tuple(pending), recent_hits=recent, next_hit_id=next_id
    ), batch


def confirm_payment(
    pool: Pool, hit_id: int, *, paid_by: str, verified_by: str = ""
) -> tuple[Pool, PaymentRecord]:
    """The award of a pending hit was paid: it leaves the books now (PRG-27), once only. A
    held hit is paid only with the name of who verified it (PRG-28)."""
    if not paid_by.strip():
        raise PaymentError("a payment names who paid it")
    hit = next((hit for hit in pool.pending if hit.hit_id == hit_id), None)
    if hit is None:
        raise PaymentError(f"hit {hit_id} is not pending payment (unknown, or already paid)")
    if hit.held and not verified_by.strip():
        raise PaymentError(f"hit {hit_id} of {format_cents(hit.amount)} is held for pit verification")
    level = pool.meters[hit.level]
    meters = {
        **pool.meters,
        hit.level: replace(level, locked=level.locked - hit.amount, paid=level.paid + hit.amount),
    }
    pending = tuple(other for other in pool.pending if other.hit_id != hit_id)
    return replace(pool, meters=meters, pending=pending), PaymentRecord(
        hit_id, hit.level, hit.amount, paid_by, verified_by
    )


def _two_people(requested_by: str, approved_by: str) -> None:
    first, second = requested_by.strip().casefold(), approved_by.strip().casefold()
    if not first or not second:
        raise TwoPersonRuleError("two people must be named: who asks and who approves")
    if first == second:
        raise TwoPersonRuleError(f"{requested_by!r} cannot approve their own request: a second person must")


def adjust(
    pool: Pool,
    level_name: str,
    amount: Cents,
    reason: AdjustmentReason,
    *,
    requested_by: str,
    approved_by: str,
    note: str = "",
) -> tuple[Pool, AdjustmentRecord]:
    """A documented correction of a meter by two people while the pool is closed (PRG-29,
    PRG-30, PRG-14: the values before and after are recorded). The meter stays within
    [reset, limit]: no operation takes it above its limit, so NJ's "correction down to the
    limit" is never needed (docs/progressive.md)."""
    _two_people(requested_by, approved_by)
    if pool.open:
        raise PoolOpenError(f"pool {pool.name} is open: close it before adjusting a meter")
    params, level = pool.level(level_name)
    if isinstance(amount, bool) or not isinstance(amount, int) or amount == 0:
        raise AdjustmentError(f"an adjustment is a whole number of cents other than zero, got {amount!r}")
    if not isinstance(reason, AdjustmentReason) or reason not in (
        _DOWN_REASONS if amount < 0 else _UP_REASONS
    ):
        raise AdjustmentError(f"{reason!r} is not a reason to take a meter {'down' if amount < 0 else 'up'}")
    after = level.meter + amount
    if after < params.reset:
        raise AdjustmentError(f"the meter would show {format_cents(after)}, below its reset (PRG-07)")
    if params.limit is not None and after > params.limit:
        raise AdjustmentError(f"the meter would show {format_cents(after)}, above its limit")
    meters = {**pool.meters, level_name: replace(level, meter=after, adjusted=level.adjusted + amount)}
    record = AdjustmentRecord(level_name, amount, reason, requested_by, approved_by, note, level.meter, after)
    return replace(pool, meters=meters), record


def change_parameters(
    pool: Pool, new: LevelParams, *, requested_by: str, approved_by: str
) -> tuple[Pool, ParameterChangeRecord]:
    """New parameters for a level, by two people, only while the pool is closed (PRG-04,
    PRG-05); the base is the level's starting amount and does not change; a new limit is at
    or above the meter (PRG-06); a new reset at or below it (PRG-07)."""
    _two_people(requested_by, approved_by)
    if pool.open:
        raise PoolOpenError(f"pool {pool.name} is open: parameters change only while it is closed (PRG-04)")
    old, level = pool.level(new.name)
    if new.base != old.base:
        raise LevelParamsError(f"level {new.name}: the base is its starting amount and does not change")
    if new.limit is not None and new.limit < level.meter:
        raise LevelParamsError(
            f"level {new.name}: a new limit {format_cents(new.limit)} "
            f"below the meter {format_cents(level.meter)} (PRG-06)"
        )
    if new.reset > level.meter:
        raise LevelParamsError(
            f"level {new.name}: a new reset above the meter would show less than its reset"
        )
    params = {**pool.params, new.name: new}
    return replace(pool, params=params), ParameterChangeRecord(old, new, requested_by, approved_by)


def apply(pool: Pool, record: Record) -> Pool:
    """Apply a stored record by re-running its operation on its inputs; the result must be
    the record itself (ReplayMismatchError otherwise)."""
    produced: Record
    if isinstance(record, ContributionRecord):
        pool, produced = contribute(
            pool, record.wager, table_id=record.table_id, position=record.position, sequence=record.sequence
        )
    elif isinstance(record, HitBatchRecord):
        pool, produced = resolve_hits(
            pool, [hit.claim for hit in record.hits], record.rule, record.percent_base, record.hold_from
        )
    elif isinstance(record, PaymentRecord):
        pool, produced = confirm_payment(
            pool, record.hit_id, paid_by=record.paid_by, verified_by=record.verified_by
        )
    elif isinstance(record, AdjustmentRecord):
        pool, produced = adjust(
            pool,
            record.level,
            record.amount,
            record.reason,
            requested_by=record.requested_by,
            approved_by=record.approved_by,
            note=record.note,
        )
    elif isinstance(record, ParameterChangeRecord):
        pool, produced = change_parameters(
            pool, record.after, requested_by=record.requested_by, approved_by=record.approved_by
        )
    else:
        pool, produced = set_open(pool, record.open, record.reason)
    if produced != record:
        raise ReplayMismatchError(f"replaying {record} gave {produced}")
    return pool


def replay(initial: Pool, records: Sequence[Record]) -> Pool:
    """The pool re-derived from its records, in order (PRG-37: the state before a failure)."""
    pool = initial
    for record in records:
        pool = apply(pool, record)
    return pool


__all__ = [
    "RECENT_HITS",
    "WHOLE_METER",
    "AdjustmentError",
    "AdjustmentReason",
    "AdjustmentRecord",
    "ContributionRecord",
    "HitBatchRecord",
    "HitClaim",
    "HitRecord",
    "LevelContribution",
    "LevelMeters",
    "LevelParams",
    "LevelParamsError",
    "OverflowPolicy",
    "ParameterChangeRecord",
    "PaymentError",
    "PaymentRecord",
    "PendingHit",
    "PercentBase",
    "Pool",
    "PoolClosedError",
    "PoolOpenError",
    "PoolStatusRecord",
    "ProgressiveError",
    "Record",
    "ReplayMismatchError",
    "SimultaneousRule",
    "TwoPersonRuleError",
    "UnknownLevelError",
    "UnreasonableContributionError",
    "adjust",
    "apply",
    "change_parameters",
    "confirm_payment",
    "contribute",
    "new_pool",
    "replay",
    "resolve_hits",
    "set_open",
]
