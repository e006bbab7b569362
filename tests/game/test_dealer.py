"""The banker's required setting: Double Joker overqualifier (003) and house-way enforcement."""

import pytest

from table_controller.game.cards import Game, parse_cards
from table_controller.game.dealer import (
    OVERQUALIFIER_RULE_ID,
    can_overqualify,
    check_dealer_setting,
    overqualifier_setting,
    required_setting,
)
from table_controller.game.setting import Setting, SettingError, same_values

DJ = Game.DOUBLE_JOKER


def hand(text):
    return parse_cards(text)


def test_overqualifier_keeps_four_of_a_kind_behind_where_the_house_way_would_split_it():
    cards = hand("Ks Kh Kd Kc 5s 5h 2c")
    # 002 "4-of-a-kind and a Pair, rank of the 4-of-a-kind greater": two Kings in front.
    standard = required_setting(cards, Game.STANDARD)
    assert [c.rank for c in standard.setting.low] == [13, 13]
    # 003 overqualifier: the four Kings stay behind, the strongest low (the pair of 5s) in front.
    required = required_setting(cards, DJ)
    assert required.rule_id == OVERQUALIFIER_RULE_ID
    assert sorted(c.code for c in required.setting.low) == ["5h", "5s"]
    assert sorted(c.code for c in required.setting.high) == sorted(["Ks", "Kh", "Kd", "Kc", "2c"])


def test_overqualifier_with_two_jokers_five_aces_puts_ace_seven_in_front():
    cards = hand("As Ah Ad JK JK 7c 2d")
    setting = overqualifier_setting(cards)
    # Four Aces behind with the 2, an Ace and the 7 in front beats five Aces with 7-2 in front.
    expected = Setting(high=hand("As Ah Ad JK 2d"), low=hand("JK 7c"))
    assert same_values(setting, expected)


def test_overqualifier_straight_flush_behind_strongest_low_in_front():
    cards = hand("5s 6s 7s 8s 9s Ah Kd")
    setting = overqualifier_setting(cards)
    assert sorted(c.code for c in setting.low) == ["Ah", "Kd"]


def test_can_overqualify_needs_four_of_a_kind_or_better():
    assert can_overqualify(hand("9s 9h 9d JK 2c 3d 4h")) is False  # JK is an Ace, not a 9
    assert can_overqualify(hand("As Ah Ad JK 2c 3d 8h")) is True  # four Aces with the joker
    assert can_overqualify(hand("2h 3h 4h 5h JK Kc Qd")) is True  # joker fills a straight flush


def test_double_joker_hand_without_four_of_a_kind_is_set_by_the_house_way():
    required = required_setting(hand("Ac Qd 9h 7s 5c 3d 2h"), DJ)
    assert required.rule_id != OVERQUALIFIER_RULE_ID
    assert sorted(c.code for c in required.setting.low) == ["7s", "Qd"]


def test_a_dealer_setting_that_follows_the_house_way_matches():
    cards = hand("Ac Qd 9h 7s 5c 3d 2h")  # readings C1: low Qd 7s
    check = check_dealer_setting(cards, high=hand("Ac 9h 5c 3d 2h"), low=hand("Qd 7s"))
    assert check.matches


def test_a_deviating_dealer_setting_is_refused_with_the_required_setting_and_rule():
    cards = hand("Ac Qd 9h 7s 5c 3d 2h")
    check = check_dealer_setting(cards, high=hand("Ac 7s 5c 3d 2h"), low=hand("Qd 9h"))
    assert not check.matches
    assert sorted(c.code for c in check.required.setting.low) == ["7s", "Qd"]
    assert check.required.rule_id.startswith("high-card")


def test_a_setting_equal_in_value_but_for_suits_matches():
    cards = hand("Ks Kh 9d 9c 5s 4h 2c")  # Pairs, two pairs: the lowest pair in front
    check = check_dealer_setting(cards, high=hand("Ks Kh 5s 4h 2c"), low=hand("9d 9c"))
    assert check.matches


def test_a_setting_not_made_of_the_hand_is_an_error():
    cards = hand("Ac Qd 9h 7s 5c 3d 2h")
    with pytest.raises(SettingError, match="extra"):
        check_dealer_setting(cards, high=hand("Ac 9h 5c 3d 2h"), low=hand("Qd 8s"))


def test_a_double_joker_table_without_overqualifier_rules_uses_the_house_way():
    cards = hand("Ks Kh Kd Kc 5s 5h 2c")
    required = required_setting(cards, DJ, overqualifier=False)
    assert required.rule_id != OVERQUALIFIER_RULE_ID
    assert [c.rank for c in required.setting.low] == [13, 13]  # 002: two from the 4-of-a-kind
