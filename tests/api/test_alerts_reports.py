"""Alerts raised and acknowledged; shift and day reports as JSON and CSV (docs/api.md)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

from table_controller.storage import list_events
from table_controller.storage.session import read_snapshot


def test_alerts_are_raised_live_and_acknowledged_by_the_pit_with_a_note(four_rounds):
    api = four_rounds
    alerts = api.get("/api/alerts", "surveillance").json()
    assert [(a["alert"], a["round_id"], a["actor"]) for a in alerts] == [
        ("void", "t1-2", "bob"),
        ("misdeal", "t1-3", "system"),
        ("house-way-deviation", "t1-4", "ann"),
        ("override", "t1-4", "bob"),
    ]
    deviation = alerts[2]
    assert deviation["data"]["rule"] == "high-card.second-and-fourth"
    assert deviation["data"]["required"] == {"high": ["Ac", "9h", "5c", "3d", "2h"], "low": ["Qd", "7s"]}
    misdeal = alerts[1]["seq"]
    assert api.post(f"/api/alerts/{misdeal}/acknowledge", "dealer", json={"note": "seen"}).status_code == 403
    assert (
        api.post(f"/api/alerts/{misdeal}/acknowledge", "surveillance", json={"note": "seen"}).status_code
        == 403
    )
    assert api.post(f"/api/alerts/{misdeal}/acknowledge", "pit", json={"note": "   "}).status_code == 422
    acked = api.post(f"/api/alerts/{misdeal}/acknowledge", "pit", json={"note": "shuffler re-checked"})
    assert acked.status_code == 200
    assert {k: acked.json()[k] for k in ("seq", "alert", "acknowledged_by", "note")} == {
        "seq": misdeal,
        "alert": "misdeal",
        "acknowledged_by": "bob",
        "note": "shuffler re-checked",
    }
    twice = api.post(f"/api/alerts/{misdeal}/acknowledge", "pit", json={"note": "again"})
    assert twice.status_code == 409 and twice.json()["error"] == "already-acknowledged"
    assert (
        api.post("/api/alerts/1/acknowledge", "pit", json={"note": "x"}).status_code == 404
    )  # seq 1: round.opened
    assert api.post("/api/alerts/9999/acknowledge", "pit", json={"note": "x"}).status_code == 404
    open_now = [a["alert"] for a in api.get("/api/alerts", params={"open": "true"}).json()]
    assert open_now == ["void", "house-way-deviation", "override"]
    assert [a["alert"] for a in api.get("/api/table", "dealer").json()["open_alerts"]] == open_now
    with read_snapshot(api.engine) as session:
        last = list_events(session, table_id="t1")[-1]
    assert (last.kind, last.actor, last.round_id) == ("alert.acknowledged", "bob", "t1-3")
    assert json.loads(last.payload) == {
        "alert": "misdeal",
        "alert_seq": misdeal,
        "note": "shuffler re-checked",
    }


def test_a_device_fault_shows_in_device_health_and_as_an_alert(api):
    api.service.device_fault("shuffler", "door-open", "front door")
    state = api.get("/api/table", "dealer").json()
    never = {
        "link": "never",
        "link_since": None,
        "link_reason": None,
        "last_seen": None,
        "silent_for_ms": None,
        "identity": None,
    }  # no device conductor here (test_device_health.py)
    assert state["devices"] == [
        {
            "device": "shuffler",
            "status": "fault",
            "faults": [{"kind": "door-open", "detail": "front door"}],
            **never,
        },
        {"device": "dice-shaker", "status": "ok", "faults": [], **never},
    ]
    assert [(a["alert"], a["detail"]) for a in state["open_alerts"]] == [
        ("device-fault", "shuffler: door-open front door")
    ]


EXPECTED_TOTAL = {
    # t1-1 and t1-4 settled: $25 and $10 wagered each; position 3 wins both ($25 less $1.25, 002),
    # position 5 pushes both; t1-2 (void) and t1-3 (misdeal) return their wagers.
    "scope": "total",
    "game": None,
    "position": None,
    "rounds": 4,
    "settled": 2,
    "voided": 2,
    "in_progress": 0,
    "wins": 2,
    "pushes": 2,
    "losses": 0,
    "wagered_cents": 7000,
    "bonus_wagered_cents": 0,
    "commission_cents": 250,
    "bonuses_paid_cents": 0,
    "house_result_cents": -4750,
    # hold: -4750 / 7000 = -67.857...% -> "-67.86"; no round carries a theoretical win: missing, not 0
    "dealer": None,
    "hold_percent": "-67.86",
    "theoretical_rounds": 0,
    "theoretical_win_cents": None,
    "theoretical_variance": None,
    "theoretical_hold_percent": None,
    "band_actual_cents": None,
    "band_low_cents": None,
    "band_high_cents": None,
    "outside_band": None,
}


def test_shift_report_per_game_and_per_position(four_rounds):
    api = four_rounds
    rounds = api.get("/api/rounds", params={"order": "oldest"}).json()["rounds"]
    start = datetime.fromisoformat(rounds[0]["opened_at"]) - timedelta(minutes=1)
    end = datetime.fromisoformat(rounds[-1]["opened_at"]) + timedelta(minutes=1)
    params = {"start": start.isoformat(), "end": end.isoformat()}
    found = api.get("/api/reports/shift", "surveillance", params=params)
    assert found.status_code == 200, found.text
    report = found.json()
    assert report["total"] == EXPECTED_TOTAL
    assert report["per_game"] == [{**EXPECTED_TOTAL, "scope": "game", "game": "standard"}]
    assert [
        (
            p["position"],
            p["rounds"],
            p["wins"],
            p["pushes"],
            p["wagered_cents"],
            p["commission_cents"],
            p["house_result_cents"],
            p["hold_percent"],
        )
        for p in report["per_position"]
    ] == [
        (3, 2, 2, 0, 5000, 250, -4750, "-95.00"),
        (5, 2, 0, 2, 2000, 0, 0, "0.00"),
    ]
    # ann dealt t1-1, t1-2 (void) and t1-4; bob t1-3 (misdeal)
    assert [
        (
            d["dealer"],
            d["rounds"],
            d["settled"],
            d["house_result_cents"],
            d["hold_percent"],
            d["theoretical_win_cents"],
        )
        for d in report["per_dealer"]
    ] == [
        ("ann", 3, 2, -4750, "-67.86", None),
        ("bob", 1, 0, 0, None, None),
    ]
    csv_answer = api.get("/api/reports/shift.csv", params=params)
    assert csv_answer.headers["content-type"].startswith("text/csv")
    lines = csv_answer.text.splitlines()
    width = 31  # the rounds' columns and the checkpoint's; the accounting's follow (below)
    assert [",".join(line.split(",")[:width]) for line in lines if not line.startswith("accounting-")] == [
        "scope,game,position,rounds,settled,voided,in_progress,wins,pushes,losses,wagered_cents,"
        "bonus_wagered_cents,commission_cents,bonuses_paid_cents,house_result_cents,dealer,hold_percent,"
        "theoretical_rounds,theoretical_win_cents,theoretical_variance,theoretical_hold_percent,"
        "band_actual_cents,band_low_cents,band_high_cents,outside_band,"
        "checkpoint_seq,checkpoint_hash,checkpoint_at,checkpoint_reason,checkpoint_signature,"
        "checkpoint_in_period",
        "total,,,4,2,2,0,2,2,0,7000,0,250,0,-4750,,-67.86,0,,,,,,,,,,,,,",
        "game,standard,,4,2,2,0,2,2,0,7000,0,250,0,-4750,,-67.86,0,,,,,,,,,,,,,",
        "position,,3,2,2,0,0,2,0,0,5000,0,250,0,-4750,,-95.00,,,,,,,,,,,,,,",
        "position,,5,2,2,0,0,0,2,0,2000,0,0,0,0,,0.00,,,,,,,,,,,,,,",
        "dealer,,,3,2,1,0,2,2,0,7000,0,250,0,-4750,ann,-67.86,0,,,,,,,,,,,,,",
        "dealer,,,1,0,1,0,0,0,0,0,0,0,0,0,bob,,0,,,,,,,,,,,,,",
    ]
    # the calendar shift's accounting: no count entered, so no win; the rounds' computed result
    assert [line.split(",")[0] for line in lines if line.startswith("accounting-")] == [
        "accounting-table",
        "accounting-total",
    ]
    later = {"start": end.isoformat(), "end": (end + timedelta(hours=8)).isoformat()}
    assert api.get("/api/reports/shift", params=later).json()["total"]["rounds"] == 0


def test_day_report_runs_midnight_to_midnight_in_the_zone(four_rounds):
    api = four_rounds
    opened = datetime.fromisoformat(api.get("/api/rounds").json()["rounds"][0]["opened_at"])
    day = api.get("/api/reports/day", params={"date": opened.date().isoformat(), "tz": "UTC"}).json()
    assert day["start"].startswith(opened.date().isoformat()) and day["total"]["settled"] == 2
    assert api.get("/api/reports/day", params={"date": "2000-01-01"}).json()["total"]["rounds"] == 0
    total = api.get("/api/reports/day.csv", params={"date": "2000-01-01"}).text.splitlines()[1]
    assert ",".join(total.split(",")[:31]) == "total,,,0,0,0,0,0,0,0,0,0,0,0,0,,,0,,,,,,,,,,,,,"


def test_the_calendars_ends_are_reports_too(api):
    # a day at the end of the calendar, a zone far from UTC: clamped, never a 500; a gaming day
    # with no next day to end on has no accounting (null), the rounds' report still answers
    last = api.get("/api/reports/day", params={"date": "9999-12-31", "tz": "Pacific/Kiritimati"})
    assert last.status_code == 200 and last.json()["accounting"] is None
    assert (
        api.get("/api/reports/day", params={"date": "0001-01-01", "tz": "Pacific/Kiritimati"}).status_code
        == 200
    )
    far = {"start": "0001-01-01T00:00:00+14:00", "end": "9999-12-31T23:59:59-12:00"}
    assert api.get("/api/reports/shift", params=far).json()["total"]["rounds"] == 0


def test_bad_report_queries_are_422(api):
    for path, params, reason in [
        ("/api/reports/day", {"date": "2024-13-01"}, "query.date"),
        ("/api/reports/day", {"date": "2024-05-01", "tz": "Mars/Olympus"}, "query.tz"),
        ("/api/reports/day", {"date": "2024-05-01", "tz": "../../etc/passwd"}, "query.tz"),
        (
            "/api/reports/shift",
            {"start": "2024-05-01T00:00:00", "end": "2024-05-01T08:00:00Z"},
            "start needs a time zone",
        ),
        (
            "/api/reports/shift",
            {"start": "2024-05-01T08:00:00Z", "end": "2024-05-01T00:00:00Z"},
            "end must be after start",
        ),
    ]:
        answer = api.get(path, params=params)
        assert answer.status_code == 422, (params, answer.text)
        assert reason in answer.json()["detail"], (reason, answer.json())


def test_raw_device_events_are_for_surveillance(api):
    api.service.journal("shuffler", "card-read", {"frame": "02a1ff", "card": "As"})
    api.service.journal("dice-shaker", "roll", {"frame": "0311"})
    assert api.get("/api/devices/events", "pit").status_code == 403
    page = api.get("/api/devices/events", "surveillance").json()
    assert [(e["kind"], e["actor"], e["payload"]) for e in page["events"]] == [
        ("device.shuffler.card-read", "device:shuffler", {"card": "As", "frame": "02a1ff"}),
        ("device.dice-shaker.roll", "device:dice-shaker", {"frame": "0311"}),
    ]
    assert page["next_after"] is None
    only = api.get("/api/devices/events", "surveillance", params={"device": "dice-shaker"}).json()["events"]
    assert [e["kind"] for e in only] == ["device.dice-shaker.roll"]
    first = api.get("/api/devices/events", "surveillance", params={"limit": 1}).json()
    assert first["next_after"] == 1 and len(first["events"]) == 1


def test_an_unknown_time_zone_is_refused_in_one_short_sentence(api):
    """A wrong ``tz`` is named with an example of a right one, not answered with the whole tz
    database (the zones were an enum: 22 KB of names)."""
    answer = api.get("/api/reports/day", params={"date": "2024-05-01", "tz": "Mars/Olympus"})
    assert answer.status_code == 422
    assert "unknown time zone 'Mars/Olympus'" in answer.text
    assert "America/Los_Angeles" in answer.text
    assert len(answer.content) < 1000, len(answer.content)
