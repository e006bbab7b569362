"""The shuffler as the conductor drives it: shuffle, deal, collect this deal's piles, recover.

One deal is one DEAL command: seven PILE events and the UNUSED_CARDS that close it, or a
DEAL_ABORTED (jam, door opened) after some piles (docs/protocols/shuffler.md, 4). The deal
becomes ``PilesDealt`` for the round: an unreadable card is ``??`` (an ``unreadable-card``
discrepancy), an aborted or lost deal is ``interrupted`` with the device's reason, and the
deal check (game/deal.py) turns any of these into a misdeal: the round is void, the wagers
returned, the pit alerted with the exact discrepancy (docs/round-lifecycle.md, "The phases").

Recovery (docs/round-lifecycle.md): after a restart, events the shuffler had not got an ACK
for arrive first (the link delivers in order); the conductor therefore asks for the status
before anything else (``drain``). Everything before the STATUS answer is old: deal events
are added to the round's deal rebuilt from the journal; if the STATUS says the machine is
still dealing, the rest of that deal is awaited. Only then is a new command sent, so the
command ids of the old run (they start at 1 again in each run) are never confused with new
ones. A deal that the machine lost (it restarted mid-deal: a new device session,
``LinkRestored(device_restarted)``, ``CommandsDropped``) is a misdeal, "deal interrupted".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import structlog

from drivers.base import CommandRejected, CommandsDropped, DeviceFault, DriverEvent, ErrorEvent, LinkRestored
from drivers.errors import ProtocolError
from drivers.shuffler.events import (
    DealAborted,
    DeckChecked,
    PileRead,
    RejectReason,
    Shuffled,
    ShufflerFault,
    ShufflerState,
    ShufflerStatus,
    UnusedCards,
)

from ..game.deal import PILES, UNREADABLE_CODE
from ..round.events import PilesDealt
from .adapter import DeviceAdapter, wait_or_stop
from .journal import DeviceRecord

if TYPE_CHECKING:  # the driver class is found by name in drivers.DRIVERS, imported only when opened
    from drivers.shuffler.driver import ShufflerDriver  # noqa: F401 - named in the base class below

log = structlog.get_logger()

DEVICE = "shuffler"
STANDING_FAULTS = frozenset({"door-open", "jam", "deck-not-present", "wrong-card-count"})  # shuffler.md 3.2
COUNT_FAULT = "wrong-card-count"  # cleared only by a SHUFFLE that counts right (shuffler.md 4)
COUNT_RETRY_MAX = 30.0  # seconds: a deck with a wrong count is re-checked ever less often, up to this
ACTOR = "device:shuffler"
RESTARTED = "deal interrupted: the shuffler restarted during the deal (a new device session)"


def _code(card: str | None) -> str:
    return UNREADABLE_CODE if card is None else card


@dataclass
class Deal:
    """One deal of one round: the piles and the unused cards as the reader saw them."""

    round_id: str
    command_id: int | None = None  # the DEAL's id in the run that sent it (None: not known yet)
    device_session: int | None = None
    piles: dict[int, tuple[str | None, ...]] = field(default_factory=dict)
    unused: tuple[str | None, ...] | None = None
    interrupted: str | None = None
    from_journal: bool = False  # rebuilt after a restart

    @property
    def ended(self) -> bool:
        return self.unused is not None or self.interrupted is not None

    def accepts(self, event: PileRead | UnusedCards | DealAborted) -> bool:
        """True for an event of this deal; a deal rebuilt without its command id adopts the first."""
        if self.ended:
            return False
        if self.command_id is None:
            self.command_id = event.command_id
        return event.command_id == self.command_id

    def take(self, event: PileRead | UnusedCards | DealAborted) -> None:
        if isinstance(event, PileRead):
            if event.pile in self.piles and self.piles[event.pile] != tuple(event.cards):
                self.interrupt(f"pile {event.pile} was reported twice with different cards")
                return
            self.piles[event.pile] = tuple(event.cards)
            log.info(
                "deal.pile",
                pile=event.pile,
                cards=[_code(c) for c in event.cards],
                unreadable=list(event.unreadable),
            )
        elif isinstance(event, UnusedCards):
            self.unused = tuple(event.cards)
            log.info("deal.unused", cards=[_code(c) for c in event.cards])
        else:
            self.interrupted = (
                f"the shuffler aborted the deal after {event.piles_dealt} piles: {event.reason}"
            )
            log.warning("deal.aborted", piles_dealt=event.piles_dealt, reason=str(event.reason))

    def interrupt(self, reason: str) -> None:
        if not self.ended:
            self.interrupted = reason
            log.warning("deal.interrupted", reason=reason, piles=sorted(self.piles))

    def as_event(self) -> PilesDealt:
        """The round's ``piles.dealt`` event: piles 1..7 in dealing order, ``??`` for unreadable."""
        if not self.ended:
            raise ValueError("the deal has not ended")
        if self.interrupted is not None:
            piles = [[_code(c) for c in self.piles[n]] for n in sorted(self.piles)]
        else:
            piles = [[_code(c) for c in self.piles.get(n, ())] for n in range(1, PILES + 1)]
        unused = [_code(c) for c in self.unused or ()]
        return PilesDealt(piles=piles, unused=unused, interrupted=self.interrupted, actor=ACTOR)


def rebuild_deal(round_id: str, records: Iterable[DeviceRecord]) -> Deal | None:
    """The round's last deal as journalled (commands and events of this round), or None."""
    deal: Deal | None = None
    for record in records:
        if record.device != DEVICE or record.round_id != round_id:
            continue
        payload = record.payload
        if record.what == "command" and payload.get("command") == "deal":
            deal = Deal(round_id, payload["command_id"], payload.get("session"), from_journal=True)
        elif record.what in ("pile-dealt", "unused-cards", "deal-aborted"):
            if deal is None or (deal.ended and deal.command_id != payload["command_id"]):
                deal = Deal(round_id, None, payload.get("session"), from_journal=True)
            if deal.command_id is None:
                deal.command_id = payload["command_id"]
            if payload["command_id"] != deal.command_id:
                continue  # another command's event journalled under this round: not this deal
            if record.what == "pile-dealt":
                deal.piles[payload["pile"]] = tuple(payload["cards"])
            elif record.what == "unused-cards":
                deal.unused = tuple(payload["cards"])
            else:
                deal.interrupted = (
                    f"the shuffler aborted the deal after {payload['piles_dealt']} piles: {payload['reason']}"
                )
    return deal


class ShufflerAdapter(DeviceAdapter["ShufflerDriver"]):
    """The shuffler with card reader, driven for one round at a time."""

    device = DEVICE
    standing_faults = STANDING_FAULTS

    def __init__(self, *args, deck_size: int, answer_timeout: float = 10.0, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.deck_size = deck_size
        self.answer_timeout = answer_timeout
        self.outstanding: Deal | None = None  # a deal rebuilt from the journal, or left running
        self.state: ShufflerState | None = None
        self.count_retry = self.retry_interval  # grows while the deck keeps counting wrong

    def fault_detail(self, event: DeviceFault) -> str:
        if isinstance(event, ShufflerFault):
            details = {
                "pile": event.pile,
                "position": event.position,
                "counted": event.counted,
                "expected": event.expected,
            }
            return " ".join(f"{k}={v}" for k, v in details.items() if v is not None)
        return ""

    # -- recovery -------------------------------------------------------------------------------

    def recover(self, round_id: str, records: Iterable[DeviceRecord]) -> None:
        """Take the round's deal as journalled before the restart (see ``drain``)."""
        self.outstanding = rebuild_deal(round_id, records)
        if self.outstanding is not None:
            deal = self.outstanding
            log.info(
                "deal.rebuilt",
                command_id=deal.command_id,
                piles=sorted(deal.piles),
                unused=deal.unused is not None,
                interrupted=deal.interrupted,
            )

    async def start(self) -> None:
        await super().start()
        await self.drain()

    async def drain(self) -> None:
        """Ask the status; take every older event first; wait out a deal the machine is still dealing."""
        status_id = self._request_status()
        status: ShufflerStatus | None = None
        while status is None:
            event = await self.next_event(self.answer_timeout)
            if event is None:
                log.error("shuffler.no_status", command_id=status_id, timeout=self.answer_timeout)
                status_id = self._request_status()
                continue
            if isinstance(event, ShufflerStatus) and event.command_id == status_id:
                status = event
            else:
                self._old_event(event)
        self.state = status.state
        reported = {str(f) for f in status.faults}
        for fault in sorted(reported):  # standing faults, after a restart too
            self.service.device_fault(DEVICE, fault, "reported by the status at start")
        self.service.reconcile_faults(DEVICE, reported)  # faults the record had open that are gone now
        log.info(
            "shuffler.status",
            state=str(status.state),
            faults=sorted(str(f) for f in status.faults),
            cards=status.cards,
        )
        if status.state is ShufflerState.DEALING:
            deal = self.outstanding
            if deal is None or deal.ended:  # a deal nobody here waits for (a voided round's): let it end
                deal = Deal(round_id="", from_journal=True)
            log.info("deal.awaiting_end", command_id=deal.command_id)
            await self._collect(deal)
            if deal is not self.outstanding:
                log.info("deal.stale_ended", command_id=deal.command_id)

    def _request_status(self) -> int:
        command_id = self.driver.request_status()
        self.journal.command("status", command_id)
        return command_id

    def _old_event(self, event: DriverEvent) -> None:
        deal = self.outstanding
        if isinstance(event, PileRead | UnusedCards | DealAborted):
            if deal is not None and deal.accepts(event):
                deal.take(event)
            else:
                log.warning(
                    "deal.stale_event", device_event=type(event).__name__, command_id=event.command_id
                )
        elif isinstance(event, LinkRestored) and event.device_restarted and deal is not None:
            deal.interrupt(f"{RESTARTED} after piles {sorted(deal.piles)}")

    # -- the round's deal -----------------------------------------------------------------------

    async def deal_for(self, round_id: str) -> Deal:
        """This round's deal, ended: the one rebuilt after a restart, or a new shuffle and deal."""
        deal = self._recovered(round_id)
        if deal is not None:
            return deal
        while True:
            await self.shuffle()
            deal = await self._deal_once(round_id)
            if deal is not None:
                return deal

    def _recovered(self, round_id: str) -> Deal | None:
        deal, self.outstanding = self.outstanding, None
        if deal is None or deal.round_id != round_id:
            return None
        if not deal.ended:
            current = self.driver.hello.session_id if self.driver.hello is not None else None
            if deal.device_session is not None and deal.device_session != current:
                deal.interrupt(f"{RESTARTED} after piles {sorted(deal.piles)}")
            elif deal.piles:
                deal.interrupt(
                    f"deal interrupted: the shuffler stopped after piles {sorted(deal.piles)} "
                    "and is no longer dealing"
                )
            else:  # sent, never carried out (nothing dealt, same machine, not dealing): deal afresh
                log.info("deal.never_carried_out", command_id=deal.command_id)
                return None
        return deal

    async def shuffle(self) -> None:
        """SHUFFLE until the machine reports SHUFFLED (waiting out faults between attempts)."""
        while True:
            await self.wait_clear(ignore=frozenset({COUNT_FAULT}))  # only a SHUFFLE clears a wrong count
            command_id = self.driver.shuffle(self.deck_size)
            self.journal.command("shuffle", command_id, deck_size=self.deck_size)
            answer = await self._answer(command_id, Shuffled)
            if isinstance(answer, Shuffled):
                log.info("shuffler.shuffled", command_id=command_id, cards_counted=answer.cards_counted)
                self.count_retry = self.retry_interval
                return
            await self._after_refusal(answer)

    async def probe_count(self) -> bool:
        """With a wrong-card-count fault open, SHUFFLE once to see whether the deck is right now."""
        command_id = self.driver.shuffle(self.deck_size)
        self.journal.command("shuffle", command_id, deck_size=self.deck_size, probe=True)
        answer = await self._answer(command_id, Shuffled)
        if isinstance(answer, Shuffled):
            self.count_retry = self.retry_interval
            return True
        self.count_retry = min(self.count_retry * 2, COUNT_RETRY_MAX)
        return False

    async def check_deck(self) -> DeckChecked | str:
        """DECK_CHECK the deck in the machine (shuffler.md 4): its scan, or why there is none.

        Run when the table holds after consecutive misdeals; the pit sees what is missing,
        duplicated or unreadable before play may resume."""
        await self.wait_clear(ignore=frozenset({COUNT_FAULT}))
        command_id = self.driver.check_deck(self.deck_size)
        self.journal.command("deck-check", command_id, deck_size=self.deck_size)
        answer = await self._answer(command_id, DeckChecked)
        if isinstance(answer, DeckChecked):
            log.info(
                "shuffler.deck_checked",
                command_id=command_id,
                complete=answer.complete,
                scanned=answer.scanned,
                unreadable=answer.unreadable,
                missing=list(answer.missing),
                duplicated=[f"{code}x{seen}" for code, seen in answer.duplicated],
            )
            return answer
        reason = str(getattr(answer, "reason", type(answer).__name__))
        log.warning("shuffler.deck_check_failed", command_id=command_id, reason=reason)
        return reason

    async def _deal_once(self, round_id: str) -> Deal | None:
        """One DEAL; None when it was refused before any card fell (shuffle and deal again)."""
        command_id = self.driver.deal()
        session = self.driver.hello.session_id if self.driver.hello is not None else None
        self.journal.command("deal", command_id, round_id=round_id)
        deal = Deal(round_id, command_id, session)
        refused = await self._collect(deal)
        if refused is not None:
            await self._after_refusal(refused)
            return None
        return deal

    async def _collect(self, deal: Deal) -> DriverEvent | None:
        """Take this deal's events until it ends; return the refusal if the DEAL was refused."""
        while not deal.ended:
            event = await self.next_event()
            if isinstance(event, PileRead | UnusedCards | DealAborted):
                if deal.accepts(event):
                    deal.take(event)
                else:
                    log.warning(
                        "deal.stale_event", device_event=type(event).__name__, command_id=event.command_id
                    )
            elif isinstance(event, CommandRejected) and event.command_id == deal.command_id:
                if not deal.piles:
                    return event
                deal.interrupt(
                    f"the shuffler refused the deal after piles {sorted(deal.piles)}: {event.reason}"
                )
            elif isinstance(event, CommandsDropped) and deal.command_id in event.command_ids:
                deal.interrupt(f"deal interrupted: {event.reason} before acknowledging the DEAL")
            elif isinstance(event, LinkRestored) and event.device_restarted:
                deal.interrupt(f"{RESTARTED} after piles {sorted(deal.piles)}")
            elif isinstance(event, ErrorEvent) and isinstance(event.error, ProtocolError):
                # a frame the driver refused (NAKed, never ACKed: link.md 3) while this deal ran:
                # a pile may be in it, so the deal cannot be trusted; say which frame it was
                deal.interrupt(
                    f"deal interrupted: the shuffler sent a frame the controller cannot use "
                    f"after piles {sorted(deal.piles)}: {event.error}"
                )
        return None

    async def _answer(self, command_id: int, wanted: type) -> DriverEvent:
        """The event answering ``command_id``: ``wanted``, a CommandRejected, or a CommandsDropped."""
        while True:
            event = await self.next_event()
            if isinstance(event, wanted) and getattr(event, "command_id", None) == command_id:
                return event
            if isinstance(event, CommandRejected) and event.command_id == command_id:
                return event
            if isinstance(event, CommandsDropped) and command_id in event.command_ids:
                return event
            if isinstance(event, PileRead | UnusedCards | DealAborted):
                log.warning(
                    "deal.stale_event", device_event=type(event).__name__, command_id=event.command_id
                )

    async def _after_refusal(self, answer: DriverEvent) -> None:
        """Pause before the next attempt; a fault the refusal reported is waited out by ``shuffle``."""
        if isinstance(answer, CommandRejected):
            log.warning("shuffler.refused", command_id=answer.command_id, reason=str(answer.reason))
            if answer.reason == RejectReason.WRONG_CARD_COUNT:  # clears only when a SHUFFLE counts right
                await wait_or_stop(self.stop, self.count_retry)
                self.count_retry = min(self.count_retry * 2, COUNT_RETRY_MAX)
                return
            if answer.reason == RejectReason.BUSY:  # a deal nobody waits for: let it end
                await wait_or_stop(self.stop, self.retry_interval)
                return
        else:
            log.warning("shuffler.command_lost", answer=type(answer).__name__)
        await wait_or_stop(self.stop, self.poll_interval)


__all__ = ["Deal", "ShufflerAdapter", "rebuild_deal"]
