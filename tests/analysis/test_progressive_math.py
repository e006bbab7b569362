"""A progressive pay table's return at a meter, break-even meter and long-run return, worked
from the research's counts by hand (progressive-research.md §1.2, §1.7; PRG-02)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from table_controller.analysis.progressive_math import ImprobableLevelError, progressive_math
from table_controller.game.fortune import FortuneHand
from table_controller.game.progressive_paytable import load_progressive_paytable

from .test_fortune_math import RESEARCH_COUNTS

F = FortuneHand
HANDS = 154_143_080


@pytest.fixture(scope="module")
def math():
    return progressive_math(load_progressive_paytable(), RESEARCH_COUNTS)


# The shipped example, written out: $1 wager; the whole meter for the natural 7-card straight
# flush; 10% of it for royal + match, the joker 7-card straight flush and five aces; $500,
# $100, $75, $5 for royal, straight flush, quads, full house; reset $10,000; 15% increment.
FIXED_CENTS = 26_020 * 50_000 + 184_644 * 10_000 + 307_472 * 7_500 + 4_188_528 * 500
TENTH_LINES = 72 + 196 + 1_128


def test_the_return_at_a_meter(math) -> None:
    for meter in (1_000_000, 5_000_000):
        expected = Fraction(FIXED_CENTS + 32 * meter + TENTH_LINES * meter // 10, HANDS * 100)
        assert math.return_at({"jackpot": meter}) == expected
    assert math.return_at() == math.return_at({"jackpot": 1_000_000})


def test_the_break_even_meter(math) -> None:
    meter = math.break_even_meter("jackpot")
    # 32 M + 1,396 M / 10 + fixed = 100 cents x every hand
    assert meter == Fraction(HANDS * 100 - FIXED_CENTS, 1) / (32 + Fraction(TENTH_LINES, 10))
    assert math.return_at({"jackpot": meter}) == 1
    assert math.break_even_meter("nothing-pays-from-here") is None


def test_the_long_run_return(math) -> None:
    expected = Fraction(FIXED_CENTS, HANDS * 100) + Fraction(15, 100) + Fraction(32 * 1_000_000, HANDS * 100)
    assert math.long_run_return() == expected


def test_each_levels_probability_is_exported_and_a_rarer_than_1_in_100_million_is_refused(math) -> None:
    assert math.level_probability("jackpot") == Fraction(32 + TENTH_LINES, HANDS)
    math.check_probabilities()
    rare = {hand: count * 4 for hand, count in RESEARCH_COUNTS.items()}
    rare[F.SEVEN_CARD_NATURAL_STRAIGHT_FLUSH] = 1  # 1 in ~617 million
    table = load_progressive_paytable()
    only_top = type(table)(
        name="top only",
        wager=100,
        levels=table.levels,
        awards={F.SEVEN_CARD_NATURAL_STRAIGHT_FLUSH: table.awards[F.SEVEN_CARD_NATURAL_STRAIGHT_FLUSH]},
    )
    with pytest.raises(ImprobableLevelError):
        progressive_math(only_top, rare).check_probabilities()
    with pytest.raises(ImprobableLevelError):  # a line rarer than the bound, in a likely level
        progressive_math(table, rare).check_probabilities()


def test_the_document_carries_the_prg_02_export(math) -> None:
    document = math.as_dict(meter=2_000_000)
    level = document["levels"][0]
    assert (level["base_cents"], level["reset_cents"], level["increment_bp"]) == (1_000_000, 1_000_000, 1_500)
    assert level["probability"] == str(Fraction(32 + TENTH_LINES, HANDS))
    assert level["return_at_meter"] == float(math.return_at({"jackpot": 2_000_000}))
