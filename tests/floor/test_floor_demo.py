"""The demo floor in one command (docs/floor.md, "A demo floor in one command"; floor/demo.py):
the tables laid out in pits, and ``table-controller floor demo`` as a real process tree on
PostgreSQL: its tables registered with their pits and pages, the floor answering a pit user's
token it printed, scoped to that pit, and SIGTERM stopping every child (exit 0, none left)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time

import httpx
import pytest
from sqlalchemy.engine import Engine

from table_controller.floor.demo import DemoError, plan_tables

from ..daemon.processes import alive, python

on_postgresql = pytest.mark.parametrize("empty_engine", ["postgresql"], indirect=True)


def test_six_tables_in_two_pits_are_laid_out_three_and_three():
    plan = plan_tables(6, 2, [9001, 9002, 9003, 9004, 9005, 9006])
    assert [(t.table_id, t.pit, t.api_url) for t in plan] == [
        ("demo-1", "pit-1", "http://127.0.0.1:9001"),
        ("demo-2", "pit-1", "http://127.0.0.1:9002"),
        ("demo-3", "pit-1", "http://127.0.0.1:9003"),
        ("demo-4", "pit-2", "http://127.0.0.1:9004"),
        ("demo-5", "pit-2", "http://127.0.0.1:9005"),
        ("demo-6", "pit-2", "http://127.0.0.1:9006"),
    ]


def test_tables_that_do_not_divide_give_the_first_pits_one_more():
    plan = plan_tables(5, 2, [1, 2, 3, 4, 5])
    assert [t.pit for t in plan] == ["pit-1", "pit-1", "pit-1", "pit-2", "pit-2"]
    assert [t.pit for t in plan_tables(7, 3, list(range(7)))] == ["pit-1"] * 3 + ["pit-2"] * 2 + ["pit-3"] * 2


@pytest.mark.parametrize(("tables", "pits"), [(2, 3), (0, 1), (2, 0), (51, 2)])
def test_a_pit_without_a_table_or_a_floor_out_of_range_is_refused(tables: int, pits: int):
    with pytest.raises(DemoError):
        plan_tables(tables, pits, list(range(tables)))


def _until(condition, what: str, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"not within {timeout} s: {what}")


def _events(logged: list[dict], event: str) -> list[dict]:
    return [line for line in logged if line["event"] == event]


@on_postgresql
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc tells whether a child is alive")
def test_the_demo_starts_its_tables_in_their_pits_and_sigterm_stops_every_child(engine: Engine, tmp_path):
    url = engine.url.render_as_string(hide_password=False)
    demo = python(
        *("-m", "table_controller", "floor", "demo", "--db-url", url, "--tables", "2", "--pits", "2"),
        *("--port", "0", "--data-dir", str(tmp_path), "--seed", "7", "--step-delay", "0.2"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    logged: list[dict] = []

    def read() -> None:
        for raw in demo.stderr:
            if raw.startswith("{"):
                logged.append(json.loads(raw))

    threading.Thread(target=read, daemon=True).start()
    try:
        printed: list[str] = []
        while not printed or not printed[-1].startswith("pit user demo-pit-2"):
            line = demo.stdout.readline()
            assert line, f"the demo ended early: {printed}, {logged[-3:]}"
            printed.append(line.strip())
        floor = next(line for line in printed if line.startswith("floor listening on "))
        floor_url = floor.removeprefix("floor listening on ")
        tokens = {line.split()[2]: line.rsplit(" ", 1)[1] for line in printed if line.startswith("pit user ")}
        assert set(tokens) == {"demo-pit-1", "demo-pit-2"}

        def tables_of(name: str) -> list[dict]:
            answer = httpx.get(
                f"{floor_url}/api/floor/tables", headers={"Authorization": f"Bearer {tokens[name]}"}
            )
            assert answer.status_code == 200, answer.text
            return answer.json()

        seen = _until(lambda: tables_of("demo-pit-1"), "demo-1 on the floor")
        assert [(row["table_id"], row["pit"]) for row in seen] == [("demo-1", "pit-1")]  # the pit's only
        pit_2 = _until(lambda: tables_of("demo-pit-2"), "demo-2 on the floor")
        assert [(row["table_id"], row["pit"]) for row in pit_2] == [("demo-2", "pit-2")]
        # the table's own pages answer where it registered them
        assert seen[0]["api_url"].startswith("http://127.0.0.1:")
        assert httpx.get(seen[0]["live_url"]).status_code == 200
        # signed in once at the floor, the table's own pages let the same browser in: the demo
        # gives the floor and its tables one session key, and a cookie is per host, not per port
        signed = httpx.post(
            f"{floor_url}/api/session",
            headers={
                "Authorization": f"Bearer {tokens['demo-pit-1']}",
                "X-Requested-With": "table-controller",
            },
        )
        assert signed.status_code == 200, signed.text
        cookie = {"Cookie": f"tc-session={signed.cookies['tc-session']}"}
        at_table = httpx.get(f"{seen[0]['api_url']}/api/me", headers=cookie)
        assert at_table.status_code == 200, at_table.text
        assert at_table.json()["name"] == "demo-pit-1"
        assert httpx.get(f"{seen[0]['api_url']}/api/me").status_code == 401  # the cookie is what let it in

        children = {line["child"]: line["pid"] for line in _events(logged, "floor_demo.child_started")}
        assert set(children) == {"demo-1", "demo-2", "floor"}
        assert all(alive(pid) for pid in children.values())

        demo.send_signal(signal.SIGTERM)
        assert demo.wait(40) == 0
        assert not any(alive(pid) for pid in children.values())
        ended = {line["child"]: line["exit_code"] for line in _events(logged, "floor_demo.child_ended")}
        assert ended == {"demo-1": 0, "demo-2": 0, "floor": 0}  # each stopped by its SIGTERM, none killed
    finally:
        if demo.poll() is None:
            demo.kill()
            demo.wait(10)
