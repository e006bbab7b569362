"""Fills and credits: chips from the cage to a table and back, each on a numbered slip
(docs/accounting.md, "Fills and credits").

A slip is requested (the pit names the chips by denomination), then delivered: the runner who
carried the chips and the pit or the dealer who received them (a fill) or handed them over (a
credit) both sign, two people. A void needs a second person beside the one voiding, and a
reason; a voided slip no longer counts. Only a delivered slip that is not voided counts in the
table's win, in the period of its delivery. Each step returns a new frozen slip.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from datetime import datetime

from ..game.money import Cents
from .amounts import instant, person, two_people
from .chips import Chips, ChipSet
from .errors import ChipError, SlipError


class SlipKind(enum.StrEnum):
    FILL = "fill"  # chips from the cage to the table
    CREDIT = "credit"  # chips from the table back to the cage


class SlipState(enum.StrEnum):
    REQUESTED = "requested"
    DELIVERED = "delivered"
    VOIDED = "voided"


@dataclass(frozen=True, slots=True)
class Void:
    """Who voided a slip, the second person who approved it, when and why."""

    at: datetime
    by: str
    approved_by: str
    reason: str


@dataclass(frozen=True, slots=True)
class Slip:
    """A fill or credit slip: ``number`` (unique at the casino), the table, the chips, who
    requested it and when; once delivered, when, the ``runner`` and the ``table_signer``."""

    kind: SlipKind
    number: int
    table_id: str
    chips: Chips
    requested_at: datetime
    requested_by: str
    delivered_at: datetime | None = None
    runner: str | None = None
    table_signer: str | None = None
    void: Void | None = None

    @property
    def state(self) -> SlipState:
        if self.void is not None:
            return SlipState.VOIDED
        return SlipState.DELIVERED if self.delivered_at is not None else SlipState.REQUESTED

    @property
    def value(self) -> Cents:
        return self.chips.value

    @property
    def counts(self) -> bool:
        """Whether the slip counts in the table's win: delivered and not voided."""
        return self.state is SlipState.DELIVERED


def request_slip(
    kind: SlipKind,
    *,
    number: int,
    table_id: str,
    chips: Chips,
    at: datetime,
    by: str,
    chip_set: ChipSet | None = None,
) -> Slip:
    """A new slip, requested. Refused: a number that is not a positive whole number, a table
    without an id, no chips, chips of a denomination the casino does not use."""
    if not isinstance(kind, SlipKind):
        raise SlipError(f"a slip is a fill or a credit, got {kind!r}")
    if isinstance(number, bool) or not isinstance(number, int) or number <= 0:
        raise SlipError(f"a slip number is a positive whole number, got {number!r}")
    if not isinstance(table_id, str) or not table_id.strip():
        raise SlipError(f"a slip names its table, got {table_id!r}")
    if not isinstance(chips, Chips) or not chips.counts:
        raise ChipError(f"a {kind.value} slip carries chips, got {chips!r}")
    (chip_set or ChipSet()).check(chips)
    return Slip(
        kind=kind,
        number=number,
        table_id=table_id.strip(),
        chips=chips,
        requested_at=instant(at, "the request's time"),
        requested_by=person(by, "the requester"),
    )


def deliver(slip: Slip, *, at: datetime, runner: str, table_signer: str) -> Slip:
    """The chips delivered: the runner and the table's signer, two people, sign. Refused: a
    slip already delivered or voided, a delivery before the request."""
    if slip.state is not SlipState.REQUESTED:
        raise SlipError(f"{slip.kind.value} slip {slip.number} is {slip.state.value}: it cannot be delivered")
    when = instant(at, "the delivery's time")
    if when < slip.requested_at:
        raise SlipError(
            f"{slip.kind.value} slip {slip.number}: delivered at {when.isoformat()}, before its request "
            f"at {slip.requested_at.isoformat()}"
        )
    carried, signed = two_people(runner, table_signer, "runner", "table's signer")
    return replace(slip, delivered_at=when, runner=carried, table_signer=signed)


def void_slip(slip: Slip, *, at: datetime, by: str, approved_by: str, reason: str) -> Slip:
    """Void a slip (requested or delivered): a second person approves, a reason is given."""
    if slip.state is SlipState.VOIDED:
        raise SlipError(f"{slip.kind.value} slip {slip.number} is already voided")
    voider, approver = two_people(by, approved_by, "person voiding", "second person")
    if not isinstance(reason, str) or not reason.strip():
        raise SlipError(f"voiding {slip.kind.value} slip {slip.number} needs a reason")
    when = instant(at, "the void's time")
    if when < slip.requested_at:
        raise SlipError(f"{slip.kind.value} slip {slip.number}: voided before its request")
    return replace(slip, void=Void(at=when, by=voider, approved_by=approver, reason=reason.strip()))


__all__ = ["Slip", "SlipKind", "SlipState", "Void", "deliver", "request_slip", "void_slip"]
