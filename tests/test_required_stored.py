"""The setting the house way required of the banker's hand is kept with its round when the
piles are dealt (``rounds.house_way_required``, migration 0007): the round's detail reads it
instead of setting the hand again, and ``audit verify`` compares it with what replay derives.

Runs on SQLite and PostgreSQL (the ``engine`` fixture); rounds are played through the table
service, tampering is raw SQL behind the store's back."""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.engine import Engine

from table_controller.api.history import round_detail
from table_controller.record.check import check_record
from table_controller.record.pinned_rules import PinnedRules
from table_controller.round.events import DiceRolled, PilesDealt, Wager
from table_controller.settings import TableSettings
from table_controller.storage import read_snapshot
from table_controller.table.service import TableService

from .round.tables import BANKER, POSITION_3, deal

# The banker's Ac Qd 9h 7s 5c 3d 2h: no pair; 1st highest A, 2nd Q, 3rd 9, 4th 7, so house way
# 002's High Card row "2nd & 4th highest" fires: Q-7 in front, the other five behind.
REQUIRED = {
    "way": "house-way-002",
    "rule_id": "high-card.second-and-fourth",
    "rule_words": "High Card | 1st highest [Joker|A]; 2nd highest [K|Q]; 3rd highest [8|9|10];"
    " 4th highest [7|8] |  | The two cards will be 2nd & 4th highest",
    "high": ["Ac", "9h", "5c", "3d", "2h"],
    "low": ["Qd", "7s"],
}


def _dealt_round(engine: Engine, tmp_path: Path) -> tuple[TableService, str]:
    service = TableService(TableSettings(table_id="t1", data_dir=tmp_path), engine)
    service.resume()
    state = service.open_round({3: Wager(main=2500)}, actor="dealer-ann")
    service.record_dice(DiceRolled(faces=(1, 1, 1), source="rng"))
    piles, unused = deal({1: BANKER, 3: POSITION_3}, start=3)
    service.record_deal(PilesDealt(piles=piles, unused=unused))
    return service, state.round_id


def _stored(engine: Engine, round_id: str) -> str | None:
    with engine.connect() as connection:
        return connection.execute(
            text("SELECT house_way_required FROM rounds WHERE round_id = :r"), {"r": round_id}
        ).scalar_one()


def _set_stored(engine: Engine, round_id: str, value: str | None) -> None:
    with engine.begin() as connection:
        connection.execute(
            text("UPDATE rounds SET house_way_required = :v WHERE round_id = :r"), {"v": value, "r": round_id}
        )


def _detail_house_way(engine: Engine, round_id: str) -> dict[str, object]:
    with read_snapshot(engine) as session:
        house_way = round_detail(session, "t1", round_id).house_way
    assert house_way is not None
    return house_way.model_dump()


def test_the_required_setting_is_kept_when_the_piles_are_dealt_and_the_detail_reads_it(engine, tmp_path):
    _service, round_id = _dealt_round(engine, tmp_path)
    assert json.loads(_stored(engine, round_id) or "null") == REQUIRED
    expected = {k: REQUIRED[k] for k in ("way", "rule_id", "rule_words")} | {
        "setting": {"high": REQUIRED["high"], "low": REQUIRED["low"]}
    }
    shown = _detail_house_way(engine, round_id)
    assert {k: shown[k] for k in ("way", "rule_id", "rule_words")} | {
        "setting": {"high": shown["setting"]["high"], "low": shown["setting"]["low"]}
    } == expected
    # read as a person reads it: no empty field in the wording (game/house_way/wording.py)
    assert shown["rule_wording"] == (
        "High Card | 1st highest [Joker|A]; 2nd highest [K|Q]; 3rd highest [8|9|10];"
        " 4th highest [7|8] | The two cards will be 2nd & 4th highest"
    )
    # the detail re-derives the round from its chain: an edited row is named, never shown as
    # the house way (docs/api.md, "A forged stored value")
    _set_stored(engine, round_id, json.dumps({**REQUIRED, "rule_words": "kept"}))
    with read_snapshot(engine) as session:
        edited = round_detail(session, "t1", round_id)
    assert edited.house_way is None
    assert [line.split(": chained")[0] for line in edited.record_findings] == [
        f"round {round_id}: house_way_required.rule_words"
    ]
    # a round recorded before 0007 kept nothing: its pinned house way sets the hand as it did
    _set_stored(engine, round_id, None)
    assert _detail_house_way(engine, round_id) == shown


def test_an_edited_required_setting_is_named_by_the_record_check(engine, tmp_path):
    service, round_id = _dealt_round(engine, tmp_path)
    service.set_player(3, ["As", "Ah", "9c", "8c", "2c"], ["Kd", "Kh"], actor="dealer-ann")
    service.set_dealer(["Ac", "9h", "5c", "3d", "2h"], ["Qd", "7s"], actor="dealer-ann")
    service.settle()
    with read_snapshot(engine) as session:
        assert check_record(session, rules=PinnedRules()).ok
    # an insider makes the kept setting say the dealer was required to put A-Q in front
    edited = {**REQUIRED, "high": ["9h", "7s", "5c", "3d", "2h"], "low": ["Ac", "Qd"]}
    _set_stored(engine, round_id, json.dumps(edited))
    with read_snapshot(engine) as session:
        report = check_record(session, rules=PinnedRules())
    assert report.chain.ok  # the chain's links hold: only the re-derivation sees it
    assert [f.describe() for f in report.findings] == [
        f"round {round_id}: house_way_required.high: chained {REQUIRED['high']!r},"
        " stored ['9h', '7s', '5c', '3d', '2h']",
        f"round {round_id}: house_way_required.low: chained {REQUIRED['low']!r}, stored ['Ac', 'Qd']",
    ]
    _set_stored(engine, round_id, "not json")
    with read_snapshot(engine) as session:
        report = check_record(session, rules=PinnedRules())
    assert [f.what for f in report.findings] == ["house_way_required"]
