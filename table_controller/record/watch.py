"""The daemon checks its own record, at start and as it plays, and anchors it (docs/audit-chain.md,
"The daemon checks its record", "Anchoring").

- At start the table's whole chain is verified, with the people and evidence chains, every
  round re-derived and compared (record/check.py), and the chained checkpoints' signatures.
- While it plays, every ``audit.check_every_rounds`` rounds opened: the rows chained since
  the last check, one window of older rows (``CHECK_WINDOW`` rows: the sweep goes
  round the whole chain, so an edit anywhere is found within a known number of checks), the
  newest ``audit.check_rounds`` rounds re-derived, people and rules contents again.
- A signed checkpoint every ``audit.checkpoint_every_rounds`` settled rounds and at shutdown.
- At each start, a hash of the installed package's files (the code that decides money) is
  logged and chained (``daemon.started``).

The table service holds the table on a finding (no round opens) until a pit user runs on
for investigation with a chained ``audit.override`` naming what was found.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final

import structlog
from sqlalchemy.engine import Engine

from ..settings import TableSettings
from ..storage.audit import ChainReport, head_of_chain, verify_range
from ..storage.checkpoints import (
    Checkpoint,
    CheckpointKeyError,
    append_checkpoint_file,
    chained_checkpoints,
    load_private_key,
    people_signed,
    public_key_hex,
    read_checkpoint_file,
    sign_chains,
    sign_people,
)
from ..storage.people import PEOPLE_CHAIN
from ..storage.session import read_snapshot, unit_of_work
from .check import Finding, RecordReport, check_record
from .pinned_rules import PinnedRules

log = structlog.get_logger()

OVERRIDE_KIND: Final = "audit.override"
CODE_CHANGED: Final = "code-changed"  # the alert of code that is not the signed release (record/release.py)
CHECK_WINDOW: Final = 20_000  # older rows re-checked per check while playing (~0.4 s on SQLite)
PACKAGE_DIR: Final = Path(__file__).resolve().parent.parent  # table_controller/, the whole package


def finding_lines(report: RecordReport) -> list[str]:
    """Every break and finding of a report, one line each (what an override names)."""
    return [
        *(item.describe() for item in report.chain.breaks),
        *(item.describe() for item in report.findings),
        *(f"NOT CHECKED: {why}" for why in report.not_checked),
    ]


def line_key(line: str) -> str:
    """A short stable key of one finding line (an override lists the keys it covers)."""
    return hashlib.sha256(line.encode("utf-8")).hexdigest()[:16]


def code_fingerprint(root: Path = PACKAGE_DIR) -> tuple[str, int]:
    """SHA-256 over the installed package's files (``.py`` and the shipped ``.toml``), each as
    its relative path, a NUL, its bytes' SHA-256 and a newline, in path order; and the count."""
    digest = hashlib.sha256()
    files = sorted(
        path for path in root.rglob("*") if path.is_file() and path.suffix in (".py", ".toml", ".ini")
    )
    for path in files:
        digest.update(path.relative_to(root).as_posix().encode("utf-8") + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).hexdigest().encode("ascii") + b"\n")
    return digest.hexdigest(), len(files)


@dataclass
class _Sweep:
    verified_to: int = 0  # every row up to here was checked at least once since start
    window_from: int = 1  # where the next window of older rows begins


class RecordWatch:
    """The table's record check and its checkpoints (the service calls it under its lock)."""

    def __init__(self, engine: Engine, settings: TableSettings, rules: PinnedRules) -> None:
        self.engine = engine
        self.table_id = settings.table_id
        self.audit = settings.audit
        self.rules = rules
        self.checkpoint_file = self.audit.checkpoint_file or settings.data_dir / "checkpoints.jsonl"
        self.key = None
        if self.audit.key_file is not None:
            self.key = load_private_key(self.audit.key_file)
            if public_key_hex(self.key) != self.audit.public_key:
                raise CheckpointKeyError(
                    f"audit.key_file {self.audit.key_file} is not the key of audit.public_key"
                )
        self._sweep = _Sweep()
        self._opened = 0
        self._settled = 0

    # -- checking ---------------------------------------------------------------------------------

    def check(self, *, full: bool) -> RecordReport:
        """The whole check (``full``: at start) or the check while playing (module docstring)."""
        with read_snapshot(self.engine) as session:
            if full:
                return self._full(session)
            return self._while_playing(session)

    def _full(self, session: Any) -> RecordReport:
        written, problem = self._file_for_check(session)
        report = check_record(
            session,
            table_id=self.table_id,
            public_key=self.audit.public_key,
            rules=self.rules,
            checkpoints=written,
        )
        head = head_of_chain(session, table_id=self.table_id)
        self._sweep = _Sweep(verified_to=0 if head is None else head.last_seq)
        return _with(report, problem)

    def _file_for_check(self, session: Any) -> tuple[list[Checkpoint] | None, Finding | None]:
        """The checkpoints of the file this daemon wrote, for the check to compare the store with
        (their signatures, the heads they signed, their events in the chains); a file that cannot
        be read, or is gone while the table's chain holds checkpoints it wrote, is a finding.
        None without a public key (nothing is signed)."""
        if self.audit.public_key is None:
            return None, None
        where = f"checkpoint file {self.checkpoint_file}"
        try:
            written = self._file_checkpoints()
        except (OSError, ValueError) as error:
            return None, Finding(where, f"cannot be read: {error}")
        if not written and chained_checkpoints(session, table_id=self.table_id):
            return [], Finding(
                where,
                "is gone or empty while the table's chain holds the checkpoints it wrote (deleted or"
                " replaced)",
            )
        return written, None

    def _while_playing(self, session: Any) -> RecordReport:
        from ..storage.audit import verify_chain
        from ..storage.people import PEOPLE_CHAIN
        from ..storage.rules_store import EVIDENCE_CHAIN

        # the sweep moves on only once the whole check has read the store: a check the store
        # went away under is run again from the same place (docs/round-lifecycle.md)
        sweep = replace(self._sweep)
        parts = [verify_range(session, table_id=self.table_id, first=sweep.verified_to + 1)]
        if sweep.verified_to > 0:
            start = sweep.window_from if sweep.window_from <= sweep.verified_to else 1
            end = min(start + CHECK_WINDOW - 1, sweep.verified_to)
            parts.append(verify_range(session, table_id=self.table_id, first=start, last=end))
            sweep.window_from = end + 1
        parts += [verify_chain(session, table_id=name) for name in (PEOPLE_CHAIN, EVIDENCE_CHAIN)]
        head = head_of_chain(session, table_id=self.table_id)
        if head is not None:
            sweep.verified_to = head.last_seq
        chain = ChainReport(
            events_checked=sum(p.events_checked for p in parts),
            tables_checked=1,
            breaks=tuple(b for p in parts for b in p.breaks),
            unlisted=sum(p.unlisted for p in parts),
        )
        written, problem = self._file_for_check(session)
        report = check_record(
            session,
            table_id=self.table_id,
            public_key=self.audit.public_key,
            rules=self.rules,
            last_rounds=self.audit.check_rounds,
            chain=chain,
            checkpoints=written,
        )
        self._sweep = sweep
        return _with(report, problem)

    def due_for_check(self) -> bool:
        """Count a round opened; True when the record is due its check while playing."""
        self._opened += 1
        every = self.audit.check_every_rounds
        return every > 0 and self._opened % every == 0

    # -- anchoring --------------------------------------------------------------------------------

    def due_for_checkpoint(self) -> bool:
        """Count a settled round; True when a checkpoint is due."""
        self._settled += 1
        every = self.audit.checkpoint_every_rounds
        return self.key is not None and every > 0 and self._settled % every == 0

    def checkpoint(self, reason: str, actor: str = "system") -> Checkpoint | None:
        """Sign the table's head and the store's own chains' (storage/checkpoints.sign_chains),
        chain each, append each to the checkpoint file; the table's, or None without a key."""
        if self.key is None:
            return None
        with unit_of_work(self.engine) as session:
            signed = sign_chains(session, key=self.key, table_id=self.table_id, reason=reason, actor=actor)
        for found in signed:
            append_checkpoint_file(self.checkpoint_file, found)
        log.info(
            "audit.checkpoint",
            seq=signed[0].seq,
            hash=signed[0].hash,
            chains={c.table_id: c.seq for c in signed},
            reason=reason,
            file=str(self.checkpoint_file),
        )
        return signed[0]

    def adopt_people(self) -> None:
        """At start, with a key: a people chain no checkpoint ever signed (a store from before
        people were signed) has its head signed once, as it stands, so that from now on a person
        event nobody signed is named (storage/checkpoints.unanchored_people). Not when the
        checkpoint file already holds a people checkpoint: the chain's were then removed, which
        the comparison with the file names."""
        if self.key is None or any(c.table_id == PEOPLE_CHAIN for c in self._file_checkpoints()):
            return
        with unit_of_work(self.engine) as session:
            if people_signed(session):
                return
            found = sign_people(session, key=self.key, actor="system")
        if found is not None:
            append_checkpoint_file(self.checkpoint_file, found)
            log.warning("audit.people_adopted", seq=found.seq, hash=found.hash)

    def _file_checkpoints(self) -> list[Checkpoint]:
        """The checkpoints of the file this daemon writes; empty when it does not exist yet."""
        if not self.checkpoint_file.exists():
            return []
        return read_checkpoint_file(self.checkpoint_file)


def code_override(session: Any, *, table_id: str, alert: Any, actor: str, note: str) -> list[str]:
    """The acknowledgement of a ``code-changed`` alert runs on with it (docs/audit-chain.md, "The
    code that runs"): in the acknowledgement's own transaction (``session``), chain the same
    ``audit.override`` a pit user's record override chains, naming the alert's finding by its key.
    The keys of the table's previous override are carried over, so acknowledging the code does
    not un-acknowledge another finding; the override's ``alert_seq`` names the alert. Returns
    the lines named (none for an alert raised before alerts carried their finding's key)."""
    from ..storage.audit import append_event, last_event

    data = alert.payload_data()
    key = data.get("key")
    if not isinstance(key, str):
        return []
    previous = last_event(session, table_id=table_id, kinds=[OVERRIDE_KIND])
    keys = set() if previous is None else {str(k) for k in previous.payload_data().get("keys", [])}
    lines = [str(data.get("finding") or data.get("detail", ""))]
    append_event(
        session,
        table_id=table_id,
        round_id=None,
        kind=OVERRIDE_KIND,
        actor=actor,
        payload={"reason": note, "findings": lines, "keys": sorted(keys | {key}), "alert_seq": alert.seq},
    )
    log.warning("record.code_acknowledged", actor=actor, alert_seq=alert.seq, key=key)
    return lines


def _with(report: RecordReport, problem: Finding | None) -> RecordReport:
    """The report with one more finding (the checkpoint file's), when there is one."""
    return report if problem is None else replace(report, findings=(problem, *report.findings))


def covered(lines: Iterable[str], overridden: frozenset[str]) -> bool:
    """True when every finding line is one a pit override already named."""
    return all(line_key(line) in overridden for line in lines)


__all__ = [
    "CODE_CHANGED",
    "OVERRIDE_KIND",
    "RecordWatch",
    "code_fingerprint",
    "code_override",
    "covered",
    "finding_lines",
    "line_key",
]
