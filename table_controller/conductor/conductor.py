"""The conductor: drives the devices through ``TableService`` for one round at a time
(docs/round-lifecycle.md).

    OPEN             the dice (the shaker, re-shaken on a void shake, or the RNG) -> dice.rolled
    DEALING          shuffle and deal this round's seven piles -> piles.dealt (or a misdeal: void)
    PLAYERS_SETTING  each position's setting (the auto-dealer, or a terminal through the service)
    DEALER_SETTING   the banker's setting (the auto-dealer by the house way, or the dealer terminal)
    SETTLING         settle -> closed, and one ``round.summary`` line

The conductor only ever acts on the phase the round is in, so after a restart it simply
continues from the phase ``TableService.resume`` restored (docs/round-lifecycle.md). Steps
are paced by ``step_delay`` (a human pace; tests kill the daemon inside a chosen phase).
While a device fault or a lost link is open no new round starts.

Nothing that goes wrong inside a round stops the daemon (docs/round-lifecycle.md, "When
things go wrong"): a step that fails holds the round for the pit; a store outage stops play
until the store answers, then play goes on from what the store has; after misdeals in a row
the table holds and the conductor runs a DECK_CHECK for the pit. Every call that commits runs
in a worker thread, so the API and the live stream keep answering while the store is slow.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Protocol

import structlog

from ..logs import error_text
from ..round.machine import HouseWayDeviation, RoundState, TransitionRefused
from ..round.phases import Phase
from ..table.autodealer import AutoDealer
from ..table.service import RoundChanged, RoundHeld, StoreOutage, TableRefused, TableService
from ..table.state import DeckCheck
from ..table.stops import why_not_dealing
from .adapter import OffLoop, Stopped, wait_or_stop
from .dice import Roll
from .journal import DeviceRecord
from .shuffler import COUNT_FAULT, Deal, ShufflerAdapter

log = structlog.get_logger()

IDLE_POLL = 0.05  # seconds between looks at the table while waiting for someone else
STORE_RETRY = 1.0  # seconds between tries of a store that stopped answering
ERROR_BACKOFF_MAX = 30.0  # seconds: an unexpected error between rounds is retried ever less often


class Dice(Protocol):
    source: str

    async def start(self) -> None: ...

    async def close(self) -> None: ...

    def recover(self, round_id: str, records: Iterable[DeviceRecord]) -> None: ...

    async def roll_for(self, round_id: str) -> Roll: ...


class Conductor:
    """One table's devices and rounds; ``run`` until stopped or ``rounds`` rounds are settled."""

    def __init__(
        self,
        service: TableService,
        shuffler: ShufflerAdapter,
        dice: Dice,
        *,
        stop: asyncio.Event,
        auto_dealer: AutoDealer | None = None,
        step_delay: float = 0.0,
    ) -> None:
        self.service = service
        self.shuffler = shuffler
        self.dice = dice
        self.stop = stop
        self.auto_dealer = auto_dealer
        self.step_delay = step_delay
        self.settled = 0
        self.voided = 0
        self._phase: tuple[str, Phase] | None = None
        self._started_at: dict[str, float] = {}
        self._dealt: Deal | None = None  # a deal not yet recorded (the store went away meanwhile)
        self._off_loop = OffLoop("conductor-store")

    # -- the whole run --------------------------------------------------------------------------

    async def run(self, rounds: int | None = None) -> int:
        """Resume, then play until stopped (or ``rounds`` settled rounds); return rounds settled."""
        structlog.contextvars.bind_contextvars(table_id=self.service.table_id)
        watcher = asyncio.create_task(self._watch_store(), name="store-watch")
        backoff = IDLE_POLL
        try:
            await self.start()
            while not self.stop.is_set():
                try:
                    state = self.service.round
                    if state is not None and not state.phase.is_final:
                        await self.play()
                        continue
                    if rounds is not None and self.settled >= rounds:
                        break
                    await self.open_next()
                    backoff = IDLE_POLL
                except (Stopped, asyncio.CancelledError):
                    raise
                except StoreOutage as outage:
                    log.warning("conductor.store_wait", reason=str(outage))
                    await self._wait_for_store()
                except Exception:  # never die between rounds: say it, wait, try again
                    log.exception("conductor.error", retry_in_s=backoff)
                    await wait_or_stop(self.stop, backoff)
                    backoff = min(backoff * 2, ERROR_BACKOFF_MAX)
        except Stopped:
            log.info("conductor.stopping", settled=self.settled)
        finally:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher
            await self.close()
            self._off_loop.close()
        return self.settled

    async def _watch_store(self) -> None:
        """While the store is away, try it every second: the table's kept alerts are written and
        play resumes as soon as it answers, whatever the conductor is waiting for. While it
        answers and a round is open, look every second whether another process (the console)
        changed that round: a void from the console ends it here too (``TableService.sync_round``)."""
        while not self.stop.is_set():
            if self.service.outage is not None:
                try:
                    await self._off_loop(self.service.retry_store)
                except Exception:
                    log.exception("conductor.store_retry_failed")
            elif self.service.in_progress:
                try:
                    await self._off_loop(self.service.sync_round)
                except Exception:
                    log.exception("conductor.round_sync_failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.stop.wait(), STORE_RETRY)

    async def _wait_for_store(self) -> None:
        while self.service.outage is not None:
            await wait_or_stop(self.stop, IDLE_POLL)
        log.info("conductor.store_back")

    async def start(self) -> None:
        """Restore the open round, rebuild its device story from the journal, connect the devices.

        A store that goes away meanwhile (during the start's record check too) is waited out and
        the start done again: an outage is never a finding (docs/round-lifecycle.md)."""
        while True:
            try:
                state = await self._off_loop(self.service.resume)
                break
            except StoreOutage as outage:
                log.warning("conductor.store_wait", phase="start", reason=str(outage))
                await self._wait_for_store()
        records: list[DeviceRecord] = []
        if state is not None and not state.phase.is_final:
            structlog.contextvars.bind_contextvars(round_id=state.round_id)
            records = await self._off_loop(self.service.round_device_events, state.round_id)
            self.shuffler.recover(state.round_id, records)
            self.dice.recover(state.round_id, records)
            log.info("round.resuming", phase=state.phase.value, device_events=len(records))
        await self.shuffler.start()
        await self.dice.start()
        if state is not None:
            self._note_phase(state)

    async def close(self) -> None:
        for device in (self.dice, self.shuffler):
            try:
                await device.close()
            except Exception:
                log.exception("conductor.close_failed", device=type(device).__name__)

    # -- between rounds -------------------------------------------------------------------------

    async def open_next(self) -> None:
        """Wait until play may go on, then open a round (the auto-dealer) or wait for one to open."""
        await self.wait_until_ready()
        if self.auto_dealer is None:
            await self._wait_for(lambda: self.service.in_progress)
            return
        await self.pace()
        if not self._ready():
            return
        number = await self._off_loop(self.service.next_round_number)
        self.auto_dealer.limits = self.service.limits.main  # as the pit last changed them
        opening = self.auto_dealer.opening(number, self.service.bank_offer)
        try:
            state = await self._off_loop(
                self.service.open_round,
                opening.wagers,
                actor=self.auto_dealer.actor,
                banker_seat=opening.banker_seat,
                bank_amount=opening.bank_amount,
                co_bank=opening.co_bank,
            )
        except TableRefused as refused:
            log.warning("conductor.open_refused", reason=str(refused))
            await wait_or_stop(self.stop, IDLE_POLL)
            return
        structlog.contextvars.bind_contextvars(round_id=state.round_id)  # the thread's binding stays there
        self._started_at[state.round_id] = time.monotonic()
        self._note_phase(state)

    def _ready(self) -> bool:
        """Nothing stops play: the reasons the conductor waits are the ones the pit is shown."""
        return not why_not_dealing(self.service)

    async def wait_until_ready(self) -> None:
        """No new round while the table is closed, held, a fault is open or the store is away.

        A wrong card count is re-checked; a hold after misdeals gets its DECK_CHECK here."""
        if self._ready():
            return
        service = self.service
        log.warning(
            "conductor.waiting",
            table_open=service.table_open,
            hold=None if service.hold is None else service.hold.reason,
            store=None if service.outage is None else service.outage.error,
            faults=sorted(f"{f.device} {f.kind}" for f in service.faults.values()),
            record=service.record_broken,
            reasons=[stop.kind.value for stop in why_not_dealing(service)],
        )
        next_probe = time.monotonic()
        while not self._ready():
            hold = service.hold
            if hold is not None and hold.deck_check_wanted and service.outage is None:
                await self.check_deck()
            elif self.shuffler.open_faults() == [COUNT_FAULT] and time.monotonic() >= next_probe:
                await self.shuffler.probe_count()
                next_probe = time.monotonic() + self.shuffler.count_retry
            await wait_or_stop(self.stop, IDLE_POLL)
        log.info("conductor.ready")

    async def check_deck(self) -> None:
        """DECK_CHECK for a held table; the result goes to the pit through the service."""
        answer = await self.shuffler.check_deck()
        if isinstance(answer, str):
            check = DeckCheck(complete=False, error=answer)
        else:
            check = DeckCheck(
                complete=answer.complete,
                scanned=answer.scanned,
                unreadable=answer.unreadable,
                missing=tuple(answer.missing),
                duplicated=tuple(answer.duplicated),
            )
        await self._off_loop(self.service.record_deck_check, check)

    # -- one round ------------------------------------------------------------------------------

    async def play(self) -> RoundState:
        """Take the open round from its phase to CLOSED or VOID."""
        while True:
            state = self.service.round
            assert state is not None
            self._note_phase(state)
            if state.phase.is_final:
                self._finished(state)
                return state
            if self.service.held is not None:  # only a pit void (or a restart that finds it voided) frees it
                log.warning("conductor.round_held", reason=self.service.held)
                # awaited within this pass of the loop: the lambda never outlives this ``state``
                await self._wait_for(
                    lambda: self.service.round is not state or self.service.held is None  # noqa: B023
                )
                continue
            step = {
                Phase.OPEN: self._roll,
                Phase.DEALING: self._deal,
                Phase.PLAYERS_SETTING: self._players,
                Phase.DEALER_SETTING: self._dealer,
                Phase.SETTLING: self._settle,
            }[state.phase]
            try:
                await step(state)
            except (RoundHeld, RoundChanged):  # held for the pit, or taken again as the console left it
                continue
            except TransitionRefused as refused:  # someone else moved the round meanwhile (a pit void)
                log.warning("conductor.step_refused", phase=state.phase.value, reason=str(refused))
            except (
                StoreOutage
            ) as outage:  # nothing of the step was written: do it again once the store is back
                log.warning("conductor.store_wait", phase=state.phase.value, reason=str(outage))
                await self._wait_for_store()
            except (Stopped, asyncio.CancelledError):
                raise
            except Exception as error:  # a failure inside the round holds it; the daemon goes on
                log.exception("conductor.step_failed", phase=state.phase.value)
                what = f"the conductor failed in {state.phase.value}: {error_text(error)}"
                await self._off_loop(self.service.hold_round, what)

    async def _roll(self, state: RoundState) -> None:
        await self.pace()
        roll = await self.dice.roll_for(state.round_id)
        log.info("dice.seen", faces=list(roll.faces), source=roll.source, roll_id=roll.roll_id)
        await self.pace()
        if self.service.round is state:
            await self._off_loop(self.service.record_dice, roll.as_event())

    async def _deal(self, state: RoundState) -> None:
        await self.pace()
        kept = self._dealt
        if kept is not None and kept.round_id == state.round_id:  # dealt before a store outage: record it now
            deal = kept
        else:
            deal = await self.shuffler.deal_for(state.round_id)
            self._dealt = deal
        if self.service.round is state:
            await self._off_loop(self.service.record_deal, deal.as_event())
        self._dealt = None

    async def _players(self, state: RoundState) -> None:
        if self.auto_dealer is None:
            await self._wait_for(lambda: self.service.round is not state)
            return
        position = self.auto_dealer.next_position(state)
        if position is None:  # cannot happen: the machine leaves this phase once all are set
            raise RuntimeError(f"round {state.round_id}: players-setting with every position set")
        rules = self.service.round_rules
        assert rules is not None
        decision = self.auto_dealer.player_setting(state, position, rules)
        await self.pace()
        if self.service.round is state:
            await self._off_loop(
                self.service.set_player, position, decision.high, decision.low, actor=self.auto_dealer.actor
            )
            log.info(
                "player.set", position=position, high=decision.high, low=decision.low, choice=decision.choice
            )

    async def _dealer(self, state: RoundState) -> None:
        if self.auto_dealer is None:
            await self._wait_for(lambda: self.service.round is not state)
            return
        high, low = self.auto_dealer.dealer_setting(state)
        await self.pace()
        if self.service.round is state:
            try:
                await self._off_loop(self.service.set_dealer, high, low, actor=self.auto_dealer.actor)
            except HouseWayDeviation as deviation:  # the auto-dealer sets by the required setting: a bug
                raise RuntimeError(f"the auto-dealer deviated from the house way: {deviation}") from deviation
            log.info(
                "dealer.set", high=high, low=low, rule=state.required.rule_id if state.required else None
            )

    async def _settle(self, state: RoundState) -> None:
        await self.pace()
        if self.service.round is state:
            await self._off_loop(self.service.settle)

    # -- helpers --------------------------------------------------------------------------------

    async def pace(self) -> None:
        if self.step_delay > 0:
            await wait_or_stop(self.stop, self.step_delay)
        elif self.stop.is_set():
            raise Stopped

    async def _wait_for(self, condition: Callable[[], bool]) -> None:
        while not condition():
            await wait_or_stop(self.stop, IDLE_POLL)

    def _note_phase(self, state: RoundState) -> None:
        key = (state.round_id, state.phase)
        if self._phase != key:
            self._phase = key
            log.info("round.phase", round_id=state.round_id, phase=state.phase.value)

    def _finished(self, state: RoundState) -> None:
        started = self._started_at.pop(state.round_id, None)
        elapsed = None if started is None else round((time.monotonic() - started) * 1000)
        if state.phase is Phase.CLOSED:
            self.settled += 1
            log.info("round.summary", **summary(state), duration_ms=elapsed)
        else:
            self.voided += 1
            log.warning(
                "round.void",
                round_id=state.round_id,
                number=state.opened.number,
                reason=state.void_reason or "; ".join(d.detail for d in state.misdeal),
                misdeal=bool(state.misdeal),
                discrepancies=[d.kind for d in state.misdeal],
            )
        structlog.contextvars.unbind_contextvars("round_id")


def summary(state: RoundState) -> dict[str, object]:
    """The one line a settled round leaves in the log: who played, what was won, by whom."""
    result = state.result
    assert result is not None and state.dice is not None
    outcomes = Counter(record.outcome.value for record in result.positions)
    bank = result.bank
    # who banked (docs/settlement.md, 8): the house, or a player's seat with the bank's money
    banker: dict[str, object] = {"banker": "house", "banker_seat": None}
    if bank is not None:
        banker = {
            "banker": f"seat {bank.seat}",
            "banker_seat": bank.seat,
            "co_banked": bank.house_share_bp is not None,
            "bank_commission_cents": bank.commission,
            "banker_result_cents": bank.banker_net,
            "banker_fouled": bank.foul is not None,
        }
    return {
        "round_id": state.round_id,
        "number": state.opened.number,
        "game": state.game.value,
        "dice": list(state.dice.faces),
        "dice_source": state.dice.source,
        "start_position": state.start,
        "positions": list(state.playing_positions),
        "house_way_rule": state.required.rule_id if state.required else None,
        "override": state.override is not None,
        "outcomes": dict(sorted(outcomes.items())),
        "fouls": sum(1 for record in result.positions if record.foul is not None),
        "wagered_cents": result.total_wagered,
        "commission_cents": result.commission,
        "bonuses_paid_cents": result.bonuses_paid,
        "house_result_cents": result.house_result,
        **banker,
    }


__all__ = ["Conductor", "Dice", "summary"]
