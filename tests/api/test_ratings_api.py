"""Rated players through the API, on both backends (docs/accounting.md, "Ratings"; docs/api.md,
"Ratings").

The rounds are played through the service as the other API tests play them (conftest.play_round):
position 3 wagers $25 and wins both hands, paid $25 less the 5% commission $1.25 (the player
+2,375, the house -2,375); position 5 wagers $10 and pushes (0). House-banked, so a position is
its seat. The table's math is written by hand (tests/test_theoretical_win.py's): each hand loses,
pushes or wins with 3/10, 4/10, 3/10, so the house's expected win is 0.3 x 2,500 - 0.3 x 2,375 =
37.5 on seat 3 and 0.3 x 1,000 - 0.3 x 950 = 15 on seat 5: the round's stored theoretical win is
52.5, half to even 52 cents. A rating gets its seat's share by wagers (largest remainder):
52 x 2,500 / 3,500 = 37.14 -> 37 (remainder 500 / 3,500), 52 x 1,000 / 3,500 = 14.86 -> 14
(remainder 3,000 / 3,500); the cent left goes to the larger remainder, seat 5: 37 and 15.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from sqlalchemy import func, select
from sqlalchemy.engine import Engine

from table_controller.analysis.theoretical import TableMath
from table_controller.record.check import check_record
from table_controller.settings import RatingsSettings, TableSettings
from table_controller.storage import read_snapshot, unit_of_work
from table_controller.storage.models import Event, Round
from table_controller.storage.ratings import (
    RatingAdjustmentRow,
    RatingBuyInRow,
    RatingOutboxRow,
    RatingRow,
)
from table_controller.table import ratings as table_ratings
from table_controller.table.rating_push import push_due

from .conftest import Api, make_api, play_round

THIRDS = (Fraction(3, 10), Fraction(4, 10), Fraction(3, 10), Fraction(0))  # lose, push, win, premium


def _math(settings: TableSettings) -> TableMath:
    joint = tuple(tuple(a * b for b in THIRDS) for a in THIRDS)
    return TableMath(settings.table_rules(), joint, None, None, "by-hand", 0, 0, {})


def _api(engine: Engine, **ratings: object) -> Iterator[Api]:
    settings = TableSettings(table_id="t1", ratings=ratings)
    for made in make_api(engine, settings):
        made.service.set_table_math(_math(settings))
        yield made


@pytest.fixture
def api(engine: Engine) -> Iterator[Api]:
    yield from _api(engine)


@pytest.fixture
def idle_api(engine: Engine) -> Iterator[Api]:
    yield from _api(engine, idle_rounds=2, idle_minutes=30)


def rows(engine: Engine) -> dict[str, int]:
    with read_snapshot(engine) as session:
        return {
            model.__name__: session.execute(select(func.count()).select_from(model)).scalar_one()
            for model in (Event, RatingRow, RatingBuyInRow, RatingAdjustmentRow, RatingOutboxRow)
        }


def seat(api: Api, seat_no: int, player: str, role: str = "dealer") -> dict:
    sat = api.post(f"/api/ratings/seats/{seat_no}", role, json={"player": player})
    assert sat.status_code == 201, sat.text
    return sat.json()


def events(engine: Engine, kind: str) -> list[dict]:
    with read_snapshot(engine) as session:
        found = session.execute(select(Event.payload).where(Event.kind == kind).order_by(Event.seq))
        return [json.loads(p) for (p,) in found]


def test_a_player_rated_over_several_rounds(api: Api) -> None:
    p300 = seat(api, 3, "P-300")
    p500 = seat(api, 5, "P-500", role="pit")
    bought = api.post("/api/ratings/buy-ins", "pit", json={"seat": 3, "kind": "cash", "amount_cents": 50_000})
    assert bought.status_code == 201, bought.text
    assert bought.json()["buy_in"]["rating_id"] == p300["rating_id"]
    marker = {"seat": 5, "kind": "marker", "amount_cents": 20_000}
    assert api.post("/api/ratings/buy-ins", "pit", json=marker).status_code == 201
    for how in ("settle", "settle", "void", "settle"):
        play_round(api, how=how)
    with read_snapshot(api.engine) as session:
        stored = session.execute(select(Round.theoretical_win_cents).where(Round.phase == "closed")).all()
    assert [t for (t,) in stored] == [52, 52, 52]  # 52.5 half to even, worked out above
    # the live table shows who is rated at each seat, to every terminal of the table, with the
    # figures of the rounds settled so far
    live = api.get("/api/ratings/seated", "dealer").json()
    assert [(r["seat"], r["player"], r["rounds"]) for r in live] == [(3, "P-300", 3), (5, "P-500", 3)]
    ended = api.post("/api/ratings/end", "dealer", json={"rating_id": p300["rating_id"]})
    assert ended.status_code == 200, ended.text
    got = ended.json()
    # 3 settled rounds (t1-3 voided: no money), $25 each: 7,500 wagered, average 2,500; the player
    # won 2,375 a round: the house's actual win -7,125; theoretical 3 x 37 = 111
    assert {k: got[k] for k in ("rounds", "main_wagered_cents", "average_wager_cents")} == {
        "rounds": 3,
        "main_wagered_cents": 7_500,
        "average_wager_cents": 2_500,
    }
    assert (got["actual_win_cents"], got["theoretical_win_cents"], got["theoretical_rounds"]) == (
        -7_125,
        111,
        3,
    )
    assert (got["buy_in_cash_cents"], got["end_reason"], got["seated"]) == (50_000, "left", False)
    assert got["round_ids"] == ["t1-1", "t1-2", "t1-4"]
    assert got["seconds_played"] is not None and got["seconds_played"] >= 0
    # P-500: 3 x $10 pushed: 3,000 wagered, average 1,000, actual 0, theoretical 3 x 15 = 45
    day = api.get("/api/ratings", "surveillance").json()
    open_500 = next(r for r in day["ratings"] if r["rating_id"] == p500["rating_id"])
    assert open_500["end"] is None
    left = api.post("/api/ratings/seats/5/leave", "pit").json()
    assert (left["rounds"], left["main_wagered_cents"], left["average_wager_cents"]) == (3, 3_000, 1_000)
    assert (left["actual_win_cents"], left["theoretical_win_cents"], left["buy_in_markers_cents"]) == (
        0,
        45,
        20_000,
    )
    # chained with every figure; both closed ratings in the outbox; the record whole
    [first, second] = events(api.engine, "rating.ended")
    assert (first["actual_win_cents"], first["theoretical_win_cents"], first["end_reason"]) == (
        -7_125,
        111,
        "left",
    )
    assert second["rating_id"] == p500["rating_id"]
    with read_snapshot(api.engine) as session:
        keys = session.execute(select(RatingOutboxRow.idempotency_key).order_by(RatingOutboxRow.id)).all()
        report = check_record(session, table_id="t1")
    assert [k for (k,) in keys] == [f"{p300['rating_id']}#0", f"{p500['rating_id']}#0"]
    assert report.chain.ok and not report.findings, report
    # the export: JSON above, CSV one rating a line
    as_csv = api.get("/api/ratings/day.csv", "pit")
    assert as_csv.status_code == 200 and as_csv.headers["content-type"].startswith("text/csv")
    lines = as_csv.text.strip().split("\r\n")
    assert len(lines) == 3 and lines[0].startswith("rating_id,table_id,gaming_day,player,seat")
    assert ",P-300,3," in lines[1] and ",-7125,111,3,50000,0,0,0,0,0" in lines[1]
    # one player's history
    history = api.get("/api/ratings/players/P-300", "surveillance").json()
    assert [r["rating_id"] for r in history] == [p300["rating_id"]]


def test_a_seat_change_ends_the_rating_and_starts_another(api: Api) -> None:
    p300 = seat(api, 3, "P-300")
    play_round(api)
    moved = api.post("/api/ratings/move", "dealer", json={"rating_id": p300["rating_id"], "seat": 4})
    assert moved.status_code == 200, moved.text
    ended, started = moved.json()["ended"], moved.json()["started"]
    assert (ended["end_reason"], ended["rounds"], ended["actual_win_cents"]) == ("seat-change", 1, -2_375)
    assert (started["seat"], started["player"], started["end"], started["seated"]) == (4, "P-300", None, True)
    assert started["start"] == ended["end"]
    play_round(api)  # seat 3's wager is now nobody's: unrated; seat 4 played nothing
    live = api.get("/api/ratings/seated", "pit").json()
    assert [(r["seat"], r["rounds"]) for r in live] == [(4, 0)]
    assert [e["how"] for e in events(api.engine, "rating.started")] == ["sat", "moved"]


def test_idle_rounds_end_a_rating_and_the_next_activity_starts_another(idle_api: Api) -> None:
    api = idle_api
    seat(api, 5, "P-500")
    p600 = seat(api, 6, "P-600")  # seat 6 never wagers
    play_round(api)
    play_round(api)
    desk = table_ratings.RatingDesk.of(TableSettings(table_id="t1", ratings={"idle_rounds": 2}))
    ended = table_ratings.sweep(api.engine, desk)
    # seat 6 sat out two settled rounds: its rating ends idle at its last activity, its start
    assert [(r.rating_id, r.end, r.rounds) for r in ended] == [(p600["rating_id"], ended[0].start, 0)]
    after = api.get("/api/ratings/rating", "pit", params={"rating_id": p600["rating_id"]}).json()
    assert (after["end_reason"], after["end"], after["seated"]) == ("idle", p600["start"], True)
    assert table_ratings.sweep(api.engine, desk) == []  # swept again: nothing more
    # the idle player, still seated, buys in: a new rating from then
    bought = api.post(
        "/api/ratings/buy-ins", "pit", json={"seat": 6, "kind": "chips", "amount_cents": 10_000}
    )
    assert bought.status_code == 201, bought.text
    resumed = bought.json()["rating"]
    assert resumed["rating_id"] != p600["rating_id"] and resumed["buy_in_chips_cents"] == 10_000
    assert events(api.engine, "rating.started")[-1]["how"] == "resumed"
    # idle by time: 30 minutes after seat 5's last round, swept later, it ends at that round
    later = datetime.now(UTC) + timedelta(hours=1)
    ended = table_ratings.sweep(api.engine, desk, now=later)
    by_seat = {r.seat: r for r in ended}
    assert by_seat[5].rounds == 2 and by_seat[5].end_reason.value == "idle"
    assert by_seat[5].end < later - timedelta(minutes=30)


def test_an_adjustment_is_chained_with_both_values(api: Api) -> None:
    p300 = seat(api, 3, "P-300")
    play_round(api)
    open_adjust = {"rating_id": p300["rating_id"], "field": "actual_win", "new_value": 0, "reason": "x"}
    before = rows(api.engine)
    refused = api.post("/api/ratings/adjust", "pit", json=open_adjust)
    assert refused.status_code == 422 and "still open" in refused.json()["detail"]
    assert rows(api.engine) == before
    api.post("/api/ratings/end", "dealer", json={"rating_id": p300["rating_id"]})
    body = {
        **open_adjust,
        "new_value": -2_000,
        "reason": "dealer paid a wrong commission",
        "expected_old": -2_375,
    }
    assert api.post("/api/ratings/adjust", "dealer", json=body).status_code == 403  # the pit's
    done = api.post("/api/ratings/adjust", "pit", json=body)
    assert done.status_code == 200, done.text
    got = done.json()
    assert got["actual_win_cents"] == -2_375 and got["shown"]["actual_win"] == -2_000
    assert [(a["field"], a["old_value"], a["new_value"], a["actor"]) for a in got["adjustments"]] == [
        ("actual_win", -2_375, -2_000, "bob")
    ]
    [chained] = events(api.engine, "rating.adjusted")
    assert chained == {
        "rating_id": p300["rating_id"],
        "field": "actual_win",
        "old_value": -2_375,
        "new_value": -2_000,
        "reason": "dealer paid a wrong commission",
    }
    stale = api.post("/api/ratings/adjust", "pit", json={**body, "new_value": 1})  # saw -2,375: now -2,000
    assert stale.status_code == 422
    with read_snapshot(api.engine) as session:
        keys = [
            k
            for (k,) in session.execute(select(RatingOutboxRow.idempotency_key).order_by(RatingOutboxRow.id))
        ]
    assert keys == [f"{p300['rating_id']}#0", f"{p300['rating_id']}#1"]


class _Receiver(BaseHTTPRequestHandler):
    """A player-tracking system on a loopback port: fails the first request, then keeps each
    rating once by its idempotency key."""

    def do_POST(self) -> None:
        server = self.server
        body = self.rfile.read(int(self.headers["Content-Length"]))
        key = self.headers["Idempotency-Key"]
        server.seen.append(key)  # type: ignore[attr-defined]
        if len(server.seen) == 1:  # type: ignore[attr-defined]
            self.send_response(500)
        else:
            server.kept.setdefault(key, json.loads(body))  # type: ignore[attr-defined]
            self.send_response(201)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def receiver() -> Iterator[ThreadingHTTPServer]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Receiver)
    server.seen, server.kept = [], {}  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_a_closed_rating_is_pushed_once_even_when_the_receiver_fails_first(
    api: Api, receiver: ThreadingHTTPServer
) -> None:
    p300 = seat(api, 3, "P-300")
    play_round(api)
    api.post("/api/ratings/end", "dealer", json={"rating_id": p300["rating_id"]})
    settings = RatingsSettings(
        push_url=f"http://127.0.0.1:{receiver.server_port}/ratings", push_retry_seconds=30
    )
    t0 = datetime.now(UTC)
    assert push_due(api.engine, settings, now=t0) == (0, 1)  # the receiver answers 500: kept
    outbox = api.get("/api/ratings/outbox", "pit").json()
    assert [(o["attempts"], o["delivered_at"], o["last_error"]) for o in outbox] == [(1, None, "HTTP 500")]
    assert push_due(api.engine, settings, now=t0 + timedelta(seconds=29)) == (0, 0)  # not due yet
    assert push_due(api.engine, settings, now=t0 + timedelta(seconds=31)) == (1, 0)
    assert push_due(api.engine, settings, now=t0 + timedelta(hours=1)) == (0, 0)  # delivered: never again
    key = f"{p300['rating_id']}#0"
    assert receiver.seen == [key, key]  # type: ignore[attr-defined]
    kept = receiver.kept[key]  # type: ignore[attr-defined]
    assert (kept["rating_id"], kept["actual_win_cents"], kept["rounds"]) == (p300["rating_id"], -2_375, 1)
    assert api.get("/api/ratings/outbox", "pit").json()[0]["delivered_at"] is not None


def test_bad_input_is_refused_with_nothing_written(api: Api) -> None:
    p300 = seat(api, 3, "P-300")
    before = rows(api.engine)
    refusals = [
        (api.post("/api/ratings/seats/8", "dealer", json={"player": "P-1"}), 422),  # no seat 8
        (api.post("/api/ratings/seats/1", "dealer", json={"player": "P-1"}), 422),  # the dealer's
        (api.post("/api/ratings/seats/4", "dealer", json={"player": "P 1"}), 422),  # not a card number
        (api.post("/api/ratings/seats/4", "dealer", json={"player": "P-300"}), 409),  # seated at 3
        (api.post("/api/ratings/seats/3", "dealer", json={"player": "P-400"}), 409),  # seat 3 held
        (api.post("/api/ratings/seats/4", "surveillance", json={"player": "P-400"}), 403),
        (api.post("/api/ratings/buy-ins", "pit", json={"seat": 6, "kind": "cash", "amount_cents": 100}), 404),
        (
            api.post("/api/ratings/buy-ins", "dealer", json={"seat": 3, "kind": "cash", "amount_cents": 100}),
            403,
        ),
        (api.post("/api/ratings/buy-ins", "pit", json={"seat": 3, "kind": "cash", "amount_cents": 0}), 422),
        (api.post("/api/ratings/end", "dealer", json={"rating_id": "t1/seat-9/x"}), 404),
        (api.post("/api/ratings/seats/6/leave", "dealer"), 404),
        (api.post("/api/ratings/move", "dealer", json={"rating_id": p300["rating_id"], "seat": 3}), 409),
    ]
    assert [(r.status_code, want) for r, want in refusals] == [(want, want) for _, want in refusals]
    assert refusals[3][0].json()["error"] == "rating-refused"
    assert "seat 3" in refusals[3][0].json()["detail"]
    assert rows(api.engine) == before
    assert api.post("/api/ratings/end", "dealer", json={"rating_id": p300["rating_id"]}).status_code == 200
    after_end = rows(api.engine)
    twice = api.post("/api/ratings/end", "pit", json={"rating_id": p300["rating_id"]})
    assert twice.status_code == 409 and "ended already" in twice.json()["detail"]
    assert rows(api.engine) == after_end
    with unit_of_work(api.engine) as session:  # the refusals left the chain whole
        assert check_record(session, table_id="t1").chain.ok


def test_closing_the_table_ends_its_ratings(api: Api) -> None:
    p300 = seat(api, 3, "P-300")
    play_round(api)
    assert api.post("/api/table/close", "pit").status_code == 200
    [closed] = events(api.engine, "table.closed")
    ended = table_ratings.sweep(api.engine, table_ratings.RatingDesk.of(TableSettings(table_id="t1")))
    assert [(r.rating_id, r.end_reason.value, r.rounds) for r in ended] == [
        (p300["rating_id"], "table-closed", 1)
    ]
    got = api.get("/api/ratings/rating", "pit", params={"rating_id": p300["rating_id"]}).json()
    assert got["seated"] is False and got["end"] is not None
    assert api.get("/api/ratings/seated", "dealer").json() == []
    assert closed == {}  # the service's own event, read by the fold by its kind and time
