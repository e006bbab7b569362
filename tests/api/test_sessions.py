"""Signing in once (api/sessions.py, docs/api.md "Browser sessions"): a cookie bound to the
token lets a browser in without the token, keeps other sites from changing anything with it,
and ends with the token, with sign-out and with time."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from table_controller.api.sessions import COOKIE_NAME, Sessions, SessionSecretError
from table_controller.settings import HttpSettings
from table_controller.storage.users import hash_token

from .conftest import WAGERS

CSRF = {"X-Requested-With": "table-controller"}


def signed_in(api, role: str = "pit") -> str:
    """Sign the test client in as ``role``; returns the cookie's value (kept by its jar)."""
    answer = api.client.post("/api/session", headers=api.headers(role))
    assert answer.status_code == 200, answer.text
    return api.client.cookies[COOKIE_NAME]


def attributes(set_cookie: str) -> dict[str, str]:
    parts = [part.strip() for part in set_cookie.split(";")]
    return {key.lower(): value for key, _, value in (part.partition("=") for part in parts[1:])}


def test_signing_in_once_sets_a_strict_http_only_cookie_and_says_who(api):
    answer = api.client.post("/api/session", headers=api.headers("pit"))
    assert answer.status_code == 200
    assert answer.json()["name"] == "bob" and answer.json()["role"] == "pit"
    set_cookie = answer.headers["set-cookie"]
    assert set_cookie.startswith(f"{COOKIE_NAME}=bob.")
    assert api.tokens["pit"] not in set_cookie and hash_token(api.tokens["pit"]) not in set_cookie
    found = attributes(set_cookie)
    assert found["samesite"] == "Strict" and "httponly" in found and found["path"] == "/"
    assert found["max-age"] == str(12 * 3600)
    assert "secure" not in found  # plain HTTP, only ever on the loopback (edge.py)


def test_over_https_the_cookie_is_secure(api):
    answer = api.client.post("https://testserver/api/session", headers=api.headers("pit"))
    assert answer.status_code == 200
    assert "secure" in attributes(answer.headers["set-cookie"])


def test_the_cookie_alone_opens_the_table_and_the_reports(api):
    signed_in(api)
    assert api.client.get("/api/me").json()["name"] == "bob"  # no Authorization header
    assert api.client.get("/api/table").status_code == 200
    today = datetime.now(UTC).date().isoformat()
    report = api.client.get("/api/reports/day.csv", params={"date": today})
    assert report.status_code == 200 and report.headers["content-type"].startswith("text/csv")
    assert api.client.get("/api/reports/day", params={"date": today}).json()["kind"] == "day"


def test_without_cookie_or_token_it_is_still_401(api):
    assert api.client.get("/api/table").status_code == 401
    api.client.cookies.set(COOKIE_NAME, "bob.1700000000." + "0" * 64)
    assert api.client.get("/api/table").status_code == 401  # a forged cookie


def test_a_change_with_the_cookie_needs_the_header_and_this_origin(api):
    signed_in(api, "dealer")
    refused = api.client.post("/api/round", json=WAGERS)
    assert refused.status_code == 403 and refused.json()["error"] == "csrf"
    foreign = api.client.post("/api/round", json=WAGERS, headers={**CSRF, "Origin": "https://evil.example"})
    assert foreign.status_code == 403 and foreign.json()["error"] == "csrf"
    assert api.client.get("/api/table").json().get("round") is None  # nothing was opened
    opened = api.client.post("/api/round", json=WAGERS, headers={**CSRF, "Origin": "http://testserver"})
    assert opened.status_code == 201, opened.text
    # a bearer token is no browser's ambient credential: it needs neither
    assert api.post("/api/round/void", "pit", json={"reason": "test"}).status_code != 403


def test_a_cookie_does_not_sign_in_again(api):
    signed_in(api)
    again = api.client.post("/api/session", headers=CSRF)
    assert again.status_code == 401


@pytest.mark.parametrize("how", ["token", "disable"])
def test_the_session_ends_with_the_token(api, how):
    signed_in(api)
    assert api.client.get("/api/table").status_code == 200
    admin = {"Authorization": f"Bearer {api.tokens['admin']}"}
    path = f"/api/users/bob/{how}"
    assert api.client.post(path, headers=admin).status_code == 200
    assert api.client.get("/api/table").status_code == 401


def test_signing_out_ends_the_session_even_for_a_copy_of_the_cookie(api):
    value = signed_in(api)
    refused = api.client.delete("/api/session")  # a change: the header is needed
    assert refused.status_code == 403
    answer = api.client.delete("/api/session", headers=CSRF)
    assert answer.status_code == 204
    assert attributes(answer.headers["set-cookie"])["max-age"] == "0"
    api.client.cookies.set(COOKIE_NAME, value)  # a copy kept elsewhere
    assert api.client.get("/api/table").status_code == 401


def test_a_session_expires_after_its_shift():
    now = [1_700_000_000.0]
    sessions = Sessions(secret=b"k" * 32, max_age=3600, clock=lambda: now[0])
    value = sessions.issue("bob", "ab" * 32)
    cookie = sessions.parse(value)
    assert cookie is not None and sessions.valid(cookie, "ab" * 32)
    assert not sessions.valid(cookie, "cd" * 32)  # another token: another MAC
    now[0] += 3599
    assert sessions.parse(value) is not None
    now[0] += 1
    assert sessions.parse(value) is None
    assert not Sessions(secret=b"j" * 32, clock=lambda: now[0] - 10).valid(cookie, "ab" * 32)  # another key


def test_a_kept_key_survives_a_restart_and_a_drawn_one_does_not(tmp_path):
    http = HttpSettings(session_secret_file=tmp_path / "session.key")
    first = Sessions.from_settings(http)
    assert (tmp_path / "session.key").stat().st_mode & 0o777 == 0o600
    value = first.issue("bob", "ab" * 32)
    again = Sessions.from_settings(http)  # the next start reads the same key
    cookie = again.parse(value)
    assert cookie is not None and again.valid(cookie, "ab" * 32)
    drawn = Sessions.from_settings(HttpSettings())
    cookie = drawn.parse(value)
    assert cookie is not None and not drawn.valid(cookie, "ab" * 32)
    (tmp_path / "short.key").write_bytes(b"short\n")
    with pytest.raises(SessionSecretError, match="at least 32 bytes"):
        Sessions.from_settings(HttpSettings(session_secret_file=tmp_path / "short.key"))
