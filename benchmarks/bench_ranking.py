"""Five-card ranking speed: ours against treys, on the same seeded random hands.

Run: ``python -m benchmarks.bench_ranking`` (or ``python benchmarks/bench_ranking.py``),
``--hands N --repeats R --seed S`` to change the defaults. A run takes a few seconds.

Fair terms: each side gets its own native card representation, prepared before timing
(ours: a tuple of five ints from ``evaluator.card_ints``; treys: a list of five ints from
``treys.Card.new``), and its fastest five-card entry point (ours: ``rank_high_ints``;
treys: ``Evaluator()._five``, which ``evaluate`` dispatches to for five cards). Both are timed
in the same plain loop ``for hand in hands: rank(hand)``, passes interleaved; the best
of the repeats is kept.
The treys comparison uses joker-free hands (treys knows no joker); ours is also timed on
hands from the 53-card deck (one joker) and through the checked Card path ``rank_high``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from treys import Card as TreysCard
from treys import Evaluator as TreysEvaluator

from table_controller.game.cards import NATURAL_CARDS, Game
from table_controller.game.evaluator import (
    RankingRules,
    Wheel,
    card_ints,
    rank_high,
    rank_high_ints,
)


def best_rates(cases: Sequence[tuple[str, Callable, Sequence]], repeats: int) -> list[tuple[str, float]]:
    """Hands per second of each case, best of ``repeats`` passes.

    The passes are interleaved (every case once per round) so that a slow spell of the
    machine falls on every case alike.
    """
    best = [float("inf")] * len(cases)
    for _ in range(repeats):
        for i, (_, rank, hands) in enumerate(cases):
            start = time.perf_counter()
            for hand in hands:
                rank(hand)
            best[i] = min(best[i], time.perf_counter() - start)
    return [(label, len(hands) / seconds) for (label, _, hands), seconds in zip(cases, best, strict=False)]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args(argv)

    rng = random.Random(args.seed)
    natural_hands = [rng.sample(NATURAL_CARDS, 5) for _ in range(args.hands)]
    joker_deck = Game.STANDARD.deck()
    joker_hands = [rng.sample(joker_deck, 5) for _ in range(args.hands)]

    ours_natural = [card_ints(hand) for hand in natural_hands]
    ours_joker = [card_ints(hand) for hand in joker_hands]
    treys_natural = [[TreysCard.new(card.code) for card in hand] for hand in natural_hands]
    treys_five = TreysEvaluator()._five
    california = RankingRules(wheel=Wheel.CALIFORNIA)

    cases = [
        ("treys  Evaluator()._five(list of 5 treys ints), joker-free", treys_five, treys_natural),
        ("ours   rank_high_ints(tuple of 5 card ints), joker-free", rank_high_ints, ours_natural),
        ("ours   rank_high_ints, 53-card deck (with the joker)", rank_high_ints, ours_joker),
        (
            "ours   rank_high_ints, California, joker-free (+ a lambda)",
            lambda hand: rank_high_ints(hand, california),
            ours_natural,
        ),
        ("ours   rank_high(5 Card objects, checked), joker-free", rank_high, natural_hands),
        ("ours   rank_high(5 Card objects, checked), 53-card deck", rank_high, joker_hands),
    ]
    rows = best_rates(cases, args.repeats)
    treys_rate = rows[0][1]
    print(f"{args.hands:,} seeded random five-card hands (seed {args.seed}), best of {args.repeats} passes")
    print(f"{'what is ranked':58} {'hands/s':>12} {'us/hand':>8} {'vs treys':>9}")
    for label, rate in rows:
        print(f"{label:58} {rate:12,.0f} {1e6 / rate:8.3f} {rate / treys_rate:8.2f}x")
    ratio = rows[1][1] / treys_rate
    print(f"ratio ours/treys (hands/s, same joker-free hands, fastest paths): {ratio:.2f}")


if __name__ == "__main__":
    main()
