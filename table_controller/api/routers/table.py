"""The table now (dealer, pit, surveillance) and opening or closing it (pit)."""

from __future__ import annotations

import structlog
from fastapi import APIRouter

from ...storage.session import read_snapshot
from ..deps import EngineDep, OpenCloseDep, ReadTableDep, ServiceDep, SessionDep
from ..errors import responses
from ..models.table import TableStatePublic
from ..views import table_state

router = APIRouter(prefix="/api/table", tags=["table"])
log = structlog.get_logger()


@router.get("", response_model=TableStatePublic, responses=responses())
def get_table(_: ReadTableDep, service: ServiceDep, session: SessionDep) -> TableStatePublic:
    """The table now: open or closed, the round's phase, positions and wagers, the dice and the
    start position, the piles once dealt and the unused cards, the house-way setting of the
    banker's hand with its rule id, the settings made, open alerts, device health."""
    return table_state(service, session)


def _set_open(is_open: bool, who: str, service: ServiceDep, engine: EngineDep) -> TableStatePublic:
    service.set_table_open(is_open, actor=who)
    log.info("table.opened" if is_open else "table.closed", actor=who)
    with read_snapshot(engine) as session:
        return table_state(service, session)


@router.post("/open", response_model=TableStatePublic, responses=responses(503))
def open_table(who: OpenCloseDep, service: ServiceDep, engine: EngineDep) -> TableStatePublic:
    """Open the table for play (``table.opened`` in the audit chain, naming the pit)."""
    return _set_open(True, who.name, service, engine)


@router.post("/close", response_model=TableStatePublic, responses=responses(503))
def close_table(who: OpenCloseDep, service: ServiceDep, engine: EngineDep) -> TableStatePublic:
    """Close the table: no new round opens (a round in progress finishes). ``table.closed`` in the chain."""
    return _set_open(False, who.name, service, engine)
