"""The pit map (docs/floor.md, "The pit map"): each pit's tables laid out as the floor's
``layout`` setting places them, each dealing or stopped (and why), its rated seats and today's
hold, on both backends.

The floor of conftest.py: t1 and t2 in pit-a, t3 in pit-b. The layout puts pit-a in one row,
t2, an empty place, t1; pit-b is not laid out. t1 settles one round (the house -2,375 on 3,500
wagered: hold -2,375 / 3,500 = -67.857..% = -6,786 bp half-even, as test_floor_api.py works it
out) with P-300 rated at seat 3; t2's shuffler jams (stopped, the jam named); t3's daemon was
last heard an hour ago (not answering).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError
from sqlalchemy.engine import Engine

from table_controller.floor.app import create_floor_app
from table_controller.floor.settings import FloorSettings
from table_controller.settings import TableSettings
from table_controller.storage import unit_of_work
from table_controller.storage.floor_tables import register_table
from table_controller.table import ratings as table_ratings

from ..api.conftest import LOOPBACK
from .conftest import Floor, add_people, play, put_tables, services

LAYOUT = {"pit-a": [["t2", "", "t1"]], "pit-z": [["t9"]]}


@pytest.fixture
def mapped(engine: Engine) -> Iterator[Floor]:
    tokens = add_people(engine)
    put_tables(engine)
    settings = FloorSettings(db_url="sqlite://", poll_interval=0.02, layout=LAYOUT)
    with TestClient(create_floor_app(settings, engine), client=LOOPBACK) as client:
        yield Floor(client, engine, tokens, services(engine))


def test_the_pit_map_lays_out_each_pit_with_each_tables_state(mapped: Floor) -> None:
    desk = table_ratings.RatingDesk.of(TableSettings(table_id="t1", pit="pit-a"))
    table_ratings.seat_player(mapped.engine, desk, seat=3, player="P-300", by="dan")
    assert play(mapped.services["t1"]) == "t1-1"
    mapped.services["t2"].device_fault("shuffler", "jam", "card jam in the elevator")
    with unit_of_work(mapped.engine) as session:
        register_table(
            session,
            table_id="t3",
            pit="pit-b",
            game="standard",
            house_way="house-way-002",
            api_url=None,
            now=datetime.now(UTC) - timedelta(hours=1),
        )
    answer = mapped.get("/api/floor/pits", "cy")
    assert answer.status_code == 200, answer.text
    pit_a, pit_b = answer.json()
    assert (pit_a["pit"], pit_a["laid_out"], pit_b["pit"], pit_b["laid_out"]) == (
        "pit-a",
        True,
        "pit-b",
        False,
    )
    t2, empty, t1 = pit_a["rows"][0]
    assert len(pit_a["rows"]) == 1 and empty is None
    assert (t1["table_id"], t1["state"], t1["why"], t1["phase_words"]) == ("t1", "dealing", None, "settled")
    assert t1["rated"] == [{"seat": 3, "player": "P-300"}]
    assert (t1["today"]["house_result_cents"], t1["today"]["hold_bp"]) == (-2_375, -6_786)
    assert t1["live_url"] == "http://t1.pit.example:8080/ui/table.html"
    assert (t2["state"], t2["why"], t2["rated"]) == ("stopped", "shuffler jam: card jam in the elevator", [])
    [[t3]] = pit_b["rows"]
    assert t3["state"] == "not-answering" and t3["why"].startswith("not heard from since ")
    # a pit user's map is their pit's; a pit outside it answers nothing
    assert [m["pit"] for m in mapped.get("/api/floor/pits", "pia").json()] == ["pit-a"]
    assert mapped.get("/api/floor/pits", "pia", params={"pit": "pit-b"}).json() == []
    # pit-z's t9 is not on this floor: its pit has no table here, so no map


def test_a_layout_naming_a_table_twice_or_a_bad_name_is_refused_at_start() -> None:
    for layout, words in (
        ({"pit-a": [["t1"]], "pit-b": [["t1"]]}, "placed twice"),
        ({"pit-a": [["t 1"]]}, "is not a table id"),
        ({"-pit": [["t1"]]}, "is not a pit's name"),
        ({"pit-a": [["t1"]] * 21}, "more than 20"),
    ):
        with pytest.raises(ValidationError, match=words):
            FloorSettings(db_url="sqlite://", layout=layout)
