"""Par sheet speed: the exact 54-card enumeration against the per-hand path, same run.

Run: ``python -m benchmarks.bench_par_sheet`` (``--game standard`` for 53 cards,
``--sample N`` for the per-hand sample).

- par sheet: ``build_par_sheet`` for the deck (every one of C(54,7) = 177,100,560 hands
  counted over patterns, both bonuses priced), timed whole; the goal is at most 30 s.
- per hand: the game core's ``evaluator.seven_card_category`` (the Big Hand line, which
  needs the best five-card hand) on a seeded random sample of hands, extrapolated to every
  hand of the deck.

The ratio is (per-hand time for every hand) / (par sheet time).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from math import comb
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from table_controller.analysis.par_sheet import build_par_sheet
from table_controller.analysis.provenance import provenance
from table_controller.game.cards import Game
from table_controller.game.evaluator import DEFAULT_RULES, seven_card_category
from table_controller.game.paytables import Bonus, load_paytable

GOAL_SECONDS = 30.0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=[g.value for g in Game], default=Game.DOUBLE_JOKER.value)
    parser.add_argument("--sample", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args(argv)
    game = Game(args.game)

    start = time.perf_counter()
    build_par_sheet(
        game,
        provenance(game, DEFAULT_RULES, "house-way-002"),
        load_paytable(Bonus.BIG_HAND),
        load_paytable(Bonus.JOKER),
    )
    sheet_seconds = time.perf_counter() - start

    rng = random.Random(args.seed)
    deck = game.deck()
    hands = [rng.sample(deck, 7) for _ in range(args.sample)]
    start = time.perf_counter()
    for hand in hands:
        seven_card_category(hand)
    per_hand = (time.perf_counter() - start) / len(hands)
    all_hands = comb(game.deck_size, 7)
    extrapolated = per_hand * all_hands

    print(f"par sheet, {game.value} deck ({game.deck_size} cards, {all_hands:,} hands)")
    print(f"  par sheet (patterns) : {sheet_seconds:10.2f} s  (goal <= {GOAL_SECONDS:.0f} s)")
    print(
        f"  per hand (evaluator) : {extrapolated:10.0f} s  = {per_hand * 1e6:.2f} us/hand x {all_hands:,}"
        f" (sample of {len(hands):,})"
    )
    print(f"  ratio per-hand / par sheet: {extrapolated / sheet_seconds:,.0f}")
    return 0 if sheet_seconds <= GOAL_SECONDS else 1


if __name__ == "__main__":
    raise SystemExit(main())
