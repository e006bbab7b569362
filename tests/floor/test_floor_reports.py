"""The floor's reports (docs/floor-reports.md): a gaming day and a shift over the floor's tables,
per table, pit and dealer, worked out by hand (report_fixtures.py); JSON, CSV, the printable page
and the PDF; who sees which tables."""

from __future__ import annotations

import base64
import csv
import hashlib
import io
from datetime import UTC, date, datetime

import pypdf
import pytest
from sqlalchemy.engine import Engine

from table_controller.api.models.reports import (
    CSV_ACCOUNTING_COLUMNS,
    CSV_CHECKPOINT_COLUMNS,
    CSV_RATING_COLUMNS,
)
from table_controller.floor.report_page import dollars, report_pdf
from table_controller.floor.reports import CSV_COLUMNS, FloorReportLine, FloorReportPublic, floor_report
from table_controller.round.machine import HouseWayDeviation
from table_controller.storage import read_snapshot, unit_of_work
from table_controller.storage.shifts import close_shift, open_shift

from ..round.tables import BANKER, POSITION_3, POSITION_5, deal
from .conftest import WAGERS, Floor
from .report_fixtures import (
    ANN,
    BETWEEN_ROUNDS,
    DAN,
    DAY,
    DAY_END,
    DAY_START,
    PIT_A,
    PIT_B,
    T1,
    T2,
    T3,
    TABLE_PITS,
    TOTAL,
    ZONE,
    line,
    utc,
    write_day,
)

SQLITE_ONLY = pytest.mark.parametrize("empty_engine", ["sqlite"], indirect=True)
DAY_QUERY = {"day": DAY, "tz": ZONE}


def ok(answer):
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_the_day_per_table_pit_and_dealer_as_worked_out_by_hand(engine: Engine):
    """Two grouped SELECTs on SQLite and PostgreSQL: every table of the set has a line, rounds
    belong to the day they opened in (the local day in Los Angeles), money counts settled rounds
    only, a misdeal and a pit's void apart, alerts go with their round's dealer."""
    write_day(engine)
    with read_snapshot(engine) as session:
        found = floor_report(
            session,
            kind="day",
            tables=TABLE_PITS,
            start=DAY_START,
            end=DAY_END,
            time_zone=ZONE,
            now=datetime.now(UTC),
        )
    assert [item.model_dump() for item in found.lines] == [T1, T2, T3, PIT_A, PIT_B, ANN, DAN, BETWEEN_ROUNDS]
    assert found.total.model_dump() == TOTAL
    with read_snapshot(engine) as session:
        idle = floor_report(
            session,
            kind="day",
            tables={"t9": "pit-z"},
            start=DAY_START,
            end=DAY_END,
            time_zone=ZONE,
            now=DAY_END,
        )
    # a table that dealt nothing is on the report with zeros; no dealer, no money, no hold
    assert [item.model_dump() for item in idle.lines] == [
        line(scope="table", table_id="t9", pit="pit-z"),
        line(scope="pit", pit="pit-z"),
    ]


def test_money_prints_as_dollars_with_cents():
    assert [dollars(c) for c in (0, 5, 95, 100, -1_000, 123_456_789, None)] == [
        "$0.00",
        "$0.05",
        "$0.95",
        "$1.00",
        "-$10.00",
        "$1,234,567.89",
        "\u2014",
    ]


@SQLITE_ONLY
def test_day_report_json_within_each_persons_scope(floor: Floor):
    write_day(floor.engine)
    everything = ok(floor.get("/api/floor/reports/day", "cy", params=DAY_QUERY))
    assert (everything["kind"], everything["day"], everything["tables"]) == ("day", DAY, ["t1", "t2", "t3"])
    assert (everything["start"], everything["end"]) == ("2026-03-10T07:00:00Z", "2026-03-11T07:00:00Z")
    assert everything["lines"] == [T1, T2, T3, PIT_A, PIT_B, ANN, DAN, BETWEEN_ROUNDS]
    assert everything["total"] == TOTAL

    # pia, a pit user of pit-a: t1 and t2 only, and only their rounds in the dealers' lines
    mine = ok(floor.get("/api/floor/reports/day", "pia", params=DAY_QUERY))
    assert mine["tables"] == ["t1", "t2"]
    assert mine["total"] == {**PIT_A, "scope": "total", "pit": None}
    ann_at_pit_a = {**ANN, "rounds": 2, "voids": 0}  # her void was at t3, in pit-b
    dan_at_pit_a = line(
        scope="dealer",
        dealer="dan",
        rounds=2,
        settled=1,
        misdeals=1,
        wagered_cents=2_000,
        commission_cents=95,
        house_result_cents=500,
        hold_percent="25.00",
    )
    assert mine["lines"] == [T1, T2, PIT_A, ann_at_pit_a, dan_at_pit_a]
    assert ok(floor.get("/api/floor/reports/day", "pete", params=DAY_QUERY))["tables"] == ["t3"]

    # a pit or table outside the scope answers as one that does not exist
    for params in ({"pit": "pit-b"}, {"table": "t3"}, {"pit": "pit-a", "table": "t3"}):
        refused = floor.get("/api/floor/reports/day", "pia", params={**DAY_QUERY, **params})
        assert refused.status_code == 404, params
    assert floor.get("/api/floor/reports/day", "cy", params={**DAY_QUERY, "table": "t9"}).status_code == 404

    # one table, one grouping
    only_t2 = ok(
        floor.get("/api/floor/reports/day", "cy", params={**DAY_QUERY, "table": "t2", "by": "table"})
    )
    assert (only_t2["tables"], only_t2["lines"], only_t2["by"]) == (["t2"], [T2], "table")
    dealers = ok(floor.get("/api/floor/reports/day", "cy", params={**DAY_QUERY, "by": "dealer"}))
    assert [item["scope"] for item in dealers["lines"]] == ["dealer"] * 3

    # the next local day holds only t2's device fault of 01:00 (08:00 UTC); in UTC the 10th
    # holds the round of 23:30 the day before in Los Angeles and not the one of 23:30 on the 10th
    after = ok(floor.get("/api/floor/reports/day", "cy", params={"day": "2026-03-11", "tz": ZONE}))
    assert after["total"] == line(scope="total", device_faults=1)
    in_utc = ok(floor.get("/api/floor/reports/day", "cy", params={"day": DAY, "tz": "UTC"}))
    assert in_utc["total"]["wagered_cents"] == 99_999 + 15_000 + 8_000

    # reports are for pit and surveillance (AUDIT); a dealer, an admin, a pit user with no pit
    assert floor.get("/api/floor/reports/day", "dan", params=DAY_QUERY).status_code == 403
    assert floor.get("/api/floor/reports/day", "dee", params=DAY_QUERY).status_code == 403
    no_scope = floor.get("/api/floor/reports/day", "nopit", params=DAY_QUERY)
    assert no_scope.status_code == 403 and no_scope.json()["error"] == "no-scope"
    assert floor.get("/api/floor/reports/day", "cy", params={"day": "2026-02-30"}).status_code == 422
    assert floor.get("/api/floor/reports/day", "cy", params={"by": "seat"}).status_code == 422
    assert floor.get("/api/floor/reports/day", "cy", params={"tz": "Mars/Olympus"}).status_code == 422
    # a pit is named as the floor's other filters name it (floor/routers/tables.py, PitQuery)
    assert floor.get("/api/floor/reports/day", "cy", params={**DAY_QUERY, "pit": ""}).status_code == 422
    assert floor.get("/api/floor/reports/day", "cy", params={**DAY_QUERY, "pit": "p" * 65}).status_code == 422


@SQLITE_ONLY
def test_day_report_as_csv(floor: Floor):
    write_day(floor.engine)
    answer = floor.get("/api/floor/reports/day.csv", "cy", params=DAY_QUERY)
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "text/csv; charset=utf-8"
    assert answer.headers["content-disposition"] == f'attachment; filename="floor-day-{DAY}.csv"'
    rows = list(csv.reader(io.StringIO(answer.text)))
    # then each checkpoint, if any, and the accounting's lines (tests/floor/test_floor_accounting.py)
    assert tuple(rows[0]) == (
        *CSV_COLUMNS,
        *CSV_CHECKPOINT_COLUMNS,
        *CSV_ACCOUNTING_COLUMNS,
        *CSV_RATING_COLUMNS,
    )
    assert CSV_COLUMNS == (
        "scope",
        "table_id",
        "pit",
        "dealer",
        "rounds",
        "settled",
        "in_progress",
        "voids",
        "misdeals",
        "wagered_cents",
        "bonus_wagered_cents",
        "commission_cents",
        "bonuses_paid_cents",
        "house_result_cents",
        "hold_percent",
        "theoretical_rounds",
        "theoretical_win_cents",
        "theoretical_hold_percent",
        "deviations",
        "overrides",
        "device_faults",
    )
    by_name = [
        dict(zip(rows[0], row, strict=True)) for row in rows[1:] if not row[0].startswith("accounting-")
    ]
    assert [(r["scope"], r["table_id"] or r["pit"] or r["dealer"]) for r in by_name] == [
        ("total", ""),
        ("table", "t1"),
        ("table", "t2"),
        ("table", "t3"),
        ("pit", "pit-a"),
        ("pit", "pit-b"),
        ("dealer", "ann"),
        ("dealer", "dan"),
        ("dealer", ""),
    ]
    t2 = by_name[2]
    # a missing theoretical win is an empty cell, never 0
    assert (t2["misdeals"], t2["hold_percent"], t2["theoretical_win_cents"]) == ("1", "25.00", "")
    assert (by_name[0]["house_result_cents"], by_name[0]["hold_percent"]) == ("500", "1.89")


@SQLITE_ONLY
def test_a_pit_users_report_is_titled_with_their_pit_and_surveillances_with_the_floor(floor: Floor):
    write_day(floor.engine)
    assert ok(floor.get("/api/floor/reports/day", "pia", params=DAY_QUERY))["pit"] == "pit-a"
    page = floor.get("/api/floor/reports/day.html", "pia", params=DAY_QUERY).text
    assert f"<h1>Day report {DAY}: pit pit-a</h1>" in page  # what pia's report covers: her pit
    assert (
        f"<h1>Day report {DAY}: pit pit-b</h1>"
        in floor.get("/api/floor/reports/day.html", "pete", params=DAY_QUERY).text
    )
    everything = floor.get("/api/floor/reports/day.html", "cy", params=DAY_QUERY).text
    assert f"<h1>Day report {DAY}: the floor</h1>" in everything
    assert ok(floor.get("/api/floor/reports/day", "cy", params=DAY_QUERY))["pit"] is None
    table = floor.get("/api/floor/reports/day.html", "pia", params={**DAY_QUERY, "table": "t1"}).text
    assert f"<h1>Day report {DAY}: table t1</h1>" in table


def test_the_printable_page_has_a_print_stylesheet_for_a4_and_letter(floor: Floor):
    write_day(floor.engine)
    answer = floor.get("/api/floor/reports/day.html", "cy", params=DAY_QUERY)
    assert answer.status_code == 200 and answer.headers["content-type"] == "text/html; charset=utf-8"
    page = answer.text
    assert page.startswith("<!DOCTYPE html>")
    for rule in (
        "size: A4 landscape",
        "margin: 12mm 12mm 14mm 12mm",
        "counter(page)",
        "thead { display: table-header-group; }",  # the header again on every page
        "tr { break-inside: avoid; page-break-inside: avoid; }",  # no row cut by a page break
    ):
        assert rule in page, rule
    # its own policy allows its one inline style (by hash) and nothing else
    style = page[page.index("<style>") + len("<style>") : page.index("</style>")]
    digest = base64.b64encode(hashlib.sha256(style.encode()).digest()).decode()
    policy = answer.headers["content-security-policy"]
    assert policy.startswith(f"default-src 'none'; style-src 'sha256-{digest}';")
    # self-contained: nothing to fetch, nothing to run
    for outside in ("<script", "<link", "<img", "http:", "https:", "url("):
        assert outside not in page
    assert "Day report 2026-03-10: the floor" in page
    assert "2026-03-10 00:00 PDT to 2026-03-11 00:00 PDT" in page
    for money in ("$150.00", "-$10.00", "$6.70", "-6.45%"):  # t1's wagers and result, the theoretical win
        assert money in page
    assert "Prepared by (name, signature)" in page
    letter = floor.get("/api/floor/reports/day.html", "cy", params={**DAY_QUERY, "paper": "letter"}).text
    assert "size: letter landscape" in letter and "A4" not in letter


def _shift(floor: Floor) -> int:
    """pia's shift of pit-a from 15:00 to 17:30 UTC on the 10th (r1, r2 and the misdeal r3)."""
    with unit_of_work(floor.engine) as session:
        shift = open_shift(session, pit="pit-a", on_duty=["pia", "paul", "dan"], actor="pia", now=utc(10, 15))
        close_shift(
            session,
            shift_id=shift.id,
            actor="pia",
            signed_off=["pia", "paul"],
            note="Table t2's shuffler re-checked after the misdeal.",
            now=utc(10, 17, 30),
        )
    return shift.id


@SQLITE_ONLY
def test_shift_report_names_its_people_and_prints_as_a_pdf(floor: Floor):
    write_day(floor.engine)
    shift_id = _shift(floor)
    found = ok(floor.get(f"/api/floor/reports/shift/{shift_id}", "pia", params={"tz": ZONE}))
    assert (found["kind"], found["start"], found["end"]) == (
        "shift",
        "2026-03-10T15:00:00Z",
        "2026-03-10T17:30:00Z",
    )
    assert {
        k: found["shift"][k] for k in ("pit", "opened_by", "on_duty", "closed_by", "signed_off", "open")
    } == {
        "pit": "pit-a",
        "opened_by": "pia",
        "on_duty": ["pia", "paul", "dan"],
        "closed_by": "pia",
        "signed_off": ["pia", "paul"],
        "open": False,
    }
    t2_in_shift = line(scope="table", table_id="t2", pit="pit-a", rounds=1, misdeals=1)  # r3 only
    assert [item for item in found["lines"] if item["scope"] == "table"] == [T1, t2_in_shift]
    assert found["total"]["rounds"] == 3 and found["total"]["house_result_cents"] == -1_000
    # another pit's shift is not there for pete; surveillance reads it
    assert floor.get(f"/api/floor/reports/shift/{shift_id}", "pete").status_code == 404
    assert floor.get("/api/floor/reports/shift/999", "cy").status_code == 404
    assert floor.get(f"/api/floor/reports/shift/{shift_id}.csv", "cy").text.startswith("scope,table_id,")

    page = floor.get(f"/api/floor/reports/shift/{shift_id}.html", "cy", params={"tz": ZONE}).text
    assert f"Shift report {shift_id}: pit pit-a" in page
    assert "<dt>On duty</dt><dd>pia, paul, dan</dd>" in page
    assert "<dt>Signed off</dt><dd>pia, paul</dd>" in page
    assert page.count("<div class='signature'><div class='line'></div>") == 2  # one line per signer
    assert "shuffler re-checked" in page

    pdf = floor.get(f"/api/floor/reports/shift/{shift_id}.pdf", "cy", params={"tz": ZONE, "paper": "letter"})
    assert pdf.status_code == 200 and pdf.headers["content-type"] == "application/pdf"
    assert pdf.content.startswith(b"%PDF-")
    reader = pypdf.PdfReader(io.BytesIO(pdf.content))
    width, height = float(reader.pages[0].mediabox.width), float(reader.pages[0].mediabox.height)
    assert (round(width), round(height)) == (792, 612)  # Letter, landscape: 11 x 8.5 in at 72 pt
    text = " ".join(page.extract_text() for page in reader.pages)
    assert f"Shift report {shift_id}: pit pit-a" in text
    assert "Signed off pia, paul" in text and "On duty pia, paul, dan" in text
    assert "$150.00" in text and "-$10.00" in text


@SQLITE_ONLY
def test_an_open_shift_runs_until_now_and_has_no_signatures_yet(floor: Floor):
    with unit_of_work(floor.engine) as session:
        shift = open_shift(session, pit=None, on_duty=["cy", "dee"], actor="dee", now=utc(10, 15))
    found = ok(floor.get(f"/api/floor/reports/shift/{shift.id}", "pete"))
    # the whole floor's shift: pete sees it, over his pit's tables only
    assert found["tables"] == ["t3"] and found["shift"]["open"] is True
    assert datetime.fromisoformat(found["end"]) == datetime.fromisoformat(found["generated_at"])
    page = floor.get(f"/api/floor/reports/shift/{shift.id}.html", "pete").text
    assert "still open" in page and "nobody has signed it off yet" in page


@SQLITE_ONLY
def test_rounds_played_through_a_table_service_count_their_real_alerts(floor: Floor):
    """The alert kinds the table service raises (table/service.py) are the ones the report counts: a
    deviation refused, the pit's override, a device fault, all at t1 today."""
    service = floor.services["t1"]
    from table_controller.round.events import DiceRolled, PilesDealt

    service.open_round(WAGERS, "dan")
    service.record_dice(DiceRolled(faces=(1, 1, 1), source="shaker", actor="device:dice-shaker"))
    piles, unused = deal({1: BANKER, 3: POSITION_3, 5: POSITION_5}, start=3)
    service.record_deal(PilesDealt(piles=piles, unused=unused, actor="device:shuffler"))
    service.set_player(3, ["As", "Ah", "9c", "8c", "2c"], ["Kd", "Kh"], "dan")
    service.set_player(5, ["Kc", "8d", "6s", "4h", "3c"], ["Qh", "Jd"], "dan")
    mis_set = (["Ac", "7s", "5c", "3d", "2h"], ["Qd", "9h"])
    with pytest.raises(HouseWayDeviation):
        service.set_dealer(*mis_set, "dan")
    service.override_dealer(*mis_set, "pia", "approved misread")
    service.settle()
    service.device_fault("shuffler", "door-open", "front door")
    t1 = ok(floor.get("/api/floor/reports/day", "pia", params={"table": "t1", "by": "table"}))["lines"][0]
    assert (t1["rounds"], t1["settled"], t1["deviations"], t1["overrides"], t1["device_faults"]) == (
        1,
        1,
        1,
        1,
        1,
    )
    # position 3 wins $25 less 5% commission (002), position 5 pushes: the house lost $23.75
    assert (t1["wagered_cents"], t1["commission_cents"], t1["house_result_cents"]) == (3_500, 125, -2_375)


def test_a_long_report_prints_its_header_on_every_a4_page_and_cuts_no_row():
    """50 tables: several A4 pages, each starting with the table's header, each row whole on one."""
    lines = [FloorReportLine(**{**T1, "table_id": f"t{n:02d}", "wagered_cents": 100 * n}) for n in range(50)]
    found = FloorReportPublic(
        kind="day",
        day=date(2026, 3, 10),
        time_zone=ZONE,
        start=DAY_START,
        end=DAY_END,
        pit=None,
        table_id=None,
        by="table",
        tables=[line.table_id for line in lines],
        total=FloorReportLine(**TOTAL),
        lines=lines,
        generated_at=DAY_END,
    )
    reader = pypdf.PdfReader(io.BytesIO(report_pdf(found)))
    assert len(reader.pages) >= 2
    width, height = float(reader.pages[0].mediabox.width), float(reader.pages[0].mediabox.height)
    assert (round(width), round(height)) == (842, 595)  # A4 landscape: 297 x 210 mm at 72 pt per inch
    pages = [page.extract_text() for page in reader.pages]
    continued = [text for text in pages[1:] if "(pit pit-a)" in text]  # the table runs on
    assert continued
    for text in continued:
        assert text.startswith("Table Rounds Settled Voids Misdeals Wagered"), text[:80]
    for n in range(50):
        row = f"t{n:02d} (pit pit-a) 2 2 0 0 {dollars(100 * n)} $5.00 $4.75 $25.00 -$10.00"
        assert sum(row in " ".join(text.split()) for text in pages) == 1, row
