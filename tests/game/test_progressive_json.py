"""Progressive records and level parameters through JSON (docs/progressive.md); the round
trip of every kind of record is also checked on every run of the state machine
(test_progressive_properties.py)."""

from __future__ import annotations

import json

import pytest

from table_controller.game.progressive import (
    AdjustmentReason,
    HitClaim,
    LevelParams,
    OverflowPolicy,
    adjust,
    change_parameters,
    confirm_payment,
    contribute,
    new_pool,
    replay,
    resolve_hits,
    set_open,
)
from table_controller.game.progressive_json import (
    KINDS,
    RecordFormatError,
    params_as_dict,
    params_from_dict,
    record_as_dict,
    record_from_dict,
)

LEVEL = LevelParams("jackpot", 1_000_000, 900_000, 1_500, 200, 5_000_000, OverflowPolicy.REVENUE, 700)


def test_every_kind_of_record_comes_back_the_same() -> None:
    start = new_pool("link", [LEVEL])
    pool, records = start, []
    for step in (
        lambda p: set_open(p, True, "start"),
        lambda p: contribute(p, 100, table_id="T1", position=2, sequence=1),
        lambda p: resolve_hits(p, [HitClaim(2, "T1", 2, "jackpot", 1_000, "five-aces")], hold_from=50_000),
        lambda p: confirm_payment(p, 1, paid_by="dealer", verified_by="surveillance"),
        lambda p: set_open(p, False, "change"),
        lambda p: change_parameters(
            p, LevelParams("jackpot", 1_000_000, 800_000, 1_700), requested_by="a", approved_by="b"
        ),
        lambda p: adjust(p, "jackpot", 25, AdjustmentReason.SIGN_VARIANCE, requested_by="a", approved_by="b"),
    ):
        pool, record = step(pool)
        records.append(record)
    stored = json.loads(json.dumps([record_as_dict(record) for record in records]))
    assert {data["kind"] for data in stored} == set(KINDS)
    assert stored[2]["hits"][0]["claim"]["line"] == "five-aces" and stored[2]["rule"] == "in-order"
    back = [record_from_dict(data) for data in stored]
    assert back == records
    assert replay(start, back) == pool


def test_level_parameters_come_back_the_same() -> None:
    data = json.loads(json.dumps(params_as_dict(LEVEL)))
    assert data["overflow"] == "revenue" and params_from_dict(data) == LEVEL


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"kind": "jackpot"},
        {"kind": "payment", "hit_id": 1},
        {
            "kind": "adjustment",
            "level": "j",
            "amount": 1,
            "reason": "whim",
            "requested_by": "a",
            "approved_by": "b",
            "note": "",
            "meter_before": 1,
            "meter_after": 2,
        },
        ["kind", "status"],
    ],
)
def test_data_that_is_not_a_record_is_refused(data) -> None:
    with pytest.raises(RecordFormatError):
        record_from_dict(data)
