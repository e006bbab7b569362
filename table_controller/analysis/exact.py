"""The exact house edge of the house way against itself: every ordered pair of disjoint
seven-card hands (player, dealer) counted, both set by the house way (docs/math.md,
"Exact house edge").

Counting the 8,250,459,031,214,400 pairs of the 53-card deck one by one is out of reach; by
inclusion-exclusion over the cards two hands share,

    sum over disjoint (P, D) of f(P, D) = sum over card sets S of (-1)^|S| *
                                          sum over (P, D) both holding S of f(P, D)

(a pair sharing the cards T is counted once for every S inside T, and the signs of the
subsets of a non-empty T cancel). The inner sum over the *group* of hands holding S needs no
disjointness: it is a two-dimensional dominance count on the hands' (high, low) scores
(exact_kernel.py). Every hand lies in 2^7 groups; sets of six cards or fewer are counted by
the kernel (a set of seven is one hand paired with itself, which only copies: counted
here), and suit renamings (exact_classes.py) leave only one set per class.

Settlement of a pair is the game's (docs/settlement.md): both hands won -> win; one each or
a copy in one with the other won -> push; otherwise (a copy goes to the banker,
000_f88fa0f023e5142c.txt; 001_c9adb19db438d99f.txt rules 1-5) -> loss. Double Joker
(003_4dcc2fceebc6e4af.txt): a dealer without a pair pushes; with the overqualifier, a dealer who can
make four of a kind or better pays the premium, whatever the player holds.

Money is exact: ``Fraction`` of the counts; the commission is the exact percentage (the
quarter-chip rounding of 002_08ea07f9e4b504bc.txt depends on the wager and is left to the
simulation).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from math import comb
from pathlib import Path
from typing import Any

import numba as nb
import numpy as np

from ..game.cards import Game
from ..game.evaluator import HighCategory
from ..game.money import FlatFee, NoCommission, PercentCommission
from ..game.table_rules import TableRules
from .exact_classes import Deck, SetClasses, every_set, set_classes
from .exact_kernel import (
    CELLS,
    COPY_COPY,
    HIGH_BITS,
    LOW_BITS,
    PAIRS,
    group_cells,
    row_histogram,
)
from .lookup import SPREAD, LoadedLookup, SettingLookup, build_hash

FORMAT = "exact-house-edge/1"
HAND = 7
MAX_SET = HAND - 1  # a set of seven cards is one hand: counted without the kernel
HISTOGRAM_FROM = 60_000  # groups of at least this many hands are counted into a histogram
BATCH_HANDS = 400_000_000  # hands enumerated per kernel call (progress, Ctrl-C)
HASH_BITS = 20
POPCOUNT = np.bitwise_count(np.arange(1 << 13)).astype(np.int64)
CELL_NAMES = (
    "pairs",
    "won_won",
    "lost_lost",
    "won_copy",
    "lost_copy",
    "copy_won",
    "copy_lost",
    "copy_copy",
)

Progress = Callable[[int, int], None]  # (hands enumerated, in all)


class ExactCountError(RuntimeError):
    """A hand of the deck whose pattern is not in the lookup (a lookup built for another deck)."""


@dataclass(frozen=True)
class DealerRules:
    """What the count needs of the table's rules: Double Joker qualification (003)."""

    qualifies: bool = False  # the dealer needs a pair or better (003); else every dealer compares
    overqualifier: bool = False  # four of a kind or better pays the premium (003)

    @classmethod
    def of(cls, rules: TableRules) -> DealerRules:
        return cls(rules.game is Game.DOUBLE_JOKER, rules.overqualifier)

    def compared(self, best5: np.ndarray) -> np.ndarray:
        """Which dealer hands (by best five-card category) are compared with the player's."""
        out = np.ones(len(best5), bool)
        if self.qualifies:
            out &= best5 >= HighCategory.ONE_PAIR
            if self.overqualifier:
                out &= best5 < HighCategory.FOUR_OF_A_KIND
        return out


def hand_codes(lookup: SettingLookup, dealer: DealerRules) -> np.ndarray:
    """Per lookup row: high ordinal << 8 | low ordinal << 1 | compared (exact_kernel.py)."""
    highs = np.unique(lookup.hw_high, return_inverse=True)[1]
    lows = np.unique(lookup.hw_low, return_inverse=True)[1]
    return codes_of(highs, lows, dealer.compared(lookup.best5))


def codes_of(high_ordinals: np.ndarray, low_ordinals: np.ndarray, compared: np.ndarray) -> np.ndarray:
    """Kernel codes from ordinals and compared flags (per lookup row; tests give random ones)."""
    if high_ordinals.max(initial=0) >= 1 << HIGH_BITS or low_ordinals.max(initial=0) >= 1 << LOW_BITS:
        raise ValueError("more distinct high or low hands than the kernel's codes hold")
    return (
        (high_ordinals.astype(np.int64) << (LOW_BITS + 1)) | (low_ordinals.astype(np.int64) << 1) | compared
    )


@dataclass(frozen=True)
class CodeTable:
    """The lookup's hash table with a code (or a row) per slot, for the kernel."""

    keys: np.ndarray
    values: np.ndarray
    shift: np.uint64

    @classmethod
    def of(cls, lookup: SettingLookup, per_row: np.ndarray) -> CodeTable:
        keys, rows = build_hash(lookup.keys, HASH_BITS)
        values = np.where(keys == -1, -1, per_row[rows]).astype(np.int64)
        return cls(keys, values, np.uint64(64 - HASH_BITS))


@dataclass(frozen=True)
class PairCounts:
    """Ordered pairs (player, dealer) of disjoint hands of a deck, by outcome."""

    deck_cards: int
    hands: int  # C(deck, 7)
    cells: dict[str, int]  # the compared dealers' pairs by cell (exact_kernel.py)
    not_qualified: int  # pairs whose dealer does not qualify (003): push
    premium: int  # pairs whose dealer overqualifies (003): the premium
    seconds: float = 0.0
    sets: int = 0  # card sets visited (one per class)
    hand_visits: int = 0  # hands enumerated over all groups
    # Double Joker (003): pairs whose dealer can make a pair or better, four of a kind or better
    dealer_pair_or_better: int | None = None
    dealer_four_or_better: int | None = None

    @property
    def pairs(self) -> int:
        return self.cells["pairs"] + self.not_qualified + self.premium

    @property
    def split(self) -> int:
        """One hand each, no copy: the compared pairs in no other cell."""
        c = self.cells
        return c["pairs"] - sum(c[name] for name in CELL_NAMES[1:])

    @property
    def wins(self) -> int:
        return self.cells["won_won"]

    @property
    def push_copies(self) -> int:
        return self.cells["won_copy"] + self.cells["copy_won"]

    @property
    def pushes(self) -> int:
        return self.split + self.push_copies + self.not_qualified

    @property
    def loss_copies(self) -> int:
        return self.cells["lost_copy"] + self.cells["copy_lost"] + self.cells["copy_copy"]

    @property
    def losses(self) -> int:
        return self.cells["lost_lost"] + self.loss_copies

    def as_dict(self) -> dict[str, Any]:
        return {
            "deck_cards": self.deck_cards,
            "hands": self.hands,
            "pairs": self.pairs,
            "wins": self.wins,
            "pushes": self.pushes,
            "losses": self.losses,
            "premiums": self.premium,
            "push_copies": self.push_copies,
            "loss_copies": self.loss_copies,
            "pushes_without_copy": self.split,
            "dealer_not_qualified": self.not_qualified,
            "dealer_pair_or_better": self.dealer_pair_or_better,
            "dealer_four_or_better": self.dealer_four_or_better,
            "cells": dict(self.cells),
        }


def _check(counts: np.ndarray) -> None:
    if np.any(counts[:, PAIRS] < 0):
        raise ExactCountError("a hand of the deck has a pattern the lookup does not hold")


def _run(
    classes: SetClasses,
    deck: Deck,
    table: CodeTable,
    workers: int,
    progress: Progress | None,
) -> tuple[list[int], int, int]:
    """Signed, weighted sum of every class's cells; the compared hands of the whole deck."""
    bits = deck.card_bits()
    group_hands = np.array([comb(deck.size - int(k), HAND - int(k)) for k in range(MAX_SET + 1)], np.int64)
    total_visits = int(sum(group_hands[classes.sizes]))
    done = 0
    sums = [0] * CELLS
    compared_hands = 0
    for size in range(MAX_SET + 1):
        which = np.flatnonzero(classes.sizes == size)
        hands = int(group_hands[size])
        step = max(BATCH_HANDS // hands, workers)
        for start in range(0, len(which), step):
            part = classes.select(which[start : start + step])
            out = group_cells(
                part.masks,
                part.sizes,
                bits,
                HAND,
                hands,
                hands >= HISTOGRAM_FROM,
                SPREAD,
                POPCOUNT,
                table.keys,
                table.values,
                table.shift,
                min(workers, len(part)),
            )
            _check(out)
            sign = -1 if size % 2 else 1
            weighted = out * part.weights[:, None]
            for cell in range(CELLS):
                sums[cell] += sign * sum(int(v) for v in weighted[:, cell])
            if size == 0:
                compared_hands = int(out[0, PAIRS]) // comb(deck.size, HAND)
            done += hands * len(part)
            if progress is not None:
                progress(done, total_visits)
    # Sets of seven cards: each hand with itself, a copy of both hands (when compared).
    sums[PAIRS] -= compared_hands
    sums[COPY_COPY] -= compared_hands
    return sums, compared_hands, total_visits


def count_pairs(
    lookup: SettingLookup,
    deck: Deck,
    dealer: DealerRules = DealerRules(),
    *,
    codes: np.ndarray | None = None,
    symmetry: bool = True,
    workers: int | None = None,
    progress: Progress | None = None,
) -> PairCounts:
    """Exact pair counts of ``deck`` under the lookup's house way (or ``codes`` per lookup row,
    for tests); ``symmetry`` False visits every card set (tests)."""
    start = time.perf_counter()
    workers = workers or nb.get_num_threads()
    per_row = hand_codes(lookup, dealer) if codes is None else codes
    classes = set_classes(deck, MAX_SET) if symmetry else every_set(deck, MAX_SET)
    sums, compared, visits = _run(classes, deck, CodeTable.of(lookup, per_row), workers, progress)
    hands = comb(deck.size, HAND)
    opponents = comb(deck.size - HAND, HAND)
    # A dealer hand not compared meets every hand of the cards it leaves: C(deck - 7, 7) pairs.
    premium = 0
    not_qualified = (hands - compared) * opponents
    pair_or_better = four_or_better = None
    if dealer.qualifies:
        rows = _row_counts(lookup, deck)
        four_or_better = int(rows[lookup.best5 >= HighCategory.FOUR_OF_A_KIND].sum()) * opponents
        pair_or_better = int(rows[lookup.best5 >= HighCategory.ONE_PAIR].sum()) * opponents
        if dealer.overqualifier:
            premium = four_or_better
            not_qualified -= premium
        if codes is None and not_qualified != hands * opponents - pair_or_better:
            raise AssertionError("the dealers not compared are not those who do not qualify")  # a bug
    counts = PairCounts(
        deck_cards=deck.size,
        hands=hands,
        cells=dict(zip(CELL_NAMES, sums, strict=True)),
        not_qualified=not_qualified,
        premium=premium,
        seconds=time.perf_counter() - start,
        sets=len(classes),
        hand_visits=visits,
        dealer_pair_or_better=pair_or_better,
        dealer_four_or_better=four_or_better,
    )
    if counts.pairs != hands * opponents or compared * opponents != counts.cells["pairs"]:
        raise AssertionError("the pair counts do not add up to every pair of disjoint hands")  # a bug
    return counts


def _row_counts(lookup: SettingLookup, deck: Deck) -> np.ndarray:
    """Hands of the deck per lookup row."""
    table = CodeTable.of(lookup, np.arange(len(lookup.keys)))
    out = row_histogram(
        deck.card_bits(), HAND, len(lookup.keys), SPREAD, POPCOUNT, table.keys, table.values, table.shift
    )
    if out[0] < 0:
        raise ExactCountError("a hand of the deck has a pattern the lookup does not hold")
    return out[1:]


# --- money ------------------------------------------------------------------------------------


def commission_rate(rules: TableRules) -> Fraction | None:
    """The exact share of a win taken as commission; None for a flat fee (not per unit wagered)."""
    policy = rules.commission
    if isinstance(policy, PercentCommission):
        return Fraction(policy.rate_bp, 10_000)
    if isinstance(policy, NoCommission):
        return Fraction(0)
    if isinstance(policy, FlatFee):
        return None
    raise TypeError(f"unknown commission policy {policy!r}")


def _share(count: int, total: int) -> dict[str, Any]:
    value = Fraction(count, total)
    return {"count": count, "fraction": str(value), "decimal": float(value)}


def _exact(value: Fraction) -> dict[str, Any]:
    return {"fraction": str(value), "decimal": float(value), "percent": f"{float(value) * 100:.6f}%"}


@dataclass(frozen=True)
class ExactEdge:
    """The exact figures for one table: counts, rates, edges; what they were computed for."""

    counts: PairCounts
    commission: Fraction | None
    premium_multiple: int
    banking: bool  # the game lets a player bank (the standard game)
    provenance: dict[str, Any] = field(default_factory=dict)
    lookup: dict[str, Any] = field(default_factory=dict)
    table_rules: dict[str, Any] = field(default_factory=dict)
    cached: bool = False

    @property
    def player_return(self) -> Fraction | None:
        """The player's expected net per unit wagered (commission at its exact percentage)."""
        if self.commission is None:
            return None
        c = self.counts
        keep = 1 - self.commission
        net = keep * c.wins + keep * self.premium_multiple * c.premium - c.losses
        return net / c.pairs

    @property
    def house_edge(self) -> Fraction | None:
        ret = self.player_return
        return None if ret is None else -ret

    @property
    def banker_return(self) -> Fraction | None:
        """A banking player's expected net per unit of one house-way player's wager: the
        player's losses won less the commission, the player's wins paid."""
        if self.commission is None or not self.banking:
            return None
        c = self.counts
        return ((1 - self.commission) * c.losses - c.wins) / c.pairs

    def as_dict(self) -> dict[str, Any]:
        c = self.counts
        edge, banker = self.house_edge, self.banker_return
        return {
            "kind": "exact-house-edge",
            "format": FORMAT,
            "provenance": self.provenance,
            "table_rules": self.table_rules,
            "lookup": self.lookup,
            "cached": self.cached,
            "counts": c.as_dict(),
            "rates": {
                name: _share(count, c.pairs)
                for name, count in (
                    ("win", c.wins),
                    ("push", c.pushes),
                    ("lose", c.losses),
                    ("premium", c.premium),
                    ("push_copy", c.push_copies),
                    ("lose_copy", c.loss_copies),
                    ("dealer_not_qualified", c.not_qualified),
                )
            },
            "commission": None if self.commission is None else str(self.commission),
            "commission_note": (
                "the exact percentage of every win; the quarter-chip rounding depends on the wager"
                " (simulation: analyze house-edge)"
                if self.commission
                else (
                    "a flat fee per hand: not per unit wagered, not included"
                    if self.commission is None
                    else "none"
                )
            ),
            "premium_multiple": self.premium_multiple if c.premium else None,
            "house_edge": None if edge is None else _exact(edge),
            "banker_return": None if banker is None else _exact(banker),
            "seconds": round(c.seconds, 3),
            "sets_visited": c.sets,
            "hand_visits": c.hand_visits,
        }


def exact_edge(
    lookup: SettingLookup,
    rules: TableRules,
    *,
    workers: int | None = None,
    progress: Progress | None = None,
    deck: Deck | None = None,
) -> ExactEdge:
    """The exact figures of the table's game under the lookup's house way (on the game's deck,
    or on ``deck``: tests)."""
    dealer = DealerRules.of(rules)
    deck = deck or Deck.full(rules.game.jokers)
    counts = count_pairs(lookup, deck, dealer, workers=workers, progress=progress)
    return _edge(counts, rules)


def _edge(counts: PairCounts, rules: TableRules, **extra: Any) -> ExactEdge:
    banking = not DealerRules.of(rules).qualifies
    return ExactEdge(counts, commission_rate(rules), rules.premium_multiple, banking, **extra)


def source_sha256() -> str:
    """SHA-256 of the count's own source (this module, the kernel, the classes, lookup.py)."""
    digest = hashlib.sha256()
    for path in [*sorted(Path(__file__).parent.glob("exact*.py")), Path(__file__).parent / "lookup.py"]:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def cache_path(folder: Path, lookup_path: Path, rules: TableRules, deck: Deck | None = None) -> Path:
    """Where the counts for this lookup (house way, game core, ranking) and game are kept."""
    dealer = DealerRules.of(rules)
    deck = deck or Deck.full(rules.game.jokers)
    tag = hashlib.sha256(
        f"{FORMAT}|{rules.game.value}|{dealer.qualifies}|{dealer.overqualifier}|{deck}|{source_sha256()}".encode()
    ).hexdigest()
    return folder / f"exact-{lookup_path.stem}-{tag[:16]}.json"


def cached_exact_edge(
    loaded: LoadedLookup,
    rules: TableRules,
    folder: Path,
    *,
    rebuild: bool = False,
    workers: int | None = None,
    progress: Progress | None = None,
    deck: Deck | None = None,
    **extra: Any,
) -> ExactEdge:
    """The exact figures, the counts read from ``folder`` when this lookup's were kept there
    (the money is always worked out again: the commission may differ), else counted and kept."""
    path = cache_path(folder, loaded.path, rules, deck)
    if path.is_file() and not rebuild:
        data = json.loads(path.read_text())
        counts = PairCounts(**{k: v for k, v in data.items() if k != "format"})
        return _edge(counts, rules, cached=True, **extra)
    counts = exact_edge(loaded.lookup, rules, workers=workers, progress=progress, deck=deck).counts
    folder.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"format": FORMAT, **asdict(counts)}, indent=1))
    tmp.replace(path)
    return _edge(counts, rules, **extra)


__all__ = [
    "DealerRules",
    "ExactCountError",
    "ExactEdge",
    "PairCounts",
    "cache_path",
    "cached_exact_edge",
    "codes_of",
    "commission_rate",
    "count_pairs",
    "exact_edge",
    "hand_codes",
    "source_sha256",
]
