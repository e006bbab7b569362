"""The table as a service: every command that changes a round, with the checks a casino needs.

Everything that changes state goes through here, whoever asks (the device conductor, the
auto-dealer, the command line, the pit terminals): table limits, the open/closed table, open
device faults (play stops while a fault is open: no new round starts), the round machine, and
the audit notes and alerts that surveillance reads. Each step is one transaction
(recorder.py). Every line logged while a round runs carries the table id and the round id.

Alerts (misdeal, house-way deviation, override, void, device fault, link loss) are audit
events of kind ``alert.raised``: they are in the chain like everything else.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import structlog
from sqlalchemy.engine import Engine

from .device_health import DeviceHealthRegistry
from .game.cards import Game
from .game.house_way import load_house_way
from .round.events import (
    DealerOverride,
    DealerSet,
    DiceRolled,
    PilesDealt,
    PlayerSet,
    RoundOpened,
    RoundSettled,
    RoundVoided,
    Wager,
)
from .round.machine import HouseWayDeviation, RoundRules, RoundState, TransitionRefused
from .round.recorder import RoundRecorder
from .round.rules import GameRoundRules
from .settings import Limits, TableSettings

log = structlog.get_logger()


class TableRefused(ValueError):
    """A command the table cannot take now (closed table, open fault, limits, a round running)."""


@dataclass(frozen=True)
class OpenFault:
    device: str
    kind: str
    detail: str


def rules_for(opened: RoundOpened) -> RoundRules:
    """The rules a round was opened under, from its own stored snapshot."""
    return GameRoundRules.from_snapshot(opened.rules)


def check_wagers(game: Game, limits: Limits, wagers: Mapping[int, Wager]) -> None:
    """Table limits (issue 4, step 1) and the bonuses only Double Joker offers (003)."""
    if not wagers:
        raise TableRefused("no position has a wager")
    for position, wager in sorted(wagers.items()):
        if not limits.min_main <= wager.main <= limits.max_main:
            raise TableRefused(
                f"position {position}: main wager {wager.main} cents is outside the table limits "
                f"{limits.min_main}..{limits.max_main}"
            )
        for name, amount in (("big hand bonus", wager.big_hand), ("joker bonus", wager.joker_bonus)):
            if amount and game is not Game.DOUBLE_JOKER:
                raise TableRefused(f"position {position}: the {game.value} game offers no {name}")
            if amount > limits.max_bonus:
                raise TableRefused(
                    f"position {position}: {name} {amount} cents is above the limit {limits.max_bonus}"
                )


class TableService:
    """One table: its current round, its open faults, and the commands on them."""

    def __init__(self, settings: TableSettings, engine: Engine) -> None:
        self.settings = settings
        self.table_id = settings.table_id
        self.recorder = RoundRecorder(engine, settings.table_id, rules_for)
        self._rules = GameRoundRules(table=settings.table_rules(), way=load_house_way(settings.house_way))
        self.round: RoundState | None = None
        self.round_rules: RoundRules | None = None
        self.faults: dict[tuple[str, str], OpenFault] = {}
        self.device_health = DeviceHealthRegistry()  # fed by the conductor's device ports, read by the API
        self.table_open = True
        self._lock = threading.RLock()  # the conductor, the journal thread and the API share it

    # -- start ---------------------------------------------------------------------------------

    def resume(self) -> RoundState | None:
        """Restore the table's open round after a restart (a known state: issue 4)."""
        with self._lock:
            found = self.recorder.resume()
            if found is None:
                self.round, self.round_rules = None, None
                return None
            self.round, self.round_rules = found
            log.info("round.restored", table_id=self.table_id, round_id=self.round.round_id,
                     phase=self.round.phase.value)
            return self.round

    # -- the round's commands ------------------------------------------------------------------

    @property
    def in_progress(self) -> bool:
        return self.round is not None and not self.round.phase.is_final

    def open_round(self, wagers: Mapping[int, Wager], actor: str) -> RoundState:
        with self._lock:
            if not self.table_open:
                raise self._refuse("round.open", "the table is closed")
            if self.in_progress:
                assert self.round is not None
                raise self._refuse("round.open", f"round {self.round.round_id} is still in progress")
            if self.faults:
                open_faults = ", ".join(f"{f.device} {f.kind}" for f in self.faults.values())
                raise self._refuse("round.open", f"a device fault is open: {open_faults}")
            try:
                check_wagers(self.settings.game, self.settings.limits, wagers)
            except TableRefused as error:
                raise self._refuse("round.open", str(error)) from None
            self.round, self.round_rules = self.recorder.open(
                game=self.settings.game, rules=self._rules.snapshot(), wagers=wagers, actor=actor
            )
            structlog.contextvars.bind_contextvars(table_id=self.table_id, round_id=self.round.round_id)
            log.info("round.opened", actor=actor, positions=sorted(wagers),
                     wagered=sum(w.main for w in wagers.values()))
            return self.round

    def record_dice(self, event: DiceRolled) -> RoundState:
        state = self._record(event)
        log.info("dice.rolled", faces=list(event.faces), source=event.source, start_position=state.start)
        return state

    def record_deal(self, event: PilesDealt) -> RoundState:
        state = self._record(event)
        if state.misdeal:
            details = [d.detail for d in state.misdeal]
            self.alert("misdeal", "; ".join(details), discrepancies=[d.kind for d in state.misdeal])
            log.error("round.misdeal", discrepancies=details)
        else:
            assert state.required is not None
            log.info("deal.verified", house_way_rule=state.required.rule_id)
        self._round_done(state)
        return state

    def set_player(self, position: int, high: list[str], low: list[str], actor: str) -> RoundState:
        return self._record(PlayerSet(position=position, high=high, low=low, actor=actor))

    def set_dealer(self, high: list[str], low: list[str], actor: str) -> RoundState:
        try:
            return self._record(DealerSet(high=high, low=low, actor=actor))
        except HouseWayDeviation as deviation:
            required = deviation.required
            self.alert(
                "house-way-deviation",
                str(deviation),
                actor=actor,
                proposed={"high": high, "low": low},
                required={"high": [c.code for c in required.setting.high],
                          "low": [c.code for c in required.setting.low]},
                rule=required.rule_id,
            )
            raise

    def override_dealer(self, high: list[str], low: list[str], actor: str, reason: str) -> RoundState:
        state = self._record(DealerOverride(high=high, low=low, actor=actor, reason=reason))
        self.alert("override", f"{actor} let the dealer's setting stand: {reason}", actor=actor,
                   setting={"high": high, "low": low})
        return state

    def settle(self) -> RoundState:
        state = self._record(RoundSettled())
        assert state.result is not None
        totals = state.result["totals"]
        log.info("round.settled", positions=len(state.result["positions"]), wagered=totals["total_wagered"],
                 commission=totals["commission"], bonuses_paid=totals["bonuses_paid"],
                 house_result=totals["house_result"])
        self._round_done(state)
        return state

    def void(self, actor: str, reason: str) -> RoundState:
        state = self._record(RoundVoided(actor=actor, reason=reason))
        self.alert("void", f"{actor} voided the round: {reason}", actor=actor)
        self._round_done(state)
        return state

    # -- the table -----------------------------------------------------------------------------

    def set_table_open(self, is_open: bool, actor: str) -> None:
        with self._lock:
            self.table_open = is_open
            self.recorder.note(kind="table.opened" if is_open else "table.closed", actor=actor, payload={})

    def device_fault(self, device: str, kind: str, detail: str = "") -> None:
        """A fault or a lost link: play stops (no new round) until it clears."""
        with self._lock:
            key = (device, kind)
            if key in self.faults:
                return
            self.faults[key] = OpenFault(device, kind, detail)
            self.alert("device-fault" if kind != "link-lost" else "link-loss", f"{device}: {kind} {detail}".strip(),
                       device=device, fault=kind)
            log.warning("device.fault", device=device, fault=kind, detail=detail)

    def fault_cleared(self, device: str, kind: str) -> None:
        with self._lock:
            if self.faults.pop((device, kind), None) is None:
                return
            self.recorder.note(kind="device.fault.cleared", actor=f"device:{device}",
                               payload={"device": device, "fault": kind}, round_id=self._round_id())
            log.info("device.fault_cleared", device=device, fault=kind)

    def journal(self, device: str, kind: str, payload: Mapping[str, Any]) -> None:
        """A device event, stored before the driver acknowledges it (drivers.base.Journal)."""
        with self._lock:
            self.recorder.note(kind=f"device.{device}.{kind}", actor=f"device:{device}", payload=dict(payload),
                               round_id=self._round_id())

    def alert(self, kind: str, detail: str, **data: Any) -> None:
        self.recorder.note(kind="alert.raised", actor=str(data.pop("actor", "system")),
                           payload={"alert": kind, "detail": detail, **data}, round_id=self._round_id())

    # -- internals -----------------------------------------------------------------------------

    def _round_id(self) -> str | None:
        return self.round.round_id if self.round is not None else None

    def _record(self, event: Any) -> RoundState:
        with self._lock:
            if self.round is None or self.round_rules is None:
                raise self._refuse(event.kind, "no round is open")
            try:
                self.round = self.recorder.record(self.round, event, self.round_rules)
            except TransitionRefused as refused:
                self.recorder.note(kind="round.refused", actor=event.actor, round_id=self.round.round_id,
                                   payload={"event": event.model_dump(mode="json"), "phase": refused.phase.value,
                                            "reason": refused.reason})
                log.warning("round.refused", refused_event=event.kind, phase=refused.phase.value, reason=refused.reason,
                            actor=event.actor)
                raise
            return self.round

    def _round_done(self, state: RoundState) -> None:
        """After the last line about a final round is logged: later lines are not the round's."""
        if state.phase.is_final:
            structlog.contextvars.unbind_contextvars("round_id")

    def _refuse(self, what: str, reason: str) -> TableRefused:
        log.warning("table.refused", command=what, reason=reason)
        return TableRefused(f"{what} refused: {reason}")


__all__ = ["OpenFault", "TableRefused", "TableService", "check_wagers", "rules_for"]
