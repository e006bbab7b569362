"""Every endpoint against every role, allowed and refused (docs/api.md, Tests).

The endpoints are read from the app itself (its OpenAPI document), and must all be in the
table below, written from docs/api.md's "People, roles and tokens": a new endpoint that is not
added here fails the test, so none can be forgotten.
"""

from __future__ import annotations

import pytest

from table_controller.api.app import STATIC_DIR

from .conftest import HOUSE_WAY, ROLES, WAGERS

D, P, S, A = "dealer", "pit", "surveillance", "admin"
READ = {D, P, S}
AUDIT = {P, S}

# (method, path): (roles allowed, a request that is valid for an allowed role)
MATRIX = {
    ("GET", "/api/table"): (READ, {}),
    ("GET", "/api/table/rules"): (READ, {}),
    ("POST", "/api/table/open"): ({P}, {}),
    ("POST", "/api/table/close"): ({P}, {}),
    ("POST", "/api/table/deck-check"): ({P}, {}),
    ("POST", "/api/table/hold/clear"): ({P}, {}),
    ("POST", "/api/round"): ({D, P}, {"json": WAGERS}),
    ("POST", "/api/round/players/{position}/setting"): (
        {D, P},
        {"json": {"high": ["As", "Ah", "9c", "8c", "2c"], "low": ["Kd", "Kh"]}},
    ),
    ("POST", "/api/round/dealer/setting"): ({D, P}, {"json": HOUSE_WAY}),
    ("POST", "/api/round/dealer/override"): ({P}, {"json": {**HOUSE_WAY, "reason": "pit approved"}}),
    ("POST", "/api/round/void"): ({P}, {"json": {"reason": "wrong wagers"}}),
    ("POST", "/api/round/side-wager"): ({D, P}, {"json": {"position": 3}}),
    ("GET", "/api/progressive/{pool_id}"): (READ, {}),
    ("POST", "/api/progressive/{pool_id}/hits/{hit_id}/pay"): ({P}, {"json": {"verified_by": "cy"}}),
    (
        "POST",
        "/api/progressive/{pool_id}/adjustments",
    ): ({P}, {"json": {"level": "jackpot", "amount": 100, "reason": "sign-variance"}}),
    ("POST", "/api/progressive/{pool_id}/adjustments/{request}/confirm"): ({P}, {}),
    ("GET", "/api/progressive/{pool_id}/display"): (READ, {}),
    ("GET", "/api/progressive/{pool_id}/stream"): (READ, {"params": {"follow": "false"}}),
    ("GET", "/api/progressive/{pool_id}/day"): (AUDIT, {}),
    ("GET", "/api/progressive/{pool_id}/day.csv"): (AUDIT, {}),
    ("GET", "/api/progressive/{pool_id}/day.html"): (AUDIT, {}),
    ("GET", "/api/progressive/{pool_id}/day.pdf"): (AUDIT, {}),
    ("GET", "/api/rounds"): (AUDIT, {}),
    ("GET", "/api/rounds/{round_id}"): (AUDIT, {}),
    ("GET", "/api/rounds/{round_id}/replay"): (AUDIT, {}),
    ("GET", "/api/alerts"): (AUDIT, {}),
    ("POST", "/api/alerts/{seq}/acknowledge"): ({P}, {"json": {"note": "seen"}}),
    ("GET", "/api/reports/day"): (AUDIT, {"params": {"date": "2024-05-01"}}),
    ("GET", "/api/reports/day.csv"): (AUDIT, {"params": {"date": "2024-05-01"}}),
    ("GET", "/api/reports/shift"): (
        AUDIT,
        {"params": {"start": "2024-05-01T00:00:00Z", "end": "2024-05-01T08:00:00Z"}},
    ),
    ("GET", "/api/reports/shift.csv"): (
        AUDIT,
        {"params": {"start": "2024-05-01T00:00:00Z", "end": "2024-05-01T08:00:00Z"}},
    ),
    ("GET", "/api/devices/events"): ({S}, {}),
    ("GET", "/api/stream"): (AUDIT, {"params": {"after": 0, "follow": "false"}}),
    ("GET", "/api/users"): ({A}, {}),
    ("POST", "/api/users"): ({A}, {"json": {"name": "zed", "role": "dealer"}}),
    ("POST", "/api/users/{name}/disable"): ({A}, {}),
    ("POST", "/api/users/{name}/token"): ({A}, {}),
    ("POST", "/api/users/{name}/confirm"): ({A}, {}),
    ("POST", "/api/users/{name}/scope"): ({A}, {"json": {}}),
    ("GET", "/api/approvals"): (AUDIT, {}),
    ("POST", "/api/approvals/{seq}/confirm"): ({P}, {}),
    ("POST", "/api/approvals/{seq}/cancel"): ({P}, {"json": {"note": "not needed"}}),
    ("GET", "/api/config"): ({A}, {}),
    ("GET", "/api/me"): ({D, P, S, A}, {}),
    ("POST", "/api/session"): ({D, P, S, A}, {}),  # signing a browser in (api/sessions.py)
    ("DELETE", "/api/session"): ({D, P, S, A}, {}),
    ("GET", "/api/analysis/par-sheet"): (AUDIT, {}),
    ("GET", "/api/analysis/house-edge"): (AUDIT, {"params": {"rounds": 10_000}}),
    ("GET", "/api/analysis/today"): (AUDIT, {"params": {"tz": "America/Los_Angeles"}}),
    ("GET", "/api/analysis/jobs/{job_id}"): (AUDIT, {}),
    ("GET", "/api/audit/checkpoints"): (AUDIT, {}),
    ("POST", "/api/audit/override"): ({P}, {"json": {"reason": "investigating the record"}}),
    ("POST", "/api/accounting/counts"): (
        {P},
        {"json": {"kind": "opener", "chips": {"2500": 4}, "dealer": "ann"}},
    ),
    ("POST", "/api/accounting/counts/{count_id}/sign"): ({D, P}, {}),
    ("POST", "/api/accounting/slips"): ({P}, {"json": {"kind": "fill", "chips": {"2500": 4}}}),
    ("GET", "/api/accounting/slips/{number}"): (AUDIT, {}),
    ("POST", "/api/accounting/slips/{number}/deliver"): ({D, P}, {"json": {"runner": "Rex"}}),
    ("POST", "/api/accounting/slips/{number}/void"): ({P}, {"json": {"reason": "asked twice"}}),
    ("POST", "/api/accounting/slips/{number}/void/confirm"): ({P}, {}),
    ("POST", "/api/accounting/drop"): ({P}, {"json": {"kind": "cash", "amount_cents": 100}}),
    ("POST", "/api/accounting/drop/count-file"): (
        {P},
        {"content": "gaming_day,table_id,shift,kind,amount,reference\n2024-05-01,t1,,cash,1.00,box\n"},
    ),
    ("POST", "/api/accounting/lines"): ({P}, {"json": {"name": "tips", "amount_cents": -100}}),
    ("POST", "/api/accounting/day/reconcile"): ({P}, {"json": {}}),
    ("GET", "/api/accounting/day"): (AUDIT, {}),
    ("GET", "/api/accounting/day.csv"): (AUDIT, {}),
    ("POST", "/api/ratings/seats/{seat}"): ({D, P}, {"json": {"player": "P-1"}}),
    ("POST", "/api/ratings/seats/{seat}/leave"): ({D, P}, {}),
    ("POST", "/api/ratings/end"): ({D, P}, {"json": {"rating_id": "t1/seat-3/x"}}),
    ("POST", "/api/ratings/move"): ({D, P}, {"json": {"rating_id": "t1/seat-3/x", "seat": 4}}),
    ("POST", "/api/ratings/buy-ins"): ({P}, {"json": {"seat": 3, "kind": "cash", "amount_cents": 100}}),
    ("POST", "/api/ratings/adjust"): (
        {P},
        {"json": {"rating_id": "t1/seat-3/x", "field": "actual_win", "new_value": 0, "reason": "typo"}},
    ),
    ("GET", "/api/ratings"): (AUDIT, {}),
    ("GET", "/api/ratings/day.csv"): (AUDIT, {}),
    ("GET", "/api/ratings/seated"): (READ, {}),
    ("GET", "/api/ratings/rating"): (AUDIT, {"params": {"rating_id": "t1/seat-3/x"}}),
    ("GET", "/api/ratings/players/{player}"): (AUDIT, {}),
    ("GET", "/api/ratings/outbox"): (AUDIT, {}),
    ("POST", "/api/dealers/sign-in"): ({D, P}, {"json": {}}),
    ("POST", "/api/dealers/sign-out"): ({D, P}, {}),
    ("GET", "/api/dealers"): (AUDIT, {}),
    (
        "POST",
        "/api/table/limits",
    ): ({P}, {"json": {"min_main_cents": 1000, "max_main_cents": 50_000, "max_bonus_cents": 0}}),
}
# Operations every authenticated person may call: never a 403, and (no parameters) never a 422.
ANY_ROLE = {("GET", "/api/me")}
# Signing a browser in and out: any person, no parameters; a 403 only for a session cookie sent
# from another site or a person of another table (api/sessions.py). Not a change to the table.
SESSION = {("POST", "/api/session"), ("DELETE", "/api/session")}
PATH_VALUES = {
    "position": "3",
    "round_id": "t1-1",
    "seq": "1",
    "name": "zed",
    "count_id": "1",
    "number": "1",
    "job_id": "0",
    "pool_id": "t1",
    "hit_id": "1",
    "request": "1",
    "seat": "3",
    "player": "P-1",
}
CHANGES = {"POST"}


def operations(app) -> set[tuple[str, str]]:
    document = app.openapi()
    return {(method.upper(), path) for path, item in document["paths"].items() for method in item}


def concrete(path: str) -> str:
    for name, value in PATH_VALUES.items():
        path = path.replace("{" + name + "}", value)
    return path


def test_every_endpoint_of_the_app_is_in_the_matrix(api):
    assert operations(api.client.app) == set(MATRIX)
    # everything else the app serves is public: the OpenAPI document, the home redirect, the pages,
    # the API's own documentation pages and their assets (api/api_docs.py)
    public = {
        route.path for route in api.client.app.router.routes if getattr(route, "path", None) is not None
    }
    assert public == {"/openapi.json", "/", "/ui", "/docs", "/redoc", "/docs-assets"}
    assert STATIC_DIR.is_dir()


def test_surveillance_never_changes_anything_and_a_dealer_never_voids_or_overrides():
    assert not any(
        S in roles
        for (method, path), (roles, _) in MATRIX.items()
        if method in CHANGES and (method, path) not in SESSION
    )
    assert D not in MATRIX[("POST", "/api/round/void")][0]
    assert D not in MATRIX[("POST", "/api/round/dealer/override")][0]


@pytest.mark.parametrize("role", ROLES)
def test_each_role_against_each_endpoint(api, role):
    outcome = {}
    for (method, path), (allowed, request) in MATRIX.items():
        answer = api.client.request(method, concrete(path), headers=api.headers(role), **request)
        outcome[(method, path)] = answer.status_code
        if role in allowed:
            # a 403 for an allowed role is never about the role: only a two-person rule refuses
            # the person (the admin confirming the key they made themselves: docs/api.md)
            refused_person = answer.status_code == 403 and answer.json()["error"] == "two-person-rule"
            assert answer.status_code != 401 and (answer.status_code != 403 or refused_person), (
                method,
                path,
                role,
                answer.text,
            )
            assert answer.status_code < 500, (method, path, role, answer.text)
        else:
            assert answer.status_code == 403, (method, path, role, answer.text)
            assert answer.json()["error"] == "forbidden"
            assert answer.json()["detail"].startswith(f"role {role} may not ")


def test_no_credentials_is_401_everywhere(api):
    for (method, path), (_, request) in MATRIX.items():
        answer = api.client.request(method, concrete(path), **request)
        assert answer.status_code == 401, (method, path)


def test_the_openapi_document_names_the_roles_of_each_operation(api):
    document = api.client.get("/openapi.json").json()
    for (method, path), (allowed, _) in MATRIX.items():
        operation = document["paths"][path][method.lower()]
        assert set(operation["x-roles"]) == allowed, (method, path)
        if (method, path) in ANY_ROLE:
            assert set(operation["responses"]) == {"200", "401", "503"}, (method, path)
        elif (method, path) in SESSION:
            assert {"401", "403", "503"} <= set(operation["responses"]), (method, path)
            assert "422" not in operation["responses"], (method, path)
        else:
            assert {"401", "403", "422"} <= set(operation["responses"]), (method, path)
