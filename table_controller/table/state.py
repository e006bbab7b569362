"""What the table is, apart from its round: open device faults, a hold and its deck check, a
store outage (docs/round-lifecycle.md, "When things go wrong"). Immutable values the table
service replaces when they change and chains in its ``table.state`` events."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any


def now_iso() -> str:
    return datetime.now(UTC).isoformat()


@dataclass(frozen=True)
class OpenFault:
    device: str
    kind: str
    detail: str
    restored: bool = False  # read back from the record at start, not yet re-reported by the device


@dataclass(frozen=True)
class DeckCheck:
    """What DECK_CHECK found (shuffler.md 4), or why there is no scan (``error``)."""

    complete: bool
    scanned: int = 0
    unreadable: int = 0
    missing: tuple[str, ...] = ()
    duplicated: tuple[tuple[str, int], ...] = ()
    error: str | None = None
    at: str = field(default_factory=now_iso)

    def words(self) -> str:
        if self.error is not None:
            return f"no deck check: {self.error}"
        if self.complete:
            return f"deck complete: {self.scanned} cards scanned, none missing, duplicated or unreadable"
        parts = []
        if self.missing:
            parts.append("missing " + " ".join(self.missing))
        if self.duplicated:
            parts.append("duplicated " + " ".join(f"{code} x{seen}" for code, seen in self.duplicated))
        if self.unreadable:
            parts.append(f"{self.unreadable} unreadable")
        parts.append(f"{self.scanned} scanned")
        return "deck not clean: " + "; ".join(parts)

    def as_payload(self) -> dict[str, Any]:
        data = asdict(self)
        data["missing"] = list(self.missing)
        data["duplicated"] = [list(d) for d in self.duplicated]
        return data

    @classmethod
    def from_payload(cls, data: Mapping[str, Any]) -> DeckCheck:
        return cls(
            complete=bool(data["complete"]),
            scanned=int(data.get("scanned", 0)),
            unreadable=int(data.get("unreadable", 0)),
            missing=tuple(data.get("missing", ())),
            duplicated=tuple((str(c), int(n)) for c, n in data.get("duplicated", ())),
            error=data.get("error"),
            at=str(data.get("at", "")),
        )


@dataclass(frozen=True)
class TableHold:
    """No new round until the pit clears it: after ``misdeal_hold_after`` misdeals in a row the
    deck is checked (DECK_CHECK) and the clear is refused while the last check was not clean."""

    reason: str
    since: str
    deck_check: DeckCheck | None = None
    deck_check_wanted: bool = True  # the conductor runs DECK_CHECK when it sees this

    def as_payload(self) -> dict[str, Any]:
        return {
            "reason": self.reason,
            "since": self.since,
            "deck_check_wanted": self.deck_check_wanted,
            "deck_check": None if self.deck_check is None else self.deck_check.as_payload(),
        }

    @classmethod
    def from_payload(cls, data: Mapping[str, Any]) -> TableHold:
        check = data.get("deck_check")
        return cls(
            reason=str(data["reason"]),
            since=str(data["since"]),
            deck_check=None if check is None else DeckCheck.from_payload(check),
            deck_check_wanted=bool(data.get("deck_check_wanted", True)),
        )


@dataclass(frozen=True)
class Outage:
    """The store stopped answering: since when, why, and the notes kept until it is back."""

    since: str
    error: str


__all__ = ["DeckCheck", "OpenFault", "Outage", "TableHold", "now_iso"]
