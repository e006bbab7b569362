"""The side wagers and the progressive through the API (docs/api.md, "Side wagers and the
progressive"): a side wager before the lock and after it, the meters on GET /api/table and
the pool's own endpoint, a held hit paid once by the pit, an adjustment by two pit users."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy.engine import Engine

from table_controller.settings import TableSettings
from table_controller.storage import add_user, unit_of_work

from ..test_progressive_pool import AWARD, HANDS
from ..test_side_wagers_round import play
from .conftest import Api, make_api


@pytest.fixture
def api(engine: Engine) -> Iterator[Api]:
    settings = TableSettings(table_id="t1", fortune={"enabled": True}, progressive={"enabled": True})
    for made in make_api(engine, settings):
        made.service.resume()
        with unit_of_work(engine) as session:
            made.tokens["pit2"] = add_user(session, name="eve", role="pit")
        yield made


def test_side_wagers_lock_at_the_deal_and_a_held_hit_is_paid_once(api: Api):
    wagers = {"wagers": {str(p): {"main": 1000, "progressive": 100} for p in (3, 4, 5)}}
    assert api.post("/api/round", "dealer", json=wagers).status_code == 201
    placed = api.post(
        "/api/round/side-wager", "dealer", json={"position": 3, "fortune": 500, "progressive": 100}
    )
    assert placed.status_code == 200, placed.text
    table = api.get("/api/table").json()
    assert table["progressive"]["levels"]["jackpot"]["meters"]["meter"] == 1_000_000
    play(api.service, HANDS)
    late = api.post("/api/round/side-wager", "dealer", json={"position": 4, "fortune": 500})
    assert late.status_code == 409 and late.json()["error"] == "round-refused"  # the round is closed
    pool = api.get("/api/progressive/t1", "surveillance").json()
    [pending] = pool["pending"]
    assert (pending["hit_id"], pending["amount"], pending["held"]) == (1, AWARD, True)
    paid = api.post("/api/progressive/t1/hits/1/pay", "pit", json={"verified_by": "cy"})
    assert paid.status_code == 200, paid.text
    assert paid.json()["levels"]["jackpot"]["meters"]["paid"] == AWARD and paid.json()["pending"] == []
    again = api.post("/api/progressive/t1/hits/1/pay", "pit", json={"verified_by": "cy"})
    assert again.status_code == 409 and again.json()["error"] == "not-pending"
    assert api.post("/api/progressive/t1/hits/1/pay", "dealer", json={"verified_by": "cy"}).status_code == 403
    assert api.get("/api/progressive/other", "pit").status_code == 404


def test_a_meter_adjustment_needs_a_second_pit_user(api: Api):
    asked = api.post(
        "/api/progressive/t1/adjustments",
        "pit",
        json={"level": "jackpot", "amount": 2500, "reason": "sign-variance", "note": "sign read low"},
    )
    assert asked.status_code == 201, asked.text
    request = asked.json()["request"]
    own = api.post(f"/api/progressive/t1/adjustments/{request}/confirm", "pit")
    assert own.status_code == 403 and own.json()["error"] == "two-person-rule"
    done = api.post(f"/api/progressive/t1/adjustments/{request}/confirm", "pit2")
    assert done.status_code == 200, done.text
    assert done.json()["levels"]["jackpot"]["meters"]["meter"] == 1_002_500
    closed = api.post(f"/api/progressive/t1/adjustments/{request}/confirm", "pit2")
    assert closed.status_code == 409 and closed.json()["error"] == "request-closed"
