"""The floor on a real streaming replica (docs/floor-replica.md): its reads come from the
replica and say how far behind it is, its commands and token lookups go to the primary. The
replica and its fixtures are tests/test_replica.py's (one replica test at a time)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine

from table_controller.api.read_lag import READ_BEHIND, READ_FROM, READ_LAG_SECONDS
from table_controller.floor.app import create_floor_app
from table_controller.floor.settings import FloorSettings
from table_controller.storage import unit_of_work
from table_controller.storage.users import disable_user

from .. import test_replica
from ..api.conftest import LOOPBACK
from ..test_replica import Replicated, wait_until
from .conftest import Floor, add_people, play, put_tables, services

# the replica's fixtures, the table's tests' own (tests/test_replica.py)
replica_url = test_replica.replica_url
replicated = test_replica.replicated

WARN_SECONDS = 0.5

pytestmark = pytest.mark.parametrize("empty_engine", ["postgresql"], indirect=True)


@pytest.fixture
def floor_on_replica(replicated: Replicated) -> Iterator[Floor]:
    """The floor app reading from the replica: three tables, no round played yet."""
    engine: Engine = replicated.primary
    tokens = add_people(engine)
    put_tables(engine)
    settings = FloorSettings(
        db_url=engine.url.render_as_string(hide_password=False),
        read_db_url=replicated.replica.url.render_as_string(hide_password=False),
        poll_interval=0.02,
        read_lag_warn_seconds=WARN_SECONDS,
    )
    app = create_floor_app(settings, engine, replicated.replica, token_ttl=0)
    app.state.read_lag.every = 0.1  # sampled ten times a second here: the waits end sooner
    with TestClient(app, client=LOOPBACK) as client:
        yield Floor(client, engine, tokens, services(engine))


def _round_ids(floor: Floor, table_id: str) -> list[str]:
    answer = floor.get(f"/api/floor/tables/{table_id}/rounds")
    assert answer.status_code == 200, answer.text
    assert answer.headers[READ_FROM] == "replica"
    return [r["round_id"] for r in answer.json()["rounds"]]


def test_the_floor_reads_the_replica_and_says_how_far_behind_it_is(
    floor_on_replica: Floor, replicated: Replicated
):
    floor = floor_on_replica
    t1 = floor.services["t1"]
    assert play(t1, how="void") == "t1-1"  # an alert: pia voided
    replicated.caught_up()
    assert _round_ids(floor, "t1") == ["t1-1"]
    overview = floor.get("/api/floor/tables")
    assert overview.headers[READ_FROM] == "replica" and float(overview.headers[READ_LAG_SECONDS]) >= 0
    [void] = floor.get("/api/floor/alerts").json()
    assert (void["table_id"], void["alert"], void["acknowledged_by"]) == ("t1", "void", None)

    with replicated.paused():
        assert play(t1) == "t1-2"  # the table writes on, to the primary
        acknowledged = floor.post(
            f"/api/floor/tables/t1/alerts/{void['seq']}/acknowledge", "paul", json={"note": "seen"}
        )
        assert acknowledged.status_code == 200, acknowledged.text  # a command: the primary
        assert acknowledged.json()["acknowledged_by"] == "paul"
        assert READ_FROM not in acknowledged.headers
        wait_until(
            "the floor's reads to say the replica is behind",
            lambda: floor.get("/api/floor/tables").headers[READ_BEHIND] == "true",
        )
        assert _round_ids(floor, "t1") == ["t1-1"]  # not t1-2 yet: it is on the primary only
        [still] = floor.get("/api/floor/alerts").json()
        assert still["acknowledged_by"] is None  # the replica's view, said to be behind
        with unit_of_work(floor.engine) as session:
            disable_user(session, name="pete", actor="dee")
        assert floor.get("/api/floor/tables", "pete").status_code == 401  # tokens: the primary, at once

    replicated.caught_up()
    assert _round_ids(floor, "t1") == ["t1-2", "t1-1"]
    [seen] = floor.get("/api/floor/alerts").json()
    assert seen["acknowledged_by"] == "paul"
    wait_until(
        "the floor's reads to be current again",
        lambda: floor.get("/api/floor/tables").headers[READ_BEHIND] == "false",
    )
