"""The progressive pool's displays and its day report through the API (docs/api.md, "Progressive
displays", "Progressive reports"; docs/progressive.md, "The meter page", "The day's
reconciliation").

One round of tests/test_progressive_pool.py: three $1 progressive wagers (positions 3, 4, 5) put
3 x 15 = 45 cents on the jackpot (1_000_045) and 3 x 0.2 cents on its reserve (0 whole cents,
0.6 carried); five aces at position 3 win 10% of the meter, 100_004 cents (100_004.5 rounded
down), held for the pit; the meter reseeds to its reset 1_000_000, 99_959 cents from the house
(the reserve holds none). The pit (bob) pays it, cy verified the cards.

    1_000_000 + 45 - 100_004 + 99_959 + 0 = 1_000_000
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine
from structlog.testing import capture_logs

from table_controller.api.routers import progressive_display
from table_controller.settings import TableSettings
from table_controller.storage.session import unit_of_work

from ..storage.helpers import tamper
from ..test_progressive_pool import AWARD, HANDS, METER_AT_HIT, SEED
from ..test_side_wagers_round import play
from .conftest import Api, make_api, served_api

SETTINGS = TableSettings(table_id="t1", fortune={"enabled": True}, progressive={"enabled": True})
WAGERS = {"wagers": {str(p): {"main": 1000, "progressive": 100} for p in (3, 4, 5)}}


def test_the_figures_of_the_module_docstring():
    assert (METER_AT_HIT, AWARD, SEED) == (1_000_045, 100_004, 99_959)


@pytest.fixture
def api(engine: Engine) -> Iterator[Api]:
    for made in make_api(engine, SETTINGS):
        made.service.resume()
        yield made


def hit_round(api: Api) -> None:
    assert api.post("/api/round", "dealer", json=WAGERS).status_code == 201
    play(api.service, HANDS)


def test_the_display_shows_the_meter_the_pending_hit_and_who_paid(api: Api):
    hit_round(api)
    shown = api.get("/api/progressive/t1/display", "dealer").json()
    [jackpot] = shown["levels"]
    assert (jackpot["meter"], jackpot["reset"], jackpot["limit"], jackpot["locked"]) == (
        1_000_000,
        1_000_000,
        50_000_000,
        AWARD,
    )
    [pending] = shown["pending"]
    assert (pending["hit_id"], pending["amount"], pending["table_id"], pending["position"]) == (
        1,
        AWARD,
        "t1",
        3,
    )
    assert pending["at"] is not None
    [hit] = shown["recent_hits"]  # PRG-25: table, seat, amount, the new amount
    assert (hit["table_id"], hit["position"], hit["amount"], hit["meter_after"], hit["pending"]) == (
        "t1",
        3,
        AWARD,
        1_000_000,
        True,
    )
    assert hit["line"] == "five-aces" and hit["paid_by"] is None
    assert api.post("/api/progressive/t1/hits/1/pay", "pit", json={"verified_by": "cy"}).status_code == 200
    shown = api.get("/api/progressive/t1/display", "surveillance").json()
    [jackpot] = shown["levels"]
    # PRG-13: the cumulative paid meter, and what an attendant paid apart from the system
    assert (jackpot["paid"], jackpot["paid_by_attendant"], jackpot["paid_by_system"], jackpot["locked"]) == (
        AWARD,
        AWARD,
        0,
        0,
    )
    assert shown["pending"] == [] and shown["recent_hits"][0]["paid_by"] == "bob"
    assert api.get("/api/progressive/other/display", "dealer").status_code == 404
    assert api.get("/api/progressive/t1/display", "admin").status_code == 403


def test_the_day_report_reconciles_the_meter_worked_by_hand(api: Api):
    hit_round(api)
    api.post("/api/progressive/t1/hits/1/pay", "pit", json={"verified_by": "cy"})
    answer = api.get("/api/progressive/t1/day", "pit")
    assert answer.status_code == 200, answer.text
    day = answer.json()
    [jackpot] = day["levels"]
    assert (jackpot["start_meter_cents"], jackpot["contributions_cents"], jackpot["hits_cents"]) == (
        1_000_000,
        45,
        AWARD,
    )
    assert (jackpot["seeds_cents"], jackpot["adjustments_cents"], jackpot["end_meter_cents"]) == (
        SEED,
        0,
        1_000_000,
    )
    assert jackpot["computed_end_meter_cents"] == 1_000_000 and jackpot["variance_cents"] == 0
    assert (jackpot["to_reserve_cents"], jackpot["accrued_cents"], jackpot["wagers"]) == (0, 45, 3)
    assert (
        jackpot["paid_by_attendant_cents"],
        jackpot["paid_by_system_cents"],
        jackpot["end_locked_cents"],
    ) == (
        AWARD,
        0,
        0,
    )
    assert day["reconciled"] and day["display_checked"] and day["variances"] == []
    assert day["per_table"] == [
        {
            "table_id": "t1",
            "wagers": 3,
            "wagered_cents": 300,
            "to_meters_cents": 45,
            "to_reserves_cents": 0,
            "to_overflows_cents": 0,
        }
    ]
    [hit] = day["hits"]
    assert (
        hit["position"],
        hit["amount_cents"],
        hit["meter_after_cents"],
        hit["paid_by"],
        hit["verified_by"],
    ) == (
        3,
        AWARD,
        1_000_000,
        "bob",
        "cy",
    )
    csv_text = api.get("/api/progressive/t1/day.csv", "surveillance").text
    assert "level,jackpot,end_meter_cents,1000000\r\n" in csv_text
    assert "hit,1,amount_cents,100004\r\n" in csv_text
    page = api.get("/api/progressive/t1/day.html", "pit")
    assert page.headers["content-security-policy"].startswith("default-src 'none'; style-src 'sha256-")
    assert (
        "$10,000.00" in page.text and "$1,000.04" in page.text and "$999.59" in page.text
    )  # dollars, grouped
    assert "Reconciled: every meter adds up to the cent." in page.text
    pdf = api.get("/api/progressive/t1/day.pdf", "pit")
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF-")
    assert api.get("/api/progressive/t1/day", "dealer").status_code == 403
    assert api.get("/api/progressive/t1/day", "pit", params={"gaming_day": "2000-01-01"}).status_code == 404
    assert api.get("/api/progressive/t1/day", "pit", params={"shift": "brunch"}).status_code == 404
    assert api.get("/api/progressive/t1/day", "pit", params={"gaming_day": "not-a-day"}).status_code == 422
    assert api.get("/api/progressive/t1/day", "pit", params={"gaming_day": "9999-12-31"}).status_code == 422


def test_a_forged_projection_is_flagged_as_a_display_variance(api: Api):
    """PRG-32: the meter the displays show (the projection) against the chain's end."""
    hit_round(api)
    with unit_of_work(api.engine) as session:
        state = json.loads(session.execute(text("SELECT state FROM progressive_pools")).scalar_one())
        state["levels"]["jackpot"]["meters"]["meter"] += 5_000
        session.execute(text("UPDATE progressive_pools SET state = :s"), {"s": json.dumps(state)})
    day = api.get("/api/progressive/t1/day", "pit").json()
    assert not day["reconciled"]
    [variance] = day["variances"]
    assert (variance["source"], variance["level"], variance["field"], variance["variance_cents"]) == (
        "display",
        "jackpot",
        "meter",
        5_000,
    )
    assert "VARIANCE" in api.get("/api/progressive/t1/day.html", "pit").text


def test_the_stream_sends_the_view_now_and_after_each_change(tmp_path):
    """PRG-26: a hit reaches the displays through the stream (a commit wakes the feed at once)."""
    with served_api(tmp_path, settings=SETTINGS) as (_, _base, api):
        api.service.resume()
        frames: list[dict] = []
        got_hit = threading.Event()

        def listen() -> None:
            with api.client.stream(
                "GET", "/api/progressive/t1/stream", headers=api.headers("dealer")
            ) as answer:
                assert answer.headers["content-type"].startswith("text/event-stream")
                for line in answer.iter_lines():
                    if line.startswith("data:"):
                        frames.append(json.loads(line[5:]))
                        if frames[-1]["recent_hits"]:
                            got_hit.set()
                            return

        reader = threading.Thread(target=listen, daemon=True)
        reader.start()
        assert api.post("/api/round", "dealer", json=WAGERS).status_code == 201
        play(api.service, HANDS)
        assert got_hit.wait(20), frames
        reader.join(5)
        assert frames[0]["levels"][0]["meter"] == 1_000_000  # the view at the start
        last = frames[-1]
        assert last["pending"][0]["amount"] == AWARD and last["levels"][0]["meter"] == 1_000_000
        assert [f["seq"] for f in frames] == sorted(
            {f["seq"] for f in frames}
        )  # one frame a change, in order
        once = api.get("/api/progressive/t1/stream", "dealer", params={"follow": "false"})
        [data] = [line for line in once.text.splitlines() if line.startswith("data:")]
        assert json.loads(data[5:])["seq"] == last["seq"]
        assert api.get("/api/progressive/t1/stream", "admin", params={"follow": "false"}).status_code == 403


def test_a_pool_not_loaded_yet_has_no_display(engine: Engine):
    """The pool is read at resume: before it (the store was away at start) the display is 404."""
    for api in make_api(engine, SETTINGS):
        answer = api.get("/api/progressive/t1/display", "dealer")
        assert answer.status_code == 404 and "no meters yet" in answer.json()["detail"]


def test_a_forged_payment_row_is_skipped_by_the_display_and_a_chain_without_its_creation_refused(api: Api):
    hit_round(api)
    api.post("/api/progressive/t1/hits/1/pay", "pit", json={"verified_by": "cy"})
    with capture_logs() as logs:
        tamper(
            api.engine,
            "UPDATE events SET payload = '{\"kind\": \"payment\"}' WHERE table_id = 'progressive.t1'"
            " AND kind = 'progressive.payment'",
        )
        shown = api.get("/api/progressive/t1/display", "dealer")
    assert shown.status_code == 200 and shown.json()["levels"][0]["paid_by_attendant"] == 0
    assert any(entry["event"] == "progressive.display_unreadable" for entry in logs)
    # the day report names the unreadable record as a variance
    day = api.get("/api/progressive/t1/day", "pit").json()
    assert not day["reconciled"] and any(v["detail"].startswith("unreadable") for v in day["variances"])
    tamper(
        api.engine,
        "UPDATE events SET kind = 'progressive.forged' WHERE table_id = 'progressive.t1' AND seq = 1",
    )
    with capture_logs() as logs:
        refused = api.get("/api/progressive/t1/day", "pit")
    assert refused.status_code == 409 and refused.json()["error"] == "progressive-refused"
    assert [entry["event"] for entry in logs if entry["log_level"] == "error"] == [
        "progressive.report_refused"
    ]


def test_no_pdf_without_weasyprint_is_503(api: Api, monkeypatch):
    def missing(*_args, **_kwargs):
        raise OSError("cannot load library 'libpango-1.0-0'")

    monkeypatch.setattr(progressive_display, "progressive_day_pdf", missing)
    hit_round(api)
    answer = api.get("/api/progressive/t1/day.pdf", "pit")
    assert answer.status_code == 503 and answer.json()["error"] == "pdf-unavailable"


class _Hub:
    """A hub whose chain stands at ``head``: enough of EventHub for ``_frames``."""

    def __init__(self) -> None:
        self.head, self.closed, self.poll_interval = 7, False, 0.01

    async def wait(self, seq, timeout):
        self.closed = True  # one round of the loop is enough
        return False


def test_the_stream_keeps_the_display_when_a_read_fails():
    """The store away for a moment: logged, read again after a poll, the frame then sent."""
    reads = []

    async def latest(head):
        reads.append(head)
        if len(reads) == 1:
            raise OSError("database is locked")
        return 7, b"id: 7\ndata: {}\n\n"

    async def valid(_from_store):
        return True

    async def collect():
        return [frame async for frame in progressive_display._frames(_Hub(), latest, True, valid)]

    with capture_logs() as logs:
        frames = asyncio.run(collect())
    assert frames == [b"id: 7\ndata: {}\n\n"] and reads == [7, 7]
    assert [entry["event"] for entry in logs] == ["progressive.display_read_failed"]
