"""``GET /api/me``: who the token belongs to, their role and its permissions (any role). The
pages use it to offer only the commands the role may use."""

from __future__ import annotations

from .conftest import PEOPLE

PERMISSIONS = {
    "dealer": ["read-table", "play", "sign", "rate"],
    "pit": [
        "read-table",
        "play",
        "void",
        "override",
        "acknowledge",
        "open-close",
        "audit",
        "confirm",
        "account",
        "sign",
        "see-face-down",
        "rate",
        "limits",
    ],
    "surveillance": ["read-table", "audit", "device-frames", "see-face-down"],
    "admin": ["admin"],
}


def test_each_role_is_told_its_name_and_permissions(api):
    for role, permissions in PERMISSIONS.items():
        answer = api.get("/api/me", role)
        assert answer.status_code == 200
        assert answer.json() == {
            "name": PEOPLE[role],
            "role": role,
            "permissions": permissions,
            "confirmed": True,
        }


def test_a_missing_wrong_or_disabled_token_is_401(api):
    assert api.client.get("/api/me").status_code == 401
    assert api.client.get("/api/me", headers={"Authorization": "Bearer pgt_wrong"}).status_code == 401
    assert api.post("/api/users/ann/disable", "admin").status_code == 200
    answer = api.get("/api/me", "dealer")
    assert (answer.status_code, answer.json()["error"]) == (401, "unauthorized")
