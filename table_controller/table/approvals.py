"""Two people for what a casino splits: voids and overrides of large rounds (docs/api.md, "Two people").

A void or a dealer override of a round whose wagers total more than the table's
``second_pit_above`` (cents) is a *request* (``storage/approvals.py``), done only when another
pit user confirms it; the person asking can neither confirm it nor, later, acknowledge its
alert. Whatever the amount, the person whose dealer setting was refused as a house-way
deviation may not override it. The API and the command line (``round void``, ``round
confirm``) both go through here, so the rule is one rule. Each refusal is chained
(``two-person.refused``) and logged before it is raised.
"""

from __future__ import annotations

from typing import Any

import structlog
from sqlalchemy.engine import Engine

from ..round.events import DealerOverride, RoundVoided
from ..round.machine import RoundState, apply
from ..storage.alerts import alert_actors
from ..storage.approvals import (
    CANCELLED,
    Action,
    Approval,
    ApprovalClosedError,
    TwoPersonRefusedError,
    close_approval,
    get_approval,
    list_approvals,
    record_refusal,
    request_approval,
)
from ..storage.session import read_snapshot, unit_of_work
from .service import RoundHeld, TableRefused, TableService

log = structlog.get_logger()


def wagered(state: RoundState) -> int:
    """The round's total wagers in cents: every position's main wager and bonus wagers."""
    return sum(w.main + w.big_hand + w.joker_bonus for w in state.wagers.values())


def refuse(
    engine: Engine,
    table_id: str,
    *,
    actor: str,
    error: TwoPersonRefusedError,
    round_id: str | None,
    **data: Any,
) -> TwoPersonRefusedError:
    """Chain and log a refused two-person step; returns the error for the caller to raise. A
    store that cannot take the note does not turn the refusal into an acceptance."""
    try:
        with unit_of_work(engine) as session:
            record_refusal(session, table_id=table_id, round_id=round_id, actor=actor, error=error, **data)
    except Exception as failure:
        log.error("two_person.refusal_not_chained", actor=actor, rule=error.rule, error=str(failure))
    log.warning(
        "two_person.refused", actor=actor, rule=error.rule, round_id=round_id, detail=str(error), **data
    )
    return error


def _open_round(service: TableService) -> RoundState | None:
    state = service.round
    return None if state is None or state.phase.is_final else state


def _dry_run(service: TableService, event: Any) -> None:
    """Would the round take ``event`` now? (Refused as the service would refuse it, nothing written.)"""
    state, rules = service.round, service.round_rules
    if state is None or rules is None or state.phase.is_final:
        raise TableRefused(f"{event.kind} refused: no round is open")
    if service.held is not None and not isinstance(event, RoundVoided):
        raise RoundHeld(f"{event.kind} refused: round {state.round_id} is held ({service.held}): only a void")
    apply(state, event, rules)


def _request(
    service: TableService,
    state: RoundState,
    action: Action,
    actor: str,
    reason: str,
    setting: dict[str, list[str]] | None = None,
) -> Approval:
    engine = service.engine
    with unit_of_work(engine) as session:
        waiting = [
            a
            for a in list_approvals(
                session, table_id=service.table_id, open_only=True, round_id=state.round_id, limit=500
            )
            if a.action == action
        ]
        for found in waiting:
            if found.requested_by == actor and found.setting == setting:
                return found  # asked twice: the same request
            raise TableRefused(
                f"{action} refused: request {found.seq} by {found.requested_by} for round "
                f"{state.round_id} waits for a second pit user: confirm or cancel it first"
            )
        made = request_approval(
            session,
            table_id=service.table_id,
            round_id=state.round_id,
            action=action,
            actor=actor,
            reason=reason,
            wagered_cents=wagered(state),
            setting=setting,
        )
    log.info(
        "approval.requested",
        round_id=state.round_id,
        action=action,
        actor=actor,
        approval=made.seq,
        wagered_cents=made.wagered_cents,
        above_cents=service.settings.second_pit_above,
    )
    return made


def void(service: TableService, *, actor: str, reason: str) -> RoundState | Approval:
    """Void the open round, or, when its wagers are above ``second_pit_above``, ask a second pit
    user to confirm the void (the request is returned; nothing is voided yet)."""
    with service.lock:
        state = _open_round(service)
        if state is None or wagered(state) <= service.settings.second_pit_above:
            return service.void(actor, reason)  # the service refuses what it must (no open round...)
        _dry_run(service, RoundVoided(actor=actor, reason=reason))
        return _request(service, state, "void", actor, reason)


def _check_not_own_setting(service: TableService, state: RoundState, actor: str) -> None:
    with read_snapshot(service.engine) as session:
        setters = alert_actors(
            session, table_id=service.table_id, round_id=state.round_id, alert="house-way-deviation"
        )
    if actor in setters:
        raise refuse(
            service.engine,
            service.table_id,
            actor=actor,
            round_id=state.round_id,
            error=TwoPersonRefusedError(
                f"{actor} made the dealer setting the house way refused in round {state.round_id}:"
                " another pit user decides whether it stands",
                rule="own-setting",
            ),
        )


def override(
    service: TableService, *, actor: str, high: list[str], low: list[str], reason: str
) -> RoundState | Approval:
    """Let a deviating dealer setting stand, or ask a second pit user to confirm it when the
    round's wagers are above ``second_pit_above``. Refused for the person whose setting it was."""
    with service.lock:
        state = _open_round(service)
        if state is not None:
            _check_not_own_setting(service, state, actor)
        if state is None or wagered(state) <= service.settings.second_pit_above:
            return service.override_dealer(high, low, actor, reason)
        _dry_run(service, DealerOverride(high=high, low=low, actor=actor, reason=reason))
        return _request(service, state, "override", actor, reason, {"high": list(high), "low": list(low)})


def confirm(service: TableService, *, seq: int, actor: str) -> RoundState:
    """Another pit user confirms request ``seq``: the void or override is done now, naming both.

    Refused (``TwoPersonRefusedError``, chained) for the person who asked; a request whose round
    is no longer open is closed as cancelled by the system and refused (``ApprovalClosedError``)."""
    engine = service.engine
    with service.lock:
        with read_snapshot(engine) as session:
            found = get_approval(session, table_id=service.table_id, seq=seq)
        if found.closed is not None:
            raise ApprovalClosedError(
                f"request {seq} was {found.closed.kind.removeprefix('approval.')} by {found.closed.actor}"
                f" (event {found.closed.seq})"
            )
        if actor == found.requested_by:
            raise refuse(
                engine,
                service.table_id,
                actor=actor,
                round_id=found.round_id,
                approval=seq,
                error=TwoPersonRefusedError(
                    f"{actor} asked for request {seq} ({found.action} of round {found.round_id}):"
                    " a second pit user must confirm it",
                    rule="same-person",
                ),
            )
        state = _open_round(service)
        if state is None or state.round_id != found.round_id:
            with unit_of_work(engine) as session:
                close_approval(
                    session,
                    table_id=service.table_id,
                    seq=seq,
                    actor="system",
                    kind=CANCELLED,
                    note=f"round {found.round_id} is no longer open",
                )
            raise ApprovalClosedError(
                f"request {seq} lapsed: round {found.round_id} is no longer open (cancelled)"
            )
        if found.action == "override":
            _check_not_own_setting(service, state, actor)
            assert found.setting is not None
            done = service.override_dealer(
                found.setting["high"],
                found.setting["low"],
                found.requested_by,
                found.reason,
                confirmed_by=actor,
                round_id=found.round_id,
                approval=seq,
            )
        else:  # the request is closed in the void's own transaction: both chained, or neither
            done = service.void(
                found.requested_by, found.reason, confirmed_by=actor, round_id=found.round_id, approval=seq
            )
        log.info(
            "approval.confirmed",
            approval=seq,
            action=found.action,
            requested_by=found.requested_by,
            actor=actor,
        )
        return done


def cancel(service: TableService, *, seq: int, actor: str, note: str = "") -> Approval:
    """A pit user withdraws or declines request ``seq`` (nothing is done)."""
    engine = service.engine
    with service.lock:
        with unit_of_work(engine) as session:
            close_approval(
                session, table_id=service.table_id, seq=seq, actor=actor, kind=CANCELLED, note=note
            )
        with read_snapshot(engine) as session:
            found = get_approval(session, table_id=service.table_id, seq=seq)
    log.info("approval.cancelled", approval=seq, action=found.action, actor=actor)
    return found


__all__ = ["cancel", "confirm", "override", "refuse", "void", "wagered"]
