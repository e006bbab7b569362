"""House-edge simulation speed: rounds per second against the per-hand engine, same run.

Run: ``python -m benchmarks.bench_house_edge`` (``--rounds N --workers W --game G``; the
lookup is read from, or built into, ``--cache-dir``, default the machine's analysis cache, docs/math.md).

- simulation: ``simulate`` (deal, key, look up, settle in numpy; every core), on the
  table's house way, player by the house way; steady state (the lookup already built and
  read; a build is reported and not counted). Goal: at least 2,000,000 rounds/s.
- per hand: one round the game core's way, on seeded random deals: the house way for
  the player's and the dealer's seven cards (``HouseWay.set``) and ``settle_round``, on one
  core.

The ratio is (simulation rounds/s) / (per-hand rounds/s).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from table_controller.analysis.lookup import default_cache_dir, get_lookup
from table_controller.analysis.provenance import house_way_path, sha256_file
from table_controller.analysis.simulate import sim_params, simulate
from table_controller.game.cards import Game
from table_controller.game.dealer import required_setting
from table_controller.game.house_way import load_house_way
from table_controller.game.settlement import BankerHand, PositionHand, settle_round
from table_controller.game.table_rules import TableRules

GOAL = 2_000_000


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40_000_000)
    parser.add_argument("--per-hand-rounds", type=int, default=5_000)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--game", choices=[g.value for g in Game], default=Game.STANDARD.value)
    parser.add_argument("--way", default="house-way-002")
    parser.add_argument("--cache-dir", type=Path, default=default_cache_dir())
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args(argv)
    game, rules = Game(args.game), TableRules(game=Game(args.game))
    way = load_house_way(args.way)

    loaded = get_lookup(way, sha256_file(house_way_path(args.way)), rules.ranking, args.cache_dir)
    if loaded.built:
        print(f"built the lookup in {loaded.seconds:.1f} s (not counted): {loaded.path}")
    params = sim_params(rules, 2500, "house-way")
    simulate(loaded.path, params, 1 << 20, args.seed, args.workers)  # warm-up: workers, caches
    result = simulate(loaded.path, params, args.rounds, args.seed, args.workers)
    sim_rate = result.tally.rounds / result.seconds

    rng = random.Random(args.seed)
    deck = game.deck()
    deals = [rng.sample(deck, 14) for _ in range(args.per_hand_rounds)]
    start = time.perf_counter()
    for cards in deals:
        player, dealer = tuple(cards[:7]), tuple(cards[7:])
        banker = required_setting(dealer, game, way, rules.ranking, rules.overqualifier).setting
        settle_round(
            rules, BankerHand(dealer, banker), [PositionHand(2, player, way.set(player).setting, 2500)]
        )
    hand_rate = len(deals) / (time.perf_counter() - start)

    figures = result.as_dict()
    print(f"house edge, {game.value}, {args.way}, {args.workers} workers, {result.tally.rounds:,} rounds")
    print(
        f"  simulation : {sim_rate:14,.0f} rounds/s  (goal >= {GOAL:,})  edge {figures['house_edge']:.4%}"
        f" +- {figures['standard_error']:.4%}"
    )
    print(
        f"  per hand   : {hand_rate:14,.0f} rounds/s  "
        f"(engine + settle_round, one core, {len(deals):,} rounds)"
    )
    print(f"  ratio simulation / per hand: {sim_rate / hand_rate:,.0f}")
    return 0 if sim_rate >= GOAL else 1


if __name__ == "__main__":
    raise SystemExit(main())
