"""Building the Public models from the service and the store."""

from __future__ import annotations

import weakref
from typing import Any

from sqlmodel import Session

from ..game.banking import BankingError, check_banking_allowed
from ..game.cards import CardError, parse_cards
from ..game.deal import BANKER_POSITION
from ..game.setting import Setting, is_legal
from ..round.machine import RoundState
from ..round.phases import Phase
from ..storage.alerts import Alert
from ..storage.users import Role
from ..table.device_health import DeviceHealth
from ..table.service import TableService
from ..table.state import OpenFault, TableHold
from ..table.stops import Stop, why_not_dealing
from .hand_view import round_ranking
from .models.dealers import LimitsNowPublic
from .models.table import (
    AlertPublic,
    BankingPublic,
    CodePublic,
    DeckCheckPublic,
    DeviceHealthPublic,
    DeviceIdentityPublic,
    FaultPublic,
    RoundStatePublic,
    StopPublic,
    StoreOutagePublic,
    TableHoldPublic,
    TableStatePublic,
    round_state_view,
)
from .roles import Permission, allowed

OPEN_ALERTS_SHOWN = 100

# Each table's round as last shown, with the snapshot it was built from: every terminal polls
# the table page, and the round changes a few times a round (docs/api.md, Speed).
_shown_rounds: weakref.WeakKeyDictionary[TableService, tuple[RoundState, RoundStatePublic]] = (
    weakref.WeakKeyDictionary()
)


def alert_view(alert: Alert, *, may_acknowledge: bool | None = None) -> AlertPublic:
    data = dict(alert.payload)
    kind = str(data.pop("alert", ""))
    detail = str(data.pop("detail", ""))
    ack = alert.acknowledged
    return AlertPublic(
        seq=alert.seq,
        alert=kind,
        detail=detail,
        round_id=alert.event.round_id,
        actor=alert.event.actor,
        raised_at=alert.event.created_at,
        data=data,
        acknowledged_by=None if ack is None else ack.actor,
        acknowledged_at=None if ack is None else ack.created_at,
        note=None if ack is None else ack.note,
        acknowledgement_seq=None if ack is None else ack.seq,
        may_acknowledge=may_acknowledge,
    )


def devices(service: TableService) -> list[DeviceHealthPublic]:
    """Each device the table is configured with, any device with an open fault, and any device the
    conductor reported on: open faults and link health (``service.device_health``, docs/api.md)."""
    faults = list(dict(service.faults).values())  # a copy: the service's threads may change it
    registry = service.device_health
    names = ["shuffler"]
    if service.settings.dice.source == "shaker":
        names.append("dice-shaker")
    names += sorted(({f.device for f in faults} | set(registry.devices())) - set(names))
    return [
        device_health_view(registry.snapshot(name), [f for f in faults if f.device == name]) for name in names
    ]


def device_health_view(health: DeviceHealth, faults: list[OpenFault]) -> DeviceHealthPublic:
    """One device: ``fault`` while a fault is open, else ``stale`` if its link is up but silent."""
    open_faults = [FaultPublic(kind=f.kind, detail=f.detail) for f in faults]
    status = "fault" if open_faults else "stale" if health.stale else "ok"
    identity = health.identity
    return DeviceHealthPublic(
        device=health.device,
        status=status,
        faults=open_faults,
        link=health.link.value,
        link_since=health.link_since,
        link_reason=health.reason,
        last_seen=health.last_seen,
        silent_for_ms=None if health.silent_for is None else round(health.silent_for * 1000),
        identity=None
        if identity is None
        else DeviceIdentityPublic(
            model=identity.model,
            serial_number=identity.serial_number,
            firmware=identity.firmware,
            protocol=identity.protocol,
            session_id=identity.session_id,
        ),
    )


def live_round_view(state: RoundState) -> RoundStatePublic:
    """The round as the table page shows it: each player's setting judged foul or not by the
    rules the round was opened under (``game.setting.is_legal``; 001, 004), so the page need
    not rank hands itself."""
    view = round_state_view(state)
    if view.player_settings:
        ranking = round_ranking(state.opened.rules["table"])
        for made in view.player_settings:
            try:
                setting = Setting(high=parse_cards(made.high), low=parse_cards(made.low))
            except CardError:  # the machine only records a position's own card codes
                continue
            made.fouled = not is_legal(setting, ranking)
    return view


def shown_round_view(service: TableService, state: RoundState) -> RoundStatePublic:
    """``live_round_view`` of the service's round, built once per snapshot: a ``RoundState`` is
    replaced, never mutated, so the same object has the same view (and no caller changes one)."""
    shown = _shown_rounds.get(service)
    if shown is not None and shown[0] is state:
        return shown[1]
    view = live_round_view(state)
    _shown_rounds[service] = (state, view)
    return view


def hold_view(hold: TableHold | None) -> TableHoldPublic | None:
    if hold is None:
        return None
    check = hold.deck_check
    return TableHoldPublic(
        reason=hold.reason,
        since=hold.since,
        deck_check_pending=hold.deck_check_wanted,
        deck_check=None
        if check is None
        else DeckCheckPublic(
            complete=check.complete,
            words=check.words(),
            scanned=check.scanned,
            unreadable=check.unreadable,
            missing=list(check.missing),
            duplicated=list(check.duplicated),
            error=check.error,
            at=check.at,
        ),
    )


def outage_view(service: TableService) -> StoreOutagePublic | None:
    outage = service.outage
    if outage is None:
        return None
    return StoreOutagePublic(since=outage.since, error=outage.error, alerts_kept=service.kept_notes)


def stop_view(stop: Stop) -> StopPublic:
    return StopPublic(
        kind=stop.kind.value,
        detail=stop.detail,
        clears=stop.clears,
        cleared_by=stop.cleared_by.value,
        since=stop.since,
    )


def face_down_view(view: RoundStatePublic) -> RoundStatePublic:
    """The round as a role without ``see-face-down`` sees it: while the players set their hands
    in the standard game the banker's seven cards are face down (000: "when all are ready, the
    dealer's seven cards are exposed"; 001: "The players put their 2 hands face down and then
    the dealer exposes his 2 hands"), so its hand, its pile and the house way's setting of it
    are withheld and ``face_down`` names the banker's position. A dealer terminal that showed
    them would invite signalling. Double Joker sets the dealer's hand first, exposed (003):
    nothing is face down then."""
    if view.phase != Phase.PLAYERS_SETTING.value or view.dealer_setting is not None:
        return view
    return view.model_copy(
        update={
            "hands": [h for h in view.hands if h.position != BANKER_POSITION],
            "piles": [
                p.model_copy(update={"cards": []}) if p.position == BANKER_POSITION else p for p in view.piles
            ],
            "house_way": None,
            "face_down": [BANKER_POSITION],
        }
    )


def table_state(service: TableService, session: Session | None, role: Role) -> TableStatePublic:
    """The table now, as ``role`` may see it: the service's round (an immutable snapshot), open
    alerts, devices; the banker's face-down cards only for a role with ``see-face-down``.
    Without a ``session`` (the store is away) the open alerts are the ones last read."""
    state = service.round
    if session is None:
        found = service.open_alerts.last_read(service.table_id)
    else:
        found = service.open_alerts.read(session, [service.table_id])[service.table_id]
    alerts = [found[seq] for seq in sorted(found)[:OPEN_ALERTS_SHOWN]]  # the oldest first, as the chain
    return TableStatePublic(
        table_id=service.table_id,
        game=service.settings.game.value,
        house_way=service.settings.house_way,
        table_open=service.table_open,
        hold=hold_view(service.hold),
        round_held=service.held if state is not None and not state.phase.is_final else None,
        store_outage=outage_view(service),
        not_dealing=[stop_view(stop) for stop in why_not_dealing(service)],
        round=None if state is None else _as_seen(shown_round_view(service, state), role),
        open_alerts=[alert_view(a) for a in alerts],
        devices=devices(service),
        banking=banking_view(service),
        code=None
        if service.code_sha256 is None
        else CodePublic(
            sha256=service.code_sha256,
            release_sha256=service.code_release,
            matches_release=service.code_matches_release,
        ),
        progressive=progressive_view(service),
        limits=limits_view(service),
    )


def limits_view(service: TableService) -> LimitsNowPublic:
    """The limits new rounds open under and the approved ones (table/limits.py); ``round``, the
    open round's, when a change made since it opened holds only from the next round."""
    now, placed = service.limits, service.wager_limits
    return LimitsNowPublic(
        min_main_cents=now.main.min_main,
        max_main_cents=now.main.max_main,
        max_bonus_cents=now.main.max_bonus,
        max_fortune_cents=now.max_fortune,
        approved=service.approved_limits.payload(),
        round=None if placed == now else placed.payload(),
    )


def _as_seen(view: RoundStatePublic, role: Role) -> RoundStatePublic:
    return view if allowed(role, Permission.SEE_FACE_DOWN) else face_down_view(view)


def progressive_view(service: TableService) -> dict[str, Any] | None:
    """The table's pool's meters (PRG-49: the jackpot posted at the table), or None."""
    keeper = service.pool
    if keeper is None:
        return None
    try:
        return keeper.meters()
    except Exception:  # not loaded (the store was away at start): shown as not known
        return None


def banking_view(service: TableService) -> BankingPublic:
    """The table's player banking as the open-round form needs it (docs/settlement.md, 8)."""
    terms = service.banking_terms
    try:
        check_banking_allowed(
            service.settings.game, terms.policy, allow_in_double_joker=terms.allow_in_double_joker
        )
        allowed = True
    except BankingError:
        allowed = False
    return BankingPublic(
        policy=terms.policy.value,
        house_wager=terms.house_wager.value,
        co_bank_share_bp=terms.co_bank_share_bp,
        allowed=allowed,
        last_offer=service.bank_history.last_offer,
        dice_direction=service.settings.dice_direction.value,
    )
