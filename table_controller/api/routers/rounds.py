"""Round history, one round in full, and its replay (pit and surveillance)."""

from __future__ import annotations

import enum
from datetime import datetime
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Path
from pydantic import BaseModel, Field

from ...game.cards import Game
from ...game.deal import BANKER_POSITION, POSITIONS
from ...game.evaluator import HighCategory, LabelledCategory, LowCategory, SevenCardCategory
from ...storage.models import PositionOutcome
from ..deps import AuditDep, ServiceDep, StoreDep
from ..errors import ApiError, responses
from ..history import MAX_PAGE, HistoryFilter, history_page, round_detail, round_replay
from ..models.commands import CardCode
from ..models.rounds import ReplayPublic, RoundDetailPublic, RoundPage
from ..patterns import ROUND_ID_PATTERN
from ..query import query_parameters, query_reader
from ..times import aware_utc

router = APIRouter(prefix="/api/rounds", tags=["rounds"])


def _labels(name: str, category: type[LabelledCategory]) -> type[enum.StrEnum]:
    """The category's labels as the choices of a query parameter (its OpenAPI enum)."""
    return enum.StrEnum(name, {member.name: label for label, member in category.by_label().items()})  # type: ignore[return-value]


# the history's filters by category; named apart from storage's stored labels (storage/models.py)
HighCategoryFilter = _labels("HighCategoryLabel", HighCategory)
LowCategoryFilter = _labels("LowCategoryLabel", LowCategory)
SevenCardCategoryFilter = _labels("SevenCardCategoryLabel", SevenCardCategory)
RoundId = Annotated[str, Path(min_length=3, max_length=80, pattern=ROUND_ID_PATTERN, examples=["table-1-42"])]


def _aware(value: datetime | None, what: str) -> datetime | None:
    return None if value is None else aware_utc(value, what)


class HistoryParams(BaseModel):
    """The query of ``GET /api/rounds``: filters, order and paging, validated in one pydantic
    call (``query.query_reader``; docs/api.md, Speed)."""

    opened_from: datetime | None = Field(None, description="rounds opened at or after (with a time zone)")
    opened_to: datetime | None = Field(
        None, description="rounds opened before (with a time zone); after opened_from"
    )
    position: int | None = Field(
        None,
        ge=min(POSITIONS),
        le=max(POSITIONS),
        description=f"a position took part ({BANKER_POSITION} is the banker)",
    )
    outcome: PositionOutcome | None = Field(
        None, description="a position (the one given, or any) had this outcome"
    )
    game: Game | None = None
    dealer: str | None = Field(None, min_length=1, max_length=128, description="who opened the round")
    card: CardCode | None = Field(None, description="a position (the one given, or any) held this card")
    high_category: HighCategoryFilter | None = None  # type: ignore[valid-type]
    low_category: LowCategoryFilter | None = None  # type: ignore[valid-type]
    seven_card_category: SevenCardCategoryFilter | None = None  # type: ignore[valid-type]
    voided: bool | None = Field(None, description="voided rounds (misdeals included) or not")
    misdeal: bool | None = None
    override: bool | None = Field(None, description="the pit let a deviating dealer setting stand")
    banker: Literal["house", "player"] | None = Field(None, description="who banked the round")
    order: Literal["newest", "oldest"] = "newest"
    cursor: int | None = Field(None, ge=0, le=10**15, description="next_cursor of the page before")
    limit: int = Field(50, ge=1, le=MAX_PAGE)

    def where(self) -> HistoryFilter:
        """The filter (times in UTC); 422 for a time without a zone or an empty range."""
        start, end = _aware(self.opened_from, "opened_from"), _aware(self.opened_to, "opened_to")
        if start is not None and end is not None and start >= end:
            raise ApiError(422, "opened_from must be before opened_to")
        return HistoryFilter(
            opened_from=start,
            opened_to=end,
            position=self.position,
            outcome=self.outcome,
            game=self.game,
            dealer=self.dealer,
            card=self.card,
            high_category=None if self.high_category is None else self.high_category.value,
            low_category=None if self.low_category is None else self.low_category.value,
            seven_card_category=None if self.seven_card_category is None else self.seven_card_category.value,
            voided=self.voided,
            misdeal=self.misdeal,
            override=self.override,
            player_banked=None if self.banker is None else self.banker == "player",
        )


HistoryParamsDep = Annotated[HistoryParams, Depends(query_reader(HistoryParams))]
HISTORY_PARAMETERS = {"parameters": query_parameters(HistoryParams)}


@router.get("", response_model=RoundPage, responses=responses(), openapi_extra=HISTORY_PARAMETERS)
async def list_rounds(
    _: AuditDep, service: ServiceDep, store: StoreDep, query: HistoryParamsDep
) -> RoundPage:
    """Round history with filters, newest first (or oldest), by pages of at most 200."""
    rounds, next_cursor = await store.read(
        history_page,
        service.table_id,
        query.where(),
        newest_first=query.order == "newest",
        cursor=query.cursor,
        limit=query.limit,
    )
    return RoundPage(rounds=rounds, next_cursor=next_cursor)


@router.get("/{round_id}", response_model=RoundDetailPublic, responses=responses(404))
async def get_round(
    _: AuditDep, service: ServiceDep, store: StoreDep, round_id: RoundId
) -> RoundDetailPublic:
    """One round in full: every event in order with its time, actor and hash; the piles and the
    unused cards; the three dice; the house way applied and its rule; each position's cards,
    setting, outcome, commission and bonus."""
    return await store.read(round_detail, service.table_id, round_id)


@router.get("/{round_id}/replay", response_model=ReplayPublic, responses=responses(404, 409))
async def replay_round(_: AuditDep, service: ServiceDep, store: StoreDep, round_id: RoundId) -> ReplayPublic:
    """The round step by step: its stored round events replayed through the state machine, with
    the state after each. 409 if the stored events do not replay (the record is not trusted)."""
    return await store.read(round_replay, service.table_id, round_id)
