"""The table now and the rules it plays by (dealer, pit, surveillance), and opening or closing it (pit)."""

from __future__ import annotations

from typing import Any

import structlog
from fastapi import APIRouter, Request
from pydantic import create_model
from sqlmodel import Session

from ...game.departures import departures
from ...game.money import FlatFee, NoCommission, PercentCommission, format_cents
from ...game.paytables import Bonus
from ...game.table_rules import FoulRule
from ...record.pinned_rules import HOUSE_WAY, current_rules
from ...settings import Limits, TableSettings
from ...storage.errors import is_outage
from ...table.dealers import DayPace, DayPaceReader
from ...table.limits import TableLimits
from ...table.service import TableService
from ..deps import LimitsDep, OpenCloseDep, ReadTableDep, ServiceDep, StoreDep
from ..errors import ApiError, responses
from ..models.commands import cents
from ..models.dealers import DealerNowPublic, LimitsCreate
from ..models.table import (
    CommissionPublic,
    DeparturePublic,
    LimitsPublic,
    PayLinePublic,
    PayTablePublic,
    RulesHouseWayPublic,
    TableRulesPublic,
    TableStatePublic,
)
from ..read_lag import LagSampler
from ..tokens import Principal
from ..views import table_state
from .round import command

router = APIRouter(prefix="/api/table", tags=["table"])
log = structlog.get_logger()


@router.get("", response_model=TableStatePublic, responses=responses())
async def get_table(
    who: ReadTableDep, service: ServiceDep, store: StoreDep, request: Request
) -> TableStatePublic:
    """The table now: open or closed, the round's phase, positions and wagers, the dice and the
    start position, the piles once dealt and the unused cards, the house-way setting of the
    banker's hand with its rule id, the settings made, open alerts, device health; with a
    replica (``read_db_url``), how far behind it is in ``read_lag`` (docs/floor-replica.md).
    ``not_dealing`` says why the table does not deal, what clears it and who can; while the
    database is away the table is still shown (its open alerts as last read), so the reason is
    seen (docs/round-lifecycle.md, "What a stopped table shows"). The banker's cards stay face
    down while the players set, for a role without ``see-face-down`` (the dealer)."""
    pace: DayPaceReader = request.app.state.dealer_pace

    def read(session: Session) -> TableStatePublic:
        state = table_state(service, session, who.role)
        return state.model_copy(update={"dealer": dealer_now(pace.read(session))})

    try:
        state = await store.read(read)
    except Exception as error:
        if not is_outage(error):
            raise
        log.warning(
            "api.table_from_memory", error=f"{type(error).__name__}: {str(error).splitlines()[0][:200]}"
        )
        return table_state(service, None, who.role)
    sampler: LagSampler | None = request.app.state.read_lag
    if sampler is None:
        return state
    return state.model_copy(update={"read_lag": sampler.public(await sampler.status())})


def dealer_now(found: DayPace) -> DealerNowPublic:
    """The dealer on the box and the gaming day's hands per hour, theirs and the table's."""
    box = found.on_box
    mine = None if box is None else found.pace.of(box.dealer)
    table_pace = found.pace.table.hands_per_hour
    return DealerNowPublic(
        dealer=None if box is None else box.dealer,
        since=None if box is None else box.stint.start,
        hands_per_hour=None if mine is None or mine.hands_per_hour is None else str(mine.hands_per_hour),
        table_hands_per_hour=None if table_pace is None else str(table_pace),
    )


FOUL_RULE_WORDS = {
    FoulRule.FORFEIT: "a fouled hand loses its main wager (001)",
    FoulRule.HOUSE_WAY: "a fouled hand is set again by the house way, then compared (004)",
}
BANKER_FOUL_WORDS = {
    FoulRule.FORFEIT: "a player-banker's fouled hand forfeits: each wager against it is paid (001, 004)",
    FoulRule.HOUSE_WAY: "a player-banker's fouled hand is set again by the house way, then compared (004)",
}


def _percent(basis_points: int) -> str:
    """500 -> "5", 450 -> "4.5", 1 -> "0.01": basis points as a percentage, exactly."""
    whole, part = divmod(basis_points, 100)
    return f"{whole}.{part:02d}".rstrip("0").rstrip(".")


def _commission(policy: PercentCommission | NoCommission | FlatFee) -> CommissionPublic:
    if isinstance(policy, PercentCommission):
        unit = policy.rounding_unit
        return CommissionPublic(
            kind="percent",
            rate_bp=policy.rate_bp,
            rounding_unit_cents=unit,
            rounding=policy.rounding.value,
            words=f"{_percent(policy.rate_bp)}% of each win, rounded {policy.rounding.value} to a "
            f"multiple of {format_cents(unit)} (002)",
        )
    if isinstance(policy, FlatFee):
        return CommissionPublic(
            kind="flat-fee",
            fee_cents=policy.fee,
            words=f"a fee of {format_cents(policy.fee)} per hand played, no commission (004)",
        )
    return CommissionPublic(kind="none", words="no commission: wins are paid in full (003)")


def table_rules_view(settings: TableSettings, limits: Limits | None = None) -> TableRulesPublic:
    """The rules new rounds at this table open under, from its settings and files as they are
    now (``pinned_rules.current_rules``: the same contents and hashes a new round pins), and
    the ``limits`` in force (None: the configured ones)."""
    try:
        version = current_rules(settings.table_rules(), settings.house_way)
    except (ValueError, OSError) as error:  # a way or pay table file edited or removed since the start
        raise ApiError(409, f"the table's rules files no longer load: {error}", "rules-not-loaded") from None
    table, way = version.rules.table, version.rules.way
    limits = settings.limits if limits is None else limits
    paytables = [
        PayTablePublic(
            bonus=bonus.value,
            source=paytable.source,
            lines=[
                PayLinePublic(
                    line=line.name, odds=line.odds, words="loss" if line.odds is None else f"{line.odds} to 1"
                )
                for line in paytable.lines
            ],
        )
        for bonus in Bonus
        if (paytable := table.paytable(bonus)) is not None
    ]
    return TableRulesPublic(
        table_id=settings.table_id,
        game=table.game.value,
        limits=LimitsPublic(
            min_main_cents=limits.min_main, max_main_cents=limits.max_main, max_bonus_cents=limits.max_bonus
        ),
        house_way=RulesHouseWayPublic(
            name=way.name, title=way.title, source=way.source, sha256=version.evidence[HOUSE_WAY]
        ),
        foul_rule=table.foul_rule.value,
        foul_rule_words=FOUL_RULE_WORDS[table.foul_rule],
        foul_forfeits_bonuses=table.foul_forfeits_bonuses,
        banker_foul_rule=table.banker_fouls.value,
        banker_foul_rule_words=BANKER_FOUL_WORDS[table.banker_fouls],
        departures=[
            DeparturePublic(setting=d.setting, value=d.value, rule=d.rule, cite=d.cite, words=d.words)
            for d in departures(table, allow_in_double_joker=settings.banking.allow_in_double_joker)
        ],
        commission=_commission(table.commission),
        overqualifier=table.overqualifier,
        premium_multiple=table.premium_multiple if table.overqualifier else None,
        paytables=paytables,
        rules_version=version.evidence,
    )


@router.get("/rules", response_model=TableRulesPublic, responses=responses(409))
async def get_rules(_: ReadTableDep, service: ServiceDep) -> TableRulesPublic:
    """The rules new rounds open under: the limits (cents), the game, the house way and the
    SHA-256 of its file, the foul rule, the commission, the bonus pay tables, and the hashes a
    new round pins. 409 when a way or pay table file was edited into one that no longer loads."""
    return table_rules_view(service.settings, service.limits.main)


async def _set_open(
    is_open: bool, who: Principal, service: TableService, store: StoreDep
) -> TableStatePublic:
    state = await command(store, service, who.role, service.set_table_open, is_open, actor=who.name)
    log.info("table.opened" if is_open else "table.closed", actor=who.name)
    return state


@router.post("/open", response_model=TableStatePublic, responses=responses(503))
async def open_table(who: OpenCloseDep, service: ServiceDep, store: StoreDep) -> TableStatePublic:
    """Open the table for play (``table.opened`` in the audit chain, naming the pit)."""
    return await _set_open(True, who, service, store)


@router.post("/close", response_model=TableStatePublic, responses=responses(503))
async def close_table(who: OpenCloseDep, service: ServiceDep, store: StoreDep) -> TableStatePublic:
    """Close the table: no new round opens (a round in progress finishes). ``table.closed`` in the chain."""
    return await _set_open(False, who, service, store)


@router.post("/deck-check", response_model=TableStatePublic, responses=responses(409, 503))
async def request_deck_check(who: OpenCloseDep, service: ServiceDep, store: StoreDep) -> TableStatePublic:
    """While the table is held after misdeals in a row: ask for another DECK_CHECK (after the
    deck was fixed). The controller runs it and shows the result in ``hold.deck_check``. 409
    when the table is not held."""
    return await command(store, service, who.role, service.request_deck_check, who.name)


@router.post("/hold/clear", response_model=TableStatePublic, responses=responses(409, 503))
async def clear_hold(who: OpenCloseDep, service: ServiceDep, store: StoreDep) -> TableStatePublic:
    """Let play resume after a hold. 409 while the last deck check was not clean (what is
    missing, duplicated or unreadable is named) or none has run since the hold."""
    state = await command(store, service, who.role, service.clear_hold, who.name)
    log.info("table.hold_cleared", actor=who.name)
    return state


def limits_model(settings: TableSettings) -> type[LimitsCreate]:
    """The body of ``POST /api/table/limits`` with the table's approved limits in its schema
    (cents): the OpenAPI document tells a pit terminal the bounds a change stays within."""
    approved = TableLimits.approved(settings)
    main = approved.main
    fields: dict[str, Any] = {
        "min_main_cents": (cents(main.min_main, main.max_main, "the least main wager, cents"), ...),
        "max_main_cents": (cents(main.min_main, main.max_main, "the most main wager, cents"), ...),
        "max_bonus_cents": (
            cents(0, main.max_bonus, "the most on each bonus wager (Double Joker, 003), cents"),
            ...,
        ),
    }
    if approved.max_fortune is not None:
        fortune = cents(1, approved.max_fortune, "the most on the Fortune Bonus, cents; none: unchanged")
        fields["max_fortune_cents"] = (fortune | None, None)
    return create_model("LimitsCreate", __base__=LimitsCreate, **fields)


async def _change_limits(
    body: LimitsCreate, who: LimitsDep, service: ServiceDep, store: StoreDep
) -> TableStatePublic:
    """A pit user changes the table's limits while it runs, within the approved ones (the
    configured limits, this schema's bounds): ``table.limits-changed`` chains the old and the
    new values and who; they hold from the next round (a round taking its wagers keeps its
    own). 409 (``limits-refused``) once the open round's wagers are locked: never mid-round.
    422 (``invalid-limits``): the least above the most, a Fortune limit at a table without the
    Fortune Bonus, or the limits in force already."""
    return await command(
        store,
        service,
        who.role,
        service.change_limits,
        min_main=body.min_main_cents,
        max_main=body.max_main_cents,
        max_bonus=body.max_bonus_cents,
        max_fortune=body.max_fortune_cents,
        actor=who.name,
    )


def limits_router(settings: TableSettings) -> APIRouter:
    """``POST /api/table/limits`` for one table: its body's schema carries the approved limits."""
    body_model = limits_model(settings)

    async def change_limits(
        body: Any, who: LimitsDep, service: ServiceDep, store: StoreDep
    ) -> TableStatePublic:
        return await _change_limits(body, who, service, store)

    change_limits.__doc__ = _change_limits.__doc__
    change_limits.__annotations__ = {**_change_limits.__annotations__, "body": body_model}
    per_table = APIRouter(prefix="/api/table", tags=["table"])
    per_table.add_api_route(
        "/limits",
        change_limits,
        methods=["POST"],
        response_model=TableStatePublic,
        responses=responses(409, 503),
        name="change_limits",
    )
    return per_table
