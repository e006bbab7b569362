"""Many terminals at once: the service's lock and the store's transactions keep one answer per
command and a whole chain (docs/api.md: FastAPI runs these endpoints in a thread pool)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx

from table_controller.api import create_app
from table_controller.api.server import serving
from table_controller.settings import TableSettings
from table_controller.storage import add_user, list_events, unit_of_work, verify_chain
from table_controller.storage.session import read_snapshot
from table_controller.table.service import TableService

from .conftest import WAGERS, add_people

TERMINALS = 8


def test_concurrent_commands_get_one_winner_and_the_chain_stays_whole(engine):
    settings = TableSettings(table_id="t1")
    service = TableService(settings, engine)
    tokens = add_people(engine)
    with unit_of_work(engine) as session:  # bob voids; another pit user acknowledges (two people)
        tokens["second-pit"] = add_user(session, name="pia", role="pit")
    app = create_app(settings, service, engine)
    with serving(app) as base:

        def call(method: str, path: str, role: str, body: dict | None = None) -> int:
            with httpx.Client(base_url=base, timeout=30) as client:
                return client.request(
                    method, path, json=body, headers={"Authorization": f"Bearer {tokens[role]}"}
                ).status_code

        with ThreadPoolExecutor(TERMINALS) as pool:
            opened = list(pool.map(lambda _: call("POST", "/api/round", "dealer", WAGERS), range(TERMINALS)))
        assert sorted(opened) == [201] + [409] * (TERMINALS - 1)
        with ThreadPoolExecutor(TERMINALS) as pool:
            voided = list(
                pool.map(
                    lambda _: call("POST", "/api/round/void", "pit", {"reason": "test void"}),
                    range(TERMINALS),
                )
            )
        assert sorted(voided) == [200] + [409] * (TERMINALS - 1)
        with read_snapshot(engine) as session:
            [alert] = [e for e in list_events(session, table_id="t1") if e.kind == "alert.raised"]
        with ThreadPoolExecutor(TERMINALS) as pool:
            acked = list(
                pool.map(
                    lambda _: call(
                        "POST", f"/api/alerts/{alert.seq}/acknowledge", "second-pit", {"note": "seen"}
                    ),
                    range(TERMINALS),
                )
            )
        assert sorted(acked) == [200] + [409] * (TERMINALS - 1)
    with read_snapshot(engine) as session:
        kinds = [e.kind for e in list_events(session, table_id="t1")]
        assert verify_chain(session).ok
    assert kinds.count("round.opened") == 1 and kinds.count("round.voided") == 1
    assert kinds.count("alert.acknowledged") == 1
