"""More than one floor process on one port (docs/floor.md, "More than one process";
floor/workers.py): ``table-controller floor --workers N`` as a real process tree, a dead worker
replaced and none outliving a supervisor killed by SIGKILL; the supervisor's stop, its SIGKILL
of a worker that does not stop, and its giving up on workers that keep dying, with light
workers (worker_targets.py); a stream resumed on another floor process getting exactly the
rest; one worker serving in the command's own process and ending its streams at a stop."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy.engine import Engine
from structlog.testing import capture_logs
from typer.testing import CliRunner

from table_controller.api.server import serving
from table_controller.cli.main import app as cli
from table_controller.floor.app import create_floor_app
from table_controller.floor.settings import FloorSettings
from table_controller.floor.workers import EXIT_FAILING, EXIT_STOPPED, Workers
from table_controller.storage import sqlite_url

from ..daemon.processes import alive, python
from .conftest import TABLES, add_people, put_tables
from .test_floor_stream import Terminal, stored, write
from .worker_targets import deaf_to_sigterm, exit_at_once, until_sigterm

on_postgresql = pytest.mark.parametrize("empty_engine", ["postgresql"], indirect=True)


def _until(condition, what: str, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"not within {timeout} s: {what}")


class Floor:
    """``table-controller floor --workers N`` in a process of its own; its JSON log lines
    gathered as they come."""

    def __init__(self, engine: Engine, workers: int) -> None:
        url = engine.url.render_as_string(hide_password=False)
        self.process = python(
            *("-m", "table_controller", "floor", "--db-url", url, "--port", "0", "--workers", str(workers)),
            env={**os.environ, "FLOOR_LOG_FORMAT": "json"},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: list[dict] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        printed = self.process.stdout.readline().strip()
        assert printed.startswith("floor listening on http://127.0.0.1:"), printed
        self.url = printed.removeprefix("floor listening on ")

    def _read(self) -> None:
        for raw in self.process.stderr:
            if raw.startswith("{"):
                self.lines.append(json.loads(raw))

    def logged(self, event: str) -> list[dict]:
        return [line for line in self.lines if line["event"] == event]

    def workers(self) -> set[int]:
        """The workers serving now, from the supervisor's log: those it started, less the dead,
        plus their replacements."""
        started = self.logged("floor.workers_started")
        serving = set(started[0]["pids"]) if started else set()
        serving -= {line["pid"] for line in self.logged("floor.worker_died")}
        return serving | {line["pid"] for line in self.logged("floor.worker_replaced")}


@on_postgresql
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG and /proc are Linux")
def test_workers_share_one_port_a_dead_one_is_replaced_and_none_outlives_the_supervisor(engine: Engine):
    tokens = add_people(engine)
    put_tables(engine)
    floor = Floor(engine, workers=2)
    try:
        _until(lambda: len(floor.logged("floor.worker_started")) == 2, "two workers serving")
        first = floor.workers()
        assert len(first) == 2 and all(alive(pid) for pid in first)
        assert {line["pid"] for line in floor.logged("floor.worker_started")} == first
        headers = {"Authorization": f"Bearer {tokens['cy']}"}
        tables = f"{floor.url}/api/floor/tables"
        answers = [httpx.get(tables, headers=headers).json() for _ in range(6)]
        answered = {tuple(sorted(row["table_id"] for row in answer)) for answer in answers}
        assert answered == {tuple(sorted(TABLES))}  # every answer the whole floor, whichever worker gave it

        killed = min(first)
        os.kill(killed, signal.SIGKILL)
        replaced = _until(lambda: floor.logged("floor.worker_replaced"), "the dead worker replaced")
        died = floor.logged("floor.worker_died")
        assert [(line["pid"], line["exitcode"]) for line in died] == [(killed, -signal.SIGKILL)]
        now = floor.workers()
        assert len(now) == 2 and killed not in now and replaced[0]["pid"] in now
        _until(lambda: len(floor.logged("floor.worker_started")) == 3, "the new worker serving")
        assert all(alive(pid) for pid in now)
        for _ in range(6):  # whichever worker takes the connection answers
            assert httpx.get(tables, headers=headers).status_code == 200

        floor.process.kill()  # the supervisor killed outright: its workers must not serve on
        floor.process.wait(10)
        _until(lambda: not any(alive(pid) for pid in now), "the workers gone with their supervisor", 10)
    finally:
        if floor.process.poll() is None:
            floor.process.kill()
            floor.process.wait(10)


def _stop_when_up(workers: Workers, folder: Path, count: int) -> threading.Thread:
    """Ask ``workers`` to stop (as SIGTERM's handler does) once ``count`` of them said they are up."""

    def stop() -> None:
        _until(lambda: len(list(folder.iterdir())) == count, "the workers up")
        workers.stop()

    thread = threading.Thread(target=stop, daemon=True)
    thread.start()
    return thread


def test_a_stop_asked_for_ends_every_worker_and_exits_0(tmp_path):
    workers = Workers(2, until_sigterm, (str(tmp_path),))
    _stop_when_up(workers, tmp_path, 2)
    with capture_logs() as logs:
        assert workers.run() == EXIT_STOPPED
    ended = sorted(
        (line["worker"], line["exitcode"]) for line in logs if line["event"] == "floor.worker_ended"
    )
    assert ended == [(0, 0), (1, 0)]  # each stopped as asked: SIGTERM, then its own exit
    assert workers.processes == {} and not [line for line in logs if line["log_level"] == "error"]


def test_a_worker_that_does_not_stop_when_asked_is_killed(tmp_path):
    workers = Workers(1, deaf_to_sigterm, (str(tmp_path),), stop_wait=0.5)
    _stop_when_up(workers, tmp_path, 1)
    with capture_logs() as logs:
        assert workers.run() == EXIT_STOPPED
    assert [line["event"] for line in logs if line["event"].startswith("floor.worker_")] == [
        "floor.worker_killed",
        "floor.worker_ended",
    ]
    assert logs[-1]["exitcode"] == -signal.SIGKILL


def test_workers_that_keep_dying_end_the_floor():
    """Each worker exits at once: the supervisor replaces them until more than ``deaths_allowed``
    died within the window, then gives up with exit 1, saying why."""
    workers = Workers(2, exit_at_once, (3,), deaths_allowed=2)
    with capture_logs() as logs:
        assert workers.run() == EXIT_FAILING
    events = [line["event"] for line in logs]
    assert events.count("floor.worker_died") == 2 and events.count("floor.worker_replaced") == 2
    [failing] = [line for line in logs if line["event"] == "floor.workers_failing"]
    assert failing["deaths"] == 3 and failing["last_exitcode"] == 3
    assert workers.processes == {}  # every one joined: none left running


def test_workers_must_be_at_least_one(tmp_path):
    with pytest.raises(ValueError, match="at least 1"):
        Workers(0, exit_at_once, (0,))
    config = tmp_path / "floor.toml"
    config.write_text('db_url = "sqlite:///floor.db"\nworkers = 0\n')
    result = CliRunner().invoke(cli, ["floor", "--config", str(config)])
    assert result.exit_code == 2 and "  workers:" in result.stderr, result.stderr


@pytest.fixture
def two_floors(engine: Engine) -> Iterator[tuple[str, str, dict[str, str]]]:
    """Two floor processes' apps on one store, each with its own hub, as two workers are."""
    tokens = add_people(engine)
    put_tables(engine)
    settings = FloorSettings(db_url="sqlite://", poll_interval=0.02)
    one, other = create_floor_app(settings, engine), create_floor_app(settings, engine)
    with serving(one) as first, serving(other) as second:
        yield first, second, tokens


def test_a_stream_resumed_on_another_floor_process_gets_exactly_the_rest(engine: Engine, two_floors):
    first, second, tokens = two_floors
    write(engine, "t1", 3)
    write(engine, "t2", 2)
    terminal = Terminal(first, tokens["cy"], "?after=t1:0,t2:0,t3:0")
    terminal.read(4)
    for table_id, count in (("t3", 2), ("t1", 2), ("t2", 3)):  # committed while it is away
        write(engine, table_id, count)
    terminal.url = terminal.url.replace(first, second)  # the next connection lands on the other worker
    terminal.read(12 - 4)
    for table_id in ("t1", "t2", "t3"):
        assert terminal.seqs(table_id) == stored(engine, table_id)  # none lost, none twice
    assert terminal.last_id == "t1:5,t2:5,t3:2"


@on_postgresql
def test_one_worker_is_the_process_itself_and_a_stop_ends_its_open_stream(engine: Engine):
    tokens = add_people(engine)
    put_tables(engine)
    floor = Floor(engine, workers=1)
    try:
        listening = _until(lambda: floor.logged("floor.listening"), "the floor's own log")
        assert listening[0]["workers"] == 1 and listening[0]["url"] == floor.url
        assert not floor.logged("floor.workers_started")  # no supervisor: the floor serves itself
        opened, ended = threading.Event(), threading.Event()

        def follow() -> None:
            headers = {"Authorization": f"Bearer {tokens['cy']}"}
            with httpx.stream("GET", f"{floor.url}/api/floor/stream", headers=headers, timeout=30) as answer:
                assert answer.status_code == 200
                opened.set()
                for _ in answer.iter_lines():
                    pass
            ended.set()

        follower = threading.Thread(target=follow, daemon=True)
        follower.start()
        assert opened.wait(10)
        floor.process.send_signal(signal.SIGTERM)
        assert floor.process.wait(30) == EXIT_STOPPED
        assert ended.wait(10)  # the open stream was ended, not left hanging
    finally:
        if floor.process.poll() is None:
            floor.process.kill()
            floor.process.wait(10)


def test_a_port_it_cannot_have_is_exit_2_naming_it(tmp_path):
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        result = CliRunner().invoke(cli, ["floor", "--db-url", sqlite_url(tmp_path), "--port", str(port)])
    assert result.exit_code == 2
    assert f"cannot listen on 127.0.0.1:{port}:" in result.stderr and "in use" in result.stderr, result.stderr
