"""People scoped to a pit or a table, at one table's own API (docs/api.md, "Who sees what").

A pit user whose pit is not this table's, or a dealer whose table is another, is answered 403
``out-of-scope`` on every ``/api`` route but ``/api/me``; within their scope, and unscoped, people
work as on a single table. The scope is set by an admin (``POST /api/users/{name}/scope``) or at
the console (``users scope``), chained in the people chain and the table's chain, and refused
(typed) for a role that does not take it. On SQLite and PostgreSQL (the ``engine`` fixture)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from sqlalchemy.engine import Engine
from structlog.testing import capture_logs
from typer.testing import CliRunner

from table_controller.cli.users import app as users_app
from table_controller.settings import TableSettings
from table_controller.storage import add_user, list_events, unit_of_work
from table_controller.storage.people import PEOPLE_CHAIN
from table_controller.storage.session import read_snapshot
from table_controller.storage.users import Role, change_role, get_user, set_scope

from .conftest import WAGERS, Api, make_api

# a sample of the table's routes, reads and commands, for each role that may call them
ROUTES = {
    "dealer": [("GET", "/api/table", {}), ("POST", "/api/round", {"json": WAGERS})],
    "pit": [("GET", "/api/table", {}), ("GET", "/api/alerts", {}), ("POST", "/api/table/close", {})],
}


@pytest.fixture
def table(engine: Engine) -> Iterator[Api]:
    """Table t1 of pit-a; ann (dealer), bob (pit), cy (surveillance), dee (admin), unscoped."""
    yield from make_api(engine, TableSettings(table_id="t1", pit="pit-a"))


def _scope(api: Api, name: str, **body: str) -> dict:
    answer = api.post(f"/api/users/{name}/scope", "admin", json=body)
    assert answer.status_code == 200, answer.text
    return answer.json()


def _calls(api: Api, role: str) -> list[int]:
    return [
        api.client.request(m, p, headers=api.headers(role), **kw).status_code for m, p, kw in ROUTES[role]
    ]


def test_unscoped_people_and_people_within_their_scope_use_the_table(table):
    assert _calls(table, "dealer") == [200, 201]
    _scope(table, "ann", table_id="t1")
    _scope(table, "bob", pit="pit-a")
    assert table.get("/api/table", "dealer").status_code == 200
    assert _calls(table, "pit") == [200, 200, 200]
    assert table.get("/api/users", "admin").status_code == 200  # admin and surveillance see every table
    assert table.get("/api/alerts", "surveillance").status_code == 200


@pytest.mark.parametrize(
    ("role", "name", "scope", "words"),
    [
        ("pit", "bob", {"pit": "pit-b"}, "bob is a pit user of pit pit-b: table t1 is in pit pit-a"),
        ("dealer", "ann", {"table_id": "t2"}, "ann is the dealer of table t2, not of table t1"),
    ],
)
def test_a_person_scoped_elsewhere_is_refused_on_every_route_but_me(table, role, name, scope, words):
    shown = _scope(table, name, **scope)
    assert (shown["pit"], shown["table_id"]) == (scope.get("pit"), scope.get("table_id"))
    with capture_logs() as logs:
        answers = [table.client.request(m, p, headers=table.headers(role), **kw) for m, p, kw in ROUTES[role]]
    assert {a.status_code for a in answers} == {403}
    assert answers[0].json() == {"error": "out-of-scope", "detail": words}
    assert [(e["user"], e["path"]) for e in logs if e["event"] == "api.out_of_scope"] == [
        (name, p) for _, p, _ in ROUTES[role]
    ]
    me = table.get("/api/me", role)
    assert me.status_code == 200 and me.json()["name"] == name  # a terminal learns who it is anywhere
    assert table.service.round is None  # nothing of the refused commands was done
    _scope(table, name)  # cleared: as on a single table again
    assert table.get("/api/table", role).status_code == 200


def test_a_pit_user_with_a_pit_is_refused_at_a_table_in_no_pit(engine):
    for api in make_api(engine, TableSettings(table_id="t1")):
        _scope(api, "bob", pit="pit-a")
        answer = api.get("/api/table", "pit")
        assert (answer.status_code, answer.json()["detail"]) == (
            403,
            "bob is a pit user of pit pit-a: table t1 is in no pit",
        )


def test_the_admin_scope_is_shown_chained_and_refused_in_words(table):
    shown = _scope(table, "bob", pit="pit-a")
    assert (shown["name"], shown["pit"], shown["table_id"]) == ("bob", "pit-a", None)
    users = {u["name"]: (u["pit"], u["table_id"]) for u in table.get("/api/users", "admin").json()}
    assert users == {"ann": (None, None), "bob": ("pit-a", None), "cy": (None, None), "dee": (None, None)}

    refusals = [
        ("ann", {"pit": "pit-a"}, 409, "scope-not-for-role", "ann is a dealer: a pit is for a pit user"),
        ("bob", {"table_id": "t1"}, 409, "scope-not-for-role", "bob is a pit user: a table is for a dealer"),
        ("cy", {"pit": "pit-a"}, 409, "scope-not-for-role", "surveillance sees every table"),
        ("zed", {"pit": "pit-a"}, 404, "not-found", "no user 'zed'"),
        ("bob", {"pit": "pit-a", "table_id": "t1"}, 422, "invalid-request", "not both"),
        ("bob", {"pit": "-pit"}, 422, "invalid-request", "pit '-pit' is not valid"),
        ("bob", {"pits": "pit-a"}, 422, "invalid-request", "body.pits"),
    ]
    for name, body, status, error, words in refusals:
        answer = table.post(f"/api/users/{name}/scope", "admin", json=body)
        assert (answer.status_code, answer.json()["error"]) == (status, error), (name, body, answer.text)
        assert words in answer.json()["detail"], answer.text
    assert table.post("/api/users/bob/scope", "pit", json={"pit": "pit-a"}).status_code == 403  # admin only

    with read_snapshot(table.engine) as session:
        people = [
            (e.kind, e.actor, json.loads(e.payload)["pit"])
            for e in list_events(session, table_id=PEOPLE_CHAIN)
            if e.kind == "user.scope-changed"
        ]
        at_table = [
            (e.actor, json.loads(e.payload))
            for e in list_events(session, table_id="t1")
            if e.kind == "user.scope-changed"
        ]
        assert get_user(session, name="bob").pit == "pit-a"  # nothing of the refusals was written
    assert people == [("user.scope-changed", "dee", "pit-a")]
    assert at_table == [("dee", {"name": "bob", "pit": "pit-a", "table_id": None})]


def test_a_new_role_drops_a_scope_it_does_not_take(engine):
    with unit_of_work(engine) as session:
        add_user(session, name="ann", role=Role.DEALER, table_id="t1")
        assert change_role(session, name="ann", role=Role.PIT, actor="dee").table_id is None
        set_scope(session, name="ann", pit="pit-a", table_id=None, actor="dee")
        assert change_role(session, name="ann", role=Role.PIT, actor="dee").pit == "pit-a"  # kept


def test_the_console_scopes_people_and_lists_their_scope(engine):
    runner = CliRunner()
    where = ["--db-url", engine.url.render_as_string(hide_password=False)]

    def run(*args: str):
        return runner.invoke(users_app, [*args, *where], env={"TABLE_TABLE_ID": "t9"})

    unknown = run("add", "ann", "--role", "dealer", "--table", "t1")  # a typo would lock ann out
    assert unknown.exit_code == 1 and "no table t1 in this store (its tables: t9)" in unknown.stderr
    assert run("add", "ann", "--role", "dealer", "--table", "t9").exit_code == 0
    assert run("add", "bob", "--role", "pit").exit_code == 0
    assert run("add", "cy", "--role", "surveillance").exit_code == 0
    refused = run("add", "dan", "--role", "dealer", "--pit", "pit-a")
    assert refused.exit_code == 1 and "dan is a dealer: a pit is for a pit user" in refused.stderr

    assert run("scope", "bob", "--pit", "pit-a").exit_code == 0
    assert run("list").stdout.splitlines() == [
        "ann\tdealer\tenabled\tkey confirmed\ttable t9",
        "bob\tpit\tenabled\tkey confirmed\tpit pit-a",
        "cy\tsurveillance\tenabled\tkey confirmed",  # unscoped: no fifth column
    ]
    assert run("scope", "ann", "--clear").exit_code == 0
    unknown = run("scope", "ann", "--table", "PG-33")
    assert unknown.exit_code == 1 and "not changed: no table PG-33 in this store" in unknown.stderr
    wrong = run("scope", "cy", "--table", "t9")
    assert wrong.exit_code == 1 and "surveillance sees every table and takes no scope" in wrong.stderr
    assert run("scope", "bob", "--pit", "pit-a", "--clear").exit_code == 2  # one of the three
    assert run("scope", "bob").exit_code == 2
    missing = run("scope", "zed", "--pit", "pit-a")
    assert missing.exit_code == 1 and "no such person: zed" in missing.stderr

    with read_snapshot(engine) as session:
        assert (get_user(session, name="ann").table_id, get_user(session, name="bob").pit) == (None, "pit-a")
        at_table = [
            (e.kind, e.actor, json.loads(e.payload))
            for e in list_events(session, table_id="t9")
            if e.kind in ("user.added", "user.scope-changed")
        ]
    assert at_table == [
        ("user.added", "admin-cli", {"name": "ann", "role": "dealer", "table_id": "t9"}),
        ("user.added", "admin-cli", {"name": "bob", "role": "pit"}),
        ("user.added", "admin-cli", {"name": "cy", "role": "surveillance"}),
        ("user.scope-changed", "admin-cli", {"name": "bob", "pit": "pit-a", "table_id": None}),
        ("user.scope-changed", "admin-cli", {"name": "ann", "pit": None, "table_id": None}),
    ]
