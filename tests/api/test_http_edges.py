"""The API's HTTP edge (docs/api.md, "TLS, limits and slow-downs"): authentication before the
body is read, bounded headers, no ``Server`` header, no plain HTTP off the loopback, and a
client that keeps presenting bad tokens is made to wait."""

from __future__ import annotations

import contextlib
import socket
import ssl
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from table_controller.api import create_app
from table_controller.api.auth import BadTokens
from table_controller.api.server import edge_options, serving
from table_controller.settings import HttpSettings, TableSettings
from table_controller.storage import make_engine, sqlite_url, upgrade_to_head
from table_controller.table.service import TableService

from .conftest import LOOPBACK, WAGERS, add_people, served_api

UNAUTHORIZED = "missing or invalid credentials: give 'Authorization: Bearer <token>'"


@pytest.fixture
def table(tmp_path: Path) -> Iterator[tuple[TableSettings, TableService, object, dict[str, str]]]:
    engine = make_engine(sqlite_url(tmp_path))
    upgrade_to_head(engine)
    settings = TableSettings(table_id="t1", http=HttpSettings(bad_tokens_free=3))
    try:
        yield settings, TableService(settings, engine), engine, add_people(engine)
    finally:
        engine.dispose()


def _client(table, settings: TableSettings | None = None, **options) -> TestClient:
    base, service, engine, _ = table
    return TestClient(create_app(settings or base, service, engine, poll_interval=0.05), **options)


# -- authentication first -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body", [b"\xff\xfe\xfa not utf-8", b'{"wagers": {"3": {"main": 25', b"", b"null"], ids=repr
)
@pytest.mark.parametrize("authorization", [None, "Bearer pgt_not_a_token"])
def test_a_body_from_someone_unknown_is_never_read_401(table, body, authorization):
    headers = {"content-type": "application/json"}
    if authorization:
        headers["Authorization"] = authorization
    with _client(table, client=LOOPBACK) as client:
        answer = client.post("/api/round", content=body, headers=headers)
    assert answer.status_code == 401
    assert answer.json() == {"error": "unauthorized", "detail": UNAUTHORIZED}
    assert answer.headers["www-authenticate"] == "Bearer"


def test_a_known_person_still_gets_the_bodys_own_errors(table):
    tokens = table[3]
    with _client(table, client=LOOPBACK) as client:
        headers = {"Authorization": f"Bearer {tokens['dealer']}", "content-type": "application/json"}
        assert client.post("/api/round", content=b'{"wagers": {"3"', headers=headers).status_code == 422
        assert client.post("/api/round", json=WAGERS, headers=headers).status_code == 201


# -- headers ---------------------------------------------------------------------------------------


def test_too_many_or_too_large_headers_are_431_in_the_app(table):
    tokens = table[3]
    auth = {"Authorization": f"Bearer {tokens['pit']}"}
    with _client(table, client=LOOPBACK) as client:
        many = client.get("/api/table", headers={**auth, **{f"x-h{n}": "1" for n in range(120)}})
        assert many.status_code == 431 and many.json()["error"] == "headers-too-large"
        large = client.get("/api/table", headers={**auth, "x-large": "a" * 20_000})
        assert large.status_code == 431
        assert client.get("/api/table", headers={**auth, "x-fine": "a" * 1_000}).status_code == 200


def _raw(base: str, head: bytes) -> bytes:
    """Send a raw request head; the server's first answer line (or b'' when it just closes)."""
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            sock.sendall(head)
        try:
            return sock.recv(4096).split(b"\r\n", 1)[0]
        except ConnectionResetError:
            return b""


def test_the_server_refuses_a_1_mib_header_or_5000_headers_and_names_no_server(tmp_path):
    with served_api(tmp_path) as (_, base, api):
        big = b"GET /api/table HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 1_048_576 + b"\r\n\r\n"
        line = _raw(base, big)
        assert line in (b"", b"HTTP/1.1 400 Bad Request", b"HTTP/1.1 431 Request Header Fields Too Large"), (
            line
        )
        many = b"GET /api/table HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-%d: 1\r\n" % n for n in range(5000))
        line = _raw(base, many + b"\r\n")
        assert line in (b"", b"HTTP/1.1 400 Bad Request", b"HTTP/1.1 431 Request Header Fields Too Large"), (
            line
        )
        answer = api.get("/api/table")
        assert answer.status_code == 200
        assert "server" not in answer.headers


def test_uvicorn_gets_the_edge_options():
    options = edge_options(HttpSettings(max_header_bytes=8192))
    assert options == {
        "server_header": False,
        "proxy_headers": False,
        "http": "h11",
        "h11_max_incomplete_event_size": 8192,
    }
    tls = edge_options(HttpSettings(tls_certfile=Path("/c.pem"), tls_keyfile=Path("/k.pem")))
    assert (tls["ssl_certfile"], tls["ssl_keyfile"]) == ("/c.pem", "/k.pem")
    with pytest.raises(ValueError, match="tls_certfile and tls_keyfile together"):
        HttpSettings(tls_certfile=Path("/c.pem"))


# -- plain HTTP off the loopback ---------------------------------------------------------------------


def test_plain_http_from_off_the_loopback_is_refused_unless_allowed(table):
    base, _, _, tokens = table
    auth = {"Authorization": f"Bearer {tokens['pit']}"}
    with _client(table, client=("10.1.2.3", 40000)) as client:
        refused = client.get("/api/table", headers=auth)
        assert refused.status_code == 403 and refused.json()["error"] == "https-required"
        assert client.get("/ui/").status_code == 403  # the pages carry the token too
    with _client(table, client=("10.1.2.3", 40000), base_url="https://table") as client:
        assert client.get("/api/table", headers=auth).status_code == 200  # TLS (scheme https)
    allowed = base.model_copy(update={"http": HttpSettings(allow_plain_http=True)})
    with _client(table, allowed, client=("10.1.2.3", 40000)) as client:
        assert client.get("/api/table", headers=auth).status_code == 200
    with _client(table, client=("::1", 40000)) as client:
        assert client.get("/api/table", headers=auth).status_code == 200


def test_a_trusted_reverse_proxy_says_the_client_used_https(table):
    tokens = table[3]
    behind = {"Authorization": f"Bearer {tokens['pit']}", "X-Forwarded-For": "10.1.2.3"}
    with _client(table, client=("127.0.0.1", 40000)) as client:  # the proxy on this machine
        assert client.get("/api/table", headers={**behind, "X-Forwarded-Proto": "https"}).status_code == 200
        plain = client.get("/api/table", headers={**behind, "X-Forwarded-Proto": "http"})
        assert plain.status_code == 403  # the proxy took plain HTTP from off the machine
    with _client(table, client=("10.9.9.9", 40000)) as client:  # not a trusted proxy: not believed
        assert client.get("/api/table", headers={**behind, "X-Forwarded-Proto": "https"}).status_code == 403


# -- bad tokens -----------------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_client_waits_after_its_free_bad_tokens_doubling_up_to_the_limit():
    clock = Clock()
    bad = BadTokens(free=3, window=60, max_delay=8, clock=clock)
    assert [bad.failed("10.0.0.1") for _ in range(3)] == [0, 0, 0]
    assert bad.wait("10.0.0.1") == 0
    assert [bad.failed("10.0.0.1") for _ in range(5)] == [1, 2, 4, 8, 8]
    assert bad.wait("10.0.0.1") == 8 and bad.wait("10.0.0.2") == 0  # per client
    clock.now += 8
    assert bad.wait("10.0.0.1") == 0
    clock.now += 61  # the window passed: the bad tokens are forgotten
    assert bad.failed("10.0.0.1") == 0


def test_the_client_table_is_bounded():
    bad = BadTokens(free=1, clock=Clock(), max_clients=2)
    for client in ("a", "b", "c"):
        bad.failed(client)
        bad.failed(client)
    assert bad.wait("a") == 0 and bad.wait("c") == 1  # the oldest client was forgotten


def test_repeated_bad_tokens_get_429_with_retry_after_and_good_ones_wait_too(table):
    tokens = table[3]
    with _client(table, client=LOOPBACK) as client:
        client.app.state.bad_tokens.clock = Clock()  # time stands still: the wait does not run out
        wrong = {"Authorization": "Bearer pgt_guess"}
        assert [client.get("/api/table", headers=wrong).status_code for _ in range(4)] == [401] * 4
        slowed = client.get("/api/table", headers={"Authorization": f"Bearer {tokens['pit']}"})
        assert slowed.status_code == 429
        assert slowed.headers["retry-after"] == "1" and slowed.json()["error"] == "too-many-bad-tokens"
        assert client.get("/ui/").status_code == 200  # the pages are not behind the slow-down
    with _client(table, client=("127.0.0.2", 1)) as other:  # another client is not slowed
        assert (
            other.get("/api/table", headers={"Authorization": f"Bearer {tokens['pit']}"}).status_code == 200
        )


def test_no_credentials_at_all_is_not_a_bad_token(table):
    with _client(table, client=LOOPBACK) as client:
        assert [client.get("/api/table").status_code for _ in range(6)] == [401] * 6


def test_the_api_is_served_over_tls_with_the_settings_certificate(tmp_path):
    certfile, keyfile = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
            "-keyout", str(keyfile), "-out", str(certfile),
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    engine = make_engine(sqlite_url(tmp_path))
    try:
        upgrade_to_head(engine)
        settings = TableSettings(table_id="t1", http=HttpSettings(tls_certfile=certfile, tls_keyfile=keyfile))
        tokens = add_people(engine)
        app = create_app(settings, TableService(settings, engine), engine, poll_interval=0.05)
        with serving(app) as base:
            assert base.startswith("https://")
            trusting = ssl.create_default_context(cafile=str(certfile))
            with httpx.Client(verify=trusting, timeout=10) as client:
                answer = client.get(f"{base}/api/table", headers={"Authorization": f"Bearer {tokens['pit']}"})
            assert answer.status_code == 200
            assert "server" not in answer.headers
    finally:
        engine.dispose()


def test_a_store_away_while_finding_the_person_is_a_503_not_a_500(table):
    from sqlalchemy.exc import OperationalError

    tokens = table[3]

    async def away(*_args, **_kwargs):
        raise OperationalError("SELECT", {}, Exception("database is locked"))

    with _client(table, client=LOOPBACK) as client:
        client.app.state.store.read_current = away
        answer = client.get("/api/table", headers={"Authorization": f"Bearer {tokens['pit']}"})
    assert answer.status_code == 503 and answer.json()["error"] == "store-unavailable"
