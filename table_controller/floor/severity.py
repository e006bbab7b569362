"""How urgent each kind of alert is, as data (docs/floor.md, "Alerts"): the floor counts a
table's open alerts by severity and the pages mark each alert with it. One definition: the API
answers with the severity, so the pages never keep a copy of this table.
"""

from __future__ import annotations

import enum
from types import MappingProxyType


class Severity(enum.StrEnum):
    """How soon the pit must look at an alert."""

    CRITICAL = "critical"  # play is stopped or the record is in doubt: now
    WARNING = "warning"  # something went wrong at the table: this round
    INFO = "info"  # a pit user's own act, kept for a second pit user's review


# Alert kinds (``alert`` of an ``alert.raised`` payload, as table/service.py raises them) -> severity.
# A kind not listed is a warning: a new kind of alert is never shown as unimportant.
SEVERITIES: MappingProxyType[str, Severity] = MappingProxyType(
    {
        "record-broken": Severity.CRITICAL,
        "round.held": Severity.CRITICAL,
        "table-held": Severity.CRITICAL,
        "device-fault": Severity.CRITICAL,
        "link-loss": Severity.CRITICAL,
        "misdeal": Severity.WARNING,
        "house-way-deviation": Severity.WARNING,
        "outside-band": Severity.WARNING,
        "store-unavailable": Severity.WARNING,  # raised once the store is back: the outage is over
        "override": Severity.INFO,
        "void": Severity.INFO,
    }
)


def severity_of(alert: str) -> Severity:
    return SEVERITIES.get(alert, Severity.WARNING)


__all__ = ["SEVERITIES", "Severity", "severity_of"]
