"""Reads off the primary, against a real PostgreSQL streaming replica (docs/floor-replica.md).

The replica is found at ``TABLE_TEST_REPLICA_URL`` (default
``postgresql+psycopg://postgres@127.0.0.1:5433/test``): ``scripts/setup-test-host.sh`` starts it
(``scripts/start-replica.sh``). The fixture only connects; if no replica answers the tests FAIL,
naming the script, never skip. Each test writes into its own schema on the primary (the
``engine`` fixture) and reads it back through the replica, which copies the whole cluster.

Pausing the replica's replay pauses it for every reader: the tests that use the replica take
turns on one advisory lock of the primary, and every pause is resumed when its test ends,
failed or not.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import OperationalError

from table_controller.api import create_app
from table_controller.api.read_lag import READ_BEHIND, READ_FROM, READ_LAG_SECONDS, LagSampler
from table_controller.settings import TableSettings
from table_controller.storage import make_engine, unit_of_work
from table_controller.storage.history import round_row
from table_controller.storage.replica import NOT_A_REPLICA, replica_status
from table_controller.storage.users import disable_user
from table_controller.table.service import TableService

from .api.conftest import LOOPBACK, PEOPLE, Api, add_people, play_round
from .db_fixtures import SETUP_SCRIPT

REPLICA_URL_ENV = "TABLE_TEST_REPLICA_URL"
DEFAULT_REPLICA_URL = "postgresql+psycopg://postgres@127.0.0.1:5433/test"
REPLICA_LOCK_KEY = 0x7265706C  # "repl": one replica test at a time (a pause is replica-wide)
WARN_SECONDS = 0.5  # small, so a paused replica is "behind" within a second of a new commit
WAIT_SECONDS = 15.0  # the most any wait below allows before failing (never reached when well)

pytestmark = pytest.mark.parametrize("empty_engine", ["postgresql"], indirect=True)


def wait_until(what: str, check: Callable[[], object]) -> object:
    """Poll ``check`` until it returns something true; fail naming ``what`` after WAIT_SECONDS."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() > deadline:
            pytest.fail(f"waited {WAIT_SECONDS} s for {what}")
        time.sleep(0.05)


def _scalar(engine: Engine, sql: str, **params: object) -> object:
    """One value, in a READ ONLY transaction: a standby refuses the READ WRITE that psycopg asks
    for on a pooled connection once a read-only snapshot has used it (storage/replica.py)."""
    with engine.connect().execution_options(postgresql_readonly=True) as connection:
        return connection.execute(text(sql), params).scalar_one()


@pytest.fixture(scope="session")
def replica_url() -> str:
    """The replica's URL, once it answers and is in recovery; a replay left paused is resumed."""
    url = os.environ.get(REPLICA_URL_ENV, DEFAULT_REPLICA_URL)
    probe = make_engine(f"{url}{'&' if '?' in url else '?'}connect_timeout=3")
    try:
        in_recovery = _scalar(probe, "SELECT pg_is_in_recovery()")
        if in_recovery and _scalar(probe, "SELECT pg_is_wal_replay_paused()"):
            _scalar(probe, "SELECT pg_wal_replay_resume()::text")
        problem = None if in_recovery else "it answers but is not in recovery (not a replica)"
    except OperationalError as exc:
        problem = str(exc.orig).strip()
    finally:
        probe.dispose()
    if problem is not None:
        pytest.fail(
            f"a PostgreSQL streaming replica is required for these tests and none answers at {url}: "
            f"{problem}\nstart it with: bash {SETUP_SCRIPT.relative_to(SETUP_SCRIPT.parents[1])} "
            f"(or bash scripts/start-replica.sh; or set {REPLICA_URL_ENV})",
            pytrace=False,
        )
    return url


@dataclass
class Replicated:
    """The test's schema on the primary (``primary``) and the same schema read on the replica."""

    primary: Engine
    replica: Engine

    def caught_up(self) -> None:
        """Wait until the replica has replayed everything the primary has written so far."""
        lsn = _scalar(self.primary, "SELECT pg_current_wal_lsn()::text")
        wait_until(
            f"the replica to replay the primary's WAL up to {lsn}",
            lambda: _scalar(self.replica, "SELECT pg_last_wal_replay_lsn() >= CAST(:lsn AS pg_lsn)", lsn=lsn),
        )

    @contextmanager
    def paused(self) -> Iterator[None]:
        """The replica's replay paused for the block, resumed after whatever happens."""
        _scalar(self.replica, "SELECT pg_wal_replay_pause()::text")
        try:
            wait_until(
                "the replica's replay to pause",
                lambda: _scalar(self.replica, "SELECT pg_get_wal_replay_pause_state()") == "paused",
            )
            yield
        finally:
            _scalar(self.replica, "SELECT pg_wal_replay_resume()::text")


@pytest.fixture
def replicated(engine: Engine, replica_url: str) -> Iterator[Replicated]:
    """The migrated ``engine`` (primary) and an engine on the replica with the same search path,
    once the schema has reached the replica; the replica to this test alone (advisory lock)."""
    turn = make_engine(str(engine.url.set(query={})))
    replica = make_engine(
        make_url(replica_url)
        .update_query_dict({"options": engine.url.query["options"]})
        .render_as_string(hide_password=False)
    )
    try:
        with turn.connect() as held:
            held.execute(text("SELECT pg_advisory_lock(:key)"), {"key": REPLICA_LOCK_KEY})
            try:
                found = Replicated(engine, replica)
                found.caught_up()
                yield found
            finally:
                held.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": REPLICA_LOCK_KEY})
                held.rollback()
    finally:
        replica.dispose()
        turn.dispose()


@contextmanager
def replica_api(replicated: Replicated, *, token_ttl: float = 5.0) -> Iterator[Api]:
    """A table's API whose reads go to the replica; commands and tokens to the primary."""
    settings = TableSettings(table_id="t1", read_lag_warn_seconds=WARN_SECONDS)
    service = TableService(settings, replicated.primary)
    tokens = add_people(replicated.primary)
    app = create_app(
        settings,
        service,
        replicated.primary,
        poll_interval=0.02,
        token_ttl=token_ttl,
        read_engine=replicated.replica,
    )
    app.state.read_lag.every = 0.1  # sampled ten times a second here: the waits below end sooner
    with TestClient(app, client=LOOPBACK) as client:
        yield Api(client, service, replicated.primary, tokens)


def _round_ids(api: Api) -> list[str]:
    answer = api.get("/api/rounds")
    assert answer.status_code == 200, answer.text
    return [r["round_id"] for r in answer.json()["rounds"]]


# -- the reader's view of the lag ----------------------------------------------------------------


def test_replica_status_of_a_replica_a_primary_and_sqlite(replicated: Replicated, tmp_path):
    status = replica_status(replicated.replica, replicated.primary)
    assert status.in_recovery and status.receiving and not status.paused
    assert status.lag_seconds is not None and status.lag_seconds >= 0
    assert status.lag_bytes is not None and status.lag_bytes >= 0
    assert replica_status(replicated.primary) == NOT_A_REPLICA  # a primary serves what is current
    sqlite = make_engine(f"sqlite:///{tmp_path / 'table.sqlite3'}")
    try:
        assert replica_status(sqlite) == NOT_A_REPLICA
    finally:
        sqlite.dispose()


def test_the_lag_is_sampled_at_most_once_a_second(replicated: Replicated):
    now = [100.0]
    sampler = LagSampler(replicated.replica, replicated.primary, warn_seconds=5.0, clock=lambda: now[0])
    first = sampler.sample()
    _scalar(replicated.replica, "SELECT pg_wal_replay_pause()::text")
    try:
        wait_until("the replay to pause", lambda: replica_status(replicated.replica).paused)
        now[0] += 0.9
        assert sampler.sample() is first  # younger than a second: kept, not asked again
        now[0] += 0.1
        assert sampler.sample().paused  # a second old: asked again, and the pause is seen
    finally:
        _scalar(replicated.replica, "SELECT pg_wal_replay_resume()::text")


def test_a_replica_that_does_not_answer_is_shown_behind_never_current(engine: Engine):
    gone = make_engine("postgresql+psycopg://postgres@127.0.0.1:1/test?connect_timeout=2")  # nothing listens
    try:
        sampler = LagSampler(gone, engine, warn_seconds=5.0)
        status = sampler.sample()
        assert status.lag_seconds is None and status.behind(5.0)
        headers = sampler.headers(status)
        assert headers == {READ_FROM: "replica", READ_LAG_SECONDS: "unknown", READ_BEHIND: "true"}
        assert sampler.public(status).behind is True
    finally:
        gone.dispose()


# -- the API: reads from the replica, saying so; commands and tokens on the primary ---------------


def test_a_round_written_on_the_primary_is_read_from_the_replica_with_its_lag(replicated: Replicated):
    with replica_api(replicated) as api:
        opened = api.post("/api/round", "dealer", json={"wagers": {"3": {"main": 2500}}})
        assert opened.status_code == 201
        assert READ_FROM not in opened.headers  # a command's answer is read from the primary
        assert api.post("/api/round/void", "pit", json={"reason": "wagers placed late"}).status_code == 200
        replicated.caught_up()
        answer = api.get("/api/rounds")
        assert [r["round_id"] for r in answer.json()["rounds"]] == ["t1-1"]
        assert answer.headers[READ_FROM] == "replica"
        assert float(answer.headers[READ_LAG_SECONDS]) >= 0  # one decimal: the body has it whole
        assert answer.headers[READ_BEHIND] in ("true", "false")
        table = api.get("/api/table")
        assert table.headers[READ_FROM] == "replica"
        read_lag = table.json()["read_lag"]
        assert read_lag["read_from"] == "replica" and read_lag["warn_seconds"] == WARN_SECONDS
        assert read_lag["behind"] == (read_lag["lag_seconds"] > WARN_SECONDS)


def test_a_paused_replica_is_shown_behind_while_commands_go_to_the_primary(replicated: Replicated):
    with replica_api(replicated) as api:
        assert play_round(api) == "t1-1"
        replicated.caught_up()
        assert _round_ids(api) == ["t1-1"]
        with replicated.paused():
            assert play_round(api) == "t1-2"  # every command of a round, on the primary, answered
            with unit_of_work(replicated.primary) as session:  # the primary has it settled
                assert round_row(session, "t1", "t1-2")["phase"] == "closed"
            # the replica's reads do not have it yet, and say they are behind
            behind = wait_until(
                "the table's answer to say the replica is behind",
                lambda: (table := api.get("/api/table")).json()["read_lag"]["behind"] and table,
            )
            read_lag = behind.json()["read_lag"]  # type: ignore[attr-defined]
            assert read_lag["paused"] is True
            assert read_lag["lag_seconds"] > WARN_SECONDS
            assert "paused" in read_lag["words"]
            assert behind.headers[READ_BEHIND] == "true"  # type: ignore[attr-defined]
            history = api.get("/api/rounds")
            assert [r["round_id"] for r in history.json()["rounds"]] == ["t1-1"]
            assert history.headers[READ_FROM] == "replica" and history.headers[READ_BEHIND] == "true"
        replicated.caught_up()
        assert _round_ids(api) == ["t1-2", "t1-1"]
        wait_until(
            "the replica's answers to be current again",
            lambda: api.get("/api/rounds").headers[READ_BEHIND] == "false",
        )


def test_a_token_is_looked_up_on_the_primary_while_the_replica_is_paused(replicated: Replicated):
    with replica_api(replicated, token_ttl=0) as api, replicated.paused():
        assert api.get("/api/rounds", "pit").status_code == 200
        with unit_of_work(replicated.primary) as session:
            disable_user(session, name=PEOPLE["pit"], actor=PEOPLE["admin"])
        assert api.get("/api/rounds", "pit").status_code == 401  # at once, though the replica is paused
        assert api.get("/api/rounds", "surveillance").status_code == 200


def test_without_a_replica_nothing_says_replica(engine: Engine):
    settings = TableSettings(table_id="t1")
    app = create_app(settings, TableService(settings, engine), engine, read_engine=engine)
    tokens = add_people(engine)
    with TestClient(app, client=LOOPBACK) as client:
        answer = client.get("/api/table", headers={"Authorization": f"Bearer {tokens['pit']}"})
    assert answer.status_code == 200
    assert READ_FROM not in answer.headers and answer.json()["read_lag"] is None
