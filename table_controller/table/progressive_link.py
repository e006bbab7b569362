"""A progressive pool linked across the tables of a floor, its meters in the floor's PostgreSQL
(docs/progressive.md, "A pool linked across tables").

The floor's store is the single source of the meters: every step of every table is one
transaction that locks the pool's row (``storage.progressive.lock_pool``, ``SELECT ... FOR
UPDATE``), starts from the state the row holds, applies the pure core (game/progressive.py),
chains the records in the pool's chain and writes the state back. Two tables contributing at
once take turns on the row: no increment is lost, and the chain's seq is the controller's
sequence.

- **Joining** (PRG-33, PRG-46): a table joins once, chained as ``progressive.table-joined``
  with its id and the SHA-256 of its progressive pay table; a table whose pay table is not the
  pool's (the one ``progressive.created`` names) is refused, the refusal chained, and its
  progressive stays closed. A write from a table that has not joined is refused.
- **Contributions** are committed to the pool before the table chains its dice, and are
  keyed by the round: a table that fails between the two (a crash, a lost store) and rolls
  the same round again finds them and adds nothing.
- **Hits** are claimed first (``progressive.claimed``, one event per hit, its seq the hit's
  sequence) and resolved in a second transaction with every claim not yet resolved, ordered
  by sequence and paid by the configured rule (§1.8 question 4: in order at the current
  meter, or shared). Between the two a claim waits ``simultaneous_window_seconds``, so that
  hits at other tables in that time resolve in one batch with it (near-simultaneous hits,
  PRG-24). A claim left unresolved by a
  crash is resolved by the next resolver (its own table's restart or any other table's hit):
  never twice, never lost.
- **The link down** (the floor's store unreachable): ``LinkDownError``; the table closes its
  progressive wager and plays the base game on (table/service.py).

This module imports no table service; the service chooses it when ``link_db_url`` is set.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, Final

import structlog
from sqlalchemy.engine import Engine
from sqlmodel import Session

from ..game.money import Cents
from ..game.progressive import (
    HitClaim,
    LevelParams,
    Pool,
    ProgressiveError,
    Record,
    TwoPersonRuleError,
    UnreasonableContributionError,
    change_parameters,
    confirm_payment,
    contribute,
    new_pool,
    resolve_hits,
    set_open,
)
from ..game.progressive_paytable import ProgressivePayTable
from ..game.progressive_state import (
    CREATED,
    created_payload,
    meters_pool,
    pool_as_dict,
    pool_from_dict,
    record_kind,
    replay_events,
    with_meters,
)
from ..game.settlement import RoundSettlement
from ..storage.errors import is_outage
from ..storage.progressive import (
    LockedPool,
    ProgressivePool,
    last_pool_event_seq,
    lock_pool,
    pool_events,
    pool_events_of,
    pool_state,
    pool_step,
    write_locked_pool,
)
from ..storage.session import read_snapshot, unit_of_work
from .progressive_pool import CONTRIBUTION, REFUSED, SYSTEM, PoolKeeper, PoolStep, _events, voided_note

log = structlog.get_logger()

JOINED: Final = "progressive.table-joined"
CLAIMED: Final = "progressive.claimed"
HITS: Final = record_kind("hits")


class LinkDownError(ProgressiveError):
    """The floor's store, where the linked pool's meters are, cannot be reached (PRG-35)."""


class NotLinkableError(ProgressiveError):
    """A table that may not write the pool: a different progressive table (PRG-46), or one
    that has not joined it (PRG-33)."""


class DoneStep(PoolStep):
    """A step already committed to the floor's store: the table's transaction writes nothing of
    it (its ``write`` does nothing), the keeper adopts the pool it left."""

    def write(self, session: Session) -> None:
        return None


Build = Callable[[Session, Pool], tuple[Pool, list[tuple[str, dict[str, Any]]]]]


class LinkedPoolKeeper(PoolKeeper):
    """One table's view of a pool linked across the floor (module docstring)."""

    linked = True

    def __init__(
        self,
        engine: Engine,
        *,
        pool_id: str,
        table: ProgressivePayTable,
        table_id: str,
        paytable_sha256: str,
        window_seconds: float = 2.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        super().__init__(engine, pool_id=pool_id, table=table, table_id=table_id)
        self.paytable_sha256 = paytable_sha256
        self.window_seconds = window_seconds
        self._sleep = sleep
        self.link_down: str | None = None  # why the floor's store does not answer, while it does not
        self._mutex = threading.Lock()  # the copy and its seq (``_keep``)

    # -- one locked step ---------------------------------------------------------------------

    def _current(self, row: ProgressivePool) -> Pool:
        """The pool as the locked row holds it (the keeper's copy when it is at the row's seq)."""
        with self._mutex:
            pool, seq = self._pool, self._seq
        if pool is not None and seq == row.last_seq:
            return pool
        return pool_from_dict(pool_state(row))

    def _keep(self, pool: Pool, seq: int) -> None:
        """The keeper's copy and the seq it is at, set together: the heartbeat's link check and
        the round's steps run on two threads, and a copy paired with another's seq would be
        taken for the row's state."""
        with self._mutex:
            self._pool, self._seq = pool, seq

    def adopt(self, step: PoolStep) -> None:
        """A step's pool and seq, as it was committed (the pair it was made with)."""
        assert step.seq is not None
        self._keep(step.pool, step.seq)

    @property
    def loaded(self) -> bool:
        """Whether the keeper has read the pool once (a start with the link down has not)."""
        return self._pool is not None

    def _locked(
        self, build: Build, *, actor: str = SYSTEM, round_id: str | None = None
    ) -> tuple[Pool, list[int]]:
        """Run ``build`` on the pool under its row's lock and write what it gives, in one
        transaction; the pool after it and the seqs of its events. LinkDownError when the
        floor's store does not answer (nothing was written, or the whole step was)."""
        try:
            with unit_of_work(self.engine) as session:
                row = lock_pool(session, pool_id=self.pool_id)
                if row is None:
                    raise ProgressiveError(f"pool {self.pool_id} does not exist on the floor's store")
                pool, events = build(session, self._current(row))
                seqs = write_locked_pool(
                    session,
                    pool_id=self.pool_id,
                    row=row,
                    events=events,
                    state=pool_as_dict(pool),
                    actor=actor,
                    round_id=round_id,
                )
                seq = row.last_seq
        except Exception as error:
            if is_outage(error):
                raise self._down(error) from error
            raise
        self._keep(pool, seq)
        self._up()
        return pool, seqs

    def _down(self, error: BaseException) -> LinkDownError:
        reason = f"the floor's store does not answer: {type(error).__name__}: {str(error).strip()[:200]}"
        if self.link_down is None:
            log.error("progressive.link_down", pool_id=self.pool_id, error=reason)
        self.link_down = reason
        return LinkDownError(reason)

    def _up(self) -> None:
        if self.link_down is not None:
            log.info("progressive.link_up", pool_id=self.pool_id, was=self.link_down)
        self.link_down = None

    def check_link(self) -> bool:
        """Whether the floor's store answers now; the pool read again when it does."""
        try:
            self.refresh()
        except LinkDownError:
            return False
        return True

    def refresh(self) -> Pool:
        """The pool as the floor's store has it now (one row read)."""
        try:
            with read_snapshot(self.engine) as session:
                row = session.get(ProgressivePool, self.pool_id)
                if row is None:
                    raise ProgressiveError(f"pool {self.pool_id} does not exist on the floor's store")
                pool, seq = self._current(row), row.last_seq
        except Exception as error:
            if is_outage(error):
                raise self._down(error) from error
            raise
        self._keep(pool, seq)
        self._up()
        return pool

    # -- start -------------------------------------------------------------------------------

    def load(self) -> Pool:
        """Create the pool on the floor's store the first time (its levels at their base, open,
        its progressive table named by SHA-256), then join it: refused, chained, when this
        table's progressive table is not the pool's (PRG-46)."""
        try:
            return self._load()
        except Exception as error:
            if is_outage(error):
                raise self._down(error) from error
            raise

    def _load(self) -> Pool:
        with unit_of_work(self.engine) as session:
            row = lock_pool(session, pool_id=self.pool_id)
            if row is None:
                pool = new_pool(self.table.name, self.table.levels)
                opened, record = set_open(pool, True, "linked pool started")
                created = {**created_payload(pool), "linked": True, "paytable_sha256": self.paytable_sha256}
                write_locked_pool(
                    session,
                    pool_id=self.pool_id,
                    row=None,
                    events=[(CREATED, created), *_events([record])],
                    state=pool_as_dict(opened),
                    actor=SYSTEM,
                )
                log.info("progressive.created", pool_id=self.pool_id, linked=True, levels=list(pool.params))
        with unit_of_work(self.engine) as session:
            row = lock_pool(session, pool_id=self.pool_id)
            assert row is not None
            pool = self._current(row)
            (_, _, _, created_by), *_ = pool_events_of(session, pool_id=self.pool_id, kinds=[CREATED])
            expected = created_by.get("paytable_sha256")
            joined = {
                payload["table_id"]
                for _, _, _, payload in pool_events_of(session, pool_id=self.pool_id, kinds=[JOINED])
            }
            refused = None
            event: tuple[str, dict[str, Any]] | None = None
            if expected != self.paytable_sha256:
                refused = (
                    f"table {self.table_id}'s progressive table (sha256 {self.paytable_sha256[:12]}...) "
                    f"is not the pool's ({str(expected)[:12]}...): tables share a pool only with the "
                    "same progressive table (PRG-46)"
                )
                refusal = {"rule": "same-progressive-table", "table_id": self.table_id, "reason": refused}
                event = (REFUSED, refusal)
            elif self.table_id not in joined:
                event = (JOINED, {"table_id": self.table_id, "paytable_sha256": self.paytable_sha256})
            if event is not None:
                write_locked_pool(
                    session,
                    pool_id=self.pool_id,
                    row=row,
                    events=[event],
                    state=pool_as_dict(pool),
                    actor=self.table_id,
                )
                if event[0] == JOINED:
                    log.info("progressive.table_joined", pool_id=self.pool_id, table_id=self.table_id)
            seq = row.last_seq
        self._up()
        if refused is not None:  # chained; the table's progressive stays closed
            log.error("progressive.refused", pool_id=self.pool_id, table_id=self.table_id, reason=refused)
            raise NotLinkableError(refused)
        self._keep(pool, seq)
        return pool

    def _member(self, session: Session) -> None:
        """PRG-33: only a table that joined the pool writes it."""
        joined = pool_events_of(session, pool_id=self.pool_id, kinds=[JOINED])
        if not any(payload["table_id"] == self.table_id for _, _, _, payload in joined):
            raise NotLinkableError(f"table {self.table_id} has not joined pool {self.pool_id} (PRG-33)")

    # -- the round ---------------------------------------------------------------------------

    def contributions(self, wagers: Mapping[int, Cents], *, round_id: str) -> PoolStep | None:
        """The round's contributions, committed to the floor's store now (a DoneStep), once per
        round: a round that contributed already adds nothing. The hot path of a linked pool:
        one transaction of two round trips (``storage.progressive.pool_step``). PoolClosedError
        (the pool closed for a parameter change), LinkDownError: nothing was added."""
        if not wagers:
            return None
        alerts: list[tuple[str, str, dict[str, Any]]] = []
        after: list[Pool] = []

        def build(locked: LockedPool) -> tuple[list[tuple[str, dict[str, Any]]], dict[str, Any]] | None:
            # Only the levels' meters and the open flag take part in a contribution: the rest
            # of the state (hits pending, the last 25 hits) is carried over as the row has it,
            # not rebuilt, so the lock is held for as short a time as can be.
            state = json.loads(locked.state)
            pool = meters_pool(state)
            if locked.done:
                log.warning("progressive.contributed_already", pool_id=self.pool_id, round_id=round_id)
                after.append(pool)
                return None
            records: list[Record] = []
            for position, wager in sorted(wagers.items()):
                try:
                    pool, record = contribute(
                        pool, wager, table_id=self.table_id, position=position, sequence=position
                    )
                except UnreasonableContributionError as error:  # flagged, not applied (PRG-22)
                    alerts.append(
                        ("progressive-unreasonable-contribution", str(error), {"position": position})
                    )
                    continue
                records.append(record)
            after.append(pool)
            return _events(records), with_meters(state, pool)

        try:
            pool_step(
                self.engine,
                pool_id=self.pool_id,
                build=build,
                actor=SYSTEM,
                round_id=round_id,
                done_kind=CONTRIBUTION,
            )
        except Exception as error:
            if is_outage(error):
                raise self._down(error) from error
            raise
        # the keeper's copy takes the new meters; its seq is unknown (-1), so a locked step
        # reads the whole pool from the row again before it writes
        last = after[-1]
        with self._mutex:
            known = self._pool
            pool = last if known is None else replace(known, meters=last.meters, open=last.open)
            self._pool, self._seq = pool, -1
        self._up()
        return DoneStep(pool, [], round_id=round_id, alerts=alerts, seq=self._seq, pool_id=self.pool_id)

    def hits(self, result: RoundSettlement, *, round_id: str) -> PoolStep | None:
        """The round's meter hits: claimed, then resolved with every claim not yet resolved
        (module docstring); those under ``hold_from`` paid by the system at once. Once per
        round: a round whose claims are chained already claims nothing again."""
        side = result.side
        mine = [] if side is None else [p for p in side.positions if p.meter_claim is not None]
        if not mine:
            return None

        def claim(session: Session, pool: Pool) -> tuple[Pool, list[tuple[str, dict[str, Any]]]]:
            self._member(session)
            done = pool_events_of(session, pool_id=self.pool_id, kinds=[CLAIMED], round_id=round_id)
            if any(payload["table_id"] == self.table_id for _, _, _, payload in done):
                return pool, []
            events = []
            for p in mine:
                assert p.meter_claim is not None
                level = p.meter_claim.level
                pool.level(level)  # an unknown level is refused before anything is chained
                events.append(
                    (
                        CLAIMED,
                        {
                            "table_id": self.table_id,
                            "position": p.position,
                            "level": level,
                            "share_bp": p.meter_claim.share_bp,
                            "line": p.hand,
                        },
                    )
                )
            return pool, events

        self._locked(claim, round_id=round_id)
        if self.window_seconds:
            self._sleep(self.window_seconds)  # hits at other tables meanwhile resolve with these
        pool, _ = self._locked(self._resolve, round_id=round_id)
        return DoneStep(
            pool,
            [],
            round_id=round_id,
            alerts=self._held_alerts(pool, round_id),
            seq=self._seq,
            pool_id=self.pool_id,
        )

    def _resolve(self, session: Session, pool: Pool) -> tuple[Pool, list[tuple[str, dict[str, Any]]]]:
        """Every claim not yet resolved, in one batch by sequence (the claims' seqs)."""
        after = last_pool_event_seq(session, pool_id=self.pool_id, kind=HITS)
        waiting = pool_events_of(session, pool_id=self.pool_id, kinds=[CLAIMED], after_seq=after)
        if not waiting:
            return pool, []
        claims = [
            HitClaim(
                seq,
                str(c["table_id"]),
                int(c["position"]),
                str(c["level"]),
                int(c["share_bp"]),
                str(c["line"]),
            )
            for seq, _, _, c in waiting
        ]
        pool, batch = resolve_hits(
            pool, claims, self.table.simultaneous, self.table.percent_base, self.table.hold_from
        )
        records: list[Record] = [batch]
        for hit in batch.hits:
            if not hit.held:
                pool, paid = confirm_payment(pool, hit.hit_id, paid_by=SYSTEM)
                records.append(paid)
        log.info(
            "progressive.hits_resolved",
            pool_id=self.pool_id,
            rule=batch.rule.value,
            hits=[(h.claim.table_id, h.claim.position, h.claim.level, h.amount) for h in batch.hits],
        )
        return pool, _events(records)

    def _held_alerts(self, pool: Pool, round_id: str) -> list[tuple[str, str, dict[str, Any]]]:
        """The ``progressive-hit-pending`` alerts of this table's held hits of the round."""
        with read_snapshot(self.engine) as session:
            sequences = {
                seq
                for seq, _, _, c in pool_events_of(
                    session, pool_id=self.pool_id, kinds=[CLAIMED], round_id=round_id
                )
                if c["table_id"] == self.table_id
            }
        return [
            (
                "progressive-hit-pending",
                f"position {hit.position}: won {hit.amount} cents of {hit.level}, held for pit "
                f"verification with the cards shown (hit {hit.hit_id})",
                {"hit_id": hit.hit_id, "position": hit.position, "amount_cents": hit.amount},
            )
            for hit in pool.pending
            if hit.held and hit.sequence in sequences
        ]

    def voided(self, round_id: str) -> int:
        """A voided round's contributions stay on the meters (a meter goes down only by a paid hit
        or a two-person correction: PRG-29); the wagers are returned with the void, so the house
        funds them: chained as ``progressive.round-voided``. The cents the house funds."""

        def build(session: Session, pool: Pool) -> tuple[Pool, list[tuple[str, dict[str, Any]]]]:
            return pool, voided_note(session, self.pool_id, self.table_id, round_id)

        _, seqs = self._locked(build, round_id=round_id)
        return len(seqs)

    # -- the pit -----------------------------------------------------------------------------

    def pay(self, hit_id: int, *, actor: str, verified_by: str) -> PoolStep:
        """A pending hit paid by a pit user who verified the cards, under the pool's lock:
        chained once, a second payment refused (PaymentError)."""
        paid: list[Any] = []

        def build(session: Session, pool: Pool) -> tuple[Pool, list[tuple[str, dict[str, Any]]]]:
            pool, record = confirm_payment(pool, hit_id, paid_by=actor, verified_by=verified_by)
            paid.append(record)
            return pool, _events([record])

        pool, _ = self._locked(build, actor=actor)
        log.info(
            "progressive.paid", pool_id=self.pool_id, hit_id=hit_id, amount_cents=paid[0].amount, actor=actor
        )
        return DoneStep(pool, [], actor=actor, seq=self._seq, pool_id=self.pool_id)

    def set_status(self, open_: bool, *, reason: str, actor: str) -> Pool:
        """Open the pool to wagers at every table, or close it (before a parameter change)."""

        def build(session: Session, pool: Pool) -> tuple[Pool, list[tuple[str, dict[str, Any]]]]:
            pool, record = set_open(pool, open_, reason)
            return pool, _events([record])

        pool, _ = self._locked(build, actor=actor)
        log.info("progressive.status", pool_id=self.pool_id, open=open_, reason=reason, actor=actor)
        return pool

    def change_parameters(self, new: LevelParams, *, requested_by: str, approved_by: str) -> Pool:
        """A level's new parameters, by two people, only while the pool is closed at every
        table (PRG-04, PRG-05); a refusal is chained (``progressive.refused``) and raised."""
        refused: list[ProgressiveError] = []

        def build(session: Session, pool: Pool) -> tuple[Pool, list[tuple[str, dict[str, Any]]]]:
            try:
                pool, record = change_parameters(
                    pool, new, requested_by=requested_by, approved_by=approved_by
                )
            except ProgressiveError as error:
                refused.append(error)
                rule = "two-person" if isinstance(error, TwoPersonRuleError) else "parameters"
                return pool, [(REFUSED, {"rule": rule, "level": new.name, "reason": str(error)})]
            return pool, _events([record])

        pool, _ = self._locked(build, actor=approved_by.strip() or requested_by.strip() or SYSTEM)
        if refused:
            log.warning("progressive.refused", pool_id=self.pool_id, level=new.name, reason=str(refused[0]))
            raise refused[0]
        log.info(
            "progressive.parameters", pool_id=self.pool_id, level=new.name, by=[requested_by, approved_by]
        )
        return pool

    def request_adjustment(self, **kwargs: Any) -> int:
        self.refresh()
        return super().request_adjustment(**kwargs)

    def confirm_adjustment(self, request: int, *, actor: str) -> PoolStep:
        self.refresh()
        return super().confirm_adjustment(request, actor=actor)

    def reload(self) -> None:
        try:
            self.refresh()
        except Exception as error:
            log.error(
                "progressive.reload_failed", pool_id=self.pool_id, error=f"{type(error).__name__}: {error}"
            )

    # -- reading -----------------------------------------------------------------------------

    def meters(self) -> dict[str, Any]:
        """The pool's meters as the floor's store has them now, with the tables that joined it
        and whether this table's link answers."""
        try:
            self.refresh()
            with read_snapshot(self.engine) as session:
                tables = sorted(
                    {
                        p["table_id"]
                        for _, _, _, p in pool_events_of(session, pool_id=self.pool_id, kinds=[JOINED])
                    }
                )
        except LinkDownError:
            tables = []
        if self._pool is None:
            return {"pool_id": self.pool_id, "linked": True, "tables": tables, "link_down": self.link_down}
        meters = super().meters()
        return {**meters, "linked": True, "tables": tables, "link_down": self.link_down}

    def replayed(self) -> Pool:
        """The pool re-derived from its whole chain (``audit verify`` does the same)."""
        with read_snapshot(self.engine) as session:
            stored = pool_events(session, pool_id=self.pool_id)
        return replay_events((kind, payload) for _seq, kind, _actor, payload in stored)


__all__ = [
    "CLAIMED",
    "JOINED",
    "DoneStep",
    "LinkDownError",
    "LinkedPoolKeeper",
    "NotLinkableError",
]
