"""The device journal: every device event is in the audit chain before the link acknowledges it.

``drivers.base.Journal`` is called in a driver's reader thread with each decoded event and its
raw frame, *before* the link sends the ACK (docs/protocols/link.md, section 3, "Delivery before
acknowledgement"). ``DeviceJournal`` stores the event through ``TableService.journal`` (one
transaction); if that raises, the message stays unacknowledged and the device sends it again.
So an acknowledged device event is never lost (docs/round-lifecycle.md, Durability).

What is stored (kind ``device.<device>.<what>``, actor ``device:<device>``, the open round's id):

| event | what | fields besides the common ones |
| --- | --- | --- |
| Shuffled | ``shuffled`` | command_id, cards_counted |
| PileRead | ``pile-dealt`` | command_id, pile (1-7), cards (``null`` = unreadable) |
| UnusedCards | ``unused-cards`` | command_id, cards |
| DealAborted | ``deal-aborted`` | command_id, piles_dealt, reason |
| DeckChecked | ``deck-checked`` | command_id, deck_size, scanned, unreadable, missing, duplicated |
| ShufflerStatus | ``status`` | command_id, state, faults, cards |
| ShufflerFault / DiceFault | ``fault`` | fault, and the device's details |
| FaultCleared | ``fault-cleared`` | fault |
| CommandRejected / ShakeRefused | ``command-rejected`` | command_id, reason |
| DiceRead | ``rolled`` | command_id, roll_id, faces |
| DiceStatus | ``status`` | command_id, cover_open, tamper, reshake_needed, shaking, last_roll_id |
| ErrorEvent | ``protocol-error`` | error |

Common fields: ``session`` (the device's link session, from its HELLO), ``event_id`` (the
device's message id, unique within its session), ``host_session`` (the driver's own session:
the run of the controller that received it), ``serial`` (the device's serial number) and
``raw`` (the frame in hex, for surveillance). Commands the conductor sends are journalled too,
as ``device.<device>.command`` with the command's name, id and both sessions, so that a
restarted controller knows which DEAL its round was waiting for.

Duplicates: a device re-sends an event whose ACK it did not receive (the controller was killed
between the commit and the ACK). The pair (session, event_id) names the event, so the copy is
acknowledged but not stored twice. The pairs already stored are loaded at start
(``recent_device_events``, record/device_events.py).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import structlog

from drivers.base import CommandRejected, DeviceEvent, DriverEvent, ErrorEvent, FaultCleared
from drivers.dice_shaker.events import DiceFault, DiceRead, DiceStatus
from drivers.shuffler.events import (
    DealAborted,
    DeckChecked,
    PileRead,
    Shuffled,
    ShufflerFault,
    ShufflerStatus,
    UnusedCards,
)

# read back from the chain in the record, which the table service reads without the conductor
from ..record.device_events import DeviceRecord, parse_kind, recent_device_events, round_device_events

if TYPE_CHECKING:
    from drivers.base import Driver

    from ..table.service import TableService

log = structlog.get_logger()

DEDUPE_MEMORY = 4096  # (session, event id) pairs remembered per device


def _fields(event: DriverEvent) -> tuple[str, dict[str, Any]]:
    """(what, fields) of one device event: the table in the module docstring."""
    if isinstance(event, Shuffled):
        return "shuffled", {"command_id": event.command_id, "cards_counted": event.cards_counted}
    if isinstance(event, PileRead):
        return "pile-dealt", {"command_id": event.command_id, "pile": event.pile, "cards": list(event.cards)}
    if isinstance(event, UnusedCards):
        return "unused-cards", {"command_id": event.command_id, "cards": list(event.cards)}
    if isinstance(event, DealAborted):
        return "deal-aborted", {
            "command_id": event.command_id,
            "piles_dealt": event.piles_dealt,
            "reason": str(event.reason),
        }
    if isinstance(event, DeckChecked):
        return "deck-checked", {
            "command_id": event.command_id,
            "deck_size": event.deck_size,
            "scanned": event.scanned,
            "unreadable": event.unreadable,
            "missing": list(event.missing),
            "duplicated": [list(d) for d in event.duplicated],
        }
    if isinstance(event, ShufflerStatus):
        return "status", {
            "command_id": event.command_id,
            "state": str(event.state),
            "faults": sorted(str(f) for f in event.faults),
            "cards": event.cards,
        }
    if isinstance(event, ShufflerFault):
        return "fault", {
            "fault": str(event.kind),
            "pile": event.pile,
            "position": event.position,
            "counted": event.counted,
            "expected": event.expected,
        }
    if isinstance(event, DiceFault):
        return "fault", {
            "fault": event.kind,
            "die": event.die,
            "roll_id": event.roll_id,
            "command_id": event.command_id,
        }
    if isinstance(event, FaultCleared):
        return "fault-cleared", {"fault": str(event.kind)}
    if isinstance(event, CommandRejected):
        return "command-rejected", {"command_id": event.command_id, "reason": str(event.reason)}
    if isinstance(event, DiceRead):
        return "rolled", {
            "command_id": event.command_id,
            "roll_id": event.roll_id,
            "faces": list(event.faces),
        }
    if isinstance(event, DiceStatus):
        return "status", {
            "command_id": event.command_id,
            "cover_open": event.cover_open,
            "tamper": event.tamper,
            "reshake_needed": event.reshake_needed,
            "shaking": event.shaking,
            "last_roll_id": event.last_roll_id,
        }
    if isinstance(event, ErrorEvent):
        return "protocol-error", {"error": str(event.error)}
    if isinstance(event, DeviceEvent):  # a device event this table does not know: kept, never dropped
        return "event", {"type": type(event).__name__}
    raise TypeError(f"{type(event).__name__} is not a device message")


class DeviceJournal:
    """The ``journal`` callable of one driver (reader thread), plus the commands sent to it."""

    def __init__(self, service: TableService, device: str, *, known: Iterable[DeviceRecord] = ()) -> None:
        self.service = service
        self.device = device
        self.driver: Driver | None = None
        self._lock = threading.Lock()
        self._seen: OrderedDict[tuple[int, int], None] = OrderedDict()
        self._listeners: list[Callable[[DriverEvent, str | None], None]] = []
        for record in known:
            if record.device == device and record.key is not None:
                self._remember(record.key)

    def bind(self, driver: Driver) -> None:
        self.driver = driver

    def listen(self, listener: Callable[[DriverEvent, str | None], None]) -> None:
        """Call ``listener(event, round_id)`` after each event is stored (reader thread)."""
        self._listeners.append(listener)

    # -- the driver's journal -----------------------------------------------------------------

    def __call__(self, event: DriverEvent, raw: bytes) -> None:
        what, fields = _fields(event)
        session = self._device_session()
        key = (session, event.event_id) if isinstance(event, DeviceEvent) and session is not None else None
        with self._lock:
            if key is not None and key in self._seen:
                log.info("journal.duplicate", device=self.device, session=session, event_id=key[1], what=what)
                return
        payload = {**self._common(), "event_id": getattr(event, "event_id", None), **fields, "raw": raw.hex()}
        round_id = self._round_id()
        self.service.journal(self.device, what, payload)  # raises: no ACK, the device re-sends
        if key is not None:
            with self._lock:
                self._remember(key)
        for listener in self._listeners:
            listener(event, round_id)

    def command(self, name: str, command_id: int, **fields: Any) -> None:
        """Journal a command sent to the device (after it was queued, before it can be answered)."""
        self.service.journal(
            self.device, "command", {**self._common(), "command": name, "command_id": command_id, **fields}
        )

    # -- internals ------------------------------------------------------------------------------

    def _common(self) -> dict[str, Any]:
        driver = self.driver
        hello = driver.hello if driver is not None else None
        return {
            "session": hello.session_id if hello is not None else None,
            "host_session": driver.link.session_id if driver is not None else None,
            "serial": hello.serial_number if hello is not None else None,
        }

    def _device_session(self) -> int | None:
        hello = self.driver.hello if self.driver is not None else None
        return hello.session_id if hello is not None else None

    def _round_id(self) -> str | None:
        state = self.service.round
        return state.round_id if state is not None else None

    def _remember(self, key: tuple[int, int]) -> None:
        self._seen[key] = None
        while len(self._seen) > DEDUPE_MEMORY:
            self._seen.popitem(last=False)


__all__ = [
    "DeviceJournal",
    "DeviceRecord",
    "parse_kind",
    "recent_device_events",
    "round_device_events",
]
