"""The table now (dealer, pit, surveillance) and opening or closing it (pit)."""

from __future__ import annotations

import structlog
from fastapi import APIRouter

from ...service import TableService
from ..deps import OpenCloseDep, ReadTableDep, ServiceDep, StoreDep
from ..errors import responses
from ..models.table import TableStatePublic
from ..views import table_state
from .round import command

router = APIRouter(prefix="/api/table", tags=["table"])
log = structlog.get_logger()


@router.get("", response_model=TableStatePublic, responses=responses())
async def get_table(_: ReadTableDep, service: ServiceDep, store: StoreDep) -> TableStatePublic:
    """The table now: open or closed, the round's phase, positions and wagers, the dice and the
    start position, the piles once dealt and the unused cards, the house-way setting of the
    banker's hand with its rule id, the settings made, open alerts, device health."""
    return await store.read(lambda session: table_state(service, session))


async def _set_open(is_open: bool, who: str, service: TableService, store: StoreDep) -> TableStatePublic:
    state = await command(store, service, service.set_table_open, is_open, actor=who)
    log.info("table.opened" if is_open else "table.closed", actor=who)
    return state


@router.post("/open", response_model=TableStatePublic, responses=responses(503))
async def open_table(who: OpenCloseDep, service: ServiceDep, store: StoreDep) -> TableStatePublic:
    """Open the table for play (``table.opened`` in the audit chain, naming the pit)."""
    return await _set_open(True, who.name, service, store)


@router.post("/close", response_model=TableStatePublic, responses=responses(503))
async def close_table(who: OpenCloseDep, service: ServiceDep, store: StoreDep) -> TableStatePublic:
    """Close the table: no new round opens (a round in progress finishes). ``table.closed`` in the chain."""
    return await _set_open(False, who.name, service, store)


@router.post("/deck-check", response_model=TableStatePublic, responses=responses(409, 503))
async def request_deck_check(who: OpenCloseDep, service: ServiceDep, store: StoreDep) -> TableStatePublic:
    """While the table is held after misdeals in a row: ask for another DECK_CHECK (after the
    deck was fixed). The controller runs it and shows the result in ``hold.deck_check``. 409
    when the table is not held."""
    return await command(store, service, service.request_deck_check, who.name)


@router.post("/hold/clear", response_model=TableStatePublic, responses=responses(409, 503))
async def clear_hold(who: OpenCloseDep, service: ServiceDep, store: StoreDep) -> TableStatePublic:
    """Let play resume after a hold. 409 while the last deck check was not clean (what is
    missing, duplicated or unreadable is named) or none has run since the hold."""
    state = await command(store, service, service.clear_hold, who.name)
    log.info("table.hold_cleared", actor=who.name)
    return state
