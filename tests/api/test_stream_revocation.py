"""A live stream lives only as long as its token (docs/api.md, "Tokens"): disabling the person or
giving them a new key ends their open streams, and nothing written after the change reaches
them. A real uvicorn server; the terminal is an httpx client in a thread."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import httpx
import pytest
from sqlalchemy.exc import OperationalError
from structlog.testing import capture_logs

from table_controller.storage import append_event, list_events, unit_of_work
from table_controller.storage.session import read_snapshot
from table_controller.storage.users import disable_user

from .conftest import served_api


class Follower(threading.Thread):
    """Follows /api/stream from now on; records each event's seq and when the stream ended."""

    def __init__(self, base: str, token: str) -> None:
        super().__init__(name="stream-follower", daemon=True)
        self.base, self.token = base, token
        self.seqs: list[int] = []
        self.comments: list[str] = []
        self.connected = threading.Event()
        self.ended_at: float | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            with (
                httpx.Client(timeout=httpx.Timeout(10.0, read=20.0)) as client,
                client.stream(
                    "GET", f"{self.base}/api/stream", headers={"Authorization": f"Bearer {self.token}"}
                ) as answer,
            ):
                assert answer.status_code == 200
                self.connected.set()
                for line in answer.iter_lines():
                    if line.startswith("data:"):
                        self.seqs.append(json.loads(line.removeprefix("data:"))["seq"])
                    elif line.startswith(":"):
                        self.comments.append(line)
        except BaseException as error:
            self.error = error
        finally:
            self.ended_at = time.monotonic()
            self.connected.set()


def _alert(api, detail: str) -> int:
    api.service.alert("device-fault", detail)
    return max(api.get("/api/alerts", "surveillance").json(), key=lambda a: a["seq"])["seq"]


def _follow(base: str, token: str, api) -> Follower:
    follower = Follower(base, token)
    follower.start()
    assert follower.connected.wait(10)
    seen = _alert(api, "before the change")  # the stream is live: it receives this
    deadline = time.monotonic() + 10
    while seen not in follower.seqs and time.monotonic() < deadline:
        time.sleep(0.01)
    assert seen in follower.seqs, follower.error
    return follower


def _ends_and_hears_nothing_after(follower: Follower, api, changed_at: float, change_seq: int) -> None:
    after = [_alert(api, f"after the change {n}") for n in range(3)]
    follower.join(timeout=10)
    assert not follower.is_alive(), "the stream was still open"
    assert follower.error is None
    # ended after the change (how soon is the hub's poll interval, docs/api.md, "Tokens": a wall
    # clock bound here failed on a busy machine without saying anything about the behaviour)
    assert follower.ended_at is not None and follower.ended_at >= changed_at
    assert follower.comments[-1] == ": credentials revoked"
    assert not set(after) & set(follower.seqs)
    assert all(seq < change_seq for seq in follower.seqs)


@pytest.mark.parametrize("change", ["disable", "token", "scope"])
def test_disabling_a_person_or_rotating_their_key_ends_their_stream(tmp_path: Path, change: str):
    """Also a new scope: bob kept to another pit may no longer read this table."""
    body = {"json": {"pit": "pit-b"}} if change == "scope" else {}
    with served_api(tmp_path) as (_, base, api):
        pit = _follow(base, api.tokens["pit"], api)
        watcher = _follow(base, api.tokens["surveillance"], api)  # someone else's stream goes on
        changed_at = time.monotonic()
        assert api.post(f"/api/users/bob/{change}", "admin", **body).status_code == 200
        _ends_and_hears_nothing_after(pit, api, changed_at, _last_people_change(api))
        assert watcher.is_alive()
        last = _alert(api, "the watcher still hears")
        deadline = time.monotonic() + 10
        while last not in watcher.seqs and time.monotonic() < deadline:
            time.sleep(0.01)
        assert last in watcher.seqs


def _last_people_change(api) -> int:
    with read_snapshot(api.engine) as session:
        return max(e.seq for e in list_events(session, table_id="t1") if e.kind.startswith("user."))


def test_a_person_disabled_outside_the_api_loses_their_stream_when_the_change_is_chained(tmp_path: Path):
    """``users`` changes made by another process (the command line) reach the chain: the stream
    checks its token against the store as soon as such a change passes."""
    with served_api(tmp_path) as (_, base, api):
        pit = _follow(base, api.tokens["pit"], api)
        changed_at = time.monotonic()
        with unit_of_work(api.engine) as session:
            disable_user(session, name="bob")
            append_event(
                session,
                table_id="t1",
                round_id=None,
                kind="user.disabled",
                actor="admin-cli",
                payload={"name": "bob"},
            )
        _ends_and_hears_nothing_after(pit, api, changed_at, _last_people_change(api))


def test_a_stream_whose_token_cannot_be_checked_while_the_store_is_away_goes_on(tmp_path: Path):
    """Nobody can change people while the store is away either: the stream is not cut for it."""
    with served_api(tmp_path) as (app, base, api):
        pit = _follow(base, api.tokens["pit"], api)
        real_read = app.state.store.read_current

        async def away(*_args, **_kwargs):
            raise OperationalError("SELECT", {}, Exception("database is locked"))

        with capture_logs() as logs:
            app.state.store.read_current = away
            app.state.tokens.clear()  # the next check must ask the store
            deadline = time.monotonic() + 10
            while not any(e["event"] == "stream.token_check_failed" for e in logs):
                assert time.monotonic() < deadline, "the stream never checked its token"
                time.sleep(0.05)
        assert pit.is_alive()
        app.state.store.read_current = real_read
        later = _alert(api, "after the store came back")
        deadline = time.monotonic() + 10
        while later not in pit.seqs and time.monotonic() < deadline:
            time.sleep(0.01)
        assert later in pit.seqs and pit.is_alive()
        assert api.post("/api/users/bob/disable", "admin").status_code == 200
        pit.join(timeout=10)
        assert not pit.is_alive()
