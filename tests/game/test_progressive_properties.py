"""Properties of the progressive meters under any sequence of operations (hypothesis):

- the ledger: meter + locked = base + contributions + seeds + rolled forward - paid
  +/- adjustments, for every level after every step;
- a meter goes down only by a hit or an adjustment, and never shows less than its reset;
- no cent is lost: the cents put on the meter and the overflow, with the carried fraction,
  are exactly rate x wagers;
- a pending award is paid once, and the pool re-derived from its records is the same pool.
"""

from __future__ import annotations

import json

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from table_controller.game.money import BASIS_POINTS
from table_controller.game.progressive import (
    AdjustmentError,
    AdjustmentReason,
    HitClaim,
    LevelParams,
    OverflowPolicy,
    PercentBase,
    ProgressiveError,
    SimultaneousRule,
    adjust,
    confirm_payment,
    contribute,
    new_pool,
    replay,
    resolve_hits,
    set_open,
)
from table_controller.game.progressive_json import record_as_dict, record_from_dict

LEVELS = (
    LevelParams("major", base=500_000, reset=400_000, increment_bp=1_234, reserve_bp=321, limit=520_000),
    LevelParams(
        "minor", base=10_000, reset=10_000, increment_bp=77, limit=10_500, overflow=OverflowPolicy.REVENUE
    ),
)


class PoolMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.start = new_pool("link", LEVELS)
        self.pool = self.start
        self.records: list = []
        self.sequence = 0
        self.wagered = 0
        self.before = {name: m.meter for name, m in self.pool.meters.items()}
        self.may_go_down = False

    def _step(self, result, may_go_down: bool = False) -> None:
        self.before = {name: m.meter for name, m in self.pool.meters.items()}
        self.pool, record = result
        self.records.append(record)
        self.may_go_down = may_go_down

    @rule(open_=st.booleans())
    def open_or_close(self, open_: bool) -> None:
        self._step(set_open(self.pool, open_, "test"))

    @precondition(lambda self: self.pool.open)
    @rule(wager=st.integers(min_value=1, max_value=2_500), table=st.sampled_from(["T1", "T2", "T3"]))
    def wager(self, wager: int, table: str) -> None:
        self.sequence += 1
        try:
            self._step(contribute(self.pool, wager, table_id=table, position=2, sequence=self.sequence))
        except ProgressiveError:
            self.may_go_down = False  # an unreasonable contribution: nothing applied
            self.before = {name: m.meter for name, m in self.pool.meters.items()}
            return
        self.wagered += wager

    @rule(
        shares=st.lists(
            st.tuples(st.sampled_from(["major", "minor"]), st.sampled_from([BASIS_POINTS, 1_000, 2_500])),
            min_size=1,
            max_size=3,
        ),
        rule_=st.sampled_from(list(SimultaneousRule)),
        base=st.sampled_from(list(PercentBase)),
        hold_from=st.sampled_from([None, 50_000]),
    )
    def hits(self, shares, rule_, base, hold_from) -> None:
        claims = []
        for level, share in shares:
            self.sequence += 1
            claims.append(HitClaim(self.sequence, f"T{self.sequence % 3}", 2, level, share))
        self._step(resolve_hits(self.pool, claims, rule_, base, hold_from), may_go_down=True)

    @precondition(lambda self: self.pool.pending)
    @rule(data=st.data())
    def pay(self, data) -> None:
        hit = data.draw(st.sampled_from(self.pool.pending))
        paid_before = self.pool.meters[hit.level].paid
        self._step(confirm_payment(self.pool, hit.hit_id, paid_by="pit", verified_by="surveillance"))
        assert self.pool.meters[hit.level].paid == paid_before + hit.amount
        try:
            confirm_payment(self.pool, hit.hit_id, paid_by="pit", verified_by="surveillance")
        except ProgressiveError:
            pass
        else:
            raise AssertionError("a hit was paid twice")

    @precondition(lambda self: not self.pool.open)
    @rule(level=st.sampled_from(["major", "minor"]), amount=st.integers(-50_000, 50_000).filter(bool))
    def adjustment(self, level: str, amount: int) -> None:
        reason = AdjustmentReason.MALFUNCTION_CORRECTION
        try:
            result = adjust(self.pool, level, amount, reason, requested_by="ann", approved_by="bob")
        except AdjustmentError:
            return
        self._step(result, may_go_down=True)

    @invariant()
    def ledger_holds(self) -> None:
        self.pool.check_ledger()

    @invariant()
    def meters_go_down_only_by_hits_and_adjustments_and_never_below_reset(self) -> None:
        for name, meters in self.pool.meters.items():
            assert meters.meter >= self.pool.params[name].reset
            if not self.may_go_down:
                assert meters.meter >= self.before[name], name

    @invariant()
    def no_cent_is_lost(self) -> None:
        for name, meters in self.pool.meters.items():
            exact = self.wagered * self.pool.params[name].increment_bp
            assert (meters.contributed + meters.to_overflow) * BASIS_POINTS + meters.meter_carry == exact
            assert 0 <= meters.meter_carry < BASIS_POINTS
            reserve = self.wagered * self.pool.params[name].reserve_bp
            assert meters.to_reserve * BASIS_POINTS + meters.reserve_carry == reserve

    def teardown(self) -> None:
        assert replay(self.start, self.records) == self.pool
        # Through JSON, as the chain will keep them: the same records, the same pool.
        stored = json.loads(json.dumps([record_as_dict(record) for record in self.records]))
        assert [record_from_dict(data) for data in stored] == self.records


PoolMachine.TestCase.settings = settings(max_examples=60, stateful_step_count=40, deadline=None)
TestPool = PoolMachine.TestCase
