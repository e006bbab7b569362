"""The dice that choose the start position: the shaker, or the RNG where no shaker is fitted.

Three dice pick the position that receives the first pile (000_f88fa0f023e5142c.txt,
004_60e2fc6346e3399b.txt); a table without a shaker uses the RNG (003_4dcc2fceebc6e4af.txt:
"a dice shaker or shuffle machine RNG"). The round records the faces and the source.

A cocked or unreadable die voids the shake: the dice are shaken again, never guessed
(dice-shaker.md 2.7). A ROLL the controller cannot use (a die showing 7: dice-shaker.md 2.3)
fails that shake at once and the dice are shaken again; after ``BAD_ROLL_LIMIT`` such
answers for one round a ``bad-roll`` fault stops play (one alert) and the shaker is tried again
ever less often, until a good roll clears it. A cover opened or a tamper switch tripped is a
fault: play waits until it clears. A shaker that does not answer at all (no roll, no refusal
within ``device_timeout``) is shaken again; after ``no_answer_tries`` silences in a row a
``no-answer`` fault stops play (one alert) and the shaker is tried ever less often, until any
answer clears it (dice-shaker.md 4). A stop gives up the shake in progress at once: the shaker's
answer, if it comes, is journalled and is the next start's roll. Once the shaker has reported a
roll for the open round, that roll is the round's: a restarted controller uses the roll it finds
journalled (or the one the shaker re-sends) and never shakes again (docs/round-lifecycle.md,
"Recovery").
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import structlog

from drivers.base import DriverEvent
from drivers.dice_shaker.events import DiceRead, DiceStatus, ShakeFailed
from drivers.dice_shaker.rng import RngDiceSource
from drivers.dice_shaker.roll import DiceRoll
from drivers.errors import DriverIOError, DriverTimeoutError

from ..round.events import DiceRolled
from ..storage.errors import is_outage
from ..table.service import RoundChanged
from .adapter import DeviceAdapter, Stopped, wait_or_stop
from .journal import DeviceRecord

if TYPE_CHECKING:  # the driver class is found by name in drivers.DRIVERS, imported only when opened
    from drivers.dice_shaker.driver import DiceShakerDriver  # noqa: F401 - named in the base class below

log = structlog.get_logger()

DEVICE = "dice-shaker"
STANDING_FAULTS = frozenset({"cover_open", "tamper"})  # dice-shaker.md: die faults only void one shake
ROLL_TIMEOUT = 10.0  # seconds for a SHAKE's answer (dice-shaker.md 4); settings.device_timeout
BAD_ROLL = "bad-roll"  # the fault opened when the shaker keeps answering with unusable rolls
BAD_ROLL_LIMIT = 3  # unusable answers for one round before the fault: a one-off is re-shaken quietly
BAD_ROLL_RETRY_MAX = 60.0  # seconds between attempts while the fault is open, at most
NO_ANSWER = "no-answer"  # the fault opened when SHAKEs go unanswered (no roll, no refusal)
NO_ANSWER_TRIES = 2  # unanswered SHAKEs in a row before the fault: settings.dice.no_answer_tries
SHAKES_REMEMBERED = 256  # SHAKE ids kept to tell whose round a roll answers (far more than one round sends)


@dataclass(frozen=True, slots=True)
class Roll:
    """Three faces, their source and the source's roll id (``serial:roll`` for the shaker)."""

    faces: tuple[int, int, int]
    source: Literal["shaker", "rng"]
    roll_id: str | None = None

    def as_event(self) -> DiceRolled:
        actor = f"device:{DEVICE}" if self.source == "shaker" else "system"
        return DiceRolled(faces=self.faces, source=self.source, roll_id=self.roll_id, actor=actor)


class RngDice:
    """The RNG in place of a shaker: a roll is made and recorded in the same step."""

    source = "rng"

    def __init__(self, rng: RngDiceSource | None = None) -> None:
        self.rng = rng or RngDiceSource()

    async def start(self) -> None:
        log.info("dice.source", source="rng")

    async def close(self) -> None:
        return None

    def recover(self, round_id: str, records: Iterable[DeviceRecord]) -> None:
        return None  # an RNG roll exists only once it is recorded with the round

    async def roll_for(self, round_id: str) -> Roll:
        roll = self.rng.roll_now()
        return Roll(roll.faces, "rng", None)


class ShakerAdapter(DeviceAdapter["DiceShakerDriver"]):
    """The electronic dice shaker (USB, or its serial variant)."""

    device = DEVICE
    standing_faults = STANDING_FAULTS
    source = "shaker"

    def __init__(
        self, *args, roll_timeout: float = ROLL_TIMEOUT, no_answer_tries: int = NO_ANSWER_TRIES, **kwargs
    ) -> None:
        super().__init__(*args, **kwargs)
        self.roll_timeout = roll_timeout
        self.no_answer_tries = no_answer_tries
        self._lock = threading.Lock()
        self._rolls: dict[str, Roll] = {}  # the first roll answering a SHAKE of each round
        self._shakes: dict[int, str] = {}  # SHAKE command id -> the round it was shaken for
        self.journal.listen(self._heard)

    # -- what the shaker reported ---------------------------------------------------------------

    def _heard(self, event: DriverEvent, round_id: str | None) -> None:
        """Reader thread, after the event is stored: keep the first roll answering each round's
        SHAKEs. A roll is its SHAKE's round's, whichever round is open when it arrives: a roll
        answered after its round was voided was made before the next round's wagers were in,
        and is never that round's dice."""
        if not isinstance(event, DiceRead):
            return
        hello = self.driver.hello
        serial = hello.serial_number if hello is not None else ""
        with self._lock:
            owner = self._shakes.get(event.command_id)
            if owner is not None:
                self._rolls.setdefault(owner, Roll(event.faces, "shaker", f"{serial}:{event.roll_id}"))
        if owner is None:
            log.warning("dice.roll_unclaimed", roll_id=event.roll_id, command_id=event.command_id)
        elif owner != round_id:
            log.warning("dice.roll_late", roll_id=event.roll_id, shaken_for=owner, open_round=round_id)

    def _sent(self, command_id: int, round_id: str) -> None:
        """A SHAKE for ``round_id`` was queued (under the driver's lock: before any answer to it):
        remember whose it is, and journal it so a restart can tell the same (``recover``)."""
        with self._lock:
            self._shakes[command_id] = round_id
            while len(self._shakes) > SHAKES_REMEMBERED:
                del self._shakes[next(iter(self._shakes))]
        try:
            self.journal.command("shake", command_id, round_id=round_id)
        except Exception as error:  # an outage: the roll is still this round's; a restart re-shakes
            if not is_outage(error):
                raise
            log.warning("dice.shake_not_journalled", command_id=command_id, reason=str(error))

    def seen(self, round_id: str) -> Roll | None:
        with self._lock:
            return self._rolls.get(round_id)

    def recover(self, round_id: str, records: Iterable[DeviceRecord]) -> None:
        """The round's roll from before a restart: a ``rolled`` record answering a SHAKE that
        was journalled for this round (never one that only arrived while it was open)."""
        records = list(records)
        shaken = {
            record.payload.get("command_id")
            for record in records
            if record.device == DEVICE
            and record.what == "command"
            and record.payload.get("command") == "shake"
            and record.payload.get("round_id") == round_id
        }
        for record in records:
            if (
                record.device == DEVICE
                and record.what == "rolled"
                and record.round_id == round_id
                and record.payload.get("command_id") in shaken
            ):
                payload = record.payload
                roll = Roll(
                    tuple(payload["faces"]), "shaker", f"{payload.get('serial') or ''}:{payload['roll_id']}"
                )
                with self._lock:
                    self._rolls.setdefault(round_id, roll)
                log.info("dice.roll_recovered", faces=list(roll.faces), roll_id=roll.roll_id)
                return

    # -- start ----------------------------------------------------------------------------------

    async def start(self) -> None:
        await super().start()
        await self.drain()

    async def drain(self) -> None:
        """Wait for the STATUS the shaker sends after every HELLO; what came before it is older."""
        while True:
            event = await self.next_event(self.roll_timeout)
            if event is None:
                log.error("dice.no_status", timeout=self.roll_timeout)
                self.queueing = False
                return
            if isinstance(event, DiceStatus) and event.command_id is None:
                break
            if isinstance(event, DiceRead):
                log.info("dice.roll_resent", roll_id=event.roll_id, faces=list(event.faces))
        self.queueing = False  # from here on rolls come through ``driver.roll()``; faults are observed
        reported = {
            fault for fault, active in (("cover_open", event.cover_open), ("tamper", event.tamper)) if active
        }
        for fault in sorted(reported):
            self.service.device_fault(DEVICE, fault, "reported by the status at start")
        self.service.reconcile_faults(DEVICE, reported)  # faults the record had open that are gone now
        log.info(
            "dice.status",
            cover_open=event.cover_open,
            tamper=event.tamper,
            reshake_needed=event.reshake_needed,
            last_roll_id=event.last_roll_id,
        )

    # -- the round's roll -----------------------------------------------------------------------

    async def roll_for(self, round_id: str) -> Roll:
        """The round's roll: one already reported, or shake (again after a void shake or a
        silence) until read; Stopped as soon as the daemon stops."""
        attempt = 0
        bad_rolls = 0  # unusable answers for this round
        silences = 0  # SHAKEs unanswered in a row
        opened: set[str] = set()  # the faults this round's shaking opened
        pause = self.retry_interval
        while True:
            seen = self.seen(round_id)
            if seen is not None:
                for kind in sorted(opened):
                    self.service.fault_cleared(DEVICE, kind, "the shaker sent a usable roll")
                return seen
            if self.stop.is_set():
                raise Stopped
            state = self.service.round
            if state is None or state.round_id != round_id or state.phase.is_final:  # a void meanwhile
                raise RoundChanged(f"round {round_id} ended while its dice were shaken")
            await self.wait_clear(ignore=frozenset({BAD_ROLL, NO_ANSWER}))  # only an answer clears those
            attempt += 1
            try:
                await self._shake(round_id)
            except ShakeFailed as failed:
                silences = 0
                if NO_ANSWER in opened:  # it answers again, if not with a roll
                    opened.discard(NO_ANSWER)
                    self.service.fault_cleared(DEVICE, NO_ANSWER, f"the shaker answered: {failed}")
                if failed.answer_unusable:
                    bad_rolls += 1
                    log.error("dice.roll_refused", attempt=attempt, this_round=bad_rolls, reason=str(failed))
                    if bad_rolls >= BAD_ROLL_LIMIT:
                        opened.add(BAD_ROLL)
                        self.service.device_fault(
                            DEVICE, BAD_ROLL, f"{bad_rolls} unusable answers in a row; last: {failed}"
                        )
                        await wait_or_stop(self.stop, pause)
                        pause = min(pause * 2, BAD_ROLL_RETRY_MAX)
                elif failed.needs_reshake:
                    log.warning("dice.reshake", attempt=attempt, reason=str(failed))
                else:
                    log.warning("dice.shake_refused", attempt=attempt, reason=str(failed))
                    await wait_or_stop(self.stop, self.poll_interval)  # the fault it reported opens meanwhile
            except DriverTimeoutError as error:
                silences += 1
                log.error("dice.no_answer", attempt=attempt, in_a_row=silences, error=str(error))
                if silences >= self.no_answer_tries:
                    opened.add(NO_ANSWER)
                    self.service.device_fault(
                        DEVICE,
                        NO_ANSWER,
                        f"{silences} SHAKEs in a row not answered within {self.roll_timeout:g} s each",
                    )
                    await wait_or_stop(self.stop, pause)
                    pause = min(pause * 2, BAD_ROLL_RETRY_MAX)
            except DriverIOError as error:
                log.error("dice.link_down", attempt=attempt, error=str(error))
                await wait_or_stop(self.stop, self.retry_interval)

    async def _shake(self, round_id: str) -> DiceRoll:
        """One SHAKE and its answer; Stopped at once when the daemon stops meanwhile (the SHAKE
        is not waited out: its roll, if it comes, is journalled for the next start)."""
        shake = asyncio.ensure_future(
            self.driver.roll(
                timeout=self.roll_timeout, sent=lambda command_id: self._sent(command_id, round_id)
            )
        )
        stopper = asyncio.ensure_future(self.stop.wait())
        try:
            await asyncio.wait({shake, stopper}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for future in (shake, stopper):
                if not future.done():
                    future.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.gather(shake, stopper, return_exceptions=True)
        if shake.done() and not shake.cancelled():
            return shake.result()  # the roll, or the shake's own error
        raise Stopped


__all__ = ["RngDice", "Roll", "ShakerAdapter"]
