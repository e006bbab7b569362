"""Remembered tokens (api/tokens.py): a person's token is looked up once and remembered for a
few seconds; a change made through the API takes effect at the next request, one made behind
the API's back within the time to live (docs/api.md, "Tokens")."""

from __future__ import annotations

import pytest
from sqlmodel import select

from table_controller.api.tokens import MAX_ENTRIES, Principal, TokenCache
from table_controller.storage import unit_of_work
from table_controller.storage.users import Role, User


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


ANN = Principal(name="ann", role=Role.DEALER)


def test_a_token_is_remembered_for_its_time_to_live_only():
    clock = Clock()
    cache = TokenCache(5.0, clock=clock)
    assert cache.get("pgt_a") is None
    cache.put("pgt_a", ANN)
    clock.now = 104.999
    assert cache.get("pgt_a") == ANN
    assert cache.get("pgt_b") is None  # another token is not that person
    clock.now = 105.0
    assert cache.get("pgt_a") is None
    assert cache.get("pgt_a") is None  # forgotten, not revived


def test_clear_forgets_every_token_and_the_cache_is_bounded():
    cache = TokenCache(60.0, clock=Clock())
    cache.put("pgt_a", ANN)
    cache.clear()
    assert cache.get("pgt_a") is None
    for n in range(MAX_ENTRIES):
        cache.put(f"pgt_{n}", ANN)
    assert cache.get("pgt_0") == ANN
    cache.put("pgt_one_more", ANN)  # full: starts over rather than grow
    assert cache.get("pgt_0") is None and cache.get("pgt_one_more") == ANN


def test_the_cache_keys_on_the_token_hash_not_the_token():
    cache = TokenCache(60.0, clock=Clock())
    cache.put("pgt_secret", ANN)
    assert all("pgt_secret" not in repr(key) for key in cache._entries)


def test_a_negative_time_to_live_is_refused():
    with pytest.raises(ValueError, match="ttl must be >= 0"):
        TokenCache(-1)


def _disable_behind_the_apis_back(engine, name: str) -> None:
    with unit_of_work(engine) as session:
        row = session.exec(select(User).where(User.name == name)).one()
        row.disabled = True
        session.add(row)


def test_a_person_disabled_through_the_api_is_refused_at_the_next_request(api):
    assert api.get("/api/table", "dealer").status_code == 200  # ann's token is now remembered
    assert api.post("/api/users/ann/disable", "admin").status_code == 200
    assert api.get("/api/table", "dealer").status_code == 401


def test_a_new_key_through_the_api_refuses_the_old_token_at_once(api):
    assert api.get("/api/table", "pit").status_code == 200
    answer = api.post("/api/users/bob/token", "admin")
    assert answer.status_code == 200
    assert api.get("/api/table", "pit").status_code == 401
    fresh = api.client.get("/api/table", headers={"Authorization": f"Bearer {answer.json()['token']}"})
    assert fresh.status_code == 200


def test_a_change_behind_the_apis_back_takes_effect_within_the_time_to_live(api):
    clock = Clock()
    api.client.app.state.tokens = TokenCache(5.0, clock=clock)
    assert api.get("/api/table", "dealer").status_code == 200
    _disable_behind_the_apis_back(api.engine, "ann")
    clock.now += 4.0
    assert api.get("/api/table", "dealer").status_code == 200  # remembered: the documented window
    clock.now += 1.0
    assert api.get("/api/table", "dealer").status_code == 401


def test_an_unknown_token_is_never_remembered(api):
    api.client.app.state.tokens = cache = TokenCache(60.0, clock=Clock())
    assert api.client.get("/api/table", headers={"Authorization": "Bearer pgt_nobody"}).status_code == 401
    assert cache._entries == {}
