"""The live stream (server-sent events): every event once, in chain order, across a disconnect
(docs/api.md). A real uvicorn server on a loopback port; the terminal is an httpx client."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from table_controller.api import create_app
from table_controller.api.server import serving
from table_controller.settings import TableSettings
from table_controller.storage import list_events
from table_controller.storage.session import read_snapshot
from table_controller.table.service import TableService

from ..live_client import live_client
from .conftest import WAGERS, Api, add_people, play_round


class Terminal:
    """Follows /api/stream like a browser's EventSource: remembers the last id it received."""

    def __init__(self, base: str, token: str) -> None:
        self.base = base
        self.headers = {"Authorization": f"Bearer {token}"}
        self.received: list[dict] = []
        self.last_id: str | None = None

    def read(self, count: int, *, after: int | None = None, timeout: float = 10.0) -> None:
        """Connect (resuming from the last id), read ``count`` events, then drop the connection."""
        headers = dict(self.headers)
        if self.last_id is not None:
            headers["Last-Event-ID"] = self.last_id
        params = {} if after is None else {"after": after}
        got = 0
        with (
            httpx.Client(timeout=timeout) as client,
            client.stream("GET", f"{self.base}/api/stream", headers=headers, params=params) as answer,
        ):
            assert answer.status_code == 200
            assert answer.headers["content-type"].startswith("text/event-stream")
            event: dict[str, str] = {}
            for line in answer.iter_lines():
                if line == "":
                    if "data" in event:
                        self.received.append(json.loads(event["data"]))
                        assert int(event["id"]) == self.received[-1]["seq"]
                        self.last_id = event["id"]
                        got += 1
                        if got == count:
                            return
                    event = {}
                elif not line.startswith(":"):
                    name, _, value = line.partition(":")
                    event[name] = value.removeprefix(" ")


@pytest.fixture
def served(engine) -> Iterator[tuple[str, Api]]:
    settings = TableSettings(table_id="t1")
    service = TableService(settings, engine)
    tokens = add_people(engine)
    app = create_app(settings, service, engine, poll_interval=0.02)
    with serving(app) as base, live_client(base_url=base) as client:
        yield base, Api(client, service, engine, tokens)  # type: ignore[arg-type]


def stored(api: Api) -> list[tuple[int, str]]:
    with read_snapshot(api.engine) as session:
        return [(e.seq, e.kind) for e in list_events(session, table_id="t1")]


def test_a_terminal_that_drops_resumes_and_misses_nothing(served):
    base, api = served
    terminal = Terminal(base, api.tokens["pit"])
    play_round(api)  # 7 events (t1-1, settled)
    terminal.read(3, after=0)
    play_round(api, how="override")  # 10 more while the terminal is away
    terminal.read(5)  # reconnects with Last-Event-ID: 3
    play_round(api, how="void")  # 3 more
    total = len(stored(api))
    terminal.read(total - 8)
    assert [(e["seq"], e["kind"]) for e in terminal.received] == stored(api)
    assert [e["seq"] for e in terminal.received] == list(range(1, total + 1))  # each exactly once


def test_a_live_terminal_sees_new_events_as_they_are_stored(served):
    base, api = served
    play_round(api)
    terminal = Terminal(base, api.tokens["surveillance"])
    import threading

    reader = threading.Thread(target=terminal.read, args=(2,), kwargs={"after": 7})
    reader.start()
    api.post("/api/round", "dealer", json=WAGERS)
    api.service.journal("shuffler", "card-read", {"frame": "02a1"})
    reader.join(timeout=10)
    assert [(e["seq"], e["kind"], e["actor"]) for e in terminal.received] == [
        (8, "round.opened", "ann"),
        (9, "device.shuffler.card-read", "device:shuffler"),
    ]


def test_the_pits_stream_leaves_out_raw_device_events(served):
    base, api = served
    api.service.journal("shuffler", "card-read", {"frame": "02a1"})
    api.post("/api/table/close", "pit")
    pit = Terminal(base, api.tokens["pit"])
    pit.read(1, after=0)
    assert [(e["seq"], e["kind"]) for e in pit.received] == [(2, "table.closed")]


def test_stream_refusals(served):
    base, api = served
    with httpx.Client(base_url=base, timeout=5) as client:
        assert client.get("/api/stream").status_code == 401
        dealer = {"Authorization": f"Bearer {api.tokens['dealer']}"}
        assert client.get("/api/stream", headers=dealer).status_code == 403
        pit = {"Authorization": f"Bearer {api.tokens['pit']}"}
        bad = client.get("/api/stream", headers={**pit, "Last-Event-ID": "seven"})
        assert bad.status_code == 422 and "Last-Event-ID must be a chain seq" in bad.json()["detail"]
        assert client.get("/api/stream", headers=pit, params={"after": -1}).status_code == 422
        backlog = client.get("/api/stream", headers=pit, params={"after": 0, "follow": "false"})
        assert backlog.status_code == 200 and backlog.text.count("\n\n") == 0  # nothing stored yet
