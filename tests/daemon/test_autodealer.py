"""The auto-dealer's decisions: wagers inside the table limits (docs/round-lifecycle.md, "The
phases"; bonuses only in Double Joker, 003_4dcc2fceebc6e4af.txt), player settings by the house
way, another legal way or a foul (001_c9adb19db438d99f.txt, 004_60e2fc6346e3399b.txt), the dealer
by the required setting."""

from __future__ import annotations

from table_controller.game.cards import Game, codes, parse_cards
from table_controller.game.house_way import load_house_way
from table_controller.game.setting import Setting, is_legal
from table_controller.round.events import DiceRolled, PilesDealt
from table_controller.round.machine import apply, open_round
from table_controller.settings import AutoDealerSettings, Limits
from table_controller.table.autodealer import AutoDealer

from ..round.tables import BANKER, POSITION_3, POSITION_5, deal, game_rules, opened

LIMITS = Limits(min_main=500, max_main=100_000, max_bonus=2_500)
WAY = load_house_way("house-way-002")
RULES = game_rules()


def _dealer(**rates) -> AutoDealer:
    return AutoDealer(AutoDealerSettings(enabled=True, seed=3, **rates), Game.STANDARD, LIMITS)


def _players_setting_round():
    state = open_round(opened({3: 2500, 5: 1000}))
    state = apply(
        state, DiceRolled(faces=(1, 1, 1), source="rng"), RULES
    )  # total 3: first pile to position 3
    piles, unused = deal({1: BANKER, 3: POSITION_3, 5: POSITION_5}, start=3)
    return apply(state, PilesDealt(piles=piles, unused=unused), RULES)


def test_wagers_are_whole_table_minimums_within_the_limits_on_positions_2_to_7():
    dealer = _dealer()
    for number in range(1, 201):
        wagers = dealer.wagers(number)
        assert wagers and set(wagers) <= {2, 3, 4, 5, 6, 7}
        for wager in wagers.values():
            assert LIMITS.min_main <= wager.main <= min(LIMITS.max_main, 10 * LIMITS.min_main)
            assert wager.main % LIMITS.min_main == 0
            assert (wager.big_hand, wager.joker_bonus) == (0, 0)  # the standard game offers no bonus


def test_double_joker_positions_sometimes_make_bonus_wagers_within_max_bonus():
    dealer = AutoDealer(AutoDealerSettings(enabled=True, seed=3, bonus_rate=0.5), Game.DOUBLE_JOKER, LIMITS)
    bonuses = [
        w for n in range(1, 101) for w in dealer.wagers(n).values() for w in (w.big_hand, w.joker_bonus)
    ]
    made = [b for b in bonuses if b]
    assert made and len(made) < len(bonuses)
    assert all(b % 100 == 0 and 100 <= b <= LIMITS.max_bonus for b in made)


def test_the_same_seed_gives_the_same_table_and_another_seed_another():
    assert [_dealer().wagers(n) for n in range(1, 21)] == [_dealer().wagers(n) for n in range(1, 21)]
    other = AutoDealer(AutoDealerSettings(enabled=True, seed=4), Game.STANDARD, LIMITS)
    assert [_dealer().wagers(n) for n in range(1, 21)] != [other.wagers(n) for n in range(1, 21)]


def test_with_no_deviation_rates_a_player_sets_by_the_house_way():
    state = _players_setting_round()
    decision = _dealer(other_setting_rate=0, foul_rate=0).player_setting(state, 3, RULES)
    # A-A and K-K (002, "Two pairs: the two cards will be the lowest pair"): K-K in front.
    assert (decision.choice, decision.high, sorted(decision.low)) == (
        "house-way",
        codes(parse_cards("As Ah 9c 8c 2c")),
        ["Kd", "Kh"],
    )


def test_a_player_told_to_foul_puts_a_low_hand_that_outranks_the_high_hand():
    state = _players_setting_round()
    decision = _dealer(foul_rate=1, other_setting_rate=0).player_setting(state, 3, RULES)
    setting = Setting(parse_cards(decision.high), parse_cards(decision.low))
    assert decision.choice == "foul" and not is_legal(setting, RULES.ranking)
    assert sorted(decision.high + decision.low) == sorted(POSITION_3.split())


def test_a_player_told_to_deviate_sets_another_legal_way():
    state = _players_setting_round()
    decision = _dealer(other_setting_rate=1, foul_rate=0).player_setting(state, 5, RULES)
    setting = Setting(parse_cards(decision.high), parse_cards(decision.low))
    house = WAY.set(state.hands[5]).setting
    assert decision.choice == "other" and is_legal(setting, RULES.ranking)
    assert sorted(setting.low) != sorted(house.low)


def test_the_dealer_sets_the_banker_as_the_game_core_requires():
    state = _players_setting_round()
    high, low = _dealer().dealer_setting(state)
    # Ace high, no pair (002 High Card: 2nd and 4th highest in front): Q and 7 in front.
    assert (high, low) == (codes(state.required.setting.high), codes(state.required.setting.low))
    assert sorted(low) == ["7s", "Qd"] and state.required.rule_id == "high-card.second-and-fourth"


def test_the_next_position_to_set_goes_in_position_order():
    state = _players_setting_round()
    assert _dealer().next_position(state) == 3
