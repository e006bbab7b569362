"""The table's rules as the table page shows them (GET /api/table/rules), and the phase of a
round in words beside its slug (round/phase_words.py; docs/api.md)."""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterator

import pytest

from table_controller.round.phase_words import PHASE_WORDS
from table_controller.round.phases import Phase
from table_controller.settings import Limits, TableSettings
from table_controller.shipped import CONFIG_DIR
from table_controller.storage import make_engine, sqlite_url, upgrade_to_head

from .conftest import WAGERS, Api, deal_round, make_api, play_round


@pytest.fixture
def store(tmp_path):
    engine = make_engine(sqlite_url(tmp_path))
    upgrade_to_head(engine)
    try:
        yield engine
    finally:
        engine.dispose()


@pytest.fixture
def standard(store) -> Iterator[Api]:
    settings = TableSettings(table_id="t1", limits=Limits(min_main=1000, max_main=50_000, max_bonus=0))
    yield from make_api(store, settings)


def test_every_phase_has_its_own_words():
    assert set(PHASE_WORDS) == set(Phase)
    assert len(set(PHASE_WORDS.values())) == len(Phase)  # no two phases read the same
    assert all(words != phase.value for phase, words in PHASE_WORDS.items())


def test_the_standard_tables_rules_in_cents_and_words(standard):
    answer = standard.get("/api/table/rules", "dealer")  # every role that reads the table
    assert answer.status_code == 200, answer.text
    rules = answer.json()
    way_file = CONFIG_DIR / "house_ways" / "house-way-002.toml"
    assert rules["table_id"] == "t1" and rules["game"] == "standard"
    assert rules["limits"] == {"min_main_cents": 1000, "max_main_cents": 50_000, "max_bonus_cents": 0}
    assert rules["house_way"]["name"] == "house-way-002"
    assert rules["house_way"]["sha256"] == hashlib.sha256(way_file.read_bytes()).hexdigest()
    assert rules["rules_version"]["house_way"] == rules["house_way"]["sha256"]
    # 001: a foul loses the wager; 002: 5% commission rounded up to a quarter of the $1 chip
    assert (rules["foul_rule"], rules["foul_rule_words"]) == (
        "forfeit",
        "a fouled hand loses its main wager (001)",
    )
    assert rules["banker_foul_rule"] == "forfeit"
    assert rules["departures"] == []  # a table by the documents departs from nothing
    assert rules["commission"] == {
        "kind": "percent",
        "rate_bp": 500,
        "rounding_unit_cents": 25,
        "rounding": "up",
        "fee_cents": None,
        "words": "5% of each win, rounded up to a multiple of $0.25 (002)",
    }
    assert rules["overqualifier"] is False and rules["premium_multiple"] is None
    assert rules["paytables"] == []


def test_the_double_joker_tables_pay_tables_and_no_commission(store):
    settings = TableSettings(table_id="t2", game="double-joker", rules={"foul_rule": "house-way"})
    with contextlib.closing(make_api(store, settings)) as apis:
        rules = next(apis).get("/api/table/rules", "surveillance").json()
    assert rules["game"] == "double-joker"
    assert rules["commission"]["kind"] == "none"  # 003: "he wins even money"
    assert rules["overqualifier"] is True and rules["premium_multiple"] == 3  # 003: "triple"
    assert rules["foul_rule_words"] == "a fouled hand is set again by the house way, then compared (004)"
    assert rules["banker_foul_rule"] == "house-way"  # not set: as the table's foul rule
    big_hand, joker = rules["paytables"]
    assert big_hand["bonus"] == "big-hand" and joker["bonus"] == "joker-bonus"
    assert big_hand["lines"][0] == {
        "line": "seven-card-natural-straight-flush",
        "odds": 8888,
        "words": "8888 to 1",
    }
    assert big_hand["lines"][-1] == {"line": "straight-or-worse", "odds": None, "words": "loss"}
    assert [line["line"] for line in joker["lines"]][-1] == "no-jokers"
    assert set(rules["rules_version"]) == {
        "house_way",
        "table_rules",
        "paytable.big-hand",
        "paytable.joker-bonus",
    }


def test_the_phase_in_words_beside_the_slug_in_the_table_and_the_history(standard):
    assert play_round(standard) == "t1-1"
    assert standard.post("/api/round", "dealer", json=WAGERS).status_code == 201
    table = standard.get("/api/table").json()
    assert (table["round"]["phase"], table["round"]["phase_words"]) == ("open", PHASE_WORDS[Phase.OPEN])
    deal_round(standard)
    table = standard.get("/api/table").json()
    assert table["round"]["phase_words"] == "players' hands to set"
    page = standard.get("/api/rounds").json()["rounds"]
    assert [(r["phase"], r["phase_words"]) for r in page] == [
        ("players-setting", "players' hands to set"),
        ("closed", "settled"),
    ]
    steps = standard.get("/api/rounds/t1-1/replay").json()["steps"]
    assert steps[0]["state"]["phase_words"] == PHASE_WORDS[Phase.OPEN]
    assert steps[-1]["state"]["phase_words"] == "settled"


def test_house_options_that_depart_from_the_documents_are_named(store):
    settings = TableSettings(
        table_id="t3",
        game="double-joker",
        banking={"allow_in_double_joker": True},
        rules={"commission": {"kind": "percent", "rounding": "down"}},
    )
    with contextlib.closing(make_api(store, settings)) as apis:
        rules = next(apis).get("/api/table/rules", "dealer").json()
    assert [(d["setting"], d["value"], d["cite"]) for d in rules["departures"]] == [
        ("banking.allow_in_double_joker", "true", "003_4dcc2fceebc6e4af.txt"),
        ("rules.commission.rounding", "down", "002_08ea07f9e4b504bc.txt"),
    ]
    assert rules["departures"][0]["rule"] == "The Dealer is always considered position #1"
