"""Fixtures of the API tests: a table service on a migrated store (SQLite and PostgreSQL), the
app built by ``create_app``, and one person per role with their token."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine

from table_controller.api import create_app
from table_controller.api.server import serving
from table_controller.round.events import DiceRolled, PilesDealt
from table_controller.settings import TableSettings
from table_controller.storage import add_user, make_engine, sqlite_url, unit_of_work, upgrade_to_head
from table_controller.table.service import TableService

from ..live_client import live_client
from ..round.tables import BANKER, POSITION_3, POSITION_5, deal

ROLES = ("dealer", "pit", "surveillance", "admin")
LOOPBACK = ("127.0.0.1", 50000)  # the in-process client is local: plain HTTP is taken from the loopback only
PEOPLE = {"dealer": "ann", "pit": "bob", "surveillance": "cy", "admin": "dee"}


@dataclass
class Api:
    client: TestClient
    service: TableService
    engine: Engine
    tokens: dict[str, str]

    def headers(self, role: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[role]}"}

    def get(self, path: str, role: str = "pit", **kwargs):
        return self.client.get(path, headers=self.headers(role), **kwargs)

    def post(self, path: str, role: str = "pit", **kwargs):
        return self.client.post(path, headers=self.headers(role), **kwargs)


def add_people(engine: Engine) -> dict[str, str]:
    with unit_of_work(engine) as session:
        return {role: add_user(session, name=PEOPLE[role], role=role) for role in ROLES}


def make_api(engine: Engine, settings: TableSettings | None = None) -> Iterator[Api]:
    settings = settings or TableSettings(table_id="t1")
    service = TableService(settings, engine)
    tokens = add_people(engine)
    app = create_app(settings, service, engine, poll_interval=0.02)
    with TestClient(app, client=LOOPBACK) as client:
        yield Api(client, service, engine, tokens)


class Served(NamedTuple):
    app: FastAPI
    base: str
    api: Api


@contextmanager
def served_api(
    folder: Path, *, poll_interval: float = 0.02, timeout: float = 5.0, settings: TableSettings | None = None
) -> Iterator[Served]:
    """The API over a real uvicorn on a loopback port, on a SQLite store in ``folder``, one person
    per role; the ``Api`` talks to it over HTTP."""
    engine = make_engine(sqlite_url(folder))
    try:
        upgrade_to_head(engine)
        settings = settings or TableSettings(table_id="t1")
        service = TableService(settings, engine)
        tokens = add_people(engine)
        app = create_app(settings, service, engine, poll_interval=poll_interval)
        with serving(app) as base, live_client(base_url=base, timeout=timeout) as client:
            yield Served(app, base, Api(client, service, engine, tokens))  # type: ignore[arg-type]
    finally:
        engine.dispose()


@pytest.fixture
def api(engine: Engine) -> Iterator[Api]:
    """The API on both backends (the ``engine`` fixture is parametrised)."""
    yield from make_api(engine)


def deal_round(api: Api, start: int = 3) -> None:
    """Dice and piles recorded through the service, as the devices would: the dice (1, 1, 1)
    total 3, so the first pile goes to position 3 (000, 004); hands from tests/round/tables.py."""
    api.service.record_dice(DiceRolled(faces=(1, 1, 1), source="shaker", actor="device:dice-shaker"))
    piles, unused = deal({1: BANKER, 3: POSITION_3, 5: POSITION_5}, start=start)
    api.service.record_deal(PilesDealt(piles=piles, unused=unused, actor="device:shuffler"))


HOUSE_WAY = {"high": ["Ac", "9h", "5c", "3d", "2h"], "low": ["Qd", "7s"]}  # 002 High Card: 2nd and 4th
MIS_SET = {"high": ["Ac", "7s", "5c", "3d", "2h"], "low": ["Qd", "9h"]}
WAGERS = {"wagers": {"3": {"main": 2500}, "5": {"main": 1000}}}


def set_player_hands(api: Api) -> None:
    """Positions 3 and 5 set their hands of tests/round/tables.py through the dealer's terminal."""
    api.post(
        "/api/round/players/3/setting",
        "dealer",
        json={"high": ["As", "Ah", "9c", "8c", "2c"], "low": ["Kd", "Kh"]},
    )
    api.post(
        "/api/round/players/5/setting",
        "dealer",
        json={"high": ["Kc", "8d", "6s", "4h", "3c"], "low": ["Qh", "Jd"]},
    )


def play_round(api: Api, opener: str = "dealer", *, how: str = "settle") -> str:
    """One round with the hands of tests/round/tables.py, ending as ``how`` says: ``settle``
    (house way), ``override`` (a deviation the pit lets stand, then settled), ``void`` (voided
    by the pit before the dice) or ``misdeal`` (a card seen twice). Returns the round id."""
    opened = api.post("/api/round", opener, json=WAGERS)
    assert opened.status_code == 201, opened.text
    round_id = opened.json()["round"]["round_id"]
    if how == "void":
        assert api.post("/api/round/void", "pit", json={"reason": "wagers placed late"}).status_code == 200
        return round_id
    api.service.record_dice(DiceRolled(faces=(1, 1, 1), source="shaker", actor="device:dice-shaker"))
    piles, unused = deal({1: BANKER, 3: POSITION_3, 5: POSITION_5}, start=3)
    if how == "misdeal":
        unused[0] = piles[2][0]  # a card seen twice, and one never seen
    api.service.record_deal(PilesDealt(piles=piles, unused=unused, actor="device:shuffler"))
    if how == "misdeal":
        return round_id
    set_player_hands(api)
    if how == "override":
        assert api.post("/api/round/dealer/setting", "dealer", json=MIS_SET).status_code == 409
        assert (
            api.post(
                "/api/round/dealer/override", "pit", json={**MIS_SET, "reason": "approved misread"}
            ).status_code
            == 200
        )
    else:
        assert api.post("/api/round/dealer/setting", "dealer", json=HOUSE_WAY).status_code == 200
    api.service.settle()
    return round_id


@pytest.fixture
def four_rounds(api: Api) -> Api:
    """t1-1 settled (ann), t1-2 voided (opened by bob), t1-3 misdeal (ann), t1-4 override (ann)."""
    assert play_round(api) == "t1-1"
    assert play_round(api, "pit", how="void") == "t1-2"
    assert play_round(api, how="misdeal") == "t1-3"
    assert play_round(api, how="override") == "t1-4"
    return api
