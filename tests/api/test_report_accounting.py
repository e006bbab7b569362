"""The table's day and shift reports carry the gaming day's accounting and ratings, on both
backends (docs/accounting.md, "The day in the reports"; docs/api.md, "Reports").

The day is test_accounting_api.py's, worked out by hand there: three settled rounds of -2,375
(position 3 wins $25 less $1.25 commission, position 5 pushes $10) and a voided one; opener
1,110,000; drop $500 cash + a $1,000 marker = 150,000; fill 100,000, credit 200,000, a voided fill
that does not count; closer 852,875:

    win      = 150,000 + (852,875 - 1,110,000) + 200,000 - 100,000 = -7,125 cents
    hold     = -7,125 / 150,000 x 100 = -4.75 %
    computed = 3 x -2,375 = -7,125;  variance = -7,125 - (-7,125) - 0 = 0

With the table's math of test_ratings_api.py (each hand loses, pushes, wins 3/10, 4/10, 3/10)
each round stores a theoretical win of 52 cents (52.5 half to even), split 37 to seat 3 and 15 to
seat 5: the day's theoretical win is 3 x 52 = 156, its theoretical hold over the drop
156 / 150,000 x 100 = 0.104 % -> 0.10. P-300 at seat 3: 3 rounds, 7,500 wagered, average 2,500,
actual -7,125, theoretical 3 x 37 = 111; P-500 at seat 5: 3 rounds, 3,000, average 1,000, actual
0, theoretical 3 x 15 = 45. The ratings together: 2 ratings, 6 rounds, 10,500 wagered, actual
-7,125, theoretical 156.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from decimal import ROUND_HALF_EVEN, Decimal, localcontext

import pytest
from sqlalchemy import func, select
from sqlalchemy.engine import Engine

from table_controller.settings import TableSettings
from table_controller.storage import add_user, read_snapshot, unit_of_work
from table_controller.storage.models import Round

from .conftest import Api, make_api
from .test_accounting_api import CHIPS, CLOSER, SHORT, play_the_day
from .test_ratings_api import _math, seat


@pytest.fixture
def api(engine: Engine) -> Iterator[Api]:
    settings = TableSettings(table_id="t1", pit="pit-a", accounting={"denominations": CHIPS})
    for made in make_api(engine, settings):
        made.service.set_table_math(_math(settings))
        with unit_of_work(engine) as session:
            made.tokens["pit2"] = add_user(session, name="eve", role="pit")
        yield made


def _day_report(api: Api, closer: dict[str, int]) -> tuple[dict, dict]:
    p300 = seat(api, 3, "P-300")
    seat(api, 5, "P-500", role="pit")
    day = play_the_day(api, closer)
    ended = api.post("/api/ratings/end", "dealer", json={"rating_id": p300["rating_id"]})
    assert ended.status_code == 200, ended.text
    found = api.get("/api/reports/day", "surveillance", params={"date": day["gaming_day"], "tz": "UTC"})
    assert found.status_code == 200, found.text
    return day, found.json()


def test_the_day_report_carries_the_accounting_reconciled_and_the_ratings(api: Api) -> None:
    day, report = _day_report(api, CLOSER)
    section = report["accounting"]
    assert (section["gaming_day"], section["shift"], section["alert_above_cents"]) == (
        day["gaming_day"],
        None,
        0,
    )
    table, pit = section["lines"]
    assert (table["scope"], table["table_id"], table["pit"]) == ("table", "t1", "pit-a")
    assert (pit["scope"], pit["pit"], section["total"]["scope"]) == ("pit", "pit-a", "total")
    money = {
        "tables": 1,
        "missing": [],
        "opener_cents": 1_110_000,
        "closer_cents": 852_875,
        "fills_cents": 100_000,
        "credits_cents": 200_000,
        "drop_cash_cents": 50_000,
        "drop_markers_cents": 100_000,
        "drop_cents": 150_000,
        "win_cents": -7_125,
        "hold_percent": "-4.75",
        "theoretical_rounds": 3,
        "theoretical_win_cents": 156,
        "theoretical_hold_percent": "0.10",
        "band_actual_cents": -7_125,
        "settled_rounds": 3,
        "computed_result_cents": -7_125,
        "explained_cents": 0,
        "variance_cents": 0,
        "variance_flagged": False,
        "ratings": 2,
        "rated_rounds": 6,
        "rated_wagered_cents": 10_500,
        "rated_actual_win_cents": -7_125,
        "rated_theoretical_win_cents": 156,
    }
    for line in (table, pit, section["total"]):
        assert {name: line[name] for name in money} == money
    # the band: 156 +- 1.96 sqrt(the three rounds' stored variances), half-even to the cent
    with read_snapshot(api.engine) as session:
        variance = session.execute(
            select(func.sum(Round.theoretical_variance)).where(Round.phase == "closed")
        ).scalar_one()
    with localcontext() as context:
        context.prec = 40
        half = int(
            (Decimal("1.96") * Decimal(variance).sqrt()).quantize(Decimal(1), rounding=ROUND_HALF_EVEN)
        )
    assert (table["band_low_cents"], table["band_high_cents"]) == (156 - half, 156 + half)
    assert table["outside_band"] is (not 156 - half <= -7_125 <= 156 + half)
    ratings = [
        (
            r["player"],
            r["seat"],
            r["rounds"],
            r["total_wagered_cents"],
            r["average_wager_cents"],
            r["actual_win_cents"],
            r["theoretical_win_cents"],
            r["end"] is None,
        )
        for r in section["ratings"]
    ]
    assert ratings == [
        ("P-300", 3, 3, 7_500, 2_500, -7_125, 111, False),
        ("P-500", 5, 3, 3_000, 1_000, 0, 45, True),  # still seated: figures as last folded
    ]
    assert section["ratings"][0]["seconds_played"] >= 0 and section["ratings"][1]["seconds_played"] is None
    # both ratings' recorded figures are those the rounds give again (storage/closing.py)
    assert [r["matches_rounds"] for r in section["ratings"]] == [True, True]
    # the CSV: the accounting's lines and the ratings after the rounds' lines, one table
    as_csv = api.get("/api/reports/day.csv", params={"date": day["gaming_day"], "tz": "UTC"})
    assert as_csv.status_code == 200
    rows = list(csv.DictReader(io.StringIO(as_csv.text)))
    by_scope = {row["scope"]: row for row in rows if row["scope"].startswith("accounting-")}
    assert set(by_scope) == {"accounting-table", "accounting-pit", "accounting-total"}
    for row in by_scope.values():
        assert (row["win_cents"], row["win_hold_percent"], row["variance_cents"]) == ("-7125", "-4.75", "0")
        assert (row["variance_flagged"], row["theoretical_hold_percent_of_drop"]) == ("no", "0.10")
        assert row["gaming_day"] == day["gaming_day"]
    rated = [row for row in rows if row["scope"] == "rating"]
    assert [(r["player"], r["rating_rounds"], r["actual_win_cents"]) for r in rated] == [
        ("P-300", "3", "-7125"),
        ("P-500", "3", "0"),
    ]


def test_chips_taken_from_the_tray_show_as_a_flagged_variance_in_the_report(api: Api) -> None:
    """A $100 chip taken: closer 842,875, win -17,125, hold -17,125 / 150,000 = -11.4166.. %
    -> -11.42, variance -17,125 - (-7,125) = -10,000, above the threshold 0."""
    _, report = _day_report(api, SHORT)
    total = report["accounting"]["total"]
    assert (total["win_cents"], total["hold_percent"]) == (-17_125, "-11.42")
    assert (total["variance_cents"], total["variance_flagged"]) == (-10_000, True)


def test_a_day_without_counts_names_what_is_missing_and_has_no_win(api: Api) -> None:
    today = api.get("/api/accounting/day").json()["gaming_day"]
    report = api.get("/api/reports/day", params={"date": today, "tz": "UTC"}).json()
    total = report["accounting"]["total"]
    assert total["missing"] == ["t1: opener", "t1: closer"]
    assert (total["win_cents"], total["hold_percent"], total["variance_cents"]) == (None, None, None)
    assert total["variance_flagged"] is None and total["tables"] == 1
    table = report["accounting"]["lines"][0]
    assert (table["opener_cents"], table["closer_cents"], table["computed_result_cents"]) == (None, None, 0)


def test_the_shift_report_carries_its_calendar_shift(api: Api) -> None:
    """A shift report asked for with a calendar shift's bounds (as the reports page asks) carries
    that shift's accounting; nothing was counted for the shift, so no win."""
    period = api.get("/api/accounting/day", params={"shift": "day"}).json()
    found = api.get("/api/reports/shift", params={"start": period["start"], "end": period["end"]})
    assert found.status_code == 200, found.text
    section = found.json()["accounting"]
    assert (section["gaming_day"], section["shift"]) == (period["gaming_day"], "day")
    assert section["total"]["missing"] == ["t1: opener", "t1: closer"]
