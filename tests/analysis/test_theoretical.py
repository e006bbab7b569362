"""Theoretical win of a round: the money of each outcome as settlement pays it, weighted by the
outcome probabilities; variances with the main wagers' covariance (docs/math.md)."""

from __future__ import annotations

from fractions import Fraction as F
from pathlib import Path

import numpy as np
import pytest

from table_controller.analysis.lookup import build_lookup, cache_path, keys_of_masks, pattern_of_key
from table_controller.analysis.provenance import house_way_path, sha256_file
from table_controller.analysis.simulate import deal
from table_controller.analysis.theoretical import (
    BonusOdds,
    TableMath,
    joint_counts,
    round_theoretical,
    table_math,
)
from table_controller.game.cards import Game
from table_controller.game.dealer import required_setting
from table_controller.game.house_way import load_house_way
from table_controller.game.money import FlatFee
from table_controller.game.paytables import Bonus
from table_controller.game.settlement import BankerHand, PositionHand, settle_round
from table_controller.game.table_rules import TableRules
from table_controller.round.events import Wager
from table_controller.settings import load_settings

from .test_simulate import _cards

# lose 3/10, push 2/5, win 3/10 for each position
MARGINAL = (F(3, 10), F(2, 5), F(3, 10), F(0))
INDEPENDENT = tuple(tuple(a * b for b in MARGINAL) for a in MARGINAL)
SAME = tuple(tuple(MARGINAL[i] if i == j else F(0) for j in range(4)) for i in range(4))  # always alike


def _math(joint=INDEPENDENT, rules: TableRules | None = None, big_hand=None, joker=None) -> TableMath:
    return TableMath(rules or TableRules(), joint, big_hand, joker, "test", 0, 0, {})


def test_one_main_wager_by_hand() -> None:
    # $25 at 5%: lose +2500 for the house, win -2375 (002): 0.3 x 2500 - 0.3 x 2375 = 37.5 cents
    found = round_theoretical({2: Wager(main=2500)}, _math())
    assert found.win == F(75, 2) and found.win_cents == 38  # half-even: 37.5 -> 38
    # E[h^2] = 0.3 x 2500^2 + 0.3 x 2375^2 = 3,567,187.5; minus 37.5^2 = 3,565,781.25
    assert found.variance == F(356578125, 100) and found.variance_cents2 == 3_565_781


def test_the_commission_is_priced_as_it_is_paid() -> None:
    # $31: 5% = $1.55, rounded up to $1.75 (settlement.md): win nets 2925; 930 - 877.5 = 52.5
    found = round_theoretical({2: Wager(main=3100)}, _math())
    assert found.win == F(105, 2) and found.win_cents == 52  # half-even: 52.5 -> 52
    # a $1 flat fee on every hand, no commission: 0.3 x 2500 - 0.3 x 2500 + 100
    flat = round_theoretical({2: Wager(main=2500)}, _math(rules=TableRules(commission=FlatFee(fee=100))))
    assert flat.win == 100


def test_positions_against_one_dealer_add_their_covariance() -> None:
    two = {2: Wager(main=2500), 5: Wager(main=2500)}
    apart = round_theoretical(two, _math(INDEPENDENT))
    assert apart.win == 75 and apart.variance == 2 * F(356578125, 100)
    assert apart.variance_cents2 == 7_131_562  # 7,131,562.5 half-even
    alike = round_theoretical(two, _math(SAME))  # perfectly correlated: the variance of twice one
    assert alike.win == 75 and alike.variance == 4 * F(356578125, 100)


def test_a_bonus_adds_its_edge_and_variance() -> None:
    coin = BonusOdds(Bonus.JOKER, ((F(1, 2), 1), (F(1, 4), 3), (F(1, 4), -1)))  # net +1, +3 or -1 a unit
    # edge = -(1/2 + 3/4 - 1/4) = -1; E[x^2] = 1/2 + 9/4 + 1/4 = 3; variance 3 - 1 = 2
    assert (coin.edge, coin.variance) == (-1, 2)
    math = _math(rules=TableRules(game=Game.DOUBLE_JOKER), joker=coin)
    alone = round_theoretical({2: Wager(main=2500)}, math)
    both = round_theoretical({2: Wager(main=2500, joker_bonus=500)}, math)
    assert both.win - alone.win == -500 and both.variance - alone.variance == 2 * 500 * 500
    with pytest.raises(ValueError, match="big-hand"):
        round_theoretical({2: Wager(main=2500, big_hand=100)}, math)


def test_double_joker_premium_and_push_by_hand() -> None:
    # no commission (003), premium 3x: lose 0.3 x 2500, push 0.4, win 0.2 x -2500, premium 0.1 x -7500
    marginal = (F(3, 10), F(2, 5), F(1, 5), F(1, 10))
    joint = tuple(tuple(a * b for b in marginal) for a in marginal)
    found = round_theoretical({2: Wager(main=2500)}, _math(joint, TableRules(game=Game.DOUBLE_JOKER)))
    assert found.win == 750 - 500 - 750 == -500


def test_the_simulated_pairs_of_positions_are_settled_as_the_game_core(tmp_path: Path) -> None:
    rules, rounds, seed = TableRules(), 600, 3
    rng = np.random.Generator(np.random.SFC64(np.random.SeedSequence([seed, 0])))
    dealer, first, second = deal(rng, rounds, rules.game.deck_size, hands=3)
    way = load_house_way("house-way-002")
    keys = np.unique(keys_of_masks(np.concatenate([dealer, first, second])))
    lookup = build_lookup(way, pattern_list=[pattern_of_key(k) for k in keys])
    expected = np.zeros((4, 4), np.int64)
    index = {"lose": 0, "push": 1, "win": 2}
    for d, a, b in zip(dealer.tolist(), first.tolist(), second.tolist(), strict=False):
        banker = required_setting(_cards(d), rules.game, way, rules.ranking, rules.overqualifier).setting
        hands = [PositionHand(p, _cards(m), way.set(_cards(m)).setting, 2500) for p, m in ((2, a), (3, b))]
        one, two = settle_round(rules, BankerHand(_cards(d), banker), hands).positions
        expected[index[one.outcome.value], index[two.outcome.value]] += 1
    assert (joint_counts(lookup, rules, rounds, seed) == expected).all()


def test_table_math_is_computed_once_and_read_from_its_cache(tmp_path: Path, monkeypatch) -> None:
    """In the machine's one analysis cache, the daemon's and the commands' (docs/math.md)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    settings = load_settings()
    cache = tmp_path / "table-controller"
    rules, rounds, seed = settings.table_rules(), 3000, 5
    rng = np.random.Generator(np.random.SFC64(np.random.SeedSequence([seed, 0])))
    masks = deal(rng, rounds, rules.game.deck_size, hands=3)
    way = load_house_way(settings.house_way)
    keys = np.unique(keys_of_masks(masks.ravel()))  # the lookup of these hands only (fast)
    lookup = build_lookup(way, rules.ranking, pattern_list=[pattern_of_key(k) for k in keys])
    lookup.save(cache_path(cache, way.name, sha256_file(house_way_path(settings.house_way)), rules.ranking))
    first = table_math(settings, rounds=rounds, seed=seed)
    assert len(list(cache.glob("table-math-*.json"))) == 1
    again = table_math(settings, rounds=rounds, seed=seed)
    assert again == first
    assert sum(map(sum, first.joint)) == 1 and first.joint[0][2] == first.joint[2][0]  # both orders
    assert F(1, 100) < first.main_edge() < F(5, 100)  # 2.6% in the long run (docs/math.md), 3,000 rounds
