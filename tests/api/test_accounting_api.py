"""The table's accounting through the API, on both backends (docs/accounting.md, "Storage, API
and pages"; docs/api.md, "Table accounting").

A simulated day: three rounds settled and one voided through the service as the other API tests
play them (conftest.play_round), with opener, buy-ins, fills, credits, a voided fill, drop and
closer worked out by hand:

- each settled round: position 3 wagers $25 and wins both hands, paid $25 less the 5%
  commission $1.25 (+2,375 cents to the player); position 5 wagers $10 and pushes (high hand
  K-high loses to A-high, low hand Q-J beats Q-7: tests/round/tables.py). House result
  -2,375 a round; three rounds: computed result -7,125 cents. The voided round moves nothing.
- opener: $1 x 100 + $5 x 200 + $25 x 200 + $100 x 50 = 1,110,000 cents.
- buy-ins: $500 cash (drop 50,000, chips out of the tray) and a $1,000 marker M-1 (drop 100,000):
  drop 150,000, tray -150,000.
- fill 1: $25 x 40 = 100,000 in; credit 2: $100 x 20 = 200,000 out; fill 3: $5 x 100, voided by a
  second pit user, never delivered: does not count.
- closer: 1,110,000 - 150,000 - 7,125 + 100,000 - 200,000 = 852,875 cents, counted as
  $100 x 20 + $25 x 260 + $1 x 28 + 25c x 3 (200,000 + 650,000 + 2,800 + 75).

    win      = 150,000 + (852,875 - 1,110,000) + 200,000 - 100,000 = -7,125 cents
    hold     = -7,125 / 150,000 x 100 = -4.75 %
    variance = -7,125 - (-7,125) - 0 = 0

With a $100 chip taken from the tray the closer is 842,875, the win -17,125 and the variance
-10,000 cents: above the threshold 0, an ``accounting-variance`` alert for the pit and
surveillance, chained.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from sqlalchemy import func, select
from sqlalchemy.engine import Engine

from table_controller.record.check import check_record
from table_controller.settings import TableSettings
from table_controller.storage import add_user, read_snapshot, unit_of_work
from table_controller.storage.accounting import (
    AccountingCount,
    AccountingDrop,
    AccountingLine,
    AccountingReconciliation,
    AccountingSlip,
)
from table_controller.storage.models import Event

from .conftest import Api, make_api, play_round

CHIPS = [25, 100, 500, 2_500, 10_000, 50_000, 100_000, 500_000]  # a quarter chip: commissions in 25c
OPENER = {"100": 100, "500": 200, "2500": 200, "10000": 50}  # 1,110,000
CLOSER = {"10000": 20, "2500": 260, "100": 28, "25": 3}  # 852,875
SHORT = {**CLOSER, "10000": 19}  # a $100 chip taken: 842,875


@pytest.fixture
def api(engine: Engine) -> Iterator[Api]:
    settings = TableSettings(table_id="t1", accounting={"denominations": CHIPS})
    for made in make_api(engine, settings):
        with unit_of_work(engine) as session:
            made.tokens["pit2"] = add_user(session, name="eve", role="pit")
        yield made


def rows(engine: Engine) -> dict[str, int]:
    """How many rows each accounting table and the events table hold."""
    with read_snapshot(engine) as session:
        return {
            model.__name__: session.execute(select(func.count()).select_from(model)).scalar_one()
            for model in (
                Event,
                AccountingCount,
                AccountingSlip,
                AccountingDrop,
                AccountingLine,
                AccountingReconciliation,
            )
        }


def count(api: Api, kind: str, chips: dict[str, int]) -> int:
    """The pit (bob) enters the count naming the dealer (ann), who signs it."""
    entered = api.post("/api/accounting/counts", "pit", json={"kind": kind, "chips": chips, "dealer": "ann"})
    assert entered.status_code == 201, entered.text
    count_id = entered.json()["id"]
    signed = api.post(f"/api/accounting/counts/{count_id}/sign", "dealer")
    assert signed.status_code == 200, signed.text
    assert signed.json()["signed_at"] is not None
    return count_id


def slip(api: Api, kind: str, chips: dict[str, int], *, deliver: bool = True) -> int:
    made = api.post("/api/accounting/slips", "pit", json={"kind": kind, "chips": chips})
    assert made.status_code == 201, made.text
    number = made.json()["number"]
    if deliver:
        done = api.post(
            f"/api/accounting/slips/{number}/deliver", "dealer", json={"runner": "cage runner Rex"}
        )
        assert done.status_code == 200, done.text
        assert done.json()["state"] == "delivered"
    return number


def play_the_day(api: Api, closer: dict[str, int]) -> dict:
    count(api, "opener", OPENER)
    for how in ("settle", "settle", "void", "settle"):
        play_round(api, how=how)
    drop = api.post("/api/accounting/drop", "pit", json={"kind": "cash", "amount_cents": 50_000})
    assert drop.status_code == 201, drop.text
    marker = api.post(
        "/api/accounting/drop", "pit", json={"kind": "marker", "amount_cents": 100_000, "reference": "M-1"}
    )
    assert marker.status_code == 201, marker.text
    fill = slip(api, "fill", {"2500": 40})
    credit = slip(api, "credit", {"10000": 20})
    voided = slip(api, "fill", {"500": 100}, deliver=False)
    assert (
        api.post(f"/api/accounting/slips/{voided}/void", "pit", json={"reason": "asked twice"}).status_code
        == 200
    )
    confirmed = api.post(f"/api/accounting/slips/{voided}/void/confirm", "pit2")
    assert confirmed.status_code == 200, confirmed.text
    assert confirmed.json()["state"] == "voided"
    count(api, "closer", closer)
    reconciled = api.post("/api/accounting/day/reconcile", "pit", json={})
    assert reconciled.status_code == 200, reconciled.text
    day = reconciled.json()
    day["numbers"] = (fill, credit, voided)
    return day


def test_a_simulated_day_balances_to_a_zero_variance(api: Api) -> None:
    day = play_the_day(api, CLOSER)
    fill, credit, _voided = day["numbers"]
    account = day["account"]
    assert account == {
        "opener_cents": 1_110_000,
        "closer_cents": 852_875,
        "fills_cents": 100_000,
        "credits_cents": 200_000,
        "drop_cash_cents": 50_000,
        "drop_markers_cents": 100_000,
        "drop_cents": 150_000,
        "win_cents": -7_125,
        "hold_percent": "-4.75",
        "fill_slips": [fill],
        "credit_slips": [credit],
    }
    rec = day["reconciliation"]
    assert rec["computed_result_cents"] == -7_125
    assert rec["counted_win_cents"] == -7_125
    assert rec["variance_cents"] == 0 and rec["flagged"] is False
    assert rec["rounds"] == ["t1-1", "t1-2", "t1-4"]  # t1-3 was voided: no money
    assert [r["variance_cents"] for r in day["reconciled"]] == [0]
    assert day["reconciled"][0]["alert_seq"] is None
    # the read answers the same for pit and surveillance, and as CSV
    for role in ("pit", "surveillance"):
        read = api.get("/api/accounting/day", role)
        assert read.status_code == 200 and read.json()["account"]["win_cents"] == -7_125
    as_csv = api.get("/api/accounting/day.csv", "surveillance")
    assert as_csv.status_code == 200 and as_csv.headers["content-type"].startswith("text/csv")
    assert "account,win_cents,-7125\r\n" in as_csv.text
    assert "reconciliation,variance_cents,0\r\n" in as_csv.text
    assert [a for a in api.get("/api/alerts").json() if a["alert"] == "accounting-variance"] == []
    # every accounting step is a chained event and the record is whole
    with read_snapshot(api.engine) as session:
        kinds = [k for (k,) in session.execute(select(Event.kind).where(Event.kind.like("%.%")))]
        report = check_record(session, table_id="t1")
    for kind in ("count.entered", "count.signed", "slip.requested", "slip.delivered", "slip.void-asked"):
        assert kind in kinds
    assert {"slip.voided", "drop.entered", "day.reconciled"} <= set(kinds)
    assert report.chain.ok and not report.findings, report


def test_chips_taken_from_the_tray_raise_the_variance_alert(api: Api) -> None:
    day = play_the_day(api, SHORT)
    assert day["account"]["closer_cents"] == 842_875
    assert day["account"]["win_cents"] == -17_125
    assert day["reconciliation"]["variance_cents"] == -10_000
    assert day["reconciliation"]["flagged"] is True
    alert_seq = day["reconciled"][0]["alert_seq"]
    for role in ("pit", "surveillance"):
        alerts = [a for a in api.get("/api/alerts", role).json() if a["alert"] == "accounting-variance"]
        assert [a["seq"] for a in alerts] == [alert_seq]
        assert alerts[0]["data"]["variance_cents"] == -10_000
        assert alerts[0]["data"]["fill_slips"] == [day["numbers"][0]]
        assert alerts[0]["data"]["credit_slips"] == [day["numbers"][1]]
    with read_snapshot(api.engine) as session:
        raised = session.execute(select(Event.payload).where(Event.seq == alert_seq)).scalar_one()
    assert json.loads(raised)["counted_win_cents"] == -17_125


def test_named_lines_explain_money_outside_the_rounds(api: Api) -> None:
    """A $15 side wager the controller does not track, lost by a player (+1,500 to the tray), and
    $5 of tips from the tray (-500): the closer is 852,875 + 1,000 = 853,875, the win -6,125,
    explained by the lines: variance 0."""
    count(api, "opener", OPENER)
    for _ in range(3):
        play_round(api)
    assert (
        api.post("/api/accounting/drop", "pit", json={"kind": "cash", "amount_cents": 150_000}).status_code
        == 201
    )
    slip(api, "fill", {"2500": 40})
    slip(api, "credit", {"10000": 20})
    for name, amount in (("untracked side wager", 1_500), ("tips", -500)):
        made = api.post("/api/accounting/lines", "pit", json={"name": name, "amount_cents": amount})
        assert made.status_code == 201, made.text
    count(api, "closer", {**CLOSER, "100": 38})  # ten $1 chips more: 853,875
    rec = api.get("/api/accounting/day").json()["reconciliation"]
    assert (rec["counted_win_cents"], rec["explained_cents"], rec["variance_cents"]) == (-6_125, 1_000, 0)


def test_a_count_room_file_is_imported_whole_or_refused_whole(api: Api) -> None:
    today = api.get("/api/accounting/day").json()["gaming_day"]
    good = (
        "gaming_day,table_id,shift,kind,amount,reference\n"
        f"{today},t1,,cash,1250.00,box 14\n"
        f"{today},t1,,marker,500.00,M-10231\n"
        f"{today},PG-9,,cash,10.00,box 9\n"
    )
    headers = {**api.headers("pit"), "Content-Type": "text/csv"}
    done = api.client.post("/api/accounting/drop/count-file", content=good, headers=headers)
    assert done.status_code == 201, done.text
    body = done.json()
    assert [(e["amount_cents"], e["file_line"], e["source"]) for e in body["entries"]] == [
        (125_000, 2, "count-file"),
        (50_000, 3, "count-file"),
    ]
    assert body["other_tables"] == 1
    before = rows(api.engine)
    header = "gaming_day,table_id,shift,kind,amount,reference\n"
    bad = f"{header}{today},t1,,cash,12.5,box\n{today},t1,,chips,1.00,x\n"
    refused = api.client.post("/api/accounting/drop/count-file", content=bad, headers=headers)
    assert refused.status_code == 422
    assert {tuple(p["loc"][:2]) for p in refused.json()["errors"]} == {("body", "line 2"), ("body", "line 3")}
    again = api.client.post("/api/accounting/drop/count-file", content=good, headers=headers)
    assert again.status_code == 409 and "M-10231" in again.json()["detail"]  # the marker is in the drop
    assert rows(api.engine) == before


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"kind": "opener", "chips": {"300": 4}, "dealer": "ann"}, 422, "not chips of this casino"),
        ({"kind": "opener", "chips": {"2500": -4}, "dealer": "ann"}, 422, "0 or more"),
        ({"kind": "opener", "chips": {"2500": 4}, "dealer": "bob"}, 422, "two people"),
        ({"kind": "opener", "chips": {"2500": 4}, "dealer": "nobody"}, 404, "no enabled person"),
        ({"kind": "opener", "chips": {"2500": 4}, "dealer": "ann", "shift": "brunch"}, 404, "no shift"),
        ({"kind": "closer", "chips": {"2500": 4}, "dealer": "ann"}, 409, "no signed opener"),
    ],
)
def test_bad_counts_are_refused_and_nothing_is_written(api: Api, body: dict, status: int, words: str) -> None:
    before = rows(api.engine)
    answer = api.post("/api/accounting/counts", "pit", json=body)
    assert answer.status_code == status, answer.text
    assert words in answer.json()["detail"]
    assert rows(api.engine) == before


def test_the_second_signature_is_another_person(api: Api) -> None:
    entered = api.post(
        "/api/accounting/counts", "pit", json={"kind": "opener", "chips": OPENER, "dealer": "ann"}
    )
    count_id = entered.json()["id"]
    own = api.post(f"/api/accounting/counts/{count_id}/sign", "pit")
    assert own.status_code == 403 and own.json()["rule"] == "same-person"
    other = api.post(f"/api/accounting/counts/{count_id}/sign", "pit2")
    assert other.status_code == 403 and other.json()["rule"] == "not-that-person"
    with read_snapshot(api.engine) as session:
        refusals = session.execute(select(Event.actor).where(Event.kind == "two-person.refused")).all()
    assert sorted(actor for (actor,) in refusals) == ["bob", "eve"]  # each refusal chained
    assert api.post(f"/api/accounting/counts/{count_id}/sign", "dealer").status_code == 200
    twice = api.post(f"/api/accounting/counts/{count_id}/sign", "dealer")
    assert twice.status_code == 409
    assert (
        api.post(
            "/api/accounting/counts", "pit", json={"kind": "opener", "chips": OPENER, "dealer": "ann"}
        ).status_code
        == 409
    )


def test_a_slip_is_voided_once_by_two_people(api: Api) -> None:
    number = slip(api, "fill", {"2500": 40}, deliver=False)
    asked = api.post(f"/api/accounting/slips/{number}/void", "pit", json={"reason": "wrong table"})
    assert asked.status_code == 200 and asked.json()["state"] == "requested"
    before = rows(api.engine)
    own = api.post(f"/api/accounting/slips/{number}/void/confirm", "pit")
    assert own.status_code == 403 and own.json()["rule"] == "same-person"
    assert rows(api.engine)["Event"] == before["Event"] + 1  # only the refusal, chained
    assert (
        api.post(f"/api/accounting/slips/{number}/deliver", "dealer", json={"runner": "Rex"}).status_code
        == 409
    )
    assert api.post(f"/api/accounting/slips/{number}/void/confirm", "pit2").status_code == 200
    before = rows(api.engine)
    again = api.post(f"/api/accounting/slips/{number}/void", "pit2", json={"reason": "again"})
    assert again.status_code == 409 and "already voided" in again.json()["detail"]
    assert api.post(f"/api/accounting/slips/{number}/void/confirm", "pit").status_code == 409
    assert (
        api.post(f"/api/accounting/slips/{number}/deliver", "dealer", json={"runner": "Rex"}).status_code
        == 409
    )
    assert rows(api.engine) == before
    shown = api.get(f"/api/accounting/slips/{number}").json()
    assert (shown["state"], shown["void_asked_by"], shown["void_approved_by"]) == ("voided", "bob", "eve")


def test_bad_slips_drop_and_lines_are_refused(api: Api) -> None:
    before = rows(api.engine)
    for path, body, status in (
        ("/api/accounting/slips", {"kind": "fill", "chips": {}}, 422),
        ("/api/accounting/slips", {"kind": "fill", "chips": {"7": 1}}, 422),
        ("/api/accounting/slips", {"kind": "fill", "chips": {"2500": -1}}, 422),
        ("/api/accounting/slips", {"kind": "fill", "chips": {"2500": 1.5}}, 422),
        ("/api/accounting/drop", {"kind": "cash", "amount_cents": -5}, 422),
        ("/api/accounting/drop", {"kind": "marker", "amount_cents": 100}, 422),  # no number
        ("/api/accounting/drop", {"kind": "cash", "amount_cents": 12.5}, 422),
        ("/api/accounting/lines", {"name": "", "amount_cents": 5}, 422),
        ("/api/accounting/day/reconcile", {}, 409),  # no opener, no closer
        ("/api/accounting/slips/999/deliver", {"runner": "Rex"}, 404),
    ):
        answer = api.post(path, "pit", json=body)
        assert answer.status_code == status, (path, body, answer.text)
    number = slip(api, "credit", {"10000": 1}, deliver=False)
    after_slip = rows(api.engine)
    same = api.post(f"/api/accounting/slips/{number}/deliver", "dealer", json={"runner": "ann"})
    assert same.status_code == 422 and "two people" in same.json()["detail"]
    assert rows(api.engine) == after_slip
    assert after_slip["AccountingSlip"] == before["AccountingSlip"] + 1


def test_who_may_enter_and_read(api: Api) -> None:
    assert (
        api.post("/api/accounting/slips", "dealer", json={"kind": "fill", "chips": {"2500": 1}}).status_code
        == 403
    )
    assert (
        api.post(
            "/api/accounting/lines", "surveillance", json={"name": "tips", "amount_cents": 1}
        ).status_code
        == 403
    )
    assert api.get("/api/accounting/day", "dealer").status_code == 403
    assert api.get("/api/accounting/day", "surveillance").status_code == 200
