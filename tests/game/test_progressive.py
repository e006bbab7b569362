"""The progressive pool's meters, worked by hand (progressive-research.md §1.7, §1.8, §2;
docs/progressive.md)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from table_controller.game.progressive import (
    RECENT_HITS,
    AdjustmentError,
    AdjustmentReason,
    HitClaim,
    LevelParams,
    LevelParamsError,
    OverflowPolicy,
    PaymentError,
    PercentBase,
    Pool,
    PoolClosedError,
    PoolOpenError,
    ProgressiveError,
    ReplayMismatchError,
    SimultaneousRule,
    TwoPersonRuleError,
    UnknownLevelError,
    UnreasonableContributionError,
    adjust,
    change_parameters,
    confirm_payment,
    contribute,
    new_pool,
    replay,
    resolve_hits,
    set_open,
)

JACKPOT = LevelParams(
    name="jackpot",
    base=1_000_000,  # $10,000
    reset=1_000_000,
    increment_bp=1_500,  # 15% of each wager
    reserve_bp=200,  # 2% to the reserve
    limit=5_000_000,
    unreasonable_contribution=2_000,
)


def _open(*levels: LevelParams) -> Pool:
    pool, _ = set_open(new_pool("link-1", levels or (JACKPOT,)), True, "test")
    return pool


def _wagers(pool: Pool, count: int, wager: int = 100) -> Pool:
    for i in range(count):
        pool, _ = contribute(pool, wager, table_id="T1", position=2, sequence=i)
    return pool


def test_every_parameter_is_stored_and_readable() -> None:
    pool = new_pool("link-1", [JACKPOT])
    params, meters = pool.level("jackpot")
    assert (params.base, params.reset, params.increment_bp, params.reserve_bp) == (
        1_000_000,
        1_000_000,
        1_500,
        200,
    )
    assert (params.limit, params.overflow, params.unreasonable_contribution) == (
        5_000_000,
        OverflowPolicy.ROLL_FORWARD,
        2_000,
    )
    assert meters.meter == 1_000_000 and not pool.open
    with pytest.raises(UnknownLevelError):
        pool.level("mini")


@pytest.mark.parametrize(
    "changes",
    [
        {"reset": 1_000_001},  # base below reset: the meter would show less than its reset
        {"increment_bp": 10_001},
        {"increment_bp": 9_000, "reserve_bp": 1_001},
        {"limit": 999_999},
        {"base": 0},
        {"base": 10.5},
        {"unreasonable_contribution": 0},
        {"name": ""},
    ],
)
def test_impossible_parameters_are_refused(changes) -> None:
    with pytest.raises(LevelParamsError):
        replace(JACKPOT, **changes)


def test_a_contribution_is_rounded_down_and_its_remainder_carried() -> None:
    """12.34% of $1 is 12.34 cents: 12, then 12 (carry .68), then 13 (carry .02)."""
    level = replace(JACKPOT, increment_bp=1_234, reserve_bp=0)
    pool = _open(level)
    added = []
    for i in range(3):
        pool, record = contribute(pool, 100, table_id="T1", position=2, sequence=i)
        added.append(record.levels[0].to_meter)
    meters = pool.meters["jackpot"]
    assert added == [12, 12, 13]
    assert meters.meter == 1_000_037 and meters.meter_carry == 200  # 0.02 cent carried
    assert meters.in_meter == 3
    assert (meters.contributed * 10_000 + meters.meter_carry) == 3 * 100 * 1_234  # no cent lost


def test_a_wager_is_refused_when_the_pool_is_closed_or_the_wager_is_bad() -> None:
    pool = new_pool("link-1", [JACKPOT])
    with pytest.raises(PoolClosedError):
        contribute(pool, 100, table_id="T1", position=2, sequence=1)
    with pytest.raises(ProgressiveError):
        contribute(_open(), 0, table_id="T1", position=2, sequence=1)
    with pytest.raises(ProgressiveError):
        contribute(_open(), 1.0, table_id="T1", position=2, sequence=1)  # type: ignore[arg-type]


def test_an_unreasonable_contribution_is_not_applied() -> None:
    """17% of a $200 wager is $34 > the $20 threshold: refused, nothing moves."""
    pool = _open()
    with pytest.raises(UnreasonableContributionError):
        contribute(pool, 20_000, table_id="T1", position=2, sequence=1)
    pool, _ = contribute(pool, 100, table_id="T1", position=2, sequence=2)
    assert pool.meters["jackpot"].meter == 1_000_015


def test_above_the_limit_contributions_go_to_overflow_and_roll_forward_after_the_reset() -> None:
    level = LevelParams("mini", base=1_000, reset=1_000, increment_bp=1_000, limit=1_015)
    pool = _wagers(_open(level), 3)  # 10 cents each: 1_010, 1_015 (5 over), 1_015 (10 over)
    meters = pool.meters["mini"]
    assert (meters.meter, meters.overflow, meters.to_overflow) == (1_015, 15, 15)
    pool, batch = resolve_hits(pool, [HitClaim(1, "T1", 3, "mini")])
    assert batch.hits[0].amount == 1_015
    assert batch.hits[0].rolled_forward == 15 and pool.meters["mini"].meter == 1_015
    pool.check_ledger()


def test_overflow_as_revenue_is_never_rolled_forward() -> None:
    level = LevelParams("mini", 1_000, 1_000, 1_000, limit=1_010, overflow=OverflowPolicy.REVENUE)
    pool = _wagers(_open(level), 3)
    pool, _ = resolve_hits(pool, [HitClaim(1, "T1", 3, "mini")])
    assert pool.meters["mini"].meter == 1_000 and pool.meters["mini"].overflow == 20


def test_a_hit_locks_its_award_and_reseeds_at_the_moment_of_the_hit() -> None:
    pool = _wagers(_open(), 100)  # +15 cents and +2 reserve each: $10,015.00, reserve $2.00
    pool, batch = resolve_hits(
        pool, [HitClaim(7, "T3", 4, "jackpot", line="seven-card-natural-straight-flush")]
    )
    hit = batch.hits[0]
    meters = pool.meters["jackpot"]
    assert (hit.meter_before, hit.amount, hit.meter_after) == (1_001_500, 1_001_500, 1_000_000)
    assert (hit.seeded, hit.seeded_from_reserve) == (1_000_000, 200)  # the reserve pays first
    assert meters.reserve == 0 and meters.locked == 1_001_500 and meters.paid == 0
    assert pool.pending[0].table_id == "T3" and pool.pending[0].position == 4
    pool.check_ledger()
    # Not paid yet: the award is still on the books (PRG-27); paid once, never twice.
    pool, payment = confirm_payment(pool, hit.hit_id, paid_by="pit boss")
    assert payment.amount == 1_001_500 and pool.meters["jackpot"].paid == 1_001_500
    assert pool.meters["jackpot"].locked == 0 and pool.pending == ()
    with pytest.raises(PaymentError):
        confirm_payment(pool, hit.hit_id, paid_by="pit boss")
    pool.check_ledger()


def test_a_percentage_award_is_rounded_down_and_the_meter_keeps_the_rest() -> None:
    level = LevelParams("jackpot", base=1_234_567, reset=1_000_000, increment_bp=1_000)
    pool = _open(level)
    pool, batch = resolve_hits(pool, [HitClaim(1, "T1", 2, "jackpot", share_bp=1_000)])
    assert batch.hits[0].amount == 123_456  # 10% of $12,345.67, down to the cent
    assert pool.meters["jackpot"].meter == 1_111_111 and batch.hits[0].seeded == 0


def test_a_percentage_award_never_leaves_the_meter_below_its_reset() -> None:
    level = LevelParams("jackpot", base=1_050_000, reset=1_000_000, increment_bp=1_000)
    pool, batch = resolve_hits(_open(level), [HitClaim(1, "T1", 2, "jackpot", share_bp=1_000)])
    assert batch.hits[0].amount == 105_000
    assert pool.meters["jackpot"].meter == 1_000_000 and batch.hits[0].seeded == 55_000


def test_two_top_hits_at_two_tables_in_order_at_the_current_meter() -> None:
    """Table T1's hit has sequence 9, T2's sequence 5: T2 is first and takes the meter,
    T1 gets the reseeded meter; the order is recorded (NY 5321.18, PRG-24)."""
    pool = _wagers(_open(), 100)
    claims = [HitClaim(9, "T1", 3, "jackpot"), HitClaim(5, "T2", 6, "jackpot")]
    pool, batch = resolve_hits(pool, claims, SimultaneousRule.IN_ORDER)
    assert [(h.order, h.claim.table_id, h.amount) for h in batch.hits] == [
        (1, "T2", 1_001_500),
        (2, "T1", 1_000_000),
    ]
    assert pool.meters["jackpot"].meter == 1_000_000 and pool.meters["jackpot"].hits == 2
    assert [hit.table_id for hit in pool.pending] == ["T2", "T1"]
    pool.check_ledger()


def test_two_top_hits_shared_equally_the_odd_cent_to_the_first() -> None:
    level = LevelParams("jackpot", base=1_000_001, reset=500_000, increment_bp=1_000)
    claims = [HitClaim(9, "T1", 3, "jackpot"), HitClaim(5, "T2", 6, "jackpot")]
    pool, batch = resolve_hits(_open(level), claims, SimultaneousRule.SHARED)
    assert [(h.claim.table_id, h.amount) for h in batch.hits] == [("T2", 500_001), ("T1", 500_000)]
    assert pool.meters["jackpot"].meter == 500_000 and pool.meters["jackpot"].seeded == 500_000
    pool.check_ledger()


@pytest.mark.parametrize(
    ("base", "ten_percent"),
    [(PercentBase.AT_PAYMENT, 50_000), (PercentBase.BEFORE_BATCH, 200_000)],
)
def test_a_percentage_hit_after_a_whole_meter_hit(base, ten_percent) -> None:
    level = LevelParams("jackpot", base=2_000_000, reset=500_000, increment_bp=1_000)
    claims = [HitClaim(1, "T1", 3, "jackpot"), HitClaim(2, "T1", 5, "jackpot", share_bp=1_000)]
    pool, batch = resolve_hits(_open(level), claims, percent_base=base)
    assert [h.amount for h in batch.hits] == [2_000_000, ten_percent]
    assert pool.meters["jackpot"].meter == 500_000
    pool.check_ledger()


def test_hits_with_one_sequence_are_refused() -> None:
    with pytest.raises(ProgressiveError):
        resolve_hits(_open(), [HitClaim(1, "T1", 3, "jackpot"), HitClaim(1, "T2", 3, "jackpot")])


def test_the_last_25_hits_are_kept() -> None:
    pool = _open()
    for i in range(RECENT_HITS + 5):
        pool, _ = resolve_hits(pool, [HitClaim(i, "T1", 2, "jackpot")])
    assert len(pool.recent_hits) == RECENT_HITS and pool.recent_hits[-1].claim.sequence == RECENT_HITS + 4


def _closed_with_meter(meter_cents: int) -> Pool:
    pool = _wagers(_open(), meter_cents)
    return set_open(pool, False, "adjusting")[0]


def test_an_adjustment_by_one_person_is_refused() -> None:
    pool = _closed_with_meter(100)
    for requested, approved in (("ann", "ann"), ("ann", " ANN "), ("ann", ""), ("", "bob")):
        with pytest.raises(TwoPersonRuleError):
            adjust(
                pool,
                "jackpot",
                -500,
                AdjustmentReason.MALFUNCTION_CORRECTION,
                requested_by=requested,
                approved_by=approved,
            )


def test_an_adjustment_by_two_people_records_before_and_after() -> None:
    pool = _closed_with_meter(100)  # $10,015.00
    pool, record = adjust(
        pool,
        "jackpot",
        -1_000,
        AdjustmentReason.MALFUNCTION_CORRECTION,
        requested_by="ann",
        approved_by="bob",
        note="double count",
    )
    assert (record.meter_before, record.meter_after) == (1_001_500, 1_000_500)
    assert pool.meters["jackpot"].adjusted == -1_000
    pool.check_ledger()


@pytest.mark.parametrize(
    ("amount", "reason"),
    [
        (-1_600, AdjustmentReason.MALFUNCTION_CORRECTION),  # below the reset
        (4_000_000, AdjustmentReason.SIGN_VARIANCE),  # above the limit
        (-100, AdjustmentReason.SIGN_VARIANCE),  # not a reason to go down
        (100, AdjustmentReason.SEED_RECOVERY),  # not a reason to go up
        (0, AdjustmentReason.MALFUNCTION_CORRECTION),
    ],
)
def test_adjustments_that_break_the_meters_rules_are_refused(amount, reason) -> None:
    with pytest.raises(AdjustmentError):
        adjust(_closed_with_meter(100), "jackpot", amount, reason, requested_by="ann", approved_by="bob")


@pytest.mark.parametrize(
    "reason",
    [
        AdjustmentReason.NON_DISPLAYED_PRIZE,
        AdjustmentReason.SEED_RECOVERY,
        AdjustmentReason.MALFUNCTION_CORRECTION,
    ],
)
def test_the_reasons_that_may_take_a_meter_down(reason) -> None:
    """WA 230-15-695 (non-displayed prizes, seed recovery) and a documented malfunction."""
    pool, record = adjust(
        _closed_with_meter(100), "jackpot", -1_500, reason, requested_by="ann", approved_by="bob"
    )
    assert record.reason is reason and pool.meters["jackpot"].meter == 1_000_000
    pool.check_ledger()


def test_an_adjustment_while_the_pool_is_open_is_refused() -> None:
    with pytest.raises(PoolOpenError):
        adjust(_open(), "jackpot", 100, AdjustmentReason.SIGN_VARIANCE, requested_by="ann", approved_by="bob")


def test_parameters_change_only_while_closed_and_by_two_people() -> None:
    pool = _wagers(_open(), 100)
    faster = replace(JACKPOT, increment_bp=1_700)
    with pytest.raises(PoolOpenError):
        change_parameters(pool, faster, requested_by="ann", approved_by="bob")
    pool, _ = set_open(pool, False, "parameter change")
    with pytest.raises(TwoPersonRuleError):
        change_parameters(pool, faster, requested_by="ann", approved_by="ann")
    pool, record = change_parameters(pool, faster, requested_by="ann", approved_by="bob")
    assert record.rate_changed and pool.params["jackpot"].increment_bp == 1_700
    _, same_rate = change_parameters(
        pool, replace(faster, limit=6_000_000), requested_by="ann", approved_by="bob"
    )
    assert not same_rate.rate_changed


def test_a_limit_below_the_meter_a_new_base_or_a_reset_above_the_meter_are_refused() -> None:
    pool = set_open(_wagers(_open(), 100), False, "change")[0]  # meter $10,015.00
    with pytest.raises(LevelParamsError):  # PRG-06
        change_parameters(pool, replace(JACKPOT, limit=1_001_499), requested_by="ann", approved_by="bob")
    with pytest.raises(LevelParamsError):
        change_parameters(pool, replace(JACKPOT, base=1_100_000), requested_by="ann", approved_by="bob")
    low_reset = replace(JACKPOT, reset=500_000)
    pool, _ = change_parameters(pool, low_reset, requested_by="ann", approved_by="bob")
    pool = set_open(
        resolve_hits(set_open(pool, True, "play")[0], [HitClaim(1, "T1", 2, "jackpot")])[0], False, "x"
    )[0]
    assert pool.meters["jackpot"].meter == 500_000
    with pytest.raises(LevelParamsError):  # the meter would show less than the new reset
        change_parameters(pool, replace(low_reset, reset=600_000), requested_by="ann", approved_by="bob")


def test_the_pool_is_re_derived_from_its_records_and_a_changed_record_is_refused() -> None:
    start = new_pool("link-1", [JACKPOT])
    pool, records = start, []
    steps = [
        lambda p: set_open(p, True, "start"),
        lambda p: contribute(p, 100, table_id="T1", position=2, sequence=1),
        lambda p: contribute(p, 500, table_id="T2", position=4, sequence=2),
        lambda p: resolve_hits(p, [HitClaim(3, "T2", 4, "jackpot")]),
        lambda p: confirm_payment(p, 1, paid_by="pit"),
        lambda p: set_open(p, False, "adjust"),
        lambda p: adjust(p, "jackpot", 50, AdjustmentReason.SIGN_VARIANCE, requested_by="a", approved_by="b"),
    ]
    for step in steps:
        pool, record = step(pool)
        records.append(record)
    assert replay(start, records) == pool
    forged = list(records)
    forged[2] = replace(forged[2], levels=())
    with pytest.raises(ReplayMismatchError):
        replay(start, forged)


def test_a_large_hit_is_held_for_pit_verification_before_it_is_paid() -> None:
    """From $500 (WAC 230-15-405): the jackpot is held; a 10% award of $100 is not."""
    pool = _open(LevelParams("jackpot", base=1_000_000, reset=1_000_000, increment_bp=1_000))
    claims = [HitClaim(1, "T1", 2, "jackpot"), HitClaim(2, "T2", 3, "jackpot", share_bp=100)]
    pool, batch = resolve_hits(pool, claims, hold_from=50_000)
    assert [(hit.amount, hit.held) for hit in batch.hits] == [(1_000_000, True), (10_000, False)]
    with pytest.raises(PaymentError):
        confirm_payment(pool, 1, paid_by="dealer")
    pool, _ = confirm_payment(pool, 2, paid_by="dealer")
    pool, payment = confirm_payment(pool, 1, paid_by="dealer", verified_by="surveillance")
    assert payment.verified_by == "surveillance" and pool.pending == ()
    pool.check_ledger()
