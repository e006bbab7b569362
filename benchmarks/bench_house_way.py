"""House way speed: hands set per second, against treys' five-card ranking, same run.

Run: ``python -m benchmarks.bench_house_way`` (``--hands N --repeats R --seed S`` to change
the defaults; ``--way NAME`` for another way; ``--deck double-joker`` for the 54-card deck).

What is timed, on the same seeded random hands:

- house way: ``HouseWay.set(cards)`` on seven cards from the table's deck (Card objects,
  prepared before timing), the way loaded once;
- treys: ``Evaluator()._five`` on five joker-free cards (treys' own ints, prepared before
  timing), the fastest five-card entry point treys has.

Both run in the same plain loop ``for hand in hands: f(hand)``, passes interleaved so a slow
spell of the machine falls on both alike; the best pass of each is kept. The figure of merit
is the ratio (house-way time per hand) / (treys time per hand); the goal is at most 20: one
hand's house way costs no more than 20 treys rankings.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from treys import Card as TreysCard
from treys import Evaluator as TreysEvaluator

from table_controller.game.cards import NATURAL_CARDS, Game
from table_controller.game.house_way import load_house_way

GOAL_RATIO = 20.0


def best_seconds(cases: Sequence[tuple[str, Callable, Sequence]], repeats: int) -> list[float]:
    """Best time of one pass over its hands, per case; passes interleaved."""
    best = [float("inf")] * len(cases)
    for _ in range(repeats):
        for i, (_, run, hands) in enumerate(cases):
            start = time.perf_counter()
            for hand in hands:
                run(hand)
            best[i] = min(best[i], time.perf_counter() - start)
    return best


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--way", default="house-way-002")
    parser.add_argument("--deck", choices=[game.value for game in Game], default=Game.STANDARD.value)
    args = parser.parse_args(argv)

    rng = random.Random(args.seed)
    deck = Game(args.deck).deck()
    sevens = [tuple(rng.sample(deck, 7)) for _ in range(args.hands)]
    treys_codes = {card: TreysCard.new(card.code) for card in NATURAL_CARDS}
    fives = [[treys_codes[card] for card in rng.sample(NATURAL_CARDS, 5)] for _ in range(args.hands)]

    way = load_house_way(args.way)
    rows = Counter(way.set(hand).rule_id for hand in sevens)  # warm-up, and what was timed
    evaluator = TreysEvaluator()
    house_seconds, treys_seconds = best_seconds(
        [("house way", way.set, sevens), ("treys _five", evaluator._five, fives)], args.repeats
    )
    house_per_hand = house_seconds / len(sevens)
    treys_per_hand = treys_seconds / len(fives)
    ratio = house_per_hand / treys_per_hand

    print(f"house way {args.way!r}, {args.deck} deck, {len(sevens)} hands, best of {args.repeats} passes")
    print(f"  house way : {1 / house_per_hand:12,.0f} hands/s   {house_per_hand * 1e6:8.2f} us/hand")
    print(
        f"  treys     : {1 / treys_per_hand:12,.0f} hands/s   "
        f"{treys_per_hand * 1e6:8.2f} us/hand (five cards)"
    )
    print(
        f"  ratio (house way / treys per hand): {ratio:.1f}   "
        f"goal <= {GOAL_RATIO:.0f}: {'met' if ratio <= GOAL_RATIO else 'NOT met'}"
    )
    print(
        f"  rows that set the hands: {len(rows)} distinct; most common: "
        + ", ".join(f"{rule} {count / len(sevens):.0%}" for rule, count in rows.most_common(3))
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
