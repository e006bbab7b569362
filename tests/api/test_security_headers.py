"""Security headers on every answer (security_headers.py), over HTTP to a real uvicorn server:
the pages, the API's JSON, refusals, and the live stream, which must still stream."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from .conftest import WAGERS, Api, served_api

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "font-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)
EVERYWHERE = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
}


@pytest.fixture
def served(tmp_path) -> Iterator[Api]:
    with served_api(tmp_path, timeout=10) as (_, _, api):
        yield api


def security_headers(answer: httpx.Response) -> dict[str, str]:
    for name in EVERYWHERE:
        assert len(answer.headers.get_list(name)) == 1, (answer.url, name)  # set once, never twice
    return {name: answer.headers[name] for name in EVERYWHERE}


@pytest.mark.parametrize(
    ("path", "role", "status", "content_type"),
    [
        ("/ui/", None, 200, "text/html; charset=utf-8"),
        ("/ui/table.html", None, 200, "text/html; charset=utf-8"),
        ("/ui/commands.js", None, 200, "text/javascript; charset=utf-8"),
        ("/ui/style.css", None, 200, "text/css; charset=utf-8"),
        ("/ui/missing.html", None, 404, "application/json"),
        ("/openapi.json", None, 200, "application/json"),
    ],
)
def test_pages_and_documents_carry_the_headers(served, path, role, status, content_type):
    answer = served.client.get(path)
    assert (answer.status_code, answer.headers["content-type"]) == (status, content_type)
    assert security_headers(answer) == EVERYWHERE
    assert answer.headers.get("cache-control") != "no-store"  # pages and scripts may be cached


@pytest.mark.parametrize(
    ("method", "path", "role", "status"),
    [
        ("GET", "/api/table", "pit", 200),
        ("GET", "/api/me", "surveillance", 200),
        ("GET", "/api/table", None, 401),
        ("POST", "/api/round/void", "dealer", 403),
        ("GET", "/api/rounds/t1-99", "pit", 404),
        ("POST", "/api/round", "dealer", 422),
    ],
)
def test_api_answers_carry_the_headers_and_are_not_stored(served, method, path, role, status):
    headers = served.headers(role) if role else {}
    answer = served.client.request(method, path, headers=headers, json={} if method == "POST" else None)
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"] == "application/json"
    assert security_headers(answer) == EVERYWHERE
    assert answer.headers.get_list("cache-control") == ["no-store"]
    if status == 401:
        assert answer.headers["www-authenticate"] == "Bearer"


def test_the_live_stream_still_streams_with_the_headers(served):
    """The stream's start carries the headers (its no-cache made no-store), and events written
    after it started still arrive on it one by one: the middleware does not buffer."""
    with served.client.stream("GET", "/api/stream", headers=served.headers("pit")) as stream:
        assert stream.status_code == 200
        assert stream.headers["content-type"] == "text/event-stream; charset=utf-8"
        assert security_headers(stream) == EVERYWHERE
        assert stream.headers.get_list("cache-control") == ["no-store"]
        assert served.post("/api/round", "dealer", json=WAGERS).status_code == 201
        lines = stream.iter_lines()
        first = next(json.loads(line[len("data: ") :]) for line in lines if line.startswith("data: "))
        assert (first["kind"], first["round_id"], first["actor"]) == ("round.opened", "t1-1", "ann")
        assert served.post("/api/round/void", "pit", json={"reason": "wagers placed late"}).status_code == 200
        second = next(json.loads(line[len("data: ") :]) for line in lines if line.startswith("data: "))
        assert (second["kind"], second["round_id"], second["actor"]) == ("round.voided", "t1-1", "bob")
