"""Commands on the table's current round, through the table service (docs/api.md, Commands).

Every command names its actor (the person behind the token) in the audit chain. The service
holds the table's lock; each endpoint runs the command and reads the table's state in one
thread-pool call (``command``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Path
from fastapi.responses import JSONResponse
from pydantic import Field, create_model

from ...game.cards import Game
from ...game.deal import PLAYER_POSITIONS
from ...round.events import Wager
from ...settings import TableSettings
from ...storage.approvals import Approval
from ...storage.session import read_snapshot
from ...storage.users import Role
from ...table import approvals
from ...table.service import BankRefused, TableRefused, TableService, check_wagers
from ..deps import OverrideDep, PlayDep, ServiceDep, Store, StoreDep, VoidDep
from ..errors import ApiError, responses
from ..models.commands import (
    DealerSettingCreate,
    OpenRoundCreate,
    OverrideCreate,
    PlayerSettingCreate,
    PositionKey,
    VoidCreate,
    WagerCreate,
    cents,
)
from ..models.table import TableStatePublic
from ..views import table_state
from .approvals import ApprovalPublic, approval_view

router = APIRouter(prefix="/api/round", tags=["round"])


def open_round_model(settings: TableSettings) -> type[OpenRoundCreate]:
    """The body of ``POST /api/round`` with this table's limits in its schema (cents): the
    OpenAPI document tells a terminal what the table accepts. Bonus wagers exist only in the
    Double Joker game (003)."""
    limits = settings.limits
    bonus_max = limits.max_bonus if settings.game is Game.DOUBLE_JOKER else 0
    wager = create_model(
        "WagerCreate",
        __base__=WagerCreate,
        main=(cents(limits.min_main, limits.max_main, "main wager, cents"), ...),
        big_hand=(cents(0, bonus_max, "Big Hand Bonus wager, cents (Double Joker only, 003)"), 0),
        joker_bonus=(cents(0, bonus_max, "Joker Bonus wager, cents (Double Joker only, 003)"), 0),
    )
    wagers: Any = Annotated[  # built at run time around ``wager``: a value here, not a static type
        dict[PositionKey, wager],
        Field(min_length=1, max_length=6, examples=[{"3": {"main": 2500}, "5": {"main": 1000}}]),
    ]
    return create_model("OpenRoundCreate", __base__=OpenRoundCreate, wagers=(wagers, ...))


async def command(
    store: Store, service: TableService, role: Role, call: Callable[..., Any], /, *args: Any, **kwargs: Any
) -> TableStatePublic:
    """Run a command of the table service, then read the table as it left it, as ``role`` may
    see it (views.table_state): one thread-pool call."""

    def run() -> TableStatePublic:
        call(*args, **kwargs)
        with read_snapshot(store.engine) as session:
            return table_state(service, session, role)

    return await store.run(run)


async def _open_round(
    body: OpenRoundCreate, who: PlayDep, service: ServiceDep, store: StoreDep
) -> TableStatePublic:
    """Open a round with the positions' wagers (cents), within the table limits given in this
    schema, banked by the house or by a player (``bank``; docs/settlement.md, 8). 409 when the
    table is closed, a device fault is open, a round is still in progress, the table does not
    offer this seat the bank (``bank-refused``), or the bank does not cover the action
    (``bank-not-covered``, the shortfall named): a well-formed request the table refuses now."""
    wagers = {
        int(p): Wager(
            main=w.main,
            big_hand=w.big_hand,
            joker_bonus=w.joker_bonus,
            fortune=w.fortune,
            progressive=w.progressive,
        )
        for p, w in sorted(body.wagers.items())
    }
    try:
        check_wagers(service.settings.game, service.limits.main, wagers)
    except TableRefused as error:
        raise ApiError(422, str(error), "outside-limits") from None
    bank = body.bank
    try:
        return await command(
            store,
            service,
            who.role,
            service.open_round,
            wagers,
            actor=who.name,
            banker_seat=None if bank is None else bank.seat,
            bank_amount=0 if bank is None else bank.amount,
            co_bank=bank is not None and bank.co_bank,
        )
    except BankRefused as refused:
        if refused.shortfall is not None:
            raise ApiError(409, str(refused), "bank-not-covered") from None
        raise ApiError(409, str(refused), "bank-refused") from None


def open_round_router(settings: TableSettings) -> APIRouter:
    """``POST /api/round`` for one table: its body's schema carries the table's limits."""
    body_model = open_round_model(settings)

    async def open_round(body: Any, who: PlayDep, service: ServiceDep, store: StoreDep) -> TableStatePublic:
        return await _open_round(body, who, service, store)

    open_round.__doc__ = _open_round.__doc__
    open_round.__annotations__ = {**_open_round.__annotations__, "body": body_model}
    per_table = APIRouter(prefix="/api/round", tags=["round"])
    per_table.add_api_route(
        "",
        open_round,
        methods=["POST"],
        status_code=201,
        response_model=TableStatePublic,
        responses=responses(409, 503),
        name="open_round",
    )
    return per_table


@router.post("/players/{position}/setting", response_model=TableStatePublic, responses=responses(409, 503))
async def set_player(
    body: PlayerSettingCreate,
    who: PlayDep,
    service: ServiceDep,
    store: StoreDep,
    position: int = Path(
        ge=min(PLAYER_POSITIONS),
        le=max(PLAYER_POSITIONS),
        description=f"the player's position, {min(PLAYER_POSITIONS)}..{max(PLAYER_POSITIONS)}",
    ),
) -> TableStatePublic:
    """Record a player's setting (high hand and low hand) as the player made it. A split other
    than five and two is a foul, settled by the foul rule (004)."""
    return await command(
        store,
        service,
        who.role,
        service.set_player,
        position,
        list(body.high),
        list(body.low),
        actor=who.name,
    )


@router.post("/dealer/setting", response_model=TableStatePublic, responses=responses(409, 503))
async def set_dealer(
    body: DealerSettingCreate, who: PlayDep, service: ServiceDep, store: StoreDep
) -> TableStatePublic:
    """Record the dealer's setting of the banker's hand. A setting that deviates from the house
    way is refused with 409 giving the required setting and the rule id; an alert is raised
    and only the pit can let the setting stand (``/api/round/dealer/override``)."""
    return await command(
        store, service, who.role, service.set_dealer, list(body.high), list(body.low), actor=who.name
    )


_WAITS: dict[int | str, dict[str, Any]] = {
    202: {
        "model": ApprovalPublic,
        "description": "The round's wagers are above the table's second_pit_above: nothing is done yet;"
        " a second pit user confirms the request (POST /api/approvals/{seq}/confirm).",
    }
}


async def two_person_command(
    store: Store, service: TableService, role: Role, call: Callable[..., Any], /, **kwargs: Any
) -> TableStatePublic | JSONResponse:
    """A void or override through the two-person rules (table/approvals.py): the table as it left it,
    or 202 and the request that waits for a second pit user."""

    def run() -> TableStatePublic | ApprovalPublic:
        done = call(service, **kwargs)
        if isinstance(done, Approval):
            return approval_view(done)
        with read_snapshot(store.engine) as session:
            return table_state(service, session, role)

    answer = await store.run(run)
    if isinstance(answer, ApprovalPublic):
        return JSONResponse(answer.model_dump(mode="json"), status_code=202)
    return answer


@router.post("/dealer/override", response_model=TableStatePublic, responses={**responses(409, 503), **_WAITS})
async def override_dealer(
    body: OverrideCreate, who: OverrideDep, service: ServiceDep, store: StoreDep
) -> TableStatePublic | JSONResponse:
    """The pit lets the dealer's setting stand although it deviates from the house way, with a
    reason (an ``override`` alert names the pit). Above the table's ``second_pit_above`` a second
    pit user confirms it (202); the person whose setting was refused may not override it (403)."""
    return await two_person_command(
        store,
        service,
        who.role,
        approvals.override,
        actor=who.name,
        high=list(body.high),
        low=list(body.low),
        reason=body.reason,
    )


@router.post("/void", response_model=TableStatePublic, responses={**responses(409, 503), **_WAITS})
async def void_round(
    body: VoidCreate, who: VoidDep, service: ServiceDep, store: StoreDep
) -> TableStatePublic | JSONResponse:
    """Void the round before settlement, with a reason: wagers are returned, nothing is settled.
    Above the table's ``second_pit_above`` a second pit user confirms it (202)."""
    return await two_person_command(
        store, service, who.role, approvals.void, actor=who.name, reason=body.reason
    )
