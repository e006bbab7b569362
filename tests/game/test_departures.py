"""Departures from the rules documents (game/departures.py; docs/settlement.md, 9)."""

from table_controller.game.cards import Game
from table_controller.game.departures import departures
from table_controller.game.money import PercentCommission, RoundingMode
from table_controller.game.table_rules import TableRules


def test_a_table_by_the_documents_departs_from_nothing():
    assert departures(TableRules(), allow_in_double_joker=False) == ()
    assert departures(TableRules(game=Game.DOUBLE_JOKER), allow_in_double_joker=False) == ()
    # a standard table that "allows" Double Joker banking plays by 001/004: nothing departs
    assert departures(TableRules(), allow_in_double_joker=True) == ()


def test_player_banking_at_a_double_joker_table_departs_from_003():
    (found,) = departures(TableRules(game=Game.DOUBLE_JOKER), allow_in_double_joker=True)
    assert (found.setting, found.value, found.cite) == (
        "banking.allow_in_double_joker",
        "true",
        "003_4dcc2fceebc6e4af.txt",
    )
    assert found.rule == "The Dealer is always considered position #1"


def test_commission_rounded_other_than_up_departs_from_002():
    for mode in (RoundingMode.HALF_UP, RoundingMode.DOWN):
        rules = TableRules(commission=PercentCommission(rounding=mode))
        (found,) = departures(rules, allow_in_double_joker=False)
        assert (found.setting, found.value, found.cite) == (
            "rules.commission.rounding",
            mode.value,
            "002_08ea07f9e4b504bc.txt",
        )
        assert "rounded up" in found.rule
    assert departures(TableRules(commission=PercentCommission()), allow_in_double_joker=False) == ()
