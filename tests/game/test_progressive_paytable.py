"""A progressive wager's pay table as data, and the round's hits from the card read
(progressive-research.md §1.6-§1.8; docs/progressive.md)."""

from __future__ import annotations

import copy

import pytest

from table_controller.game.fortune import FortuneHand
from table_controller.game.progressive import PercentBase, SimultaneousRule
from table_controller.game.progressive_paytable import (
    AwardKind,
    ProgressivePayTableError,
    WagerRefusedError,
    check_progressive_wager,
    load_progressive_paytable,
    progressive_hits,
    progressive_paytable_from_mapping,
)

F = FortuneHand

DATA = {
    "name": "t",
    "wager": 100,
    "simultaneous": "shared",
    "percent_base": "meter-before-batch",
    "levels": [{"name": "jackpot", "base": 1_000_000, "reset": 900_000, "increment_bp": 1_500}],
    "awards": {
        "seven-card-natural-straight-flush": {"meter": "jackpot", "share_bp": 10_000},
        "five-aces": {"meter": "jackpot", "share_bp": 1_000},
        "royal-flush": {"amount": 50_000},
        "full-house": {"odds": 4},
    },
}


def _with(**changes):
    data = copy.deepcopy(DATA)
    data.update(changes)
    return data


def test_the_shipped_example_reads() -> None:
    table = load_progressive_paytable()
    assert table.wager == 100 and not table.toke_wagers and table.hold_from == 50_000
    assert table.simultaneous is SimultaneousRule.IN_ORDER and table.percent_base is PercentBase.AT_PAYMENT
    top = table.award(F.SEVEN_CARD_NATURAL_STRAIGHT_FLUSH)
    assert top is not None and top.kind is AwardKind.METER and top.share_bp == 10_000
    assert table.award(F.FLUSH) is None  # full house or better qualifies


def test_a_table_from_a_mapping_and_its_awards() -> None:
    table = progressive_paytable_from_mapping(DATA)
    assert table.simultaneous is SimultaneousRule.SHARED and table.percent_base is PercentBase.BEFORE_BATCH
    assert table.award(F.FIVE_ACES).gross(100, 1_234_567) == 123_456  # 10%, down to the cent
    assert table.award(F.ROYAL_FLUSH).gross(100, 0) == 50_000  # for 1: the wager kept
    assert table.award(F.FULL_HOUSE).gross(100, 0) == 500  # 4 to 1: 400 won and the 100 back


@pytest.mark.parametrize(
    "data",
    [
        _with(extra=1),
        _with(wager=0),
        _with(simultaneous="first-come"),
        _with(toke_wagers="no"),
        _with(hold_from=0),
        _with(hold_from=5.5),
        _with(awards={**DATA["awards"], "six-aces": {"amount": 1}}),
        _with(awards={**DATA["awards"], "flush": {"meter": "mini", "share_bp": 100}}),
        _with(awards={**DATA["awards"], "flush": {"meter": "jackpot", "share_bp": 10_001}}),
        _with(awards={**DATA["awards"], "flush": {"amount": 0}}),
        _with(awards={**DATA["awards"], "flush": {"amount": 1, "odds": 2}}),
        _with(awards={**DATA["awards"], "flush": 5}),
        _with(levels=[*DATA["levels"], {"name": "mini", "base": 1_000, "reset": 1_000, "increment_bp": 100}]),
        _with(levels=[{"name": "jackpot", "base": 1_000, "reset": 2_000, "increment_bp": 100}]),
        _with(levels=[{"name": "jackpot", "base": 1_000, "reset": 1_000, "increment_bp": 100, "seed": 1}]),
        _with(
            levels=[{"name": "jackpot", "base": 1_000, "reset": 1_000, "increment_bp": 1, "overflow": "x"}]
        ),
    ],
)
def test_bad_tables_are_refused(data) -> None:
    with pytest.raises(ProgressivePayTableError):
        progressive_paytable_from_mapping(data)


def test_a_missing_file_is_refused(tmp_path) -> None:
    with pytest.raises(ProgressivePayTableError):
        load_progressive_paytable(tmp_path / "none.toml")


def test_the_wager_is_the_fixed_amount_and_no_toke() -> None:
    table = progressive_paytable_from_mapping(DATA)
    assert check_progressive_wager(table, 100) == 100
    with pytest.raises(WagerRefusedError):
        check_progressive_wager(table, 500)
    with pytest.raises(WagerRefusedError):
        check_progressive_wager(table, 100, toke=True)
    tokes = progressive_paytable_from_mapping(_with(toke_wagers=True))
    assert check_progressive_wager(tokes, 100, toke=True) == 100


def test_the_hits_of_a_round_come_from_the_card_read() -> None:
    """Positions 2 and 5 hold a natural 7-card straight flush and five aces, 3 a royal, 4 a
    full house without a progressive wager: only wagered positions win; the meter claims
    are numbered in position order."""
    table = progressive_paytable_from_mapping(DATA)
    hands = {
        1: F.NOTHING,
        2: F.SEVEN_CARD_NATURAL_STRAIGHT_FLUSH,
        3: F.ROYAL_FLUSH,
        4: F.FULL_HOUSE,
        5: F.FIVE_ACES,
        6: F.FLUSH,
    }
    claims, fixed = progressive_hits(table, hands, {2, 3, 5, 6}, table_id="T7", first_sequence=40)
    assert [(c.sequence, c.position, c.share_bp, c.line) for c in claims] == [
        (40, 2, 10_000, "seven-card-natural-straight-flush"),
        (41, 5, 1_000, "five-aces"),
    ]
    assert {p: a.amount for p, a in fixed.items()} == {3: 50_000}
    with pytest.raises(ProgressivePayTableError):
        progressive_hits(table, hands, {7}, table_id="T7", first_sequence=1)
