"""Deals built by hand for round tests: each position's seven cards are chosen, so every
expected value (house way, outcome, commission) can be worked out from the rules."""

from __future__ import annotations

from table_controller.game.cards import Game, codes
from table_controller.game.deal import pile_positions
from table_controller.game.house_way import load_house_way
from table_controller.game.table_rules import TableRules
from table_controller.round.events import RoundOpened, Wager
from table_controller.round.rules import GameRoundRules

# The banker: no pair, Ace high: 002 High Card "2nd & 4th highest" -> low Qd 7s (readings C1).
BANKER = "Ac Qd 9h 7s 5c 3d 2h"
# Position 3: two pair, A-A and K-K. Set A-A behind, K-K in front: beats Ac-high and Q-7.
POSITION_3 = "As Ah Kd Kh 9c 8c 2c"
# Position 5: no pair, K high; its best low, Q-J, loses to nothing... vs the banker's Q-7 it wins,
# its high hand K-high loses to the banker's A-high: a push.
POSITION_5 = "Kc Qh Jd 8d 6s 4h 3c"


def deal(hands: dict[int, str], start: int, game: Game = Game.STANDARD) -> tuple[list[list[str]], list[str]]:
    """Seven piles in dealing order putting ``hands`` at their positions; the rest filled in."""
    chosen = {p: h.split() for p, h in hands.items()}
    used = {c for h in chosen.values() for c in h if c != "JK"}
    jokers_used = sum(h.count("JK") for h in chosen.values())
    rest = [c for c in codes(game.deck()) if c != "JK" and c not in used] + ["JK"] * (
        game.jokers - jokers_used
    )
    piles = []
    for position in pile_positions(start):
        if position in chosen:
            piles.append(chosen[position])
        else:
            piles.append(rest[:7])
            rest = rest[7:]
    return piles, rest


def game_rules(game: Game = Game.STANDARD, **table) -> GameRoundRules:
    return GameRoundRules(table=TableRules(game=game, **table), way=load_house_way("house-way-002"))


def opened(
    wagers: dict[int, int | Wager],
    game: Game = Game.STANDARD,
    rules: GameRoundRules | None = None,
    number: int = 1,
    **fields,
) -> RoundOpened:
    """``fields``: more of RoundOpened's fields (``bank``, ``dice_direction`` ...)."""
    rules = rules or game_rules(game)
    return RoundOpened(
        **fields,
        table_id="t1",
        round_id=f"t1-{number}",
        number=number,
        game=game,
        rules=rules.snapshot(),
        wagers={p: w if isinstance(w, Wager) else Wager(main=w) for p, w in wagers.items()},
        actor="dealer-ann",
    )
