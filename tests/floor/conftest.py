"""Fixtures of the floor tests: a floor of three tables on one store (SQLite and PostgreSQL),
t1 and t2 in pit-a, t3 in pit-b, each table's rounds played through its own ``TableService`` on
that store, and people scoped as docs/floor.md says (floor/scope.py)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine
from sqlmodel import select

from table_controller.floor.app import create_floor_app
from table_controller.floor.settings import FloorSettings
from table_controller.round.events import DiceRolled, PilesDealt, Wager
from table_controller.settings import TableSettings
from table_controller.storage import add_user, unit_of_work
from table_controller.storage.floor_tables import register_table
from table_controller.storage.users import User
from table_controller.table.service import TableService

from ..api.conftest import HOUSE_WAY, LOOPBACK
from ..round.tables import BANKER, POSITION_3, POSITION_5, deal

# name -> (role, pit, table): who sees what (docs/floor.md, "Who sees what")
PEOPLE = {
    "pia": ("pit", "pit-a", None),
    "paul": ("pit", "pit-a", None),
    "pete": ("pit", "pit-b", None),
    "dan": ("dealer", None, "t1"),
    "cy": ("surveillance", None, None),
    "nopit": ("pit", None, None),
    "dee": ("admin", None, None),
}
TABLES = {"t1": "pit-a", "t2": "pit-a", "t3": "pit-b"}
WAGERS = {3: Wager(main=2500), 5: Wager(main=1000)}


def add_people(engine: Engine) -> dict[str, str]:
    """The people of PEOPLE with their tokens; the scope set on their row as an admin sets it."""
    tokens = {}
    with unit_of_work(engine) as session:
        for name, (role, pit, table_id) in PEOPLE.items():
            tokens[name] = add_user(session, name=name, role=role)
            row = session.exec(select(User).where(User.name == name)).one()
            row.pit, row.table_id = pit, table_id
            session.add(row)
    return tokens


def put_tables(engine: Engine, *, now: datetime | None = None, stale: tuple[str, ...] = ()) -> None:
    """The floor's rows of TABLES, as each daemon writes its own; ``stale`` ones last heard an
    hour ago."""
    moment = now or datetime.now(UTC)
    with unit_of_work(engine) as session:
        for table_id, pit in TABLES.items():
            register_table(
                session,
                table_id=table_id,
                pit=pit,
                game="standard",
                house_way="house-way-002",
                api_url=f"http://{table_id}.pit.example:8080",
                now=moment - timedelta(hours=1) if table_id in stale else moment,
            )


def play(service: TableService, *, how: str = "settle", opener: str = "dan") -> str:
    """One round with the hands of tests/round/tables.py through the table's service: ``settle``
    (house way), ``void`` (voided by pia before the dice) or ``override`` (pia lets a deviating
    dealer setting stand). Returns the round id."""
    state = service.open_round(WAGERS, opener)
    if how == "void":
        service.void("pia", "wagers placed late")
        return state.round_id
    service.record_dice(DiceRolled(faces=(1, 1, 1), source="shaker", actor="device:dice-shaker"))
    piles, unused = deal({1: BANKER, 3: POSITION_3, 5: POSITION_5}, start=3)
    service.record_deal(PilesDealt(piles=piles, unused=unused, actor="device:shuffler"))
    service.set_player(3, ["As", "Ah", "9c", "8c", "2c"], ["Kd", "Kh"], "dan")
    service.set_player(5, ["Kc", "8d", "6s", "4h", "3c"], ["Qh", "Jd"], "dan")
    if how == "override":
        service.override_dealer(["Ac", "7s", "5c", "3d", "2h"], ["Qd", "9h"], "pia", "approved misread")
    else:
        service.set_dealer(HOUSE_WAY["high"], HOUSE_WAY["low"], "dan")
    service.settle()
    return state.round_id


@dataclass
class Floor:
    client: TestClient
    engine: Engine
    tokens: dict[str, str]
    services: dict[str, TableService] = field(default_factory=dict)

    def headers(self, who: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[who]}"}

    def get(self, path: str, who: str = "cy", **kwargs):
        return self.client.get(path, headers=self.headers(who), **kwargs)

    def post(self, path: str, who: str = "pia", **kwargs):
        return self.client.post(path, headers=self.headers(who), **kwargs)


def services(engine: Engine) -> dict[str, TableService]:
    return {
        table_id: TableService(TableSettings(table_id=table_id, pit=pit), engine)
        for table_id, pit in TABLES.items()
    }


@pytest.fixture
def floor(engine: Engine) -> Iterator[Floor]:
    """The floor app in-process on both backends: three tables, no round played yet."""
    tokens = add_people(engine)
    put_tables(engine)
    app = create_floor_app(FloorSettings(db_url="sqlite://", poll_interval=0.02), engine)
    with TestClient(app, client=LOOPBACK) as client:
        yield Floor(client, engine, tokens, services(engine))
