"""Round history, one round in full, and its replay (pit and surveillance)."""

from __future__ import annotations

import enum
from datetime import datetime
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Path, Query

from ...game.cards import Game
from ...game.evaluator import HighCategory, LowCategory, SevenCardCategory
from ...storage.models import PositionOutcome
from ..deps import AuditDep, ServiceDep, StoreDep
from ..errors import ApiError, responses
from ..history import MAX_PAGE, HistoryFilter, history_page, round_detail, round_replay
from ..models.commands import CardCode
from ..models.rounds import ReplayPublic, RoundDetailPublic, RoundPage
from ..times import aware_utc

router = APIRouter(prefix="/api/rounds", tags=["rounds"])


def _labels(name: str, category: type[enum.IntEnum]) -> type[enum.StrEnum]:
    labels = [member.name.lower().replace("_", "-") for member in category]
    return enum.StrEnum(name, {label.replace("-", "_").upper(): label for label in labels})  # type: ignore[return-value]


HighCategoryLabel = _labels("HighCategoryLabel", HighCategory)
LowCategoryLabel = _labels("LowCategoryLabel", LowCategory)
SevenCardCategoryLabel = _labels("SevenCardCategoryLabel", SevenCardCategory)
RoundId = Annotated[str, Path(min_length=3, max_length=80, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*-[0-9]+$",
                              examples=["table-1-42"])]


def _aware(value: datetime | None, what: str) -> datetime | None:
    return None if value is None else aware_utc(value, what)


async def history_filter(
    opened_from: Annotated[datetime | None, Query(description="rounds opened at or after (with a time zone)")] = None,
    opened_to: Annotated[datetime | None, Query(description="rounds opened before (with a time zone); after opened_from")] = None,
    position: Annotated[int | None, Query(ge=1, le=7, description="a position took part (1 is the banker)")] = None,
    outcome: Annotated[PositionOutcome | None, Query(description="a position (the one given, or any) had this outcome")] = None,
    game: Annotated[Game | None, Query()] = None,
    dealer: Annotated[str | None, Query(min_length=1, max_length=128, description="who opened the round")] = None,
    card: Annotated[CardCode | None, Query(description="a position (the one given, or any) held this card")] = None,
    high_category: Annotated[HighCategoryLabel | None, Query()] = None,  # type: ignore[valid-type]
    low_category: Annotated[LowCategoryLabel | None, Query()] = None,  # type: ignore[valid-type]
    seven_card_category: Annotated[SevenCardCategoryLabel | None, Query()] = None,  # type: ignore[valid-type]
    voided: Annotated[bool | None, Query(description="voided rounds (misdeals included) or not")] = None,
    misdeal: Annotated[bool | None, Query()] = None,
    override: Annotated[bool | None, Query(description="the pit let a deviating dealer setting stand")] = None,
) -> HistoryFilter:
    start, end = _aware(opened_from, "opened_from"), _aware(opened_to, "opened_to")
    if start is not None and end is not None and start >= end:
        raise ApiError(422, "opened_from must be before opened_to")
    return HistoryFilter(
        opened_from=start, opened_to=end,
        position=position, outcome=outcome, game=game, dealer=dealer, card=card,
        high_category=None if high_category is None else high_category.value,
        low_category=None if low_category is None else low_category.value,
        seven_card_category=None if seven_card_category is None else seven_card_category.value,
        voided=voided, misdeal=misdeal, override=override,
    )


@router.get("", response_model=RoundPage, responses=responses())
async def list_rounds(
    _: AuditDep,
    service: ServiceDep,
    store: StoreDep,
    where: Annotated[HistoryFilter, Depends(history_filter)],
    order: Annotated[Literal["newest", "oldest"], Query()] = "newest",
    cursor: Annotated[int | None, Query(ge=0, le=10**15, description="next_cursor of the page before")] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 50,
) -> RoundPage:
    """Round history with filters, newest first (or oldest), by pages of at most 200."""
    rounds, next_cursor = await store.read(history_page, service.table_id, where, newest_first=order == "newest",
                                             cursor=cursor, limit=limit)
    return RoundPage(rounds=rounds, next_cursor=next_cursor)


@router.get("/{round_id}", response_model=RoundDetailPublic, responses=responses(404))
async def get_round(_: AuditDep, service: ServiceDep, store: StoreDep, round_id: RoundId) -> RoundDetailPublic:
    """One round in full: every event in order with its time, actor and hash; the piles and the
    unused cards; the three dice; the house way applied and its rule; each position's cards,
    setting, outcome, commission and bonus."""
    return await store.read(round_detail, service.table_id, round_id)


@router.get("/{round_id}/replay", response_model=ReplayPublic, responses=responses(404, 409))
async def replay_round(_: AuditDep, service: ServiceDep, store: StoreDep, round_id: RoundId) -> ReplayPublic:
    """The round step by step: its stored round events replayed through the state machine, with
    the state after each. 409 if the stored events do not replay (the record is not trusted)."""
    return await store.read(round_replay, service.table_id, round_id)
