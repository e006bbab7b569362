"""The simulation settles every round as the game core does, is reproducible whatever the
number of workers, and gives a sane interval on a small budget."""

from __future__ import annotations

import numpy as np
import pytest

from table_controller.analysis.lookup import build_lookup, ids_of_mask, keys_of_masks, pattern_of_key
from table_controller.analysis.simulate import chunks, deal, settle_masks, sim_params, simulate
from table_controller.analysis.vecrank import card_of_id
from table_controller.game.cards import Game
from table_controller.game.dealer import required_setting
from table_controller.game.house_way import load_house_way
from table_controller.game.money import FlatFee
from table_controller.game.settlement import BankerHand, PositionHand, settle_round
from table_controller.game.table_rules import TableRules

WAY = "house-way-002"


def _chunk_masks(seed: int, rounds: int, chunk_size: int, deck_size: int) -> np.ndarray:
    """The hands simulate() deals for this seed (the same streams, chunk by chunk)."""
    masks = []
    for chunk, size in chunks(rounds, chunk_size):
        rng = np.random.Generator(np.random.SFC64(np.random.SeedSequence([seed, chunk])))
        masks.append(deal(rng, size, deck_size))
    return np.concatenate(masks, axis=1)


def _lookup_for(masks: np.ndarray, tmp_path, name: str = "lookup.npz", way: str = WAY):
    """The real house way's lookup, built for the patterns of these hands only (fast)."""
    keys = np.unique(keys_of_masks(masks.ravel()))
    lookup = build_lookup(load_house_way(way), pattern_list=[pattern_of_key(k) for k in keys])
    path = tmp_path / name
    lookup.save(path)
    return lookup, path


def _cards(mask: int) -> tuple:
    return tuple(card_of_id(i) for i in ids_of_mask(mask))


@pytest.mark.parametrize(
    "rules",
    [
        TableRules(),
        TableRules(commission=FlatFee(fee=100)),
        TableRules(game=Game.DOUBLE_JOKER),
        TableRules(game=Game.DOUBLE_JOKER, premium_multiple=2),
        TableRules(game=Game.DOUBLE_JOKER, overqualifier=False),
    ],
    ids=["standard", "flat-fee", "double-joker", "double-joker-2x", "double-joker-no-overqualifier"],
)
def test_every_round_is_settled_as_the_game_core_settles_it(rules: TableRules, tmp_path) -> None:
    game, wager, rounds = rules.game, 2500, 700
    masks = deal(np.random.Generator(np.random.SFC64(3)), rounds, game.deck_size)
    lookup, _ = _lookup_for(masks, tmp_path)
    way = load_house_way(WAY)
    params = sim_params(rules, wager, "house-way")
    expected = 0
    for player_mask, dealer_mask in zip(masks[0].tolist(), masks[1].tolist(), strict=False):
        player, dealer = _cards(player_mask), _cards(dealer_mask)
        banker = required_setting(dealer, game, way, rules.ranking, rules.overqualifier).setting
        result = settle_round(
            rules, BankerHand(dealer, banker), [PositionHand(2, player, way.set(player).setting, wager)]
        )
        position = result.positions[0]
        tally = settle_masks(lookup, params, np.array([player_mask]), np.array([dealer_mask]))
        assert tally.net == position.net, (player, dealer)
        assert tally.commission == position.commission
        expected += position.net
    assert settle_masks(lookup, params, masks[0], masks[1]).net == expected


@pytest.mark.parametrize("way_name", ["house-way-002", "strong-004"])
def test_a_larger_sample_wins_pushes_and_losses_as_the_game_core(way_name: str, tmp_path) -> None:
    """docs/math.md "House way 002 against the published range": 6,000 standard rounds of
    each way, every round's net and the win / push / loss / copy counts as settle_round's
    (copies to the banker, 000; commission on wins only, 002; the joker as 001 and 002)."""
    rules, wager, rounds = TableRules(), 2500, 6000
    masks = deal(np.random.Generator(np.random.SFC64(11)), rounds, rules.game.deck_size)
    lookup, _ = _lookup_for(masks, tmp_path, way=way_name)
    way = load_house_way(way_name)
    params = sim_params(rules, wager, "house-way")
    nets, outcomes, copies = [], {"win": 0, "push": 0, "lose": 0}, 0
    for player_mask, dealer_mask in zip(masks[0].tolist(), masks[1].tolist(), strict=False):
        player, dealer = _cards(player_mask), _cards(dealer_mask)
        banker = required_setting(dealer, rules.game, way, rules.ranking, rules.overqualifier).setting
        position = settle_round(
            rules, BankerHand(dealer, banker), [PositionHand(2, player, way.set(player).setting, wager)]
        ).positions[0]
        nets.append(position.net)
        outcomes[position.outcome.value] += 1
        copies += "copy" in position.rule or "copied" in position.rule
    per_round = [
        settle_masks(lookup, params, np.array([p]), np.array([d])).net
        for p, d in zip(masks[0].tolist(), masks[1].tolist(), strict=False)
    ]
    assert per_round == nets
    tally = settle_masks(lookup, params, masks[0], masks[1])
    assert (tally.wins, tally.pushes, tally.losses) == (outcomes["win"], outcomes["push"], outcomes["lose"])
    assert tally.net == sum(nets)
    assert tally.any_copy == copies  # every pair with a copy has a rule naming it (settlement.md 2)


def test_the_deal_is_seven_distinct_cards_a_hand(tmp_path) -> None:
    masks = deal(np.random.Generator(np.random.SFC64(5)), 20_000, 54)
    assert np.all(np.bitwise_count(masks) == 7)
    assert not np.any(masks[0] & masks[1])
    counts = np.bincount(np.concatenate([ids_of_mask(m) for m in masks[0][:3000].tolist()]), minlength=54)
    assert counts.min() > 0.6 * counts.mean()  # every card comes (a gross bias would show)


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    rounds, chunk_size, seed = 12_000, 3_000, 99
    masks = _chunk_masks(seed, rounds, chunk_size, Game.STANDARD.deck_size)
    _, path = _lookup_for(masks, tmp_path_factory.mktemp("sim"))
    params = sim_params(TableRules(), 2500, "house-way")
    return path, params, rounds, chunk_size, seed


def test_same_seed_same_figures_whatever_the_workers(small_run) -> None:
    path, params, rounds, chunk_size, seed = small_run
    one = simulate(path, params, rounds, seed, workers=1, chunk_size=chunk_size)
    two = simulate(path, params, rounds, seed, workers=2, chunk_size=chunk_size)
    assert one.tally == two.tally
    assert one.tally.rounds == rounds and not one.interrupted


def test_a_small_budget_gives_a_sane_interval(small_run) -> None:
    path, params, rounds, chunk_size, seed = small_run
    result = simulate(path, params, rounds, seed, workers=1, chunk_size=chunk_size)
    figures = result.as_dict()
    low, high = figures["interval_95"]
    # The standard error of one round's net is about 0.75 wagers: 0.0068 at 12,000 rounds.
    assert 0.005 < figures["standard_error"] < 0.009
    assert low < 0.026 < high  # the long-run figure of docs/math.md
    assert 0.37 < figures["push_rate"] < 0.45
    total = figures["win_rate"] + figures["push_rate"] + figures["loss_rate"]
    assert total == pytest.approx(1.0)
    assert figures["commission_per_hand_cents"] == pytest.approx(figures["win_rate"] * 125)
