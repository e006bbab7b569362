"""The table's rules as one frozen, validated object: what settlement needs to know.

Defaults:
- Standard game (001_c9adb19db438d99f.txt): 53 cards, fouls forfeit the wager (001: "it
  is a foul and they lose their bet"), 5% commission rounded up to a quarter of a $1
  lowest chip, i.e. 25 cents (002_08ea07f9e4b504bc.txt). No bonuses, no overqualifier.
- Double Joker (003_4dcc2fceebc6e4af.txt): no commission ("he wins even money"), the
  overqualifier on with a premium of 3x the main wager ("pay the main wager triple (or
  whichever multiple the casino has chosen)", 1x-4x), the Big Hand Bonus and Joker Bonus
  pay tables read from ``config/paytables``.
- The foul rule (004_60e2fc6346e3399b.txt: "either re-arrangement of the hand according to
  house rules or forfeiture of the hand"): ``forfeit`` (default) or ``house-way``.
- A player-banker's foul (001: "If anybody does present a 2-card hand higher than their
  5-card hand, it is a foul"; 004's penalty): ``banker_foul_rule``, ``forfeit`` or
  ``house-way``; None (default) follows ``foul_rule``. The dealer's hand, and a co-banker's,
  is set by the house way and never a foul (docs/settlement.md, 8).
- ``foul_forfeits_bonuses`` False: a fouled hand's bonus wagers are still settled on its
  seven cards (003: "They do not have to set their HIGH hand a certain way"); True makes a
  foul lose them too.

Unsafe values are refused with pydantic ``ValidationError`` naming the field.
"""

from __future__ import annotations

import enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, model_validator

from .cards import Game
from .evaluator import RankingRules
from .money import CommissionPolicy, NoCommission, PercentCommission
from .paytables import Bonus, PayTable, load_paytable

PREMIUM_MULTIPLES = (1, 2, 3, 4)  # 003: "(1x, 2x, 3x, or 4x) that is chosen by the casino"
DEFAULT_PREMIUM_MULTIPLE = 3  # 003: "pay the main wager triple"


class FoulRule(enum.StrEnum):
    """What happens to a fouled hand's main wager (004)."""

    FORFEIT = "forfeit"  # the wager loses (001)
    HOUSE_WAY = "house-way"  # the hand is re-set by the house way, then compared


class TableRules(BaseModel):
    """Everything settlement needs about the table; build once per table, share freely."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    game: Game = Game.STANDARD
    ranking: RankingRules = RankingRules()
    foul_rule: FoulRule = FoulRule.FORFEIT
    banker_foul_rule: FoulRule | None = None  # a player-banker's foul; None: as foul_rule
    commission: CommissionPolicy = Field(default_factory=PercentCommission)
    overqualifier: StrictBool = False
    premium_multiple: StrictInt = DEFAULT_PREMIUM_MULTIPLE
    foul_forfeits_bonuses: StrictBool = False
    big_hand: PayTable | None = None
    joker_bonus: PayTable | None = None

    @model_validator(mode="before")
    @classmethod
    def _game_defaults(cls, data: Any) -> Any:
        """Fill what the game decides when it is not given: commission, overqualifier, pay tables."""
        if not isinstance(data, dict):
            return data
        try:
            game = Game(data.get("game", Game.STANDARD))
        except ValueError:
            return data  # the field validator names the bad game
        if game is Game.DOUBLE_JOKER:
            data = dict(data)
            data.setdefault("commission", NoCommission())
            data.setdefault("overqualifier", True)
            if "big_hand" not in data:
                data["big_hand"] = load_paytable(Bonus.BIG_HAND)
            if "joker_bonus" not in data:
                data["joker_bonus"] = load_paytable(Bonus.JOKER)
        return data

    @model_validator(mode="after")
    def _consistent(self) -> TableRules:
        if self.premium_multiple not in PREMIUM_MULTIPLES:
            raise ValueError(
                f"premium_multiple must be one of {PREMIUM_MULTIPLES} (003), got {self.premium_multiple}"
            )
        if self.game is Game.STANDARD:
            if self.overqualifier:
                raise ValueError("overqualifier applies only to the double-joker game (003)")
            if self.big_hand is not None or self.joker_bonus is not None:
                raise ValueError("bonus pay tables apply only to the double-joker game (003)")
        for field, bonus in (("big_hand", Bonus.BIG_HAND), ("joker_bonus", Bonus.JOKER)):
            table = getattr(self, field)
            if table is not None and table.bonus is not bonus:
                raise ValueError(f"{field} must be a {bonus.value} pay table, got a {table.bonus.value} one")
        return self

    @property
    def banker_fouls(self) -> FoulRule:
        """What a player-banker's foul costs: ``banker_foul_rule``, else the table's ``foul_rule``."""
        return self.banker_foul_rule if self.banker_foul_rule is not None else self.foul_rule

    def paytable(self, bonus: Bonus) -> PayTable | None:
        """The table's pay table for ``bonus``, or None when the bonus is not offered."""
        return self.big_hand if bonus is Bonus.BIG_HAND else self.joker_bonus


STANDARD_RULES = TableRules()

__all__ = ["DEFAULT_PREMIUM_MULTIPLE", "PREMIUM_MULTIPLES", "STANDARD_RULES", "FoulRule", "TableRules"]
