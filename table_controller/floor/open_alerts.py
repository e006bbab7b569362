"""Each table's open alerts, kept current by reading only what is new (docs/floor.md, "Alerts").

A table's alerts and their acknowledgements pile up in its chain for as long as it plays; the
tables overview (every few seconds on every floor terminal) and the list of open alerts need
only the few still open. The first look at a table reads its alert events once; each later
look reads the alert events after the last one seen (``storage.floor.alert_events_after``): a
table's seqs commit in order, so nothing is skipped. One per floor process (``app.state``),
shared by the worker threads the reads run in.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

from sqlmodel import Session

from ..storage.alerts import RAISED
from ..storage.floor import alert_events_after


class OpenAlerts:
    """Table -> {seq of each alert not yet acknowledged: its kind}."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seen: dict[str, int] = {}  # each table's last alert event applied
        self._open: dict[str, dict[int, str]] = {}

    def read(self, session: Session, table_ids: Iterable[str]) -> dict[str, dict[int, str]]:
        """The open alerts of the tables, as the session's snapshot has them (or newer: another
        reader may have moved a table on already; never older)."""
        ids = list(table_ids)
        with self._lock:
            new = alert_events_after(
                session, after={table_id: self._seen.get(table_id, 0) for table_id in ids}
            )
            for table_id, seq, kind, payload in new:
                found = self._open.setdefault(table_id, {})
                if kind == RAISED:
                    found[seq] = str(payload.get("alert", ""))
                else:  # alert.acknowledged
                    found.pop(int(payload["alert_seq"]), None)
                self._seen[table_id] = seq
            return {table_id: dict(self._open.get(table_id, {})) for table_id in ids}


__all__ = ["OpenAlerts"]
