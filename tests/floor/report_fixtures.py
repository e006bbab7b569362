"""A gaming day on the floor of tests/floor/conftest.py (t1, t2 in pit-a; t3 in pit-b), written
through the store's functions, with its sums worked out by hand (docs/floor-reports.md).

The day is 2026-03-10 in America/Los_Angeles (PDT since 8 March: UTC-7), so it runs from
2026-03-10 07:00 UTC to 2026-03-11 07:00 UTC. Dealers ann and dan.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy.engine import Engine

from table_controller.game.cards import Game
from table_controller.storage import RoundCreate, RoundUpdate, create_round, unit_of_work, update_round
from table_controller.storage.audit import append_event

ZONE = "America/Los_Angeles"
DAY = "2026-03-10"
DAY_START = datetime(2026, 3, 10, 7, tzinfo=UTC)
DAY_END = datetime(2026, 3, 11, 7, tzinfo=UTC)
TABLE_PITS = {"t1": "pit-a", "t2": "pit-a", "t3": "pit-b"}


def utc(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 3, day, hour, minute, tzinfo=UTC)


def _round(
    engine: Engine, table_id: str, dealer: str, opened: datetime, *, how: str = "settle", **money: Any
) -> str:
    """One round's projection as the recorder leaves it: ``settle`` (closed with ``money``),
    ``void`` (the pit's), ``misdeal``, or ``open`` (still running)."""
    with unit_of_work(engine) as session:
        found = create_round(
            session,
            data=RoundCreate(
                table_id=table_id, game=Game.STANDARD, dealer=dealer, phase="open", opened_at=opened
            ),
        )
        closed = opened + timedelta(minutes=5)
        if how == "settle":
            changes: dict[str, Any] = {"phase": "closed", "closed_at": closed, **money}
        elif how == "void":
            changes = {
                "phase": "void",
                "closed_at": closed,
                "voided": True,
                "void_reason": "late wagers",
                **money,
            }
        elif how == "misdeal":
            changes = {
                "phase": "void",
                "closed_at": closed,
                "voided": True,
                "misdeal": True,
                "void_reason": "misdeal: Qd seen twice",
                **money,
            }
        else:
            changes = dict(money)
        if changes:
            update_round(session, round_id=found.round_id, changes=RoundUpdate(**changes))
    return found.round_id


def _alert(engine: Engine, table_id: str, alert: str, at: datetime, round_id: str | None = None) -> None:
    with unit_of_work(engine) as session:
        append_event(
            session,
            table_id=table_id,
            round_id=round_id,
            kind="alert.raised",
            actor="system",
            payload={"alert": alert, "detail": f"{alert} at {table_id}"},
            now=at,
        )


def write_day(engine: Engine) -> dict[str, str]:
    """The rounds and alerts of the day (and two just outside it); returns the round ids by name."""
    r: dict[str, str] = {}
    # the local day before (06:30 UTC on the 10th is 23:30 on the 9th in Los Angeles): left out
    r["before"] = _round(engine, "t1", "ann", utc(10, 6, 30), wagered_cents=99_999, house_result_cents=99_999)
    # t1, ann: two settled rounds; the second one's setting deviated and the pit let it stand
    r["r1"] = _round(
        engine,
        "t1",
        "ann",
        utc(10, 16),
        wagered_cents=10_000,
        bonus_wagered_cents=500,
        commission_cents=475,
        house_result_cents=2_000,
        theoretical_win_cents=250,
        theoretical_variance=1_000_000,
    )
    r["r2"] = _round(
        engine,
        "t1",
        "ann",
        utc(10, 16, 30),
        wagered_cents=5_000,
        bonuses_paid_cents=2_500,
        house_result_cents=-3_000,
        theoretical_win_cents=120,
        theoretical_variance=400_000,
        override=True,
    )
    # t2, dan: a misdeal (its wagers returned: not counted), then a round at 23:30 local
    r["r3"] = _round(engine, "t2", "dan", utc(10, 17), how="misdeal", wagered_cents=4_000)
    r["r4"] = _round(
        engine, "t2", "dan", utc(11, 6, 30), wagered_cents=2_000, commission_cents=95, house_result_cents=500
    )
    # t3: ann's round voided by the pit; dan's settled round (two deviations, then the house
    # way); dan's round still running
    r["r5"] = _round(engine, "t3", "ann", utc(10, 18), how="void", wagered_cents=3_000)
    r["r6"] = _round(
        engine,
        "t3",
        "dan",
        utc(10, 18, 30),
        wagered_cents=8_000,
        bonus_wagered_cents=1_000,
        commission_cents=380,
        house_result_cents=1_000,
        theoretical_win_cents=300,
        theoretical_variance=900_000,
    )
    r["r7"] = _round(engine, "t3", "dan", utc(10, 19), how="open", wagered_cents=7_000)
    # alerts: a deviation and a link loss in t1's rounds, ann's; two deviations in r6, dan's;
    # a device fault at t3 between rounds (nobody's); one at t2 after the day (left out); and
    # alerts the report does not count as deviations or faults (misdeal, void, override)
    _alert(engine, "t1", "link-loss", utc(10, 16, 2), r["r1"])
    _alert(engine, "t1", "house-way-deviation", utc(10, 16, 32), r["r2"])
    _alert(engine, "t1", "override", utc(10, 16, 33), r["r2"])
    _alert(engine, "t2", "misdeal", utc(10, 17, 2), r["r3"])
    _alert(engine, "t3", "void", utc(10, 18, 1), r["r5"])
    _alert(engine, "t3", "house-way-deviation", utc(10, 18, 32), r["r6"])
    _alert(engine, "t3", "house-way-deviation", utc(10, 18, 33), r["r6"])
    _alert(engine, "t3", "device-fault", utc(10, 12))
    _alert(engine, "t2", "device-fault", utc(11, 8))
    return r


def line(**values: Any) -> dict[str, Any]:
    """A report line with every count zero and every sum empty, but ``values``."""
    zero: dict[str, Any] = {
        "table_id": None,
        "pit": None,
        "dealer": None,
        "rounds": 0,
        "settled": 0,
        "in_progress": 0,
        "voids": 0,
        "misdeals": 0,
        "wagered_cents": 0,
        "bonus_wagered_cents": 0,
        "commission_cents": 0,
        "bonuses_paid_cents": 0,
        "house_result_cents": 0,
        "hold_percent": None,
        "theoretical_rounds": 0,
        "theoretical_win_cents": None,
        "theoretical_hold_percent": None,
        "deviations": 0,
        "overrides": 0,
        "device_faults": 0,
    }
    return {**zero, **values}


# t1: r1 + r2. Wagered 15,000 + 500 bonus; house +2,000 - 3,000 = -1,000: hold -1,000 / 15,500
# = -6.4516% -> -6.45 (two places, half-even); theoretical 250 + 120 = 370 over the same 15,500:
# 2.387% -> 2.39.
T1 = line(
    scope="table",
    table_id="t1",
    pit="pit-a",
    rounds=2,
    settled=2,
    wagered_cents=15_000,
    bonus_wagered_cents=500,
    commission_cents=475,
    bonuses_paid_cents=2_500,
    house_result_cents=-1_000,
    hold_percent="-6.45",
    theoretical_rounds=2,
    theoretical_win_cents=370,
    theoretical_hold_percent="2.39",
    deviations=1,
    overrides=1,
    device_faults=1,
)
# t2: r3 (misdeal, its 4,000 returned) + r4: 500 / 2,000 = 25.00%; no theoretical win: missing
T2 = line(
    scope="table",
    table_id="t2",
    pit="pit-a",
    rounds=2,
    settled=1,
    misdeals=1,
    wagered_cents=2_000,
    commission_cents=95,
    house_result_cents=500,
    hold_percent="25.00",
)
# t3: r5 (void), r6, r7 (running): 1,000 / 9,000 = 11.11%; theoretical 300 / 9,000 = 3.33%
T3 = line(
    scope="table",
    table_id="t3",
    pit="pit-b",
    rounds=3,
    settled=1,
    in_progress=1,
    voids=1,
    wagered_cents=8_000,
    bonus_wagered_cents=1_000,
    commission_cents=380,
    house_result_cents=1_000,
    hold_percent="11.11",
    theoretical_rounds=1,
    theoretical_win_cents=300,
    theoretical_hold_percent="3.33",
    deviations=2,
    device_faults=1,
)
# pit-a = t1 + t2: -500 / 17,500 = -2.857% -> -2.86; theoretical 370 over the 15,500 it covers
PIT_A = line(
    scope="pit",
    pit="pit-a",
    rounds=4,
    settled=3,
    misdeals=1,
    wagered_cents=17_000,
    bonus_wagered_cents=500,
    commission_cents=570,
    bonuses_paid_cents=2_500,
    house_result_cents=-500,
    hold_percent="-2.86",
    theoretical_rounds=2,
    theoretical_win_cents=370,
    theoretical_hold_percent="2.39",
    deviations=1,
    overrides=1,
    device_faults=1,
)
PIT_B = {**T3, "scope": "pit", "table_id": None}
# ann: r1, r2, r5 (void): the same money as t1, one void
ANN = {**T1, "scope": "dealer", "table_id": None, "pit": None, "dealer": "ann", "rounds": 3, "voids": 1}
# dan: r3 (misdeal), r4, r6, r7 (running): 1,500 / 11,000 = 13.636% -> 13.64; theoretical
# 300 over the 9,000 of r6: 3.33%
DAN = line(
    scope="dealer",
    dealer="dan",
    rounds=4,
    settled=2,
    in_progress=1,
    misdeals=1,
    wagered_cents=10_000,
    bonus_wagered_cents=1_000,
    commission_cents=475,
    house_result_cents=1_500,
    hold_percent="13.64",
    theoretical_rounds=1,
    theoretical_win_cents=300,
    theoretical_hold_percent="3.33",
    deviations=2,
)
BETWEEN_ROUNDS = line(scope="dealer", device_faults=1)  # t3's fault with no round open
# everything: 500 / 26,500 = 1.8867% -> 1.89; theoretical 670 over 24,500 = 2.7346% -> 2.73
TOTAL = line(
    scope="total",
    rounds=7,
    settled=4,
    in_progress=1,
    voids=1,
    misdeals=1,
    wagered_cents=25_000,
    bonus_wagered_cents=1_500,
    commission_cents=950,
    bonuses_paid_cents=2_500,
    house_result_cents=500,
    hold_percent="1.89",
    theoretical_rounds=3,
    theoretical_win_cents=670,
    theoretical_hold_percent="2.73",
    deviations=3,
    overrides=1,
    device_faults=2,
)
