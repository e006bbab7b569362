"""The main game's house edge by simulation, in bulk (numpy), over every core.

One simulated *round* is the dealer (the banker) and one player, each dealt seven cards
from a freshly shuffled deck; the player's net is settled on one wager in integer cents
(docs/settlement.md). How each hand is set is read from the lookup (``lookup.py``: the
house way for the dealer; the house way or the "highest legal low hand" strategy (004) for
the player), so a round costs a few array operations instead of two house-way runs.

- Standard game (001, 002): both hands win -> even money less the commission; one each
  or a copy in one -> push; otherwise (copies go to the banker, 000) -> the wager lost.
- Double Joker (003): the dealer's seven cards decide first: less than a pair -> push;
  four of a kind or better with the overqualifier on -> the premium multiple; otherwise
  compared as above.
- Commission: the table's policy on the integer win (``commission_on``), or its flat fee.

Reproducible: the rounds are cut into chunks; chunk ``i`` draws from
``SeedSequence([seed, i])`` whatever process runs it, and the totals are sums of integers,
so the same seed and rounds give the same figures for any number of workers.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from ..game.cards import Game
from ..game.evaluator import HighCategory
from ..game.table_rules import TableRules
from .lookup import BIT_OF_ID, SettingLookup, keys_of_masks

CHUNK = 1 << 18
STRATEGIES = ("house-way", "highest-low")


@dataclass(frozen=True, slots=True)
class SimParams:
    """What one chunk needs to settle its rounds (small, picklable)."""

    deck_size: int
    wager: int  # cents
    win_net: int  # cents the player nets on a win (the wager less the commission)
    premium_net: int  # cents on a Double Joker premium (less its commission)
    commission_on_win: int
    commission_on_premium: int
    fee: int  # flat fee per hand played (cents)
    double_joker: bool
    overqualifier: bool
    strategy: str


def sim_params(rules: TableRules, wager: int, strategy: str) -> SimParams:
    """Settlement constants for one wager under the table's rules (integer cents)."""
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {STRATEGIES}, got {strategy!r}")
    policy = rules.commission
    premium = rules.premium_multiple * wager
    on_win = policy.commission_on(wager)
    on_premium = policy.commission_on(premium)
    return SimParams(
        deck_size=rules.game.deck_size,
        wager=wager,
        win_net=wager - on_win,
        premium_net=premium - on_premium,
        commission_on_win=on_win,
        commission_on_premium=on_premium,
        fee=policy.fee_per_hand,
        double_joker=rules.game is Game.DOUBLE_JOKER,
        overqualifier=rules.overqualifier,
        strategy=strategy,
    )


@dataclass(slots=True)
class Tally:
    """Integer totals over simulated rounds; adding two tallies is exact."""

    rounds: int = 0
    wins: int = 0
    pushes: int = 0
    losses: int = 0
    high_copies: int = 0
    low_copies: int = 0
    any_copy: int = 0
    not_qualified: int = 0
    premiums: int = 0
    commission: int = 0  # cents
    fees: int = 0
    net: int = 0  # the player's, cents
    net_squared: int = 0

    def add(self, other: Tally) -> None:
        for name in self.__slots__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


# Byte -> card bit for a deck of N cards: the byte v < N * (256 // N) is card v % N (exactly
# uniform); any other byte is REJECT, a bit every round's "seen" mask holds, so it reads as
# a repeat and is redrawn.
REJECT = np.int64(1 << 62)


def _byte_bits(deck_size: int) -> np.ndarray:
    limit = deck_size * (256 // deck_size)
    return np.array([BIT_OF_ID[v % deck_size] if v < limit else REJECT for v in range(256)], np.int64)


_BYTE_BITS = {size: _byte_bits(size) for size in (53, 54)}


def _bytes(rng: np.random.Generator, count: int) -> np.ndarray:
    return np.frombuffer(rng.bytes(count), np.uint8)


def deal(rng: np.random.Generator, rounds: int, deck_size: int, hands: int = 2) -> np.ndarray:
    """Seven distinct cards per hand, ``hands`` hands per round, from one deck per round.

    Card by card, each drawn uniformly (a random byte, rejection to a multiple of the deck)
    and redrawn where it repeats a card already dealt in its round, so uniform over the
    cards left: exactly a shuffled deck's first cards. Returns the hands as masks (bit
    ``card id`` per card, lookup.py), shape (hands, rounds), int64.
    """
    table = _BYTE_BITS.get(deck_size)
    if table is None:
        table = _byte_bits(deck_size)
    masks = np.zeros((hands, rounds), np.int64)
    seen = np.full(rounds, REJECT, np.int64)
    raw = _bytes(rng, 7 * hands * rounds).reshape(7 * hands, rounds)
    for column in range(7 * hands):
        bit = table[raw[column]]
        clash = np.flatnonzero(seen & bit)
        while clash.size:
            bit[clash] = table[_bytes(rng, clash.size)]
            clash = clash[(seen[clash] & bit[clash]) != 0]
        seen |= bit
        masks[column // 7] |= bit
    return masks


def settle_chunk(lookup: SettingLookup, params: SimParams, seed: int, chunk: int, rounds: int) -> Tally:
    """Deal and settle ``rounds`` rounds of chunk ``chunk`` (its own seed stream)."""
    rng = np.random.Generator(np.random.SFC64(np.random.SeedSequence([seed, chunk])))
    player_mask, dealer_mask = deal(rng, rounds, params.deck_size)
    return settle_masks(lookup, params, player_mask, dealer_mask)


# A round's outcome code: hands won (0, 1, 2) + 3 * high copy + 6 * low copy + 12 * state,
# state 0 compared, 1 dealer not qualified, 2 premium (003). Money per code is a constant.
COMPARED, NOT_QUALIFIED, PREMIUM = 0, 1, 2
CODES = 36


def _code_money(params: SimParams) -> tuple[list[int], list[int]]:
    """(player's net, commission) in cents per outcome code."""
    nets, commissions = [], []
    for code in range(CODES):
        won, state = code % 3, code // 12
        if state == NOT_QUALIFIED:
            net, commission = 0, 0
        elif state == PREMIUM:
            net, commission = params.premium_net, params.commission_on_premium
        elif won == 2:
            net, commission = params.win_net, params.commission_on_win
        else:
            net, commission = (0 if won == 1 else -params.wager), 0
        nets.append(net - params.fee)
        commissions.append(commission)
    return nets, commissions


def settle_masks(
    lookup: SettingLookup, params: SimParams, player_mask: np.ndarray, dealer_mask: np.ndarray
) -> Tally:
    """Settle one round per (player hand, dealer hand) mask pair."""
    rounds = len(player_mask)
    player = lookup.index(keys_of_masks(player_mask))
    dealer = lookup.index(keys_of_masks(dealer_mask))
    if params.strategy == "house-way":
        p_high, p_low = lookup.hw_high[player], lookup.hw_low[player]
    else:
        p_high, p_low = lookup.hl_high[player], lookup.hl_low[player]
    d_high, d_low = lookup.hw_high[dealer], lookup.hw_low[dealer]
    code = (p_high > d_high).astype(np.int8)
    code += p_low > d_low
    code += (p_high == d_high).view(np.int8) * np.int8(3)
    code += (p_low == d_low).view(np.int8) * np.int8(6)
    if params.double_joker:
        best = lookup.best5[dealer]
        state = np.where(best < HighCategory.ONE_PAIR, NOT_QUALIFIED, COMPARED).astype(np.int8)
        if params.overqualifier:
            state[best >= HighCategory.FOUR_OF_A_KIND] = PREMIUM
        code += state * np.int8(12)
    counts = np.bincount(code, minlength=CODES).tolist()
    nets, commissions = _code_money(params)
    by = {key: 0 for key in ("wins", "pushes", "losses", "high", "low", "any", "nq", "premium")}
    for c, count in enumerate(counts):
        won, high_copy, low_copy, dealer_state = c % 3, c // 3 % 2, c // 6 % 2, c // 12
        if dealer_state == NOT_QUALIFIED:
            by["nq"] += count
            by["pushes"] += count
            continue
        if dealer_state == PREMIUM:
            by["premium"] += count
            by["wins"] += count
            continue
        by[("losses", "pushes", "wins")[won]] += count
        by["high"] += count * high_copy
        by["low"] += count * low_copy
        by["any"] += count * (high_copy | low_copy)
    return Tally(
        rounds=rounds,
        wins=by["wins"],
        pushes=by["pushes"],
        losses=by["losses"],
        high_copies=by["high"],
        low_copies=by["low"],
        any_copy=by["any"],
        not_qualified=by["nq"],
        premiums=by["premium"],
        commission=sum(n * c for n, c in zip(counts, commissions, strict=True)),
        fees=params.fee * rounds,
        net=sum(n * c for n, c in zip(counts, nets, strict=True)),
        net_squared=sum(n * c * c for n, c in zip(counts, nets, strict=True)),
    )


def chunks(total: int, size: int = CHUNK) -> list[tuple[int, int]]:
    """(chunk number, rounds) covering ``total`` rounds."""
    return [(i, min(size, total - i * size)) for i in range(math.ceil(total / size))]


# --- workers ---------------------------------------------------------------------------------

_WORKER: dict[str, Any] = {}  # per worker process: the lookup read once (not shared state)


def _init_worker(path: str, params: SimParams, seed: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    _WORKER.update(lookup=SettingLookup.load(Path(path)), params=params, seed=seed)


def _run_chunk(job: tuple[int, int]) -> tuple[int, Tally]:
    chunk, rounds = job
    return chunk, settle_chunk(_WORKER["lookup"], _WORKER["params"], _WORKER["seed"], chunk, rounds)


@dataclass
class SimResult:
    """The figures of a simulation (the player's point of view; the house edge is minus the
    player's expected net per unit wagered)."""

    params: SimParams
    seed: int
    tally: Tally
    requested: int
    interrupted: bool
    seconds: float
    workers: int
    provenance: dict[str, Any] = field(default_factory=dict)
    lookup: dict[str, Any] = field(default_factory=dict)

    @property
    def house_edge(self) -> float:
        return -self.tally.net / (self.tally.rounds * self.params.wager)

    @property
    def standard_error(self) -> float:
        n, wager = self.tally.rounds, self.params.wager
        mean = Fraction(self.tally.net, n)
        variance = (Fraction(self.tally.net_squared, n) - mean * mean) * Fraction(n, max(n - 1, 1))
        return math.sqrt(float(variance) / n) / wager

    def rate(self, count: int) -> float:
        return count / self.tally.rounds if self.tally.rounds else 0.0

    def as_dict(self) -> dict[str, Any]:
        t = self.tally
        edge, se = (self.house_edge, self.standard_error) if t.rounds else (float("nan"), float("nan"))
        return {
            "kind": "house-edge",
            "provenance": self.provenance,
            "lookup": self.lookup,
            "strategy": self.params.strategy,
            "seed": self.seed,
            "rounds": t.rounds,
            "rounds_requested": self.requested,
            "interrupted": self.interrupted,
            "workers": self.workers,
            "seconds": round(self.seconds, 3),
            "rounds_per_second": round(t.rounds / self.seconds) if self.seconds else None,
            "wager_cents": self.params.wager,
            "house_edge": edge,
            "standard_error": se,
            "interval_95": [edge - 1.96 * se, edge + 1.96 * se],
            "win_rate": self.rate(t.wins),
            "push_rate": self.rate(t.pushes),
            "loss_rate": self.rate(t.losses),
            "high_copy_rate": self.rate(t.high_copies),
            "low_copy_rate": self.rate(t.low_copies),
            "any_copy_rate": self.rate(t.any_copy),
            "dealer_not_qualified_rate": self.rate(t.not_qualified),
            "premium_rate": self.rate(t.premiums),
            "commission_per_hand_cents": t.commission / t.rounds if t.rounds else 0.0,
            "fees_per_hand_cents": t.fees / t.rounds if t.rounds else 0.0,
            "tally": asdict(t),
            "params": asdict(self.params),
        }


def run_chunks(
    jobs: list[tuple[int, int]], path: Path, params: SimParams, seed: int, workers: int
) -> Iterator[tuple[int, Tally]]:
    """Chunk tallies as they finish, from ``workers`` processes (1: in this process)."""
    if workers <= 1:
        lookup = SettingLookup.load(path)
        for chunk, rounds in jobs:
            yield chunk, settle_chunk(lookup, params, seed, chunk, rounds)
        return
    context = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    pool = context.Pool(workers, _init_worker, (str(path), params, seed))
    try:
        yield from pool.imap_unordered(_run_chunk, jobs)
        pool.close()
    finally:
        pool.terminate()
        pool.join()


def simulate(
    lookup_path: Path,
    params: SimParams,
    rounds: int,
    seed: int,
    workers: int | None = None,
    progress: Callable[[int], None] | None = None,
    chunk_size: int = CHUNK,
) -> SimResult:
    """Simulate ``rounds`` rounds; Ctrl-C stops early with the figures of the chunks done."""
    workers = workers or os.cpu_count() or 1
    jobs = chunks(rounds, chunk_size)
    tally = Tally()
    interrupted = False
    start = time.perf_counter()
    try:
        for _, part in run_chunks(jobs, lookup_path, params, seed, workers):
            tally.add(part)
            if progress is not None:
                progress(part.rounds)
    except KeyboardInterrupt:
        interrupted = True
    return SimResult(params, seed, tally, rounds, interrupted, time.perf_counter() - start, workers)


__all__ = [
    "CHUNK",
    "STRATEGIES",
    "SimParams",
    "SimResult",
    "Tally",
    "chunks",
    "deal",
    "settle_chunk",
    "settle_masks",
    "sim_params",
    "simulate",
]
