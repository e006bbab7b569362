"""The house way's decision for every hand, computed once and looked up in bulk.

How a hand is set depends only on its *pattern* (patterns.py): the rank counts of its
natural cards, its jokers, and the ranks of its flush suit (the one suit holding at least
``5 - jokers`` naturals, if any). Two hands of one pattern differ only in the suits of
cards that can never be in a suited five-card hand, so every setting of one has a setting
of the other worth the same, high hand and low hand. About 330,000 patterns cover every
hand of both decks; the lookup holds, per pattern:

- ``hw_high``, ``hw_low``: the scores of the house way's setting (``HouseWay.set``, run on
  one representative hand of the pattern);
- ``hl_high``, ``hl_low``: the "highest two-card hand that can legally be set" (004): the
  legal setting with the strongest low hand, the strongest high hand among equal lows;
- ``best5``: the best five-card category of the seven cards (Double Joker qualification
  and overqualifier, 003).

A hand's key is an int64 (``hand_keys``): rank counts 3 bits a rank (bits 0-38), jokers
(bits 39-40), the flush suit's rank mask (bits 41-53). The keys are sorted; a lookup is a
``searchsorted``. That the lookup equals the engine is checked by tests/analysis on random
hands of both decks and every golden example hand of tests/game.

Built once per (house way file SHA-256, game-core source SHA-256, ranking rules) and cached
as ``.npz`` under the cache directory (``default_cache_dir``).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

import numpy as np
from filelock import FileLock

from ..game.evaluator import DEFAULT_RULES, RankingRules, rank_high, rank_low
from ..game.house_way import HouseWay
from ..game.ranking_tables import MAX_JOKERS
from .patterns import RANKS, SUITS, best_five, rank_multisets
from .vecrank import card_of_id, high_beats_low_np, rank_high_ids, rank_low_ids

FORMAT = "analysis-lookup/1"
JOKER_SHIFT = 39
FLUSH_SHIFT = 41
GAME_DIR = Path(__file__).resolve().parents[1] / "game"

# A hand as one int64 *mask*: bit ``card id`` per card (the jokers are bits 52 and 53), so a
# suit's ranks are 13 bits of it. SPREAD turns a 13-bit rank mask into 3-bit-a-rank counts.
BIT_OF_ID = np.array([1 << i for i in range(54)], np.int64)
SPREAD = np.array(
    [sum(1 << (3 * r) for r in range(RANKS) if m >> r & 1) for m in range(1 << RANKS)], np.int64
)
SPLITS = tuple(combinations(range(7), 2))  # setting.all_settings' order: the two in front
HIGH_OF_SPLIT = np.array([[k for k in range(7) if k not in pair] for pair in SPLITS], np.intp)
LOW_OF_SPLIT = np.array(SPLITS, np.intp)
HASH_BITS = 20
HASH_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)

Progress = Callable[[int, int], None]


def masks_of_ids(ids: np.ndarray) -> np.ndarray:
    """Hand masks of hands given as card ids, shape (..., 7) -> (...) int64."""
    return np.bitwise_or.reduce(BIT_OF_ID[ids], axis=-1)


def ids_of_mask(mask: int) -> list[int]:
    """The card ids of one hand mask, ascending."""
    mask = int(mask)
    return [i for i in range(54) if mask >> i & 1]


def keys_of_masks(masks: np.ndarray) -> np.ndarray:
    """Pattern keys of hand masks (``pattern_key`` layout), int64."""
    joker_bits = masks >> 52
    jokers = (joker_bits & 1) + (joker_bits >> 1)
    need = 5 - jokers
    packed = jokers << JOKER_SHIFT
    flush = np.zeros_like(masks)
    for suit in range(SUITS):
        ranks = (masks >> (13 * suit)) & 0x1FFF
        packed += SPREAD[ranks]
        flush = np.where(np.bitwise_count(ranks) >= need, ranks, flush)
    return packed | (flush << FLUSH_SHIFT)


def hand_keys(ids: np.ndarray) -> np.ndarray:
    """Pattern keys of hands given as card ids, shape (..., 7) -> (...) int64."""
    return keys_of_masks(masks_of_ids(ids))


def _slots(keys: np.ndarray, bits: int) -> np.ndarray:
    return ((keys.astype(np.uint64) * HASH_MULTIPLIER) >> np.uint64(64 - bits)).astype(np.intp)


def build_hash(keys: np.ndarray, bits: int = HASH_BITS) -> tuple[np.ndarray, np.ndarray]:
    """An open-addressing (linear probing) table: slot -> key (-1 empty), slot -> row."""
    size = 1 << bits
    if len(keys) * 2 > size:
        raise ValueError("the hash table would be more than half full")
    table_keys = np.full(size, -1, np.int64)
    table_rows = np.zeros(size, np.int32)
    slots = _slots(keys, bits)
    pending = np.arange(len(keys))
    while pending.size:
        at = slots[pending]
        free = table_keys[at] == -1
        claimed, first = np.unique(at[free], return_index=True)
        winners = pending[free][first]
        table_keys[claimed] = keys[winners]
        table_rows[claimed] = winners
        placed = np.zeros(len(keys), bool)
        placed[winners] = True
        pending = pending[~placed[pending]]
        slots[pending] = (slots[pending] + 1) & (size - 1)
    return table_keys, table_rows


def pattern_key(counts: tuple[int, ...], jokers: int, flush_mask: int) -> int:
    packed = sum(count << (3 * r) for r, count in enumerate(counts))
    return packed | (jokers << JOKER_SHIFT) | (flush_mask << FLUSH_SHIFT)


def pattern_of_key(key: int) -> tuple[tuple[int, ...], int, int]:
    """The (rank counts, jokers, flush mask) a key packs (``pattern_key``'s inverse)."""
    key = int(key)
    counts = tuple((key >> (3 * r)) & 7 for r in range(RANKS))
    return counts, (key >> JOKER_SHIFT) & 3, key >> FLUSH_SHIFT


def representative(counts: tuple[int, ...], jokers: int, flush_mask: int) -> list[int]:
    """Card ids of one hand of the pattern: the flush ranks in the first suit, the other
    cards spread so that no other suit holds a flush."""
    load = [0] * SUITS
    ids: list[int] = []
    rest = list(counts)
    for r in range(RANKS):
        if flush_mask >> r & 1:
            ids.append(r)
            load[0] += 1
            rest[r] -= 1
    banned = {0} if flush_mask else set()
    for r in sorted(range(RANKS), key=lambda r: -rest[r]):
        used = {0} if flush_mask >> r & 1 else set()
        for _ in range(rest[r]):
            suit = min(
                (s for s in range(SUITS) if s not in used and s not in banned),
                key=lambda s: load[s],
                default=None,
            )
            if suit is None:  # a fourth copy without a flush: it must take the first suit
                suit = min((s for s in range(SUITS) if s not in used), key=lambda s: load[s])
            used.add(suit)
            load[suit] += 1
            ids.append(suit * RANKS + r)
    ids += [52, 53][:jokers]
    return ids


def patterns(max_jokers: int = MAX_JOKERS) -> Iterator[tuple[tuple[int, ...], int, int]]:
    """Every (rank counts, jokers, flush mask) a seven-card hand can show."""
    for jokers in range(max_jokers + 1):
        naturals = 7 - jokers
        for counts in rank_multisets(naturals, SUITS):
            yield counts, jokers, 0
        for size in range(5 - jokers, naturals + 1):
            others = list(rank_multisets(naturals - size, SUITS - 1))
            for flush in combinations(range(RANKS), size):
                mask = sum(1 << r for r in flush)
                for extra in others:
                    yield tuple(c + (mask >> r & 1) for r, c in enumerate(extra)), jokers, mask


def engine_sha256() -> str:
    """SHA-256 of the game core's source (evaluator, setting, house-way engine): a change
    there rebuilds the lookup even when the way's file is the same."""
    digest = hashlib.sha256()
    for path in sorted([*GAME_DIR.glob("*.py"), *GAME_DIR.glob("house_way/*.py")]):
        digest.update(path.relative_to(GAME_DIR).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


@dataclass(frozen=True)
class SettingLookup:
    keys: np.ndarray  # int64, sorted
    hw_high: np.ndarray  # int32
    hw_low: np.ndarray
    hl_high: np.ndarray
    hl_low: np.ndarray
    best5: np.ndarray  # int8 HighCategory
    meta: dict[str, str]

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", build_hash(self.keys))

    def index(self, keys: np.ndarray) -> np.ndarray:
        """Row of each key (hash table, linear probing); KeyError for a key not in the lookup."""
        table_keys, table_rows = self._hash  # type: ignore[attr-defined]
        size = len(table_keys)
        slots = _slots(keys, size.bit_length() - 1)
        miss = np.flatnonzero(table_keys[slots] != keys)
        while miss.size:
            slots[miss] = (slots[miss] + 1) & (size - 1)
            found = table_keys[slots[miss]]
            if np.any(found == -1):
                raise KeyError("a hand whose pattern is not in the lookup")
            miss = miss[found != keys[miss]]
        return table_rows[slots]

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp.npz")
        np.savez(
            tmp,
            keys=self.keys,
            hw_high=self.hw_high,
            hw_low=self.hw_low,
            hl_high=self.hl_high,
            hl_low=self.hl_low,
            best5=self.best5,
            meta=np.array(sorted(self.meta.items())),
        )
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> SettingLookup:
        with np.load(path) as data:
            meta = {str(k): str(v) for k, v in data["meta"]}
            return cls(
                data["keys"],
                data["hw_high"],
                data["hw_low"],
                data["hl_high"],
                data["hl_low"],
                data["best5"],
                meta,
            )


def highest_low_settings(hands: np.ndarray, rules: RankingRules) -> tuple[np.ndarray, np.ndarray]:
    """(high, low) scores of the legal setting with the strongest low hand (004), then the
    strongest high hand, for hands of card ids shape (N, 7)."""
    highs = rank_high_ids(hands[:, HIGH_OF_SPLIT], rules)  # (N, 21)
    lows = rank_low_ids(hands[:, LOW_OF_SPLIT], rules)
    legal = high_beats_low_np(highs, lows)
    order = np.where(legal, (lows.astype(np.int64) << 32) | highs, -1)
    best = order.argmax(axis=1)
    rows = np.arange(len(hands))
    return highs[rows, best], lows[rows, best]


def build_lookup(
    way: HouseWay,
    rules: RankingRules = DEFAULT_RULES,
    max_jokers: int = MAX_JOKERS,
    pattern_list: list[tuple[tuple[int, ...], int, int]] | None = None,
    progress: Progress | None = None,
    meta: dict[str, str] | None = None,
) -> SettingLookup:
    """Set one representative hand of every pattern (or of ``pattern_list``) by the house way."""
    items = pattern_list if pattern_list is not None else list(patterns(max_jokers))
    reps = np.array([representative(*item) for item in items], np.int64)
    keys = hand_keys(reps)
    expected = np.array([pattern_key(*item) for item in items], np.int64)
    if not np.array_equal(keys, expected):
        raise AssertionError("a representative hand does not show its pattern")  # a bug
    hw_high = np.empty(len(items), np.int32)
    hw_low = np.empty(len(items), np.int32)
    step = max(len(items) // 100, 1)
    for i, row in enumerate(reps.tolist()):
        setting = way.set([card_of_id(c) for c in row], rules).setting
        hw_high[i] = rank_high(setting.high, rules)
        hw_low[i] = rank_low(setting.low, rules)
        if progress is not None and (i % step == 0 or i == len(items) - 1):
            progress(i + 1, len(items))
    hl_high, hl_low = highest_low_settings(reps, rules)
    best5 = np.array([best_five(*item) for item in items], np.int8)
    order = np.argsort(keys)
    if len(np.unique(keys)) != len(keys):
        raise AssertionError("two patterns share a key")  # a bug
    return SettingLookup(
        keys[order],
        hw_high[order],
        hw_low[order],
        hl_high.astype(np.int32)[order],
        hl_low.astype(np.int32)[order],
        best5[order],
        dict(meta or {}, format=FORMAT),
    )


def default_cache_dir() -> Path:
    """The one analysis cache of the machine (docs/math.md, "Where the math is kept"):
    ``$XDG_CACHE_HOME/table-controller`` (default ``~/.cache/table-controller``). The daemon,
    the API and ``table-controller analysis`` read and build the same files there: each is keyed
    by the content it was built from, so tables and commands share it safely."""
    import os

    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "table-controller"


def cache_path(cache_dir: Path, way_name: str, way_sha: str, rules: RankingRules) -> Path:
    tag = hashlib.sha256(
        f"{FORMAT}|{way_sha}|{engine_sha256()}|{rules.wheel.value}|{rules.joker_wild_in_low}".encode()
    )
    return cache_dir / f"lookup-{way_name}-{way_sha[:12]}-{tag.hexdigest()[:16]}.npz"


@dataclass(frozen=True)
class LoadedLookup:
    lookup: SettingLookup
    path: Path
    built: bool  # True when built in this call (else read from the cache)
    seconds: float


def get_lookup(
    way: HouseWay,
    way_sha: str,
    rules: RankingRules,
    cache_dir: Path | None = None,
    rebuild: bool = False,
    progress: Progress | None = None,
) -> LoadedLookup:
    """The way's lookup from the cache, built and cached first when missing (or ``rebuild``)."""
    start = time.perf_counter()
    path = cache_path(cache_dir or default_cache_dir(), way.name, way_sha, rules)
    path.parent.mkdir(parents=True, exist_ok=True)
    # One builder per machine: daemons and analyses started together wait for the first
    # build instead of each spending the same CPU on it (docs/math.md, "Speed").
    with FileLock(path.with_suffix(".lock")):
        if path.is_file() and not rebuild:
            return LoadedLookup(SettingLookup.load(path), path, False, time.perf_counter() - start)
        return _build_and_save(way, way_sha, rules, path, start, progress)


def _build_and_save(
    way: HouseWay, way_sha: str, rules: RankingRules, path: Path, start: float, progress: Progress | None
) -> LoadedLookup:
    """Build the way's lookup and write it to the cache (the caller holds the cache's lock)."""
    meta = {
        "house_way": way.name,
        "house_way_sha256": way_sha,
        "engine_sha256": engine_sha256(),
        "wheel": rules.wheel.value,
        "joker_wild_in_low": str(rules.joker_wild_in_low),
    }
    lookup = build_lookup(way, rules, progress=progress, meta=meta)
    lookup.save(path)
    return LoadedLookup(lookup, path, True, time.perf_counter() - start)


__all__ = [
    "LoadedLookup",
    "SettingLookup",
    "build_hash",
    "build_lookup",
    "cache_path",
    "default_cache_dir",
    "get_lookup",
    "hand_keys",
    "highest_low_settings",
    "ids_of_mask",
    "keys_of_masks",
    "masks_of_ids",
    "pattern_key",
    "pattern_of_key",
    "patterns",
    "representative",
]
