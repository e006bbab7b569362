"""Each table's open alerts, kept current by reading only what is new (docs/api.md, "Alerts";
docs/floor.md, "Alerts").

A table's alerts and their acknowledgements pile up in its chain for as long as it plays; the
table page (on every poll of ``GET /api/table``) and the floor's overview and list of open
alerts need only the few still open. The first look at a table reads its alert events once;
each later look reads the alert events after the last one seen
(``floor.alert_events_after``): a table's seqs commit in order, so nothing is skipped. One
per table service and one per floor process, shared by the worker threads the reads run in.

Only a read snapshot may feed it: events a write transaction appended are not committed yet,
and remembering one that then rolls back would hide the event that later takes its seq.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

from sqlmodel import Session

from .alerts import RAISED, Alert
from .floor import alert_events_after
from .session import READ_ONLY


class OpenAlerts:
    """Table -> {seq: alert} of its alerts not yet acknowledged."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seen: dict[str, int] = {}  # each table's last alert event applied
        self._open: dict[str, dict[int, Alert]] = {}

    def read(self, session: Session, table_ids: Iterable[str]) -> dict[str, dict[int, Alert]]:
        """The open alerts of the tables, as the session's snapshot has them (or newer: another
        reader may have moved a table on already; never older). ``session`` is a read snapshot
        (module docstring)."""
        if not session.info.get(READ_ONLY):
            raise ValueError("open alerts are read in a read snapshot (read_snapshot), not in a write")
        ids = list(table_ids)
        with self._lock:
            seen = {table_id: self._seen.get(table_id, 0) for table_id in ids}
        # Read without the lock: the floor's worker threads would otherwise queue behind one
        # another's round trip. Two readers may read the same new events; each is applied once,
        # in seq order, because one at or below a table's last applied seq is skipped.
        events = alert_events_after(session, after=seen)
        with self._lock:
            for event in events:
                if event.seq <= self._seen.get(event.table_id, 0):
                    continue  # another reader applied it already
                found = self._open.setdefault(event.table_id, {})
                if event.kind == RAISED:
                    found[event.seq] = Alert(event, None)
                else:  # alert.acknowledged: an acknowledgement always comes after its alert
                    found.pop(int(event.payload_data()["alert_seq"]), None)
                self._seen[event.table_id] = event.seq
            return {table_id: dict(self._open.get(table_id, {})) for table_id in ids}

    def last_read(self, table_id: str) -> dict[int, Alert]:
        """The table's open alerts as last read, without reading the store (while it is away)."""
        with self._lock:
            return dict(self._open.get(table_id, {}))


__all__ = ["OpenAlerts"]
