"""The table's stand-alone progressive pool (table/progressive_pool.py, docs/progressive.md, "The pool
at the table"): contributions when the wagers lock, hits from the card read when the round
settles, a held hit paid once by the pit across restarts, two people for an adjustment, the
meters re-derived from the chain equal to their projection. Every amount is worked out by hand
from config/progressive/fortune-progressive.toml: a $1 wager, 15% (15 cents) to the jackpot
and 0.2% (0.2 cents, carried) to its reserve; base and reset $10,000; five aces 10% of the
meter; four of a kind $75 for 1; a meter hit of $500 or more held for the pit."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import text

from table_controller.game.progressive import AdjustmentReason, PaymentError, TwoPersonRuleError
from table_controller.record.check import check_record
from table_controller.round.events import Wager
from table_controller.settings import TableSettings
from table_controller.storage import list_events
from table_controller.storage.progressive import pool_chain
from table_controller.storage.session import read_snapshot, unit_of_work
from table_controller.table.service import TableRefused, TableService

from .test_side_wagers_round import play

HANDS = {
    1: "9c 9d 9h Qs Jh 5c 4d",  # the dealer: three nines
    3: "As Ah Ad Ac JK 2c 3d",  # five aces: 10% of the jackpot
    4: "Kc Kd Kh Ks 2d 5h 7c",  # four of a kind: $75 for 1
    5: "Qc Jd 8h 7h 3c Ts 2s",  # nothing: the $1 is lost
}
WAGERS = {p: Wager(main=1000, progressive=100) for p in (3, 4, 5)}
METER_AT_HIT = 1_000_000 + 3 * 15  # base + three contributions of 15 cents
AWARD = METER_AT_HIT * 1_000 // 10_000  # 10%: 100_004.5 rounded down to 100_004 cents
SEED = 1_000_000 - (METER_AT_HIT - AWARD)  # back to the reset: 99_959 cents, the reserve holds 0


def settings() -> TableSettings:
    return TableSettings(table_id="t1", progressive={"enabled": True})


def started(engine) -> TableService:
    service = TableService(settings(), engine)
    service.resume()
    return service


def _check(engine):
    with read_snapshot(engine) as session:
        return check_record(session)


def _pool_kinds(engine) -> list[str]:
    with read_snapshot(engine) as session:
        return [e.kind for e in list_events(session, table_id=pool_chain("t1"))]


def _jackpot(service: TableService):
    return service.pool.pool.meters["jackpot"]


def test_a_held_hit_is_paid_once_across_restarts_and_the_meters_are_right(engine):
    service = started(engine)
    service.open_round(WAGERS, actor="dealer-ann")
    state = play(service, HANDS)
    side = {p.position: p for p in state.result.side.positions}
    assert (side[3].progressive_net, side[4].progressive_net, side[5].progressive_net) == (-100, 7_400, -100)
    jackpot = _jackpot(service)
    assert (jackpot.meter, jackpot.locked, jackpot.contributed, jackpot.seeded) == (
        1_000_000,
        AWARD,
        45,
        SEED,
    )
    assert (jackpot.in_meter, jackpot.reserve, jackpot.reserve_carry) == (
        3,
        0,
        6_000,
    )  # 3 x 0.2 cents carried
    [pending] = service.pool.pool.pending
    assert (pending.hit_id, pending.position, pending.amount, pending.held) == (1, 3, AWARD, True)
    assert _pool_kinds(engine) == [
        "progressive.created",
        "progressive.status",
        *["progressive.contribution"] * 3,
        "progressive.hits",  # held: no payment chained
    ]

    again = started(engine)  # the daemon restarted between the hit and its payment
    assert again.pool.pool == service.pool.pool
    with pytest.raises(PaymentError, match="held for pit verification"):
        again.pay_hit(1, actor="pit-bob", verified_by="")
    again.pay_hit(1, actor="pit-bob", verified_by="surv-carol")
    jackpot = _jackpot(again)
    assert (jackpot.meter, jackpot.locked, jackpot.paid) == (1_000_000, 0, AWARD)

    third = started(engine)
    with pytest.raises(PaymentError, match="not pending"):
        third.pay_hit(1, actor="pit-bob", verified_by="surv-carol")
    assert _pool_kinds(engine).count("progressive.payment") == 1
    with read_snapshot(engine) as session:
        payment = [e.payload_data() for e in list_events(session, table_id=pool_chain("t1"))][-1]
    assert (payment["amount"], payment["paid_by"], payment["verified_by"]) == (AWARD, "pit-bob", "surv-carol")
    report = _check(engine)
    assert report.ok, report.describe()


def test_a_crash_in_the_payment_writes_nothing_and_the_hit_is_paid_once_after_the_restart(engine):
    service = started(engine)
    service.open_round(WAGERS, actor="dealer-ann")
    play(service, HANDS)

    def crash(session):  # the process dies inside the payment's transaction
        raise SystemExit("killed")

    step_pool = service.pool
    with pytest.raises(SystemExit):
        step_pool._commit(step_pool._step(*_payment(step_pool)), also=crash)
    assert _pool_kinds(engine).count("progressive.payment") == 0
    again = started(engine)
    assert [hit.hit_id for hit in again.pool.pool.pending] == [1]
    again.pay_hit(1, actor="pit-bob", verified_by="surv-carol")
    with pytest.raises(PaymentError):
        started(engine).pay_hit(1, actor="pit-dan", verified_by="surv-carol")
    assert _pool_kinds(engine).count("progressive.payment") == 1
    assert _check(engine).ok


def _payment(keeper):
    from table_controller.game.progressive import confirm_payment

    pool, record = confirm_payment(keeper.pool, 1, paid_by="pit-bob", verified_by="surv-carol")
    return pool, [record]


def test_a_meter_adjustment_by_one_person_is_refused_and_by_two_is_chained(engine):
    service = started(engine)
    request = service.pool.request_adjustment(
        level="jackpot",
        amount=2_500,
        reason=AdjustmentReason.SIGN_VARIANCE,
        note="sign read $25 low",
        actor="pit-ann",
    )
    with pytest.raises(TwoPersonRuleError, match="cannot approve their own request"):
        service.pool.confirm_adjustment(request, actor="PIT-ANN")
    assert _jackpot(service).meter == 1_000_000
    service.pool.confirm_adjustment(request, actor="pit-bob")
    jackpot = _jackpot(service)
    assert (jackpot.meter, jackpot.adjusted) == (1_002_500, 2_500) and service.pool.pool.open
    kinds = _pool_kinds(engine)
    assert kinds[2:] == [
        "progressive.adjustment-requested",
        "progressive.refused",
        "progressive.status",
        "progressive.adjustment",
        "progressive.status",
        "progressive.request-closed",
    ]
    assert service.pool.open_requests() == {}
    assert started(engine).pool.pool == service.pool.pool  # re-derived from the chain
    assert _check(engine).ok


def test_the_meters_re_derived_from_the_chain_equal_the_projection_and_a_forged_meter_is_named(engine):
    service = started(engine)
    for _ in range(2):
        service.open_round(WAGERS, actor="dealer-ann")
        play(service, {1: HANDS[1], 3: HANDS[4], 4: HANDS[5], 5: "Ac Jc 8d 6h 4s 3h 2h"})
    assert _jackpot(service).meter == 1_000_000 + 6 * 15
    assert _check(engine).ok
    with engine.connect() as connection:
        stored = json.loads(connection.execute(text("SELECT state FROM progressive_pools")).scalar_one())
    assert stored["levels"]["jackpot"]["meters"]["meter"] == 1_000_090
    stored["levels"]["jackpot"]["meters"]["meter"] = 1_500_000
    with unit_of_work(engine) as session:
        session.execute(text("UPDATE progressive_pools SET state = :s"), {"s": json.dumps(stored)})
    lines = _check(engine).describe().splitlines()
    assert any(
        line.strip() == "progressive pool t1: levels.jackpot.meters.meter: chained 1000090, stored 1500000"
        for line in lines
    ), lines


def test_the_progressive_wager_is_its_fixed_amount_and_a_table_without_one_refuses_it(engine):
    service = started(engine)
    with pytest.raises(TableRefused, match="the progressive wager is 100 cents, got 500"):
        service.open_round({3: Wager(main=1000, progressive=500)}, actor="dealer-ann")
    plain = TableService(TableSettings(table_id="t2"), engine)
    plain.resume()
    assert plain.pool is None
    with pytest.raises(TableRefused, match="offers no side wagers"):
        plain.open_round({3: Wager(main=1000, progressive=100)}, actor="dealer-ann")


def test_the_settlement_is_derived_once_at_the_settle_with_a_pool(engine, monkeypatch):
    from table_controller.record import recorder
    from table_controller.round import machine
    from table_controller.round.events import RoundSettled

    service = started(engine)
    service.open_round(WAGERS, actor="dealer-ann")
    derived = []
    original = machine.apply

    def counting(state, event, rules):
        if isinstance(event, RoundSettled):
            derived.append(event)
        return original(state, event, rules)

    monkeypatch.setattr(machine, "apply", counting)  # the service's own derivation
    monkeypatch.setattr(recorder, "apply", counting)  # the recorder's
    state = play(service, HANDS)
    assert len(derived) == 1
    assert state.result.side is not None and _jackpot(service).hits == 1  # the hit came from it
    assert _check(engine).ok


def test_a_voided_rounds_contributions_stay_on_the_meter_noted_as_funded_by_the_house(engine):
    from table_controller.round.events import DiceRolled

    service = started(engine)
    service.open_round(WAGERS, actor="dealer-ann")
    service.record_dice(DiceRolled(faces=(1, 1, 1), source="rng"))  # 3 x 15 cents on the meter
    service.void("pit-bob", "the shuffler jammed")
    jackpot = _jackpot(service)
    assert (jackpot.meter, jackpot.in_meter) == (1_000_045, 3)  # a meter never goes down (PRG-29)
    with read_snapshot(engine) as session:
        [note] = [
            e.payload_data()
            for e in list_events(session, table_id=pool_chain("t1"))
            if e.kind == "progressive.round-voided"
        ]
    # 3 x 15 cents on the meter; 3 x 0.2 cents on the reserve is 0 whole cents (carried)
    assert note == {"table_id": "t1", "wagers_returned": {"3": 100, "4": 100, "5": 100}, "house_funded": 45}
    assert started(engine).pool.pool == service.pool.pool  # a note, not a record: the replay agrees
    assert _check(engine).ok


def test_a_void_before_the_dice_notes_nothing(engine):
    service = started(engine)
    service.open_round(WAGERS, actor="dealer-ann")
    service.void("pit-bob", "wrong table limits")
    assert "progressive.round-voided" not in _pool_kinds(engine)
