"""TableRules: the game's defaults (001, 002, 003) and refusal of unsafe values."""

import pytest
from pydantic import ValidationError

from table_controller.game.cards import Game
from table_controller.game.evaluator import RankingRules, Wheel
from table_controller.game.money import FlatFee, NoCommission, PercentCommission, RoundingMode
from table_controller.game.paytables import Bonus, load_paytable
from table_controller.game.table_rules import STANDARD_RULES, FoulRule, TableRules


def test_standard_defaults_are_forfeit_and_five_percent_up_to_a_quarter_of_one_dollar():
    rules = TableRules()
    assert rules == STANDARD_RULES
    assert rules.game is Game.STANDARD
    assert rules.ranking == RankingRules(wheel=Wheel.NEVADA, joker_wild_in_low=False)
    assert rules.foul_rule is FoulRule.FORFEIT
    assert rules.commission == PercentCommission(rate_bp=500, lowest_chip=100, rounding=RoundingMode.UP)
    assert rules.commission.rounding_unit == 25
    assert rules.overqualifier is False
    assert rules.big_hand is None and rules.joker_bonus is None
    assert rules.foul_forfeits_bonuses is False


def test_double_joker_defaults_no_commission_overqualifier_triple_and_003_pay_tables():
    rules = TableRules(game="double-joker")
    assert rules.game is Game.DOUBLE_JOKER
    assert rules.commission == NoCommission()
    assert rules.overqualifier is True
    assert rules.premium_multiple == 3
    assert rules.big_hand == load_paytable(Bonus.BIG_HAND)
    assert rules.joker_bonus == load_paytable(Bonus.JOKER)
    assert rules.paytable(Bonus.JOKER).line("two-jokers-player").odds == 15
    assert rules.foul_forfeits_bonuses is False


def test_double_joker_settings_can_be_changed():
    rules = TableRules(
        game=Game.DOUBLE_JOKER,
        commission={"kind": "percent"},
        overqualifier=False,
        premium_multiple=4,
        foul_rule="house-way",
        foul_forfeits_bonuses=True,
        joker_bonus=None,  # the table does not offer the Joker Bonus
    )
    assert rules.commission.rounding_unit == 25
    assert (rules.overqualifier, rules.premium_multiple) == (False, 4)
    assert rules.foul_rule is FoulRule.HOUSE_WAY
    assert rules.paytable(Bonus.JOKER) is None
    assert rules.paytable(Bonus.BIG_HAND) is not None


@pytest.mark.parametrize("multiple", [1, 2, 3, 4])
def test_premium_multiple_is_one_to_four(multiple):
    assert TableRules(game="double-joker", premium_multiple=multiple).premium_multiple == multiple


@pytest.mark.parametrize("multiple", [0, 5, -3, 3.0, True, "3"])
def test_other_premium_multiples_are_refused(multiple):
    with pytest.raises(ValidationError, match="premium_multiple"):
        TableRules(game="double-joker", premium_multiple=multiple)


def test_california_table_settings():
    rules = TableRules(
        ranking={"wheel": "california", "joker_wild_in_low": True},
        commission={"kind": "flat-fee", "fee": 100},
    )
    assert rules.ranking == RankingRules(wheel=Wheel.CALIFORNIA, joker_wild_in_low=True)
    assert rules.commission == FlatFee(fee=100)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"overqualifier": True}, "overqualifier applies only to the double-joker"),
        ({"big_hand": load_paytable(Bonus.BIG_HAND)}, "pay tables apply only to the double-joker"),
        ({"joker_bonus": load_paytable(Bonus.JOKER)}, "pay tables apply only to the double-joker"),
        ({"game": "pai-gow"}, "game"),
        ({"foul_rule": "rearrange"}, "foul_rule"),
        ({"commission": {"kind": "percent", "rate_bp": 5000}}, "rate_bp"),
        ({"commission": {"kind": "flat-fee", "fee": 0}}, "fee"),
        ({"commission": {"kind": "percent", "lowest_chip": 50}}, "unit"),
        ({"commission": 0.05}, "commission"),
        ({"foul_forfeits_bonuses": "yes"}, "foul_forfeits_bonuses"),
        ({"house_edge": 1}, "house_edge"),
    ],
)
def test_unsafe_values_are_refused_with_the_field_named(fields, message):
    with pytest.raises(ValidationError, match=message):
        TableRules(**fields)


def test_a_pay_table_in_the_wrong_slot_is_refused():
    with pytest.raises(ValidationError, match="big_hand must be a big-hand pay table"):
        TableRules(game="double-joker", big_hand=load_paytable(Bonus.JOKER))


def test_rules_are_frozen():
    with pytest.raises(ValidationError):
        STANDARD_RULES.foul_rule = FoulRule.HOUSE_WAY  # type: ignore[misc]
