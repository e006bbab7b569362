"""The table's stand-alone progressive pool: its meters kept in the store's chain, moved by the
round (docs/progressive.md, "The pool at the table").

- **Contributions** when the wagers lock (the round's ``dice.rolled``): each accepted
  progressive wager adds its rate to every level (PRG-20), in the transaction of the dice.
  A contribution above a level's threshold is not applied and is alerted (PRG-22).
- **Hits** when the round settles, from the settlement's meter claims (the card read),
  ordered by the pool's hit numbers (PRG-24), in the transaction of ``round.settled``: each
  award is locked and the meter reseeds (PRG-25); a hit under the pay table's ``hold_from``
  is paid by the table at once, in the same transaction; one at or above it waits, pending,
  for a pit user's payment naming who verified the cards (PRG-28), chained once: a second
  payment of the same hit is refused (PRG-27). Nothing is paid twice across a restart: the
  pool is re-derived from its chain at start (PRG-37).
- **Adjustments** by two people: one asks (``progressive.adjustment-requested``), another
  confirms; the pool is closed, adjusted and opened again in one transaction (PRG-29,
  PRG-40, PRG-42). The same person confirming is refused and the refusal chained.

Each step is prepared on the keeper's copy of the pool (pure), written with the round's event
or in its own transaction, and adopted only once written: a failed write changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import structlog
from sqlalchemy.engine import Engine
from sqlmodel import Session

from ..game.money import Cents
from ..game.progressive import (
    AdjustmentReason,
    HitClaim,
    Pool,
    ProgressiveError,
    Record,
    TwoPersonRuleError,
    UnreasonableContributionError,
    adjust,
    confirm_payment,
    contribute,
    new_pool,
    set_open,
)
from ..game.progressive_json import record_as_dict
from ..game.progressive_paytable import ProgressivePayTable
from ..game.progressive_state import CREATED, created_payload, pool_as_dict, record_kind, replay_events
from ..game.settlement import RoundSettlement
from ..storage.progressive import append_pool_events, pool_events, pool_events_of
from ..storage.session import read_snapshot, unit_of_work

log = structlog.get_logger()

SYSTEM: Final = "system"  # who pays a hit under hold_from: the table itself (PRG-13, paid by system)
REQUESTED: Final = "progressive.adjustment-requested"
CLOSED: Final = "progressive.request-closed"
REFUSED: Final = "progressive.refused"
VOIDED: Final = "progressive.round-voided"
CONTRIBUTION: Final = record_kind("contribution")


class AdjustmentRequestError(ProgressiveError):
    """An adjustment request that is unknown or already closed."""


@dataclass
class PoolStep:
    """A prepared change of the pool: the events to chain and the pool after them. ``write`` is
    called in the transaction that chains it; ``alerts`` are for the table to raise after."""

    pool: Pool
    events: list[tuple[str, dict[str, Any]]]
    actor: str = SYSTEM
    round_id: str | None = None
    alerts: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)
    seq: int | None = None
    expect: int = 0
    pool_id: str = ""

    def write(self, session: Session) -> None:
        self.seq = append_pool_events(
            session,
            pool_id=self.pool_id,
            events=self.events,
            state=pool_as_dict(self.pool),
            actor=self.actor,
            expect=self.expect,
            round_id=self.round_id,
        )


def _events(records: Sequence[Record]) -> list[tuple[str, dict[str, Any]]]:
    return [(record_kind(record.kind), record_as_dict(record)) for record in records]


def voided_note(
    session: Session, pool_id: str, table_id: str, round_id: str
) -> list[tuple[str, dict[str, Any]]]:
    """The ``progressive.round-voided`` note of a voided round that contributed (none when it did
    not, or when the note is chained already): its wagers and the cents the house now funds."""
    if pool_events_of(session, pool_id=pool_id, kinds=[VOIDED], round_id=round_id):
        return []
    done = [
        payload
        for _, _, _, payload in pool_events_of(
            session, pool_id=pool_id, kinds=[CONTRIBUTION], round_id=round_id
        )
        if payload["table_id"] == table_id
    ]
    if not done:
        return []
    funded = sum(
        level["to_meter"] + level["to_reserve"] + level["to_overflow"]
        for record in done
        for level in record["levels"]
    )
    wagers = {str(record["position"]): record["wager"] for record in done}
    return [(VOIDED, {"table_id": table_id, "wagers_returned": wagers, "house_funded": funded})]


class PoolKeeper:
    """One table's stand-alone pool (``pool_id``), priced by its progressive pay table."""

    def __init__(self, engine: Engine, *, pool_id: str, table: ProgressivePayTable, table_id: str) -> None:
        self.engine = engine
        self.pool_id = pool_id
        self.table = table
        self.table_id = table_id
        self._pool: Pool | None = None
        self._seq = 0

    @property
    def pool(self) -> Pool:
        if self._pool is None:
            raise ProgressiveError(f"pool {self.pool_id} is not loaded")
        return self._pool

    # -- start -------------------------------------------------------------------------------

    def load(self) -> Pool:
        """The pool re-derived from its chain; a new pool (its levels at their base, open) is
        created and chained the first time."""
        with read_snapshot(self.engine) as session:
            stored = pool_events(session, pool_id=self.pool_id)
        if stored:
            self._pool = replay_events((kind, payload) for _seq, kind, _actor, payload in stored)
            self._seq = stored[-1][0]
            log.info(
                "progressive.loaded", pool_id=self.pool_id, seq=self._seq, pending=len(self._pool.pending)
            )
            return self._pool
        pool = new_pool(self.table.name, self.table.levels)
        opened, record = set_open(pool, True, "stand-alone pool started")
        step = PoolStep(opened, [(CREATED, created_payload(pool)), *_events([record])], pool_id=self.pool_id)
        with unit_of_work(self.engine) as session:
            step.write(session)
        self.adopt(step)
        log.info("progressive.created", pool_id=self.pool_id, levels=list(pool.params))
        return opened

    def adopt(self, step: PoolStep) -> None:
        """Take the step's pool as the keeper's, once its transaction is committed."""
        assert step.seq is not None
        self._pool, self._seq = step.pool, step.seq

    def _step(self, pool: Pool, records: Sequence[Record], **fields: Any) -> PoolStep:
        return PoolStep(pool, _events(records), pool_id=self.pool_id, expect=self._seq, **fields)

    # -- the round ---------------------------------------------------------------------------

    def contributions(self, wagers: Mapping[int, Cents], *, round_id: str) -> PoolStep | None:
        """The contributions of the round's progressive wagers (position order), or None."""
        if not wagers:
            return None
        pool, records = self.pool, []
        alerts: list[tuple[str, str, dict[str, Any]]] = []
        for position, wager in sorted(wagers.items()):
            try:
                pool, record = contribute(
                    pool, wager, table_id=self.table_id, position=position, sequence=position
                )
            except UnreasonableContributionError as error:  # flagged, not applied (PRG-22)
                alerts.append(("progressive-unreasonable-contribution", str(error), {"position": position}))
                continue
            records.append(record)
        return self._step(pool, records, round_id=round_id, alerts=alerts)

    def hits(self, result: RoundSettlement, *, round_id: str) -> PoolStep | None:
        """The round's meter hits from its settlement, resolved in position order; those under
        ``hold_from`` paid by the table at once (module docstring), or None without a hit."""
        side = result.side
        claims_at = [] if side is None else [p for p in side.positions if p.meter_claim is not None]
        if not claims_at:
            return None
        first = self.pool.next_hit_id
        claims = [
            HitClaim(
                first + i, self.table_id, p.position, p.meter_claim.level, p.meter_claim.share_bp, p.hand
            )
            for i, p in enumerate(claims_at)
            if p.meter_claim is not None
        ]
        from ..game.progressive import resolve_hits

        pool, batch = resolve_hits(
            self.pool, claims, self.table.simultaneous, self.table.percent_base, self.table.hold_from
        )
        records: list[Record] = [batch]
        alerts = []
        for hit in batch.hits:
            if hit.held:
                alerts.append(
                    (
                        "progressive-hit-pending",
                        f"position {hit.claim.position}: {hit.claim.line} won {hit.amount} cents of "
                        f"{hit.claim.level}, held for pit verification with the cards shown "
                        f"(hit {hit.hit_id})",
                        {"hit_id": hit.hit_id, "position": hit.claim.position, "amount_cents": hit.amount},
                    )
                )
                continue
            pool, paid = confirm_payment(pool, hit.hit_id, paid_by=SYSTEM)
            records.append(paid)
        return self._step(pool, records, round_id=round_id, alerts=alerts)

    def voided(self, round_id: str) -> int:
        """A voided round's contributions stay on the meters: a meter goes down only by a paid
        hit or a two-person correction (PRG-29), and the wagers are returned with the void, so
        the house funds them; chained as ``progressive.round-voided`` (docs/progressive.md,
        "A voided round"). The number of notes chained (0: the round contributed nothing)."""
        with read_snapshot(self.engine) as session:
            events = voided_note(session, self.pool_id, self.table_id, round_id)
        if events:
            self._commit(
                PoolStep(self.pool, events, pool_id=self.pool_id, expect=self._seq, round_id=round_id)
            )
        return len(events)

    # -- the pit -----------------------------------------------------------------------------

    def pay(self, hit_id: int, *, actor: str, verified_by: str) -> PoolStep:
        """A pending hit paid by a pit user, who verified the cards (PRG-28): chained once."""
        pool, record = confirm_payment(self.pool, hit_id, paid_by=actor, verified_by=verified_by)
        step = self._step(pool, [record], actor=actor)
        self._commit(step)
        log.info(
            "progressive.paid", pool_id=self.pool_id, hit_id=hit_id, amount_cents=record.amount, actor=actor
        )
        return step

    def request_adjustment(
        self, *, level: str, amount: Cents, reason: AdjustmentReason, note: str, actor: str
    ) -> int:
        """Ask for an adjustment, for another person to confirm; returns the request's seq."""
        # the adjustment's own rules (level, reason, reset and limit) are checked now, before a
        # second person is asked; the two people are checked when the second one confirms
        closed, _ = set_open(self.pool, False, "adjustment")
        adjust(closed, level, amount, reason, requested_by=actor, approved_by="a second person", note=note)
        payload = {"level": level, "amount": amount, "reason": reason.value, "note": note}
        step = PoolStep(
            self.pool, [(REQUESTED, payload)], actor=actor, pool_id=self.pool_id, expect=self._seq
        )
        self._commit(step)
        assert step.seq is not None
        log.info(
            "progressive.adjustment_requested", pool_id=self.pool_id, request=step.seq, actor=actor, **payload
        )
        return step.seq

    def open_requests(self) -> dict[int, dict[str, Any]]:
        """Adjustment requests not yet closed, by seq, with who asked."""
        with read_snapshot(self.engine) as session:
            stored = pool_events(session, pool_id=self.pool_id)
        requests = {
            seq: {**payload, "requested_by": actor}
            for seq, kind, actor, payload in stored
            if kind == REQUESTED
        }
        for _seq, kind, _actor, payload in stored:
            if kind == CLOSED:
                requests.pop(int(payload["request"]), None)
        return requests

    def confirm_adjustment(self, request: int, *, actor: str) -> PoolStep:
        """A second person confirms: closed, adjusted, opened again, one transaction. The one who
        asked is refused (TwoPersonRuleError), the refusal chained and logged."""
        asked = self.open_requests().get(request)
        if asked is None:
            raise AdjustmentRequestError(f"adjustment request {request} is not open (unknown, or closed)")
        requested_by = str(asked["requested_by"])
        closed, shut = set_open(self.pool, False, f"adjustment request {request}")
        try:
            adjusted, record = adjust(
                closed,
                str(asked["level"]),
                int(asked["amount"]),
                AdjustmentReason(asked["reason"]),
                requested_by=requested_by,
                approved_by=actor,
                note=str(asked["note"]),
            )
        except TwoPersonRuleError as error:
            refusal = PoolStep(
                self.pool,
                [(REFUSED, {"rule": "two-person", "request": request, "reason": str(error)})],
                actor=actor,
                pool_id=self.pool_id,
                expect=self._seq,
            )
            self._commit(refusal)
            log.warning(
                "progressive.refused", pool_id=self.pool_id, request=request, actor=actor, reason=str(error)
            )
            raise
        reopened, again = set_open(adjusted, True, f"adjustment request {request} done")
        step = self._step(reopened, [shut, record, again], actor=actor)
        step.events.append((CLOSED, {"request": request, "confirmed_by": actor}))
        self._commit(step)
        log.info(
            "progressive.adjusted",
            pool_id=self.pool_id,
            request=request,
            confirmed_by=actor,
            amount_cents=record.amount,
        )
        return step

    def _commit(self, step: PoolStep, also: Callable[[Session], None] | None = None) -> None:
        try:
            with unit_of_work(self.engine) as session:
                step.write(session)
                if also is not None:
                    also(session)
        except Exception:
            self.reload()
            raise
        self.adopt(step)

    def reload(self) -> None:
        """After a write that failed (or may have been committed before it failed): the pool as
        its chain has it, never a copy that may be behind (a later write would be refused)."""
        try:
            self.load()
        except Exception as error:
            log.error(
                "progressive.reload_failed", pool_id=self.pool_id, error=f"{type(error).__name__}: {error}"
            )

    # -- reading -----------------------------------------------------------------------------

    def meters(self) -> dict[str, Any]:
        """The pool's meters as JSON data (game/progressive_state.py), with its id."""
        return {"pool_id": self.pool_id, "seq": self._seq, **pool_as_dict(self.pool)}


__all__ = [
    "CONTRIBUTION",
    "REFUSED",
    "SYSTEM",
    "VOIDED",
    "AdjustmentRequestError",
    "PoolKeeper",
    "PoolStep",
    "voided_note",
]
