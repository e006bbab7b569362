"""Theoretical win: the house's expected win on a round's wagers, and its variance (docs/math.md,
"Theoretical win and hold").

``TableMath`` holds, for one table configuration (game, ranking rules, house way, money policy,
pay tables):

- the main game: the probabilities of a position's outcomes (lose, push, win, premium) with
  dealer and player both by the house way, and the *joint* probabilities of two positions'
  outcomes against the same dealer (they share the dealer's hand, so their results are
  correlated). Estimated once by simulation (``simulate.deal`` and the house-way lookup),
  with a fixed seed and budget, and cached on disk as JSON keyed by the content hashes;
- each bonus (003): its pay lines' exact probabilities (the par sheet).

``round_theoretical(wagers, math)`` turns them into money for the round's actual wagers: the
table's commission and fee are applied to each main wager as settlement applies them (so a
wager whose commission rounds up is priced as it is paid), the main wagers' covariances are
included, the bonuses are taken as independent of everything else (an approximation: a joker
with one position is not with another). The expected win is an exact ``Fraction`` of the
estimated probabilities, stored rounded half-even to whole cents; the variance likewise to
whole cents squared. The hand a player actually sets is not used: the theoretical win is for
a player who sets by the house way.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from filelock import FileLock

from ..game.cards import Game
from ..game.evaluator import HighCategory
from ..game.house_way import load_house_way
from ..game.paytables import Bonus, PayTable
from ..game.table_rules import TableRules
from ..settings import TableSettings
from .enumerate7 import count_seven_card_hands
from .lookup import SettingLookup, default_cache_dir, engine_sha256, get_lookup, keys_of_masks
from .par_sheet import BonusMath, big_hand_math, joker_bonus_math
from .provenance import Provenance, load_paytable_ref, paytable_path, provenance
from .simulate import chunks, deal

FORMAT = "table-math/1"
DEFAULT_ROUNDS = 4_000_000
DEFAULT_SEED = 20_261_125
LOSE, PUSH, WIN, PREMIUM = range(4)
OUTCOMES = ("lose", "push", "win", "premium")


class WagerLike(Protocol):
    """A position's wagers in cents (the round's ``Wager``: main, big_hand, joker_bonus)."""

    @property
    def main(self) -> int: ...

    @property
    def big_hand(self) -> int: ...

    @property
    def joker_bonus(self) -> int: ...


@dataclass(frozen=True)
class BonusOdds:
    """One bonus: (probability, the player's net per unit wagered) per pay line, exact."""

    bonus: Bonus
    lines: tuple[tuple[Fraction, int], ...]

    @classmethod
    def of(cls, bonus: BonusMath) -> BonusOdds:
        return cls(
            bonus.bonus,
            tuple((line.probability, line.odds if line.odds is not None else -1) for line in bonus.lines),
        )

    @property
    def edge(self) -> Fraction:
        """The house's expected win per unit wagered."""
        return -sum((p * x for p, x in self.lines), Fraction(0))

    @property
    def variance(self) -> Fraction:
        """The variance of the result per unit wagered (units squared)."""
        mean = -self.edge
        return sum((p * x * x for p, x in self.lines), Fraction(0)) - mean * mean


@dataclass(frozen=True)
class TableMath:
    """What a table's theoretical win is computed from (see the module's docstring)."""

    rules: TableRules
    joint: tuple[tuple[Fraction, ...], ...]  # P(position A's outcome, position B's), 4 x 4, symmetric
    big_hand: BonusOdds | None
    joker_bonus: BonusOdds | None
    key: str  # the cache key: content hashes, seed, rounds
    rounds: int  # simulated rounds behind ``joint``
    seed: int
    provenance: dict[str, Any]

    @property
    def outcome_probabilities(self) -> tuple[Fraction, ...]:
        return tuple(sum(row, Fraction(0)) for row in self.joint)

    def player_net(self, wager: int) -> tuple[int, ...]:
        """The player's net (cents) on a main wager per outcome, as settlement pays it."""
        policy, rules = self.rules.commission, self.rules
        fee = policy.fee_per_hand
        win = wager - policy.commission_on(wager)
        premium = rules.premium_multiple * wager
        premium_net = premium - policy.commission_on(premium) if self.rules.game is Game.DOUBLE_JOKER else 0
        return (-wager - fee, -fee, win - fee, premium_net - fee)

    def main_mean(self, wager: int) -> Fraction:
        """The house's expected win on one main wager (cents)."""
        return -sum(
            (p * x for p, x in zip(self.outcome_probabilities, self.player_net(wager), strict=True)),
            Fraction(0),
        )

    def main_edge(self, wager: int = 2500) -> Fraction:
        return self.main_mean(wager) / wager

    def as_dict(self) -> dict[str, Any]:
        edge = self.main_edge()
        return {
            "kind": "table-math",
            "key": self.key,
            "rounds": self.rounds,
            "seed": self.seed,
            "provenance": self.provenance,
            "main": {
                "outcomes": {
                    name: str(p) for name, p in zip(OUTCOMES, self.outcome_probabilities, strict=True)
                },
                "house_edge_at_2500": str(edge),
                "house_edge_at_2500_percent": _percent(edge),
            },
            "bonuses": {
                odds.bonus.value: {"house_edge": str(odds.edge), "variance": str(odds.variance)}
                for odds in (self.big_hand, self.joker_bonus)
                if odds is not None
            },
        }


def _percent(value: Fraction, places: int = 4) -> str:
    """A fraction as a percentage string, rounded half-even (display; never a float)."""
    exact = Decimal(value.numerator) * 100 / Decimal(value.denominator)
    return str(exact.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_EVEN))


@dataclass(frozen=True)
class Theoretical:
    """A round's theoretical win: exact, and stored (half-even to whole cents / cents squared)."""

    win: Fraction  # cents
    variance: Fraction  # cents squared

    @property
    def win_cents(self) -> int:
        return round(self.win)  # Fraction rounds half to even

    @property
    def variance_cents2(self) -> int:
        return round(self.variance)


def round_theoretical(wagers: Mapping[int, WagerLike], math: TableMath) -> Theoretical:
    """The house's expected win on the round's wagers (position -> wager) and its variance."""
    mean = Fraction(0)
    variance = Fraction(0)
    marginal = math.outcome_probabilities
    houses = []  # per position: the house's result per outcome, and its mean
    for wager in wagers.values():
        house = tuple(-x for x in math.player_net(wager.main))
        m = sum((p * x for p, x in zip(marginal, house, strict=True)), Fraction(0))
        houses.append((house, m))
        mean += m
        variance += sum((p * x * x for p, x in zip(marginal, house, strict=True)), Fraction(0)) - m * m
        for bonus, amount, odds in (
            (Bonus.BIG_HAND, wager.big_hand, math.big_hand),
            (Bonus.JOKER, wager.joker_bonus, math.joker_bonus),
        ):
            if amount:
                if odds is None:
                    raise ValueError(f"a {bonus.value} wager at a table that does not offer it")
                mean += odds.edge * amount
                variance += odds.variance * amount * amount
    for i, (a, mean_a) in enumerate(houses):  # the main wagers share the dealer's hand
        for b, mean_b in houses[i + 1 :]:
            both = sum((math.joint[x][y] * a[x] * b[y] for x in range(4) for y in range(4)), Fraction(0))
            variance += 2 * (both - mean_a * mean_b)
    return Theoretical(mean, variance)


# --- the main game's outcomes, two positions against one dealer -------------------------------


def _outcomes(
    lookup: SettingLookup, rules: TableRules, player: np.ndarray, dealer_row: np.ndarray
) -> np.ndarray:
    row = lookup.index(keys_of_masks(player))
    p_high, p_low = lookup.hw_high[row], lookup.hw_low[row]
    d_high, d_low = lookup.hw_high[dealer_row], lookup.hw_low[dealer_row]
    won = (p_high > d_high).astype(np.int8) + (p_low > d_low)
    out = np.where(won == 2, WIN, np.where(won == 1, PUSH, LOSE)).astype(
        np.int8
    )  # copies to the banker (000)
    if rules.game is Game.DOUBLE_JOKER:  # the dealer's seven cards decide first (003)
        best = lookup.best5[dealer_row]
        out[best < HighCategory.ONE_PAIR] = PUSH
        if rules.overqualifier:
            out[best >= HighCategory.FOUR_OF_A_KIND] = PREMIUM
    return out


def joint_counts(
    lookup: SettingLookup, rules: TableRules, rounds: int, seed: int, chunk_size: int = 1 << 18
) -> np.ndarray:
    """4 x 4 counts of (position A's outcome, position B's) over ``rounds`` simulated rounds of a
    dealer and two positions by the house way, from one shuffled deck per round."""
    counts = np.zeros((4, 4), np.int64)
    for chunk, size in chunks(rounds, chunk_size):
        rng = np.random.Generator(np.random.SFC64(np.random.SeedSequence([seed, chunk])))
        dealer, first, second = deal(rng, size, rules.game.deck_size, hands=3)
        dealer_row = lookup.index(keys_of_masks(dealer))
        a = _outcomes(lookup, rules, first, dealer_row)
        b = _outcomes(lookup, rules, second, dealer_row)
        counts += np.bincount(a.astype(np.intp) * 4 + b, minlength=16).reshape(4, 4)
    return counts


# --- building and caching --------------------------------------------------------------------


def _paytable_ref(bonus: Bonus, table: PayTable | None) -> tuple[PayTable | None, Any]:
    if table is None:
        return None, None
    source = Path(table.source) if table.source and Path(table.source).is_file() else None
    loaded, ref = load_paytable_ref(bonus, paytable_path(bonus, source))
    if loaded != table:
        raise ValueError(f"the table's {bonus.value} pay table is not a file")
    return table, ref


def table_provenance(settings: TableSettings, rules: TableRules) -> Provenance:
    _, big_ref = _paytable_ref(Bonus.BIG_HAND, rules.big_hand)
    _, joker_ref = _paytable_ref(Bonus.JOKER, rules.joker_bonus)
    return provenance(settings.game, rules.ranking, settings.house_way, big_ref, joker_ref)


def math_key(prov: Provenance, rules: TableRules, rounds: int, seed: int) -> str:
    """The cache key: what the figures depend on, by content hash (the money policy is applied
    per round, so it is not part of it)."""
    parts = [
        FORMAT,
        json.dumps(prov.as_dict(), sort_keys=True),
        engine_sha256(),
        str(rules.overqualifier),
        str(rounds),
        str(seed),
    ]
    return hashlib.sha256("|".join(parts).encode()).hexdigest()


@dataclass(frozen=True)
class _MathFile:
    """Where a configuration's math is cached, and what names it."""

    rules: TableRules
    prov: Provenance
    key: str
    folder: Path
    path: Path

    @classmethod
    def of(cls, settings: TableSettings, cache_dir: Path | None, rounds: int, seed: int) -> _MathFile:
        rules = settings.table_rules()
        prov = table_provenance(settings, rules)
        folder = cache_dir or default_cache_dir()
        key = math_key(prov, rules, rounds, seed)
        return cls(rules, prov, key, folder, folder / f"table-math-{key[:24]}.json")

    def read_counts(self) -> list[list[int]] | None:
        """The joint counts the cache file holds, None without one (read under ``lock``)."""
        if not self.path.is_file():
            return None
        counts: list[list[int]] = json.loads(self.path.read_text())["joint_counts"]
        return counts

    def computed_counts(self, settings: TableSettings, rounds: int, seed: int) -> list[list[int]]:
        """The joint counts simulated, and written to the cache file atomically (under ``lock``)."""
        way = load_house_way(settings.house_way)
        lookup = get_lookup(way, self.prov.house_way.sha256, self.rules.ranking, self.folder).lookup
        joint = joint_counts(lookup, self.rules, rounds, seed)
        symmetric = joint + joint.T  # positions A and B are alike: both orders, 2 x rounds pairs
        counts: list[list[int]] = symmetric.tolist()
        stored = {
            "format": FORMAT,
            "key": self.key,
            "rounds": rounds,
            "seed": seed,
            "provenance": self.prov.as_dict(),
            "joint_counts": counts,
        }
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(stored, indent=1))
        tmp.replace(self.path)
        return counts

    def lock(self) -> FileLock:
        """One process at a time writes or reads the file (docs/math.md, "Speed")."""
        return FileLock(self.path.with_suffix(".lock"))


def _assembled(
    settings: TableSettings, file: _MathFile, counts: list[list[int]], rounds: int, seed: int
) -> TableMath:
    total = sum(sum(row) for row in counts)
    joint_p = tuple(tuple(Fraction(c, total) for c in row) for row in counts)
    rules = file.rules
    big = joker = None
    if rules.big_hand is not None:
        big = BonusOdds.of(big_hand_math(count_seven_card_hands(settings.game), rules.big_hand))
    if rules.joker_bonus is not None:
        joker = BonusOdds.of(joker_bonus_math(settings.game.jokers, rules.joker_bonus))
    return TableMath(rules, joint_p, big, joker, file.key, rounds, seed, file.prov.as_dict())


def table_math(
    settings: TableSettings,
    *,
    cache_dir: Path | None = None,
    rounds: int = DEFAULT_ROUNDS,
    seed: int = DEFAULT_SEED,
) -> TableMath:
    """The table's math, read from the cache or computed (the lookup built if need be: about
    20 s; the simulation about 2 s per million rounds on one core) and cached."""
    file = _MathFile.of(settings, cache_dir, rounds, seed)
    file.folder.mkdir(parents=True, exist_ok=True)
    # computed once per machine: a daemon started while another computes the same math waits
    # for it and reads the cache
    with file.lock():
        counts = file.read_counts() or file.computed_counts(settings, rounds, seed)
    return _assembled(settings, file, counts, rounds, seed)


def cached_table_math(
    settings: TableSettings,
    *,
    cache_dir: Path | None = None,
    rounds: int = DEFAULT_ROUNDS,
    seed: int = DEFAULT_SEED,
) -> TableMath | None:
    """The table's math when the machine's cache already holds it, else None: nothing is
    computed (a daemon starts no child to compute what is there to read)."""
    file = _MathFile.of(settings, cache_dir, rounds, seed)
    if not file.path.is_file():
        return None
    with file.lock():  # not while another process writes it
        counts = file.read_counts()
    if counts is None:
        return None
    return _assembled(settings, file, counts, rounds, seed)


__all__ = [
    "DEFAULT_ROUNDS",
    "DEFAULT_SEED",
    "BonusOdds",
    "TableMath",
    "Theoretical",
    "WagerLike",
    "cached_table_math",
    "joint_counts",
    "math_key",
    "round_theoretical",
    "table_math",
    "table_provenance",
]
