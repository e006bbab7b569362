"""People, tokens and roles (docs/api.md, "Who may do what")."""

from __future__ import annotations

import json

import pytest
from sqlmodel import select
from structlog.testing import capture_logs
from typer.testing import CliRunner

from table_controller.cli.users import app as users_app
from table_controller.storage import list_events, open_store, sqlite_url, unit_of_work
from table_controller.storage.errors import InvalidFieldError
from table_controller.storage.session import read_snapshot
from table_controller.storage.users import (
    TOKEN_PREFIX,
    User,
    UserExistsError,
    add_user,
    hash_token,
    user_for_token,
)

UNAUTHORIZED = {
    "error": "unauthorized",
    "detail": "missing or invalid credentials: give 'Authorization: Bearer <token>'",
}


def test_the_token_is_shown_once_and_only_its_sha256_is_stored(engine):
    with unit_of_work(engine) as session:
        token = add_user(session, name="eve", role="pit")
    assert token.startswith(TOKEN_PREFIX) and len(token) == len(TOKEN_PREFIX) + 43  # 32 bytes, base64url
    with read_snapshot(engine) as session:
        [row] = session.exec(select(User)).all()
        assert row.token_hash == hash_token(token) and token not in row.token_hash
        assert user_for_token(session, token=token).name == "eve"
        assert user_for_token(session, token=token + "x") is None


def test_names_are_checked_and_unique(engine):
    with unit_of_work(engine) as session:
        add_user(session, name="eve", role="pit")
    for bad in ("Eve", "", "device:shuffler", "a b", "x" * 65, "ann\n"):
        with pytest.raises(InvalidFieldError), unit_of_work(engine) as session:
            add_user(session, name=bad, role="pit")
    with pytest.raises(UserExistsError, match="reserved"), unit_of_work(engine) as session:
        add_user(session, name="system", role="pit")
    with pytest.raises(UserExistsError, match="user 'eve' already exists"), unit_of_work(engine) as session:
        add_user(session, name="eve", role="dealer")
    with pytest.raises(ValueError), unit_of_work(engine) as session:
        add_user(session, name="fay", role="boss")


@pytest.mark.parametrize(
    "header", [None, "Bearer", "Bearer nope", "Basic Ym9iOnB3", "Bearer pgt_unknown", "bearer  "]
)
def test_wrong_or_missing_credentials_are_401_and_say_nothing_about_the_user(api, header):
    headers = {} if header is None else {"Authorization": header}
    answer = api.client.get("/api/table", headers=headers)
    assert answer.status_code == 401
    assert answer.json() == UNAUTHORIZED
    assert answer.headers["www-authenticate"] == "Bearer"


def test_a_disabled_user_gets_the_same_401_as_an_unknown_token(api):
    assert api.get("/api/table", "dealer").status_code == 200
    assert api.post("/api/users/ann/disable", "admin").json()["disabled"] is True
    answer = api.get("/api/table", "dealer")
    assert answer.status_code == 401 and answer.json() == UNAUTHORIZED
    rotated = api.post("/api/users/ann/token", "admin").json()
    assert rotated["user"] == {**rotated["user"], "name": "ann", "role": "dealer", "disabled": False}
    new = {"Authorization": f"Bearer {rotated['token']}"}
    assert api.client.get("/api/table", headers=new).status_code == 200
    assert api.get("/api/table", "dealer").status_code == 401  # the old token is gone


def test_admin_manages_people_and_each_change_is_in_the_chain(api):
    created = api.post("/api/users", "admin", json={"name": "gus", "role": "surveillance"})
    assert created.status_code == 201
    token = created.json()["token"]
    assert api.client.get("/api/rounds", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    assert api.post("/api/users", "admin", json={"name": "gus", "role": "pit"}).status_code == 409
    assert api.post("/api/users", "admin", json={"name": "Gus!", "role": "pit"}).status_code == 422
    assert api.post("/api/users", "pit", json={"name": "hal", "role": "admin"}).status_code == 403
    assert [u["name"] for u in api.get("/api/users", "admin").json()] == ["ann", "bob", "cy", "dee", "gus"]
    assert "token_hash" not in api.get("/api/users", "admin").text
    with read_snapshot(api.engine) as session:
        events = [(e.kind, e.actor, json.loads(e.payload)) for e in list_events(session, table_id="t1")]
    assert events == [("user.added", "dee", {"name": "gus", "role": "surveillance"})]


def test_every_request_is_logged_with_who_made_it(api):
    with capture_logs() as logs:
        api.get("/api/table", "surveillance")
        api.client.get("/api/table")
        api.post("/api/round/void", "surveillance", json={"reason": "test"})
    lines = [
        (e["method"], e["path"], e["status"], e["user"], e["role"])
        for e in logs
        if e["event"] == "api.request"
    ]
    assert lines == [
        ("GET", "/api/table", 200, "cy", "surveillance"),
        ("GET", "/api/table", 401, "anonymous", None),
        ("POST", "/api/round/void", 403, "cy", "surveillance"),
    ]
    assert not any(api.tokens["surveillance"] in json.dumps(e, default=str) for e in logs)


def test_users_add_prints_the_token_once(tmp_path, monkeypatch):
    monkeypatch.setenv("TABLE_TABLE_ID", "t9")
    runner = CliRunner()
    added = runner.invoke(users_app, ["add", "ann", "--role", "dealer", "--data-dir", str(tmp_path)])
    assert added.exit_code == 0, added.output
    token = added.stdout.strip().splitlines()[-1]
    assert token.startswith(TOKEN_PREFIX)
    engine = open_store(sqlite_url(tmp_path))
    try:
        with read_snapshot(engine) as session:
            assert user_for_token(session, token=token).role.value == "dealer"
            [event] = list_events(session, table_id="t9")
            assert (event.kind, event.actor, json.loads(event.payload)) == (
                "user.added",
                "admin-cli",
                {"name": "ann", "role": "dealer"},
            )
    finally:
        engine.dispose()
    again = runner.invoke(users_app, ["add", "ann", "--role", "pit", "--data-dir", str(tmp_path)])
    assert again.exit_code == 1 and "user 'ann' already exists" in again.output
    bad_role = runner.invoke(users_app, ["add", "bo", "--role", "boss", "--data-dir", str(tmp_path)])
    assert bad_role.exit_code == 2


def test_users_list_disable_and_rotate_key_from_the_console(tmp_path, monkeypatch):
    monkeypatch.setenv("TABLE_TABLE_ID", "t9")
    runner = CliRunner()
    where = ["--data-dir", str(tmp_path)]
    first = runner.invoke(users_app, ["add", "ann", "--role", "pit", *where]).stdout.strip()
    assert runner.invoke(users_app, ["add", "bo", "--role", "dealer", *where]).exit_code == 0

    listed = runner.invoke(users_app, ["list", *where])
    assert listed.exit_code == 0
    assert listed.stdout.splitlines() == [
        "ann\tpit\tenabled\tkey confirmed",
        "bo\tdealer\tenabled\tkey confirmed",
    ]

    rotated = runner.invoke(users_app, ["rotate-key", "ann", *where])
    assert rotated.exit_code == 0, rotated.output
    second = rotated.stdout.strip()
    assert second.startswith(TOKEN_PREFIX) and second != first
    disabled = runner.invoke(users_app, ["disable", "bo", *where])
    assert disabled.exit_code == 0, disabled.output
    assert (
        runner.invoke(users_app, ["list", *where]).stdout.splitlines()[1]
        == "bo\tdealer\tdisabled\tkey confirmed"
    )
    missing = runner.invoke(users_app, ["disable", "cy", *where])
    assert missing.exit_code == 1 and "no such person: cy" in missing.stderr

    engine = open_store(sqlite_url(tmp_path))
    try:
        with read_snapshot(engine) as session:
            assert user_for_token(session, token=first) is None  # the old key stopped at once
            assert user_for_token(session, token=second).name == "ann"
            changes = [(e.kind, e.actor, json.loads(e.payload)) for e in list_events(session, table_id="t9")]
    finally:
        engine.dispose()
    assert changes[2:] == [
        ("user.key-rotated", "admin-cli", {"name": "ann"}),
        ("user.disabled", "admin-cli", {"name": "bo"}),
    ]
