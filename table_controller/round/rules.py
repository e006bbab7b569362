"""The game core, as the round state machine asks for it (machine.RoundRules).

Built from the rules stored in the round's ``round.opened`` event, so a round replayed after
a restart (or by an auditor) is judged by the rules it was played under, not by today's.
Nothing here reads a file: the house way is handed in, loaded by record/pinned_rules.py.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ..game.cards import Card
from ..game.deal import BANKER_POSITION
from ..game.dealer import RequiredSetting, required_setting
from ..game.evaluator import RankingRules
from ..game.house_way import HouseWay
from ..game.setting import Setting, same_values
from ..game.settlement import BankerHand, PositionHand, RoundSettlement, settle_round
from ..game.side_wagers import SNAPSHOT_KEY, SideRules, SideWagerError, settle_side
from ..game.table_rules import TableRules
from .machine import RoundState


@dataclass(frozen=True)
class GameRoundRules:
    """Table rules plus the house way the banker's hand is set by, and the side wagers the
    table offers (None: none, and the snapshot is what it always was)."""

    table: TableRules
    way: HouseWay
    side: SideRules | None = None

    def snapshot(self) -> dict[str, Any]:
        snapshot = {"table": self.table.model_dump(mode="json"), "house_way": self.way.name}
        if self.side is not None:
            snapshot[SNAPSHOT_KEY] = self.side.snapshot()
        return snapshot

    def check_side_wager(self, position: int, fortune: int, progressive: int) -> None:
        if self.side is None:
            if fortune or progressive:
                raise SideWagerError(f"position {position}: this table offers no side wagers")
            return
        self.side.check_wager(position, fortune, progressive)

    @property
    def ranking(self) -> RankingRules:
        return self.table.ranking

    def required_setting(self, cards: tuple[Card, ...]) -> RequiredSetting:
        return required_setting(
            cards,
            game=self.table.game,
            way=self.way,
            rules=self.table.ranking,
            overqualifier=self.table.overqualifier,
        )

    def matches(self, proposed: Setting, required: RequiredSetting) -> bool:
        return same_values(proposed, required.setting, self.table.ranking)

    def house_way_setting(self, cards: tuple[Card, ...]) -> Setting:
        return self.way.set(cards, self.table.ranking).setting

    def settle(self, state: RoundState) -> RoundSettlement:
        assert state.dealer_setting is not None
        hands = []
        for position, wager in sorted(state.wagers.items()):
            taken = state.set_hands.get(position)  # parsed once, when the round took it
            setting = None if taken is None else taken.setting
            hands.append(
                PositionHand(
                    position=position,
                    cards=state.hands[position],
                    setting=setting,
                    wager=wager.main,
                    big_hand_wager=wager.big_hand or None,
                    joker_bonus_wager=wager.joker_bonus or None,
                )
            )
        bank = state.opened.bank
        house_hand = None
        if state.house_position is not None:
            assert bank is not None
            cards = state.hands[state.house_position]
            # the dealer's own seven cards play for the house, set by the house way
            house_hand = PositionHand(
                position=state.house_position,
                cards=cards,
                setting=self.house_way_setting(cards),
                wager=bank.house_wager,
            )
        result = settle_round(
            self.table,
            BankerHand(cards=state.hands[BANKER_POSITION], setting=state.dealer_setting),
            hands,
            reset_by_house_way=self.house_way_setting,
            bank=bank.terms() if bank is not None else None,
            house_hand=house_hand,
        )
        return self._settle_side(state, result)

    def _settle_side(self, state: RoundState, result: RoundSettlement) -> RoundSettlement:
        """The Fortune, envy and progressive wagers on the seven cards of every kept hand
        (game/side_wagers.py); the dealer's hand never triggers envy: with the house banking
        it is position 1, against a player's bank it sits at the house's position."""
        wagers = {
            p: (w.fortune, w.progressive) for p, w in state.wagers.items() if w.fortune or w.progressive
        }
        if not wagers:
            return result
        if self.side is None:
            raise SideWagerError("side wagers on a round whose rules offer none")
        bank = state.opened.bank
        side = settle_side(
            self.side,
            state.hands,
            wagers,
            dealer_position=BANKER_POSITION if bank is None else bank.house_position,
            player_banker_position=None if bank is None else BANKER_POSITION,
            ranking=self.table.ranking,
        )
        return replace(result, side=side)
