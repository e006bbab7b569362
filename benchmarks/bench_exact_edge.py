"""Exact house edge: the wall time of the whole count against pair-by-pair brute force, same run.

Run: ``python -m benchmarks.bench_exact_edge`` (``--game G --way W --workers N``; the lookup
is read from, or built into, ``--cache-dir``, default the machine's analysis cache (docs/math.md),
and not counted).

- exact: ``exact.count_pairs`` over the full deck (53 cards: 8,250,459,031,214,400 ordered
  pairs of disjoint hands), from the lookup already read, numba compiled beforehand on a
  small deck (not counted). Goal: at most 15 minutes.
- brute force, two ways, each as pairs per second and the time every pair would take:
  - per pair as the simulation settles it (hand masks to pattern keys, the lookup's hash
    table, both hands compared, outcomes counted), random disjoint pairs, one process;
  - compiled (``exact_brute.brute_force_compiled``: each hand's values looked up once, every
    disjoint pair of a reduced deck visited, 2 threads), on every pair of an 18-card deck.

The ratios are (brute force time for every pair) / (exact wall time).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from math import comb
from pathlib import Path

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from table_controller.analysis.exact import DealerRules, count_pairs
from table_controller.analysis.exact_brute import brute_force_compiled, deck_hands
from table_controller.analysis.exact_classes import Deck
from table_controller.analysis.lookup import (
    SettingLookup,
    default_cache_dir,
    get_lookup,
    hand_keys,
    keys_of_masks,
)
from table_controller.analysis.provenance import house_way_path, sha256_file
from table_controller.analysis.simulate import deal
from table_controller.game.cards import Game
from table_controller.game.house_way import load_house_way
from table_controller.game.table_rules import TableRules

GOAL_SECONDS = 15 * 60


def brute_force_rate(lookup: SettingLookup, deck_size: int, pairs: int, seed: int) -> tuple[float, int]:
    """Pairs per second of the per-pair count on ``pairs`` random disjoint pairs; the wins."""
    rng = np.random.Generator(np.random.SFC64(seed))
    player, dealer = deal(rng, pairs, deck_size)
    start = time.perf_counter()
    p, d = lookup.index(keys_of_masks(player)), lookup.index(keys_of_masks(dealer))
    high = np.sign(lookup.hw_high[p].astype(np.int64) - lookup.hw_high[d]) + 1
    low = np.sign(lookup.hw_low[p].astype(np.int64) - lookup.hw_low[d]) + 1
    cells = np.bincount(high * 3 + low, minlength=9)
    seconds = time.perf_counter() - start
    return pairs / seconds, int(cells[8])


def compiled_rate(lookup: SettingLookup, workers: int) -> float:
    """Pairs per second of the compiled brute force over every pair of 7-Q in three suits."""
    deck = Deck((5, 6, 7, 8, 9, 10), 0, (1, 2, 3))
    hands = deck_hands(deck)
    rows = lookup.index(hand_keys(hands))
    highs, lows = lookup.hw_high[rows].astype(np.int64), lookup.hw_low[rows].astype(np.int64)
    warm = Deck((9, 10, 11, 12), 0)  # compile on 16 cards: not counted
    warm_hands = deck_hands(warm)
    warm_rows = lookup.index(hand_keys(warm_hands))
    brute_force_compiled(warm, warm_hands, lookup.hw_high[warm_rows], lookup.hw_low[warm_rows], workers)
    start = time.perf_counter()
    pairs = sum(brute_force_compiled(deck, hands, highs, lows, workers).values())
    return pairs / (time.perf_counter() - start)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=[g.value for g in Game], default=Game.STANDARD.value)
    parser.add_argument("--way", default="house-way-002")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--sample", type=int, default=4_000_000, help="pairs for the brute-force rate")
    parser.add_argument("--cache-dir", type=Path, default=default_cache_dir())
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args(argv)
    rules = TableRules(game=Game(args.game))
    way = load_house_way(args.way)
    loaded = get_lookup(way, sha256_file(house_way_path(args.way)), rules.ranking, args.cache_dir)
    if loaded.built:
        print(f"built the lookup in {loaded.seconds:.1f} s (not counted): {loaded.path}")
    lookup = loaded.lookup
    deck = Deck.full(rules.game.jokers)
    dealer = DealerRules.of(rules)

    count_pairs(lookup, Deck((9, 10, 11, 12), 1), workers=args.workers)  # compile (numba): not counted
    counts = count_pairs(lookup, deck, dealer, workers=args.workers)
    exact_seconds = counts.seconds

    rate, _ = brute_force_rate(lookup, deck.size, args.sample, args.seed)
    all_pairs = comb(deck.size, 7) * comb(deck.size - 7, 7)
    brute_seconds = all_pairs / rate
    fast_rate = compiled_rate(lookup, args.workers)
    fast_seconds = all_pairs / fast_rate

    print(f"exact house edge, {args.game}, {args.way}, {args.workers} workers, load {os.getloadavg()[0]:.1f}")
    print(
        f"  exact       : {exact_seconds:12,.1f} s  (goal <= {GOAL_SECONDS:,} s)  "
        f"{all_pairs:,} pairs; {counts.sets:,} card sets, {counts.hand_visits:,} hand visits"
    )
    print(
        f"  brute force : {rate:12,.0f} pairs/s (lookup per pair, one process, {args.sample:,} pairs)"
        f" -> {brute_seconds:,.0f} s = {brute_seconds / 86_400 / 365.25:,.0f} years for every pair"
    )
    print(
        f"  compiled    : {fast_rate:12,.0f} pairs/s ({args.workers} threads, every pair of an 18-card deck)"
        f" -> {fast_seconds:,.0f} s = {fast_seconds / 86_400 / 365.25:,.1f} years for every pair"
    )
    print(
        f"  ratio brute force / exact: {brute_seconds / exact_seconds:,.0f} (per pair), "
        f"{fast_seconds / exact_seconds:,.0f} (compiled)"
    )
    return 0 if exact_seconds <= GOAL_SECONDS else 1


if __name__ == "__main__":
    raise SystemExit(main())
