"""``table-controller run`` and ``audit verify`` as real processes (docs/round-lifecycle.md, "Running it");
the starts refused before anything runs, in this process."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from sqlalchemy import text
from typer.testing import CliRunner, Result

from table_controller.cli.main import app as cli_app
from table_controller.daemon.run import ExitStatus
from table_controller.storage import add_user, make_engine, open_store, sqlite_url, unit_of_work

from .processes import alive

REPO = Path(__file__).resolve().parents[2]
TABLE_CONTROLLER = (sys.executable, "-m", "table_controller")


def cli(*args: str, env: dict[str, str] | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    environment = {**os.environ, "TABLE_SIMULATOR__PILE_INTERVAL": "0", **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "table_controller", *args],
        cwd=REPO,
        env=environment,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def in_process(*args: str) -> Result:
    """The command line in this process: for the starts refused before any device or thread
    is started (the exit status and the message are the command's, the process is not)."""
    return CliRunner().invoke(cli_app, list(args))


def log_lines(stderr: str) -> list[dict]:
    return [json.loads(line) for line in stderr.splitlines() if line.startswith("{")]


def stored(data_dir: Path, sql: str) -> list[tuple]:
    engine = make_engine(sqlite_url(data_dir))
    try:
        with engine.connect() as connection:
            return [tuple(row) for row in connection.execute(text(sql))]
    finally:
        engine.dispose()


def test_simulate_three_rounds_then_a_second_run_continues_the_numbering(tmp_path):
    first = cli("run", "--simulate", "--rounds", "3", "--data-dir", str(tmp_path), "--seed", "3")
    assert first.returncode == 0, first.stderr[-3000:]
    lines = log_lines(first.stderr)
    summaries = [line for line in lines if line["event"] == "round.summary"]
    assert [s["round_id"] for s in summaries] == ["table-1-1", "table-1-2", "table-1-3"]
    assert all(s["table_id"] == "table-1" for s in summaries)
    current = None
    for line in lines:  # every line of a round carries the table id and its round id
        current = line.get("round_id") if line["event"] == "round.opened" else current
        if current is not None:
            assert (line.get("table_id"), line.get("round_id")) == ("table-1", current), line
        if line["event"] == "round.summary":
            current = None
    assert stored(tmp_path, "SELECT number, phase FROM rounds ORDER BY number") == [
        (1, "closed"),
        (2, "closed"),
        (3, "closed"),
    ]

    second = cli("run", "--simulate", "--rounds", "2", "--data-dir", str(tmp_path), "--seed", "4")
    assert second.returncode == 0, second.stderr[-3000:]
    assert stored(tmp_path, "SELECT number, phase FROM rounds WHERE number > 3 ORDER BY number") == [
        (4, "closed"),
        (5, "closed"),
    ]
    assert stored(tmp_path, "SELECT count(*) FROM events WHERE kind = 'round.settled'") == [(5,)]
    verified = cli("audit", "verify", "--data-dir", str(tmp_path))
    assert verified.returncode == 0 and verified.stdout.startswith("audit chain whole:")
    assert verified.stderr == ""  # a read-only check says nothing else (no Alembic chatter)
    assert (tmp_path / "simulators" / "shuffler.log").is_file()  # the children's logs stay with the table


def test_audit_verify_names_the_first_broken_link_after_a_row_is_edited_behind_the_daemons_back(tmp_path):
    run = cli("run", "--simulate", "--rounds", "1", "--data-dir", str(tmp_path), "--seed", "5")
    assert run.returncode == 0, run.stderr[-3000:]
    [(seq, event_id)] = stored(tmp_path, "SELECT seq, id FROM events WHERE kind = 'dice.rolled'")
    engine = make_engine(sqlite_url(tmp_path))
    try:
        with engine.begin() as connection:  # an owner drops the guards, then edits the dice
            connection.execute(text("DROP TRIGGER events_no_update"))
            connection.execute(
                text(
                    "UPDATE events SET payload = replace(payload, '\"faces\":[', '\"faces\":[6,') "
                    "WHERE kind = 'dice.rolled'"
                )
            )
    finally:
        engine.dispose()
    verified = cli("audit", "verify", "--data-dir", str(tmp_path))
    assert verified.returncode == 1, verified.stdout
    lines = verified.stdout.splitlines()
    assert lines[0].startswith("audit chain BROKEN:")
    assert f"table table-1, seq {seq} (event id {event_id}): hash-mismatch" in lines[1]


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({"TABLE_LIMITS__MAX_MAIN": "-5"}, "limits.max_main"),
        ({"TABLE_GAME": "baccarat"}, "game"),
        ({"TABLE_STEP_DELAY": "-1"}, "step_delay"),
        (
            {"TABLE_AUTO_DEALER__FOUL_RATE": "0.9", "TABLE_AUTO_DEALER__OTHER_SETTING_RATE": "0.5"},
            "auto_dealer",
        ),
    ],
)
def test_a_bad_configuration_is_refused_at_start_with_the_field_named(tmp_path, env, named, monkeypatch):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    result = in_process("run", "--simulate", "--rounds", "1", "--data-dir", str(tmp_path))
    assert result.exit_code == 2
    assert "invalid settings:" in result.stderr and named in result.stderr.split("invalid settings:")[1]
    assert not (tmp_path / "table.sqlite3").exists()  # refused before anything was opened


def test_without_a_shuffler_port_the_daemon_refuses_to_start(tmp_path):
    result = in_process("run", "--rounds", "1", "--data-dir", str(tmp_path))
    assert result.exit_code == 2
    assert "no shuffler: set shuffler.url (TABLE_SHUFFLER__URL) or use --simulate" in result.stderr


def test_an_api_port_in_use_is_refused_with_status_2_before_the_store_or_a_device_starts(tmp_path):
    """The address is bound first: a port another process holds is refused at once, with the
    documented status 2 and what to do, never after starting the simulators (nor with 3)."""
    with socket.create_server(("127.0.0.1", 0)) as held:
        port = held.getsockname()[1]
        result = in_process(
            "run", "--simulate", "--rounds", "1", "--data-dir", str(tmp_path), "--port", str(port)
        )
    assert result.exit_code == ExitStatus.CONFIG == 2, result.stderr
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr
    assert "stop it, or choose another port with --port or TABLE_PORT" in result.stderr
    assert not (tmp_path / "simulators").exists()  # no simulator was started
    assert not (tmp_path / "table.sqlite3").exists()  # nor the store opened


def test_a_simulator_that_gives_no_port_in_time_is_a_device_start_failure_not_a_bad_setting(
    tmp_path, monkeypatch
):
    """A start-up timeout (a loaded machine) exits 3 and says what to do, never "invalid settings"."""
    monkeypatch.setenv("TABLE_SIMULATOR__START_TIMEOUT", "0.001")
    result = in_process("run", "--simulate", "--rounds", "1", "--data-dir", str(tmp_path), "--port", "0")
    assert result.exit_code == ExitStatus.DEVICE_START == 3, result.stderr
    assert "invalid settings" not in result.stderr
    assert "the shuffler simulator printed no port within 0.001 s" in result.stderr
    assert "start again, or raise TABLE_SIMULATOR__START_TIMEOUT" in result.stderr


def test_the_exit_statuses_of_run_are_the_same_in_its_help_and_in_the_docs():
    shown = " ".join(in_process("run", "--help").stdout.split())
    documented = (REPO / "docs" / "round-lifecycle.md").read_text()
    listed = {int(n) for n in re.findall(r"(?<![\w.])(\d): ", shown)}
    rows = {int(n) for n in re.findall(r"^\| `(\d)` \|", documented, flags=re.MULTILINE)}
    assert listed == rows == {status.value for status in ExitStatus}
    assert "3: a device could not be started" in shown
    assert re.search(r"^\| `3` \| a device could not be started", documented, flags=re.MULTILINE)


def _started_simulators(process: subprocess.Popen) -> tuple[list[int], list[dict]]:
    """Read the daemon's log lines until a round is settled; the simulators' pids."""
    lines = []
    for raw in process.stderr:
        if raw.startswith("{"):
            lines.append(json.loads(raw))
            if lines[-1]["event"] == "round.summary":
                break
    return [line["pid"] for line in lines if line["event"] == "simulator.started"], lines


def _daemon(tmp_path: Path) -> subprocess.Popen:
    env = {**os.environ, "TABLE_SIMULATOR__PILE_INTERVAL": "0", "TABLE_STEP_DELAY": "0.05"}
    return subprocess.Popen(
        [sys.executable, "-m", "table_controller", "run", "--simulate", "--data-dir", str(tmp_path)],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG and /proc are Linux")
def test_sigterm_stops_cleanly_and_the_simulators_go_with_the_daemon(tmp_path):
    daemon = _daemon(tmp_path)
    pids, _ = _started_simulators(daemon)
    assert len(pids) == 2 and all(alive(pid) for pid in pids)
    daemon.send_signal(signal.SIGTERM)
    rest = daemon.stderr.read()
    daemon.stderr.close()
    assert daemon.wait(30) == 0
    stopped = [json.loads(line) for line in rest.splitlines() if line.startswith("{")]
    assert [line["reason"] for line in stopped if line["event"] == "daemon.stopped"] == ["stop requested"]
    assert not any(alive(pid) for pid in pids)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG and /proc are Linux")
def test_the_simulators_die_with_a_daemon_killed_by_sigkill(tmp_path):
    daemon = _daemon(tmp_path)
    pids, _ = _started_simulators(daemon)
    daemon.kill()
    daemon.wait(10)
    daemon.stderr.close()
    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(pid) for pid in pids)


def test_a_store_that_cannot_be_reached_stops_the_start_with_a_clear_message(tmp_path):
    result = in_process(
        "run",
        "--simulate",
        "--rounds",
        "1",
        "--data-dir",
        str(tmp_path),
        "--db-url",
        "postgresql+psycopg://nobody@127.0.0.1:1/table?connect_timeout=2",
    )
    assert result.exit_code == 1
    assert "cannot open the store:" in result.stderr and "127.0.0.1" in result.stderr


def test_manual_goes_with_simulate_and_not_with_the_auto_dealer(tmp_path):
    alone = in_process("run", "--manual", "--data-dir", str(tmp_path))
    assert alone.exit_code == 2 and "--manual goes with --simulate" in alone.stderr
    both = in_process("run", "--simulate", "--manual", "--auto-dealer", "--data-dir", str(tmp_path))
    assert both.exit_code == 2 and "contradict" in both.stderr


def _phase(url: str, headers: dict[str, str]) -> str | None:
    state = httpx.get(f"{url}/api/table", headers=headers).json()
    return state["round"]["phase"] if state["round"] else None


def test_simulate_manual_starts_the_simulators_and_leaves_the_dealing_to_a_person(tmp_path):
    """``run --simulate --manual``: both simulators, their ports printed, the API up; a round
    opened by a dealer is rolled and dealt by the simulated devices, then waits for the hands
    to be set by people: nobody plays for them."""
    daemon = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "table_controller",
            "run",
            "--simulate",
            "--manual",
            "--port",
            "0",
            "--data-dir",
            str(tmp_path),
        ],
        cwd=REPO,
        env={**os.environ, "TABLE_SIMULATOR__PILE_INTERVAL": "0"},
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        printed = [daemon.stdout.readline().strip() for _ in range(3)]
        assert printed[0].startswith("shuffler simulator on /dev/"), printed
        assert printed[1].startswith("dice simulator on /dev/"), printed
        assert printed[2].startswith("API listening on http://127.0.0.1:"), printed
        url = printed[2].removeprefix("API listening on ")
        engine = open_store(sqlite_url(tmp_path))
        try:
            with unit_of_work(engine) as session:
                dealer = {"Authorization": f"Bearer {add_user(session, name='ann', role='dealer')}"}
        finally:
            engine.dispose()
        opened = httpx.post(f"{url}/api/round", headers=dealer, json={"wagers": {"3": {"main": 2500}}})
        assert opened.status_code == 201, opened.text
        deadline = time.monotonic() + 20
        while (phase := _phase(url, dealer)) != "players-setting":
            assert time.monotonic() < deadline, f"the round stayed in {phase}"
            time.sleep(0.1)
        time.sleep(1.0)  # an auto-dealer would have set position 3's hand by now
        assert _phase(url, dealer) == "players-setting"
    finally:
        daemon.send_signal(signal.SIGTERM)
        assert daemon.wait(30) == 0
        daemon.stdout.close()
