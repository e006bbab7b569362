"""A progressive pool's gaming day reconciled (accounting/progressive_day.py, docs/progressive.md,
"The day's reconciliation"): start meter + contributions - hits + seeds +/- adjustments = end
meter, every figure worked out by hand below; a record that does not add up named as a variance.

The pool (made with the pure core, game/progressive.py, as the table chains it):

- ``jackpot``: base and reset $1,000.00 (100_000 cents), 15% of each wager to the meter, 5% to
  the reserve; a hit of $500 or more held for the pit.
- ``mini``: base and reset $50.00 (5_000 cents), 10% to the meter, no reserve.

Day 1 (before the period): two $1 wagers at t1: jackpot 100_000 + 2 x 15 = 100_030, reserve
2 x 5 = 10; mini 5_000 + 2 x 10 = 5_020.

Day 2 (the period), in order:
1. three $1 wagers (t1 position 2, t2 position 4, t1 position 5): jackpot 100_075, reserve 25;
   mini 5_050;
2. t1 position 5 hits the whole jackpot: 100_075 locked, held; the meter reseeds to 100_000,
   25 from the reserve (now 0), 99_975 from the house;
3. t2 position 4 hits the whole mini: 5_050 locked, reseeded to 5_000 (all from the house),
   paid by the system at once;
4. the jackpot paid by pat, sam verified the cards: 100_075;
5. closed, a sign variance of +$2.50 on the jackpot (ann asks, bob approves): 100_250, opened;
6. one more $1 wager (t1 position 3): jackpot 100_265, reserve 5; mini 5_010.

Day 3: one more wager, outside the period.

Jackpot: 100_030 + 60 - 100_075 + 100_000 + 250 = 100_265. Reserve: 10 + 20 - 25 = 5.
Mini: 5_020 + 40 - 5_050 + 5_000 = 5_010.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from table_controller.accounting.progressive_day import PoolDayError, PoolEntry, pool_day
from table_controller.game.progressive import (
    AdjustmentReason,
    HitClaim,
    LevelParams,
    Record,
    adjust,
    change_parameters,
    confirm_payment,
    contribute,
    new_pool,
    resolve_hits,
    set_open,
)
from table_controller.game.progressive_json import record_as_dict
from table_controller.game.progressive_state import CREATED, created_payload, record_kind

DAY1 = datetime(2026, 5, 1, 12, tzinfo=UTC)
START = datetime(2026, 5, 2, 6, tzinfo=UTC)
END = datetime(2026, 5, 3, 6, tzinfo=UTC)
LEVELS = (
    LevelParams("jackpot", base=100_000, reset=100_000, increment_bp=1_500, reserve_bp=500),
    LevelParams("mini", base=5_000, reset=5_000, increment_bp=1_000),
)


def chain() -> list[PoolEntry]:
    """The pool's chain of the module docstring, one event a minute from each day's noon."""
    pool = new_pool("test", LEVELS)
    entries = [PoolEntry(1, DAY1, CREATED, "system", created_payload(pool))]
    day = DAY1

    def chained(result: tuple[object, Record], actor: str = "system") -> None:
        nonlocal pool
        pool, record = result  # type: ignore[assignment]
        at = day + timedelta(minutes=len(entries))
        entries.append(
            PoolEntry(len(entries) + 1, at, record_kind(record.kind), actor, record_as_dict(record))
        )

    def wager(table: str, position: int) -> None:
        chained(contribute(pool, 100, table_id=table, position=position, sequence=position))

    chained(set_open(pool, True, "started"))
    wager("t1", 2)
    wager("t1", 3)
    day = START + timedelta(hours=6)
    wager("t1", 2)
    wager("t2", 4)
    wager("t1", 5)
    chained(
        resolve_hits(pool, [HitClaim(1, "t1", 5, "jackpot", line="7-card straight flush")], hold_from=50_000)
    )
    chained(resolve_hits(pool, [HitClaim(2, "t2", 4, "mini", line="five aces")], hold_from=50_000))
    chained(confirm_payment(pool, 2, paid_by="system"))
    chained(confirm_payment(pool, 1, paid_by="pat", verified_by="sam"), "pat")
    chained(set_open(pool, False, "adjustment"))
    chained(
        adjust(pool, "jackpot", 250, AdjustmentReason.SIGN_VARIANCE, requested_by="ann", approved_by="bob"),
        "bob",
    )
    chained(set_open(pool, True, "adjustment done"))
    wager("t1", 3)
    day = END + timedelta(hours=6)
    wager("t1", 2)
    return entries


def test_the_day_reconciles_to_the_cent_worked_by_hand():
    day = pool_day(chain(), pool_id="p1", start=START, end=END, system="system")
    jackpot, mini = day.levels
    assert (jackpot.start_meter, jackpot.contributions, jackpot.hits, jackpot.seeds) == (
        100_030,
        60,
        100_075,
        100_000,
    )
    assert (jackpot.rolled_forward, jackpot.adjustments, jackpot.end_meter) == (0, 250, 100_265)
    assert jackpot.computed_end_meter == 100_265 and jackpot.variance == 0
    assert (jackpot.wagers, jackpot.wagered, jackpot.hit_count) == (4, 400, 1)
    assert (jackpot.start_reserve, jackpot.to_reserve, jackpot.seeded_from_reserve, jackpot.end_reserve) == (
        10,
        20,
        25,
        5,
    )
    assert (jackpot.start_locked, jackpot.paid, jackpot.end_locked) == (0, 100_075, 0)
    assert (jackpot.paid_by_system, jackpot.paid_by_attendant) == (0, 100_075)  # PRG-13
    assert jackpot.accrued == 60 + 20  # PRG-51: what the day's wagers added, meter and reserve
    assert (mini.start_meter, mini.contributions, mini.hits, mini.seeds, mini.end_meter) == (
        5_020,
        40,
        5_050,
        5_000,
        5_010,
    )
    assert (mini.paid_by_system, mini.paid_by_attendant, mini.accrued) == (5_050, 0, 40)
    assert day.reconciled and day.variances == ()
    assert [(t.table_id, t.wagers, t.wagered, t.to_meters, t.to_reserves) for t in day.per_table] == [
        ("t1", 3, 300, 3 * 25, 3 * 5),
        ("t2", 1, 100, 25, 5),
    ]
    first, second = day.hits
    assert (first.table_id, first.position, first.level, first.amount, first.meter_after, first.held) == (
        "t1",
        5,
        "jackpot",
        100_075,
        100_000,
        True,
    )  # PRG-23, PRG-25: table, seat, amount, the new amount
    assert (first.paid_by, first.verified_by) == ("pat", "sam") and first.paid_at is not None
    assert (second.paid_by, second.amount, second.meter_after) == ("system", 5_050, 5_000)
    [adjustment] = day.adjustments
    assert (adjustment.amount, adjustment.reason, adjustment.requested_by, adjustment.approved_by) == (
        250,
        "sign-variance",
        "ann",
        "bob",
    )
    assert [s.open for s in day.statuses] == [False, True]
    assert day.events == 11  # 3 wagers, 2 hits, 2 payments, close, adjustment, open, 1 wager


def test_a_record_that_does_not_add_up_is_named_as_a_variance():
    entries = chain()
    # the wager of t2 position 4 (seq 6): its amount to the jackpot's meter forged 15 -> 16 cents,
    # the meter it says it left untouched: one cent the meter never had
    forged = entries[5]
    payload = dict(forged.payload)
    payload["levels"] = [dict(part) for part in payload["levels"]]
    payload["levels"][0]["to_meter"] = 16
    entries[5] = PoolEntry(forged.seq, forged.at, forged.kind, forged.actor, payload)
    day = pool_day(entries, pool_id="p1", start=START, end=END, system="system")
    jackpot = day.levels[0]
    assert jackpot.contributions == 61 and jackpot.end_meter == 100_265
    assert jackpot.computed_end_meter == 100_266 and jackpot.variance == -1
    [variance] = day.variances
    assert (variance.seq, variance.level, variance.recorded, variance.computed) == (
        6,
        "jackpot",
        100_060,
        100_061,
    )
    assert not day.reconciled


def test_a_day_without_events_starts_and_ends_where_the_chain_is():
    later = END + timedelta(days=5)
    day = pool_day(chain(), pool_id="p1", start=later, end=later + timedelta(days=1), system="system")
    jackpot, mini = day.levels
    assert (jackpot.start_meter, jackpot.end_meter, jackpot.contributions, day.events) == (
        100_280,
        100_280,
        0,
        0,
    )
    assert (mini.start_meter, mini.end_meter) == (5_020, 5_020)
    assert day.reconciled


def test_a_rate_change_carries_the_notice_for_accounting():
    """PRG-03: a change of the rate of progression is in the day's report as a notice."""
    pool = new_pool("test", LEVELS)
    closed, status = set_open(pool, False, "new rate")
    changed, change = change_parameters(
        closed,
        LevelParams("jackpot", base=100_000, reset=100_000, increment_bp=1_200, reserve_bp=500),
        requested_by="ann",
        approved_by="bob",
    )
    _, reset_only = change_parameters(
        changed,
        LevelParams("mini", base=5_000, reset=4_000, increment_bp=1_000),
        requested_by="ann",
        approved_by="bob",
    )
    at = START + timedelta(hours=1)
    entries = [PoolEntry(1, DAY1, CREATED, "system", created_payload(pool))] + [
        PoolEntry(seq, at, record_kind(record.kind), "bob", record_as_dict(record))
        for seq, record in enumerate((status, change, reset_only), start=2)
    ]
    day = pool_day(entries, pool_id="p1", start=START, end=END, system="system")
    assert [(c.level, c.rate_changed) for c in day.parameter_changes] == [("jackpot", True), ("mini", False)]
    [notice] = day.notices
    assert (notice.before["increment_bp"], notice.after["increment_bp"]) == (1_500, 1_200)


def test_a_chain_without_its_creation_or_a_backward_period_is_refused():
    entries = chain()
    with pytest.raises(PoolDayError, match="ends after it starts"):
        pool_day(entries, pool_id="p1", start=END, end=START, system="system")
    with pytest.raises(PoolDayError, match="before its creation"):
        pool_day(entries[1:], pool_id="p1", start=START, end=END, system="system")
    with pytest.raises(PoolDayError, match=r"no progressive\.created"):
        pool_day([], pool_id="p1", start=START, end=END, system="system")
