"""Why the table does not deal now, what clears each reason and who can clear it
(docs/round-lifecycle.md, "When things go wrong", "What a stopped table shows").

One list, read by the conductor (it opens no round while the list is not empty) and by the
API and the table page (``GET /api/table``'s ``not_dealing``), so the reason the table waits
and the reason shown to the pit are the same thing. Built from the table service's immutable
snapshots: no store read, so it answers while the store is away.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from .service import TableService


class StopKind(StrEnum):
    CLOSED = "closed"
    STORE_OUTAGE = "store-outage"
    RECORD_CHECK_PENDING = "record-check-pending"
    RECORD_BROKEN = "record-broken"
    TABLE_HOLD = "table-hold"
    ROUND_HELD = "round-held"
    DEVICE_FAULT = "device-fault"


class ClearedBy(StrEnum):
    """Who clears a reason: nobody needs to act (the table resumes by itself), the pit (a pit
    user, from the table page or the API), or someone at the machine (the dealer or a technician)."""

    AUTOMATIC = "automatic"
    PIT = "pit"
    MACHINE = "at-the-machine"


@dataclass(frozen=True)
class Stop:
    """One reason the table does not deal: what it is, what clears it, who can."""

    kind: StopKind
    detail: str
    clears: str
    cleared_by: ClearedBy
    since: str | None = None


# what makes a standing device fault go (docs/protocols/shuffler.md 3.2, dice-shaker.md)
_FAULT_CLEARS: Final = {
    "door-open": "close the machine's door",
    "jam": "clear the jam in the machine",
    "deck-not-present": "load the deck into the machine",
    "wrong-card-count": "load a complete deck: the next shuffle that counts right clears it",
}
# faults the controller opens itself from what a device does (dice-shaker.md 2.3 and 4): it keeps
# trying, ever less often, and the device's next good answer clears them
_TRIED_FAULT_CLEARS: Final = {
    "bad-roll": "check the dice and the shaker's reader; the next usable roll clears it",
    "no-answer": "power-cycle the dice shaker or call a technician (it is still shaken, ever less "
    "often); its next answer clears it",
}


def why_not_dealing(service: TableService) -> tuple[Stop, ...]:
    """Every reason no new round opens (or the open round does not move), in the order they
    would be dealt with; empty while the table deals (or waits only for a dealer to open one)."""
    stops: list[Stop] = []
    outage = service.outage
    if outage is not None:
        stops.append(
            Stop(
                StopKind.STORE_OUTAGE,
                f"the database is not answering: {outage.error}",
                "play resumes by itself when the database answers (it is tried every second); "
                "get the database back",
                ClearedBy.AUTOMATIC,
                outage.since,
            )
        )
    pending = service.record_check_pending
    if pending is not None:
        stops.append(
            Stop(
                StopKind.RECORD_CHECK_PENDING,
                f"the record check ({pending}) could not read the database",
                "it runs again by itself as soon as the database answers; play resumes if the "
                "record is whole",
                ClearedBy.AUTOMATIC,
            )
        )
    broken = service.record_broken
    if broken is not None:
        stops.append(
            Stop(
                StopKind.RECORD_BROKEN,
                f"the record check found: {broken}",
                "a pit user investigates (table-controller audit verify) and runs on with a "
                "chained override naming the findings (POST /api/audit/override); a code-changed "
                "finding is run on with by acknowledging its alert",
                ClearedBy.PIT,
            )
        )
    if not service.table_open:
        stops.append(
            Stop(StopKind.CLOSED, "the table is closed", "a pit user opens the table", ClearedBy.PIT)
        )
    hold = service.hold
    if hold is not None:
        check = (
            "a deck check is running"
            if hold.deck_check_wanted
            else ("no deck check yet" if hold.deck_check is None else hold.deck_check.words())
        )
        stops.append(
            Stop(
                StopKind.TABLE_HOLD,
                f"the table is held: {hold.reason} ({check})",
                "after a clean deck check a pit user clears the hold; a deck that is not clean "
                "is fixed, then a pit user asks for another deck check",
                ClearedBy.PIT,
                hold.since,
            )
        )
    state = service.round
    held = service.held
    if held is not None and state is not None and not state.phase.is_final:
        stops.append(
            Stop(
                StopKind.ROUND_HELD,
                f"round {state.round_id} is held: {held}",
                "a pit user voids the round (the wagers are returned)",
                ClearedBy.PIT,
            )
        )
    for fault in sorted(service.faults.values(), key=lambda f: (f.device, f.kind)):
        what = f"{fault.device}: {fault.kind} {fault.detail}".strip()
        if fault.kind == "link-lost":
            stops.append(
                Stop(
                    StopKind.DEVICE_FAULT,
                    what,
                    "clears by itself when the device answers again; check its cable and power",
                    ClearedBy.AUTOMATIC,
                )
            )
        else:
            clears = _TRIED_FAULT_CLEARS.get(fault.kind)
            if clears is None:
                clears = _FAULT_CLEARS.get(fault.kind, "fix the machine")
                clears = f"{clears}; it clears when the device no longer reports it"
            stops.append(Stop(StopKind.DEVICE_FAULT, what, clears, ClearedBy.MACHINE))
    return tuple(stops)


__all__ = ["ClearedBy", "Stop", "StopKind", "why_not_dealing"]
