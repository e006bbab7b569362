"""The auto-dealer: simulated players and a dealer who follows the house way, for unattended runs.

``run --simulate`` (or ``[auto_dealer] enabled = true``) plays whole rounds without anyone at
the table. What it decides, all through ``TableService`` like any dealer terminal:

- Wagers (docs/round-lifecycle.md, "The phases"): one to six of positions 2-7 (the banker is
  position 1), each main wager a whole number of table minimums within the limits; in Double
  Joker a position also makes the Big Hand and Joker Bonus wagers with probability
  ``bonus_rate``, each within ``max_bonus`` (003_4dcc2fceebc6e4af.txt).
- Player settings (step 5): mostly the house way (the table's way, as a player copying the
  dealer would), sometimes another legal setting (``other_setting_rate``), rarely a foul
  (``foul_rate``: a low hand that outranks the high hand, 001_c9adb19db438d99f.txt,
  004_60e2fc6346e3399b.txt), which the table's foul rule then settles.
- The dealer's setting (step 4): the setting the game core requires (the house way, or the
  overqualifier in Double Joker). A simulated player-banker sets the same way (free to, 004,
  but a player copying the dealer is the common case; co-banked, it must).
- Player banking (``player_banks``; docs/settlement.md, 8): when the table's policy offers the
  bank to a seated simulated player, that player takes it, co-banking with the house with
  probability ``co_bank_rate``; the other seats' wagers are then numbered from the banker's
  seat (004). The bank declared always covers the action: four times the wagers against it
  plus the table maximum (the house's wager is at most that, a Double Joker premium at most 4x).

Seeded: every decision draws from ``random.Random(f"{seed}:{what}:{round}")``, so the same
seed gives the same table, and a round resumed after a restart gets the same decisions.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Literal

from ..game.banking import position_of_seat
from ..game.cards import Game, codes
from ..game.deal import PLAYER_POSITIONS
from ..game.setting import Setting, all_settings, is_legal
from ..round.events import Wager
from ..round.machine import RoundRules, RoundState
from ..settings import AutoDealerSettings, Limits

Choice = Literal["house-way", "other", "foul"]
MAX_UNITS = 10  # a main wager is 1..10 table minimums (within max_main)
BONUS_STEP = 100  # bonus wagers in whole units of one dollar (cents)


@dataclass(frozen=True, slots=True)
class Opening:
    """A round the auto-dealer opens: the wagers by position and, when a player banks, the
    banker's seat, the bank declared and whether it co-banks (TableService.open_round)."""

    wagers: dict[int, Wager]
    banker_seat: int | None = None
    bank_amount: int = 0
    co_bank: bool = False


@dataclass(frozen=True, slots=True)
class PlayerDecision:
    """How a simulated player set a hand, and why."""

    position: int
    high: list[str]
    low: list[str]
    choice: Choice


class AutoDealer:
    """Decisions for one table; stateless apart from the seed."""

    def __init__(self, settings: AutoDealerSettings, game: Game, limits: Limits) -> None:
        self.settings = settings
        self.game = game
        self.limits = limits
        self.seed = settings.seed if settings.seed is not None else secrets.randbits(64)
        self.actor = settings.actor

    def _rng(self, what: str, key: str | int) -> random.Random:
        return random.Random(f"{self.seed}:{what}:{key}")

    # -- step 1: wagers -------------------------------------------------------------------------

    def wagers(self, round_number: int) -> dict[int, Wager]:
        """Wagers for the round that will get ``round_number``; always within the table limits."""
        rng = self._rng("wagers", round_number)
        count = rng.randint(1, len(PLAYER_POSITIONS))
        positions = sorted(rng.sample(PLAYER_POSITIONS, count))
        unit = self.limits.min_main
        most = max(1, min(MAX_UNITS, self.limits.max_main // unit))
        wagers = {}
        for position in positions:
            main = unit * rng.randint(1, most)
            big_hand = joker_bonus = 0
            if self.game is Game.DOUBLE_JOKER and self.limits.max_bonus >= BONUS_STEP:
                if rng.random() < self.settings.bonus_rate:
                    big_hand = BONUS_STEP * rng.randint(1, self.limits.max_bonus // BONUS_STEP)
                if rng.random() < self.settings.bonus_rate:
                    joker_bonus = BONUS_STEP * rng.randint(1, self.limits.max_bonus // BONUS_STEP)
            wagers[position] = Wager(main=main, big_hand=big_hand, joker_bonus=joker_bonus)
        return wagers

    def opening(self, round_number: int, offer: Callable[[Collection[int]], int | None]) -> Opening:
        """The round ``round_number``: the seats' wagers, and a player's bank when the table
        offers one (``offer``: the seat the bank goes to among the occupied seats, or None)."""
        by_seat = self.wagers(round_number)  # a house-banked round's positions are its seats
        if not self.settings.player_banks:
            return Opening(by_seat)
        seat = offer(set(by_seat))
        if seat is None or seat not in by_seat or len(by_seat) < 2:
            return Opening(by_seat)  # the house's turn (or nobody left to play against the bank)
        rng = self._rng("bank", round_number)
        wagers = {position_of_seat(s, seat): w for s, w in by_seat.items() if s != seat}
        amount = 4 * (sum(w.main for w in wagers.values()) + self.limits.max_main)
        return Opening(wagers, seat, amount, rng.random() < self.settings.co_bank_rate)

    # -- step 5: the players --------------------------------------------------------------------

    def player_setting(self, state: RoundState, position: int, rules: RoundRules) -> PlayerDecision:
        """How the player at ``position`` sets the seven cards of the round ``state``, by the
        rules the round was opened under."""
        cards = state.hands[position]
        ranking = rules.ranking
        rng = self._rng("player", f"{state.round_id}:{position}")
        house = rules.house_way_setting(cards)
        draw = rng.random()
        choice: Choice = "house-way"
        setting = house
        if draw < self.settings.foul_rate:
            fouls = [s for s in all_settings(cards) if not is_legal(s, ranking)]
            if fouls:
                choice, setting = "foul", rng.choice(fouls)
        elif draw < self.settings.foul_rate + self.settings.other_setting_rate:
            others = [s for s in all_settings(cards) if is_legal(s, ranking) and not _same_cards(s, house)]
            if others:
                choice, setting = "other", rng.choice(others)
        return PlayerDecision(position, codes(setting.high), codes(setting.low), choice)

    # -- step 4: the dealer ---------------------------------------------------------------------

    def dealer_setting(self, state: RoundState) -> tuple[list[str], list[str]]:
        """The banker's hand set as the game core requires (house way or overqualifier)."""
        if state.required is None:
            raise ValueError(f"round {state.round_id} has no required setting: the deal was not verified")
        required = state.required.setting
        return codes(required.high), codes(required.low)

    def next_position(self, state: RoundState) -> int | None:
        """The next player position (in position order) still to set, or None."""
        for position in state.playing_positions:
            if position not in state.player_settings:
                return position
        return None


def _same_cards(a: Setting, b: Setting) -> bool:
    return sorted(a.low) == sorted(b.low)


__all__ = ["AutoDealer", "Opening", "PlayerDecision"]
