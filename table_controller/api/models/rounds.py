"""Round history, one round in full, and its replay (docs/api.md, "What they see")."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field, computed_field

from ...round.phase_words import phase_words
from .events import ChainEventPublic
from .table import (
    DicePublic,
    HouseWayPublic,
    NamedSettingPublic,
    PilePublic,
    PositionsPublic,
    RoundStatePublic,
)


class RoundSummaryPublic(BaseModel):
    """One round of the history (the ``rounds`` projection). Money in cents; ``house_result``
    is what the house gained (negative: lost)."""

    round_id: str
    number: int
    game: str
    dealer: str = Field(description="the person who opened the round")
    phase: str
    opened_at: datetime
    closed_at: datetime | None
    voided: bool
    misdeal: bool
    void_reason: str | None
    override: bool
    dice: list[int] | None
    dice_source: str | None
    start_position: int | None
    wagered_cents: int
    bonus_wagered_cents: int
    commission_cents: int
    bonuses_paid_cents: int
    house_result_cents: int
    house_way_rule_id: str | None
    banker_seat: int | None = Field(
        None, description="the seat of the player who banked (position 1 this round); None: the house"
    )
    bank_cents: int | None = Field(None, description="the player's bank declared")
    house_wager_cents: int | None = Field(None, description="the house hand's wager against the bank")
    house_share_bp: int | None = Field(None, description="the house's share of a co-banked bank")
    bank_offer: int | None = Field(None, description="the seat the bank was offered to this round")
    dice_direction: str | None = Field(None, description="how the dice counted; None in older rounds")
    bank_gross_cents: int | None = Field(None, description="what the bank won less what it paid")
    bank_commission_cents: int | None = Field(None, description="commission the player-banker paid")
    banker_result_cents: int | None = Field(None, description="the player-banker's result, its share")
    house_hand_result_cents: int | None = Field(None, description="the house's own hand against the bank")

    @computed_field(description="the phase in words, as the pages show it (round/phase_words.py)")  # type: ignore[prop-decorator]
    @property
    def phase_words(self) -> str:
        return phase_words(self.phase)


class RoundPage(BaseModel):
    rounds: list[RoundSummaryPublic]
    next_cursor: int | None = Field(description="give as ?cursor= for the next page; None on the last page")


class PositionPublic(BaseModel):
    """One position of a round: its cards, its setting, its outcome and money (cents)."""

    position: int = Field(description="1 is the banker")
    wager_cents: int
    big_hand_bonus_cents: int
    joker_bonus_cents: int
    cards: list[str] | None
    high: list[str] | None
    low: list[str] | None
    high_category: str | None
    low_category: str | None
    high_sorted: list[str] | None = Field(
        None, description="the high hand as a dealer reads it (as NamedSettingPublic's); null when not set"
    )
    high_name: str | None = Field(None, description="the high hand named: pair of kings")
    low_sorted: list[str] | None = Field(None, description="the low hand, the higher card first")
    low_name: str | None = Field(None, description="the low hand named: pair of nines, king-jack")
    seven_card_category: str | None
    house_way_rule_id: str | None
    fouled: bool
    outcome: str | None = Field(description="win, push or lose (the banker's row: none)")
    win_cents: int
    commission_cents: int
    bonus_paid_cents: int
    net_cents: int = Field(description="the position's result, + won, - lost")
    override: bool
    house_hand: bool = Field(
        False, description="the dealer's own hand, for the house against a player's bank"
    )


class RoundEventPublic(ChainEventPublic):
    """One event of the round; one that sets hands (a position's, the banker's, an override, a
    refused dealer setting) says them as a dealer reads them, under the round's rules."""

    setting: NamedSettingPublic | None = Field(
        None, description="the hands this event sets or tried to set, read in order and named; else null"
    )


class RoundDetailPublic(RoundSummaryPublic, PositionsPublic):
    """One round in full: every event in chain order, the deal, the house way and each position."""

    dice_rolled: DicePublic | None
    piles: list[PilePublic]
    unused: list[str]
    house_way: HouseWayPublic | None = Field(
        description="how the house way sets the banker's hand, and the rule"
    )
    positions: list[PositionPublic]
    events: list[RoundEventPublic]
    rules_version: dict[str, str] = Field(
        default_factory=dict,
        description="the rules' contents the round was decided under, by SHA-256 (house_way,"
        " table_rules, paytable.<bonus>); empty for a round opened before rules were pinned",
    )
    record_findings: list[str] = Field(
        default_factory=list,
        description="where the stored round disagrees with its chained events, re-derived as"
        " `audit verify` does (a forged card, hand, outcome or amount), one line each; empty"
        ' when the round shown is the round the chain holds (docs/api.md, "A forged stored value")',
    )


class ReplayStepPublic(BaseModel):
    seq: int
    kind: str
    actor: str
    created_at: datetime
    state: RoundStatePublic = Field(description="the round after this event")


class ReplayPublic(BaseModel):
    round_id: str
    steps: list[ReplayStepPublic]
