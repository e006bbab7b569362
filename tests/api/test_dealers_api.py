"""The dealers on the box and the limits changed on the fly through the API, on both backends
(docs/api.md, "Dealers and limits"; docs/dealers.md). People: ann (dealer), bob (pit), cy
(surveillance), dee (admin); conftest.play_round plays one settled round."""

from __future__ import annotations

from sqlalchemy import select

from table_controller.storage import read_snapshot
from table_controller.storage.models import Event, Round

from .conftest import WAGERS, Api, deal_round, play_round

LIMITS = {"min_main_cents": 1_000, "max_main_cents": 50_000, "max_bonus_cents": 0}


def kinds(api: Api, prefix: str) -> list[str]:
    with read_snapshot(api.engine) as session:
        return [k for (k,) in session.execute(select(Event.kind).order_by(Event.seq)) if k.startswith(prefix)]


def test_a_dealer_signs_in_the_pit_pushes_the_next_and_rounds_record_them(api):
    first = api.post("/api/dealers/sign-in", "dealer", json={})
    assert first.status_code == 201, first.text
    assert first.json()["signed_in"]["dealer"] == "ann" and first.json()["relieved"] is None
    round_id = play_round(api, "pit")  # opened by bob: dealt by ann, on the box
    pushed = api.post("/api/dealers/sign-in", "pit", json={"dealer": "dee"})
    assert pushed.status_code == 201, pushed.text
    relieved = pushed.json()["relieved"]
    assert (relieved["dealer"], relieved["end_reason"], relieved["ended_by"]) == ("ann", "relieved", "bob")
    with read_snapshot(api.engine) as session:
        assert session.get(Round, round_id).dealer == "ann"
    table = api.get("/api/table", "dealer").json()
    assert (
        table["dealer"]["dealer"] == "dee" and table["dealer"]["since"] == pushed.json()["signed_in"]["start"]
    )
    day = api.get("/api/dealers", "surveillance").json()
    assert day["on_box"]["dealer"] == "dee" and [s["dealer"] for s in day["stints"]] == ["ann", "dee"]
    ann = next(p for p in day["dealers"] if p["dealer"] == "ann")
    assert ann["hands"] == 1 and day["table"]["hands"] == 1
    out = api.post("/api/dealers/sign-out", "pit")
    assert out.status_code == 200 and out.json()["end_reason"] == "signed-out"
    assert api.get("/api/table", "dealer").json()["dealer"]["dealer"] is None
    assert kinds(api, "dealer.signed") == ["dealer.signed-in", "dealer.signed-in", "dealer.signed-out"]


def test_the_refusals_of_the_boxes(api):
    named = api.post("/api/dealers/sign-in", "dealer", json={"dealer": "bob"})
    assert named.status_code == 403 and "signs in only themselves" in named.json()["detail"]
    missing = api.post("/api/dealers/sign-in", "pit", json={"dealer": "zed"})
    assert missing.status_code == 404 and missing.json()["error"] == "not-found"
    bad = api.post("/api/dealers/sign-in", "pit", json={"dealer": "a\nb"})
    assert bad.status_code == 422
    nobody = api.post("/api/dealers/sign-out", "dealer")
    assert nobody.status_code == 409 and nobody.json()["error"] == "dealer-refused"
    assert api.post("/api/dealers/sign-in", "dealer", json={}).status_code == 201
    twice = api.post("/api/dealers/sign-in", "dealer", json={})
    assert twice.status_code == 409 and "ann is on this table's box" in twice.json()["detail"]
    assert kinds(api, "dealer.signed") == ["dealer.signed-in"]
    extra = api.post("/api/dealers/sign-in", "pit", json={"dealer": "ann", "table": "t2"})
    assert extra.status_code == 422


def test_the_pit_changes_the_limits_and_the_next_round_is_held_to_them(api):
    changed = api.post("/api/table/limits", "pit", json=LIMITS)
    assert changed.status_code == 200, changed.text
    limits = changed.json()["limits"]
    assert (limits["min_main_cents"], limits["max_main_cents"], limits["max_bonus_cents"]) == (
        1_000,
        50_000,
        0,
    )
    assert limits["approved"]["min_main_cents"] == 500 and limits["round"] is None
    below = api.post("/api/round", "dealer", json={"wagers": {"3": {"main": 500}}})
    assert below.status_code == 422 and below.json()["error"] == "outside-limits"
    assert "outside the table limits 1000..50000" in below.json()["detail"]
    rules = api.get("/api/table/rules", "dealer").json()["limits"]
    assert rules == {"min_main_cents": 1_000, "max_main_cents": 50_000, "max_bonus_cents": 0}
    (change,) = [e for e in kinds(api, "table.limits")]
    assert change == "table.limits-changed"


def test_the_limits_refusals(api):
    past = api.post("/api/table/limits", "pit", json={**LIMITS, "max_main_cents": 200_000})
    assert past.status_code == 422 and past.json()["errors"][0]["loc"] == ["body", "max_main_cents"]
    schema = api.client.get("/openapi.json").json()["components"]["schemas"]["LimitsCreate"]["properties"]
    assert (schema["min_main_cents"]["minimum"], schema["max_main_cents"]["maximum"]) == (500, 100_000)
    assert schema["max_bonus_cents"]["maximum"] == 2_500  # the approved limits, in the schema
    same = api.post(
        "/api/table/limits",
        "pit",
        json={**LIMITS, "min_main_cents": 500, "max_main_cents": 100_000, "max_bonus_cents": 2_500},
    )
    assert same.status_code == 422 and same.json()["error"] == "invalid-limits"
    backwards = api.post("/api/table/limits", "pit", json={**LIMITS, "min_main_cents": 60_000})
    assert backwards.status_code == 422 and "is above max_main_cents" in backwards.json()["detail"]
    fraction = api.post("/api/table/limits", "pit", json={**LIMITS, "min_main_cents": 1000.5})
    assert fraction.status_code == 422 and fraction.json()["error"] == "invalid-request"
    fortune = api.post("/api/table/limits", "pit", json={**LIMITS, "max_fortune_cents": 100})
    assert fortune.status_code == 422 and "offers no Fortune Bonus" in fortune.json()["detail"]
    assert api.post("/api/table/limits", "dealer", json=LIMITS).status_code == 403
    assert api.post("/api/round", "dealer", json=WAGERS).status_code == 201
    deal_round(api)  # the dice rolled: the wagers are locked
    locked = api.post("/api/table/limits", "pit", json=LIMITS)
    assert locked.status_code == 409 and locked.json()["error"] == "limits-refused"
    assert kinds(api, "table.limits") == []
