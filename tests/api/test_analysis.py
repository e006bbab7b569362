"""The table's math through the API (docs/math.md): par sheet and house edge as the CLI prints
them, computed once per configuration; today's band with nulls when nothing is known."""

from __future__ import annotations

import time


def test_today_without_a_theoretical_win_is_null_not_zero(api) -> None:
    found = api.get("/api/analysis/today", "pit", params={"tz": "America/Los_Angeles"})
    assert found.status_code == 200, found.text
    assert found.json() == {
        "time_zone": "America/Los_Angeles",
        "rounds_opened": 0,  # counts are 0 when there is nothing to count; the money stays null
        "rounds_settled": 0,
        "rounds_without_theoretical": 0,
        "rounds": 0,
        "actual_cents": None,
        "theoretical_cents": None,
        "band_low_cents": None,
        "band_high_cents": None,
        "outside_band": None,
        "theoretical_variance": None,
    }
    assert api.get("/api/analysis/today", "pit", params={"tz": "Mars/Olympus"}).status_code == 422


def answered(api, path: str, person: str, **options):
    """The answer to an analysis request: at once (200), or by following its job's status URL
    (202 while it is computed on the analysis worker: docs/api.md, "The table's math")."""
    answer = api.get(path, person, **options)
    if answer.status_code == 200:
        return answer.json()
    assert answer.status_code == 202, answer.text
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status = api.get(answer.headers["Location"], person).json()
        if status["state"] == "done":
            return status["result"]
        assert status["state"] in ("queued", "running"), status
        time.sleep(0.1)
    raise AssertionError(f"{path}: no answer within 60 s")


def test_the_par_sheet_is_the_clis_and_computed_once(api) -> None:
    sheet = answered(api, "/api/analysis/par-sheet", "surveillance")
    assert sheet["kind"] == "par-sheet" and sheet["hands"] == 154_143_080  # C(53, 7): the standard deck
    assert sheet["provenance"]["house_way"]["name"] == "house-way-002"
    assert api.get("/api/analysis/par-sheet", "pit").json() == sheet
    assert len(api.client.app.state.analysis_jobs.answers) == 1  # type: ignore[attr-defined]


def test_the_house_edge_budget_is_bounded(api) -> None:
    assert api.get("/api/analysis/house-edge", "pit", params={"rounds": 10_000_001}).status_code == 422
    found = answered(api, "/api/analysis/house-edge", "pit", params={"rounds": 20_000})
    assert found["rounds"] == 20_000 and found["seed"] == 1 and found["strategy"] == "house-way"
    low, high = found["interval_95"]
    assert low < 0.026 < high  # the long-run figure (docs/math.md), 20,000 rounds
