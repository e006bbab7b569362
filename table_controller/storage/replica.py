"""How far a read-only copy of the store is behind its primary (docs/floor-replica.md).

``replica_status(read_engine, primary_engine=None)`` asks the reader itself: is it a standby
(``pg_is_in_recovery()``), is its WAL receiver running, is its replay paused, and how old is
the last transaction it replayed (``pg_last_xact_replay_timestamp()``). With the primary's
engine it also measures the WAL the replica has not replayed yet, in bytes (the primary's
``pg_current_wal_lsn()`` less the replica's ``pg_last_wal_replay_lsn()``). One small query on
each side: cheap enough to call every second.

Seconds behind: zero when the replica has replayed all the WAL it received and is still
receiving (a quiet primary is not a lagging replica). Otherwise (WAL received and not yet
replayed, or no receiver: the primary is out of reach) the time since the last replayed
transaction's commit on the primary: an upper bound, which errs on the side of "behind".
``None`` when the replica has replayed no transaction since it started: unknown, shown as
behind. SQLite, or a reader that is not in recovery, is no replica: no lag.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.engine import Engine

from .engine import is_sqlite

_REPLICA_SQL = text(
    """
    SELECT pg_is_in_recovery() AS in_recovery,
           CASE WHEN pg_is_in_recovery() THEN pg_is_wal_replay_paused() ELSE false END AS paused,
           EXISTS (SELECT 1 FROM pg_stat_wal_receiver) AS receiving,
           pg_last_wal_replay_lsn()::text AS replayed,
           COALESCE(pg_wal_lsn_diff(pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn()), 0) AS unreplayed,
           EXTRACT(EPOCH FROM clock_timestamp() - pg_last_xact_replay_timestamp()) AS since_replayed
    """
)
_PRIMARY_SQL = text("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), CAST(:replayed AS pg_lsn))")


@dataclass(frozen=True, slots=True)
class ReplicaStatus:
    """A reader as it answered once (see the module's docstring for how each field is found)."""

    in_recovery: bool  # a standby replaying its primary's WAL
    receiving: bool  # its WAL receiver runs (it is connected to the primary)
    paused: bool  # its replay is paused (pg_wal_replay_pause())
    lag_seconds: float | None  # behind the primary, seconds; None: unknown
    lag_bytes: int | None  # WAL on the primary not replayed here; None: not measured

    def behind(self, warn_seconds: float) -> bool:
        """More than ``warn_seconds`` behind, or not known to be within them: say so."""
        return self.lag_seconds is None or self.lag_seconds > warn_seconds


NOT_A_REPLICA = ReplicaStatus(
    in_recovery=False, receiving=False, paused=False, lag_seconds=0.0, lag_bytes=None
)
UNKNOWN = ReplicaStatus(in_recovery=True, receiving=False, paused=False, lag_seconds=None, lag_bytes=None)


def replica_status(read_engine: Engine, primary_engine: Engine | None = None) -> ReplicaStatus:
    """How far ``read_engine``'s database is behind its primary, as the reader sees it; with
    ``primary_engine``, also the WAL not replayed yet in bytes. Raises the driver's error when
    a database does not answer."""
    if is_sqlite(read_engine):
        return NOT_A_REPLICA
    # READ ONLY: a standby refuses BEGIN READ WRITE, which is what psycopg says for a pooled
    # connection once a read-only snapshot (session.read_snapshot) has used it and been reset
    with read_engine.connect().execution_options(postgresql_readonly=True) as connection:
        row = connection.execute(_REPLICA_SQL).one()
    if not row.in_recovery:
        return NOT_A_REPLICA
    lag_bytes = None
    if primary_engine is not None and not is_sqlite(primary_engine) and row.replayed is not None:
        with primary_engine.connect() as connection:
            ahead = connection.execute(_PRIMARY_SQL, {"replayed": row.replayed}).scalar_one()
        lag_bytes = max(0, int(ahead))
    caught_up = row.receiving and row.unreplayed <= 0
    if caught_up:
        lag_seconds: float | None = 0.0
    elif row.since_replayed is None:
        lag_seconds = None
    else:
        lag_seconds = max(0.0, float(row.since_replayed))
    return ReplicaStatus(
        in_recovery=True,
        receiving=bool(row.receiving),
        paused=bool(row.paused),
        lag_seconds=lag_seconds,
        lag_bytes=lag_bytes,
    )


__all__ = ["NOT_A_REPLICA", "UNKNOWN", "ReplicaStatus", "replica_status"]
