"""The whole check of the record (docs/audit-chain.md, "What verify checks").

Beyond the links of each chain (storage/audit.py), the record must agree with itself:

- every round is re-derived from its chained inputs (its opening, dice, piles, settings)
  with the game core, under the rules its opening pinned by hash (record/pinned_rules.py), and the
  result is compared with the settlement chained in ``round.settled`` and with the
  ``rounds`` / ``round_positions`` projections the reports read: each difference is named
  (round, position, field, chained against stored);
- every person in the ``users`` table is compared with the people chain (storage/people.py);
- every stored rules content still hashes to its key and was chained when stored;
- signed checkpoints (storage/checkpoints.py), when given, are reached by the chain.

Nothing here writes. The daemon runs the same check at start and as it plays (table/service.py).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, TypeVar

from sqlalchemy.engine import Engine
from sqlmodel import Session, SQLModel

from ..logs import error_text
from ..round.events import ROUND_EVENT_KINDS, RoundOpened, RoundSettled, event_from_payload
from ..round.machine import apply, open_round
from ..storage.audit import ChainReport, event_payloads, events_by_round, newest_round_ids, verify_chain
from ..storage.checkpoints import (
    STORE_CHAINS,
    Checkpoint,
    chained_checkpoints,
    check_checkpoints,
    unanchored_people,
    unchained_checkpoints,
)
from ..storage.errors import is_outage
from ..storage.models import RoundFields, RoundPositionFields
from ..storage.people import PEOPLE_CHAIN, PERSON_FIELDS, chained_people
from ..storage.progressive import pool_chain, pool_events, pool_ids, stored_pool
from ..storage.record_rows import evidence_rows, round_projections, unreadable_times, user_rows
from ..storage.rules_store import EVIDENCE_CHAIN, EVIDENCE_STORED, sha256_hex
from ..storage.shifts import FLOOR_CHAIN
from .pinned_rules import PinnedRules
from .recorder import opening_projection, required_projection, step_projection

_T = TypeVar("_T")
FINDINGS_LISTED = 200  # beyond this, findings are counted, not listed
_NOT_CHECKED = "; its settlement and projections NOT CHECKED"  # said whenever a round stops early


@dataclass(frozen=True, slots=True)
class Finding:
    """One disagreement in the record: where, which field, what the chain says, what is stored."""

    where: str  # "round PG-3-12 position 3", "user ann", "rules sha256 ab12..."
    what: str  # the field, or what is wrong
    chained: Any = None
    stored: Any = None
    against: str = "stored"  # what ``stored`` is: the stored value, or the game core's re-derived one

    def describe(self) -> str:
        if self.chained is None and self.stored is None:
            return f"{self.where}: {self.what}"
        return f"{self.where}: {self.what}: chained {self.chained!r}, {self.against} {self.stored!r}"


@dataclass(frozen=True)
class RecordReport:
    """Result of :func:`check_record`: the chains' links, and every finding beyond them."""

    chain: ChainReport
    findings: tuple[Finding, ...] = ()
    unlisted: int = 0
    rounds_checked: int = 0
    rounds_unchained_settlement: int = 0  # settled before the settlement was chained: projections only
    people_checked: int = 0
    checkpoints_checked: int | None = None  # None: no checkpoints given
    not_checked: tuple[str, ...] = field(default=())  # what could not be checked, and why

    @property
    def ok(self) -> bool:
        return self.chain.ok and not self.findings and not self.not_checked

    def describe(self) -> str:
        lines = [self.chain.describe()]
        summary = f"{self.rounds_checked} rounds re-derived, {self.people_checked} people compared"
        if self.rounds_unchained_settlement:
            summary += (
                f" ({self.rounds_unchained_settlement} settled before settlements were chained:"
                " compared with their projections only)"
            )
        if self.checkpoints_checked is not None:
            summary += f", {self.checkpoints_checked} signed checkpoints checked"
        if not self.findings and not self.not_checked:
            lines.append(f"record consistent: {summary}")
        else:
            lines.append(f"record INCONSISTENT: {summary}; {len(self.findings) + self.unlisted} finding(s):")
            lines += [f"  {item.describe()}" for item in self.findings]
            if self.unlisted:
                lines.append(f"  ... and {self.unlisted} more finding(s) not listed")
            lines += [f"  NOT CHECKED: {why}" for why in self.not_checked]
        return "\n".join(lines)


class _Findings:
    def __init__(self) -> None:
        self.items: list[Finding] = []
        self.unlisted = 0

    def add(
        self, where: str, what: str, chained: Any = None, stored: Any = None, against: str = "stored"
    ) -> None:
        if len(self.items) < FINDINGS_LISTED:
            self.items.append(Finding(where, what, chained, stored, against))
        else:
            self.unlisted += 1


# --------------------------------------------------------------------------- rounds


def _differences(chained: Any, derived: Any, path: str = "") -> Iterator[tuple[str, Any, Any]]:
    """(path, chained, derived) for every leaf where two JSON values differ; list items that
    carry a ``position`` are named by it."""
    if isinstance(chained, Mapping) and isinstance(derived, Mapping):
        for key in sorted(set(chained) | set(derived)):
            yield from _differences(chained.get(key), derived.get(key), f"{path}.{key}" if path else key)
    elif isinstance(chained, list) and isinstance(derived, list) and len(chained) == len(derived):
        for index, (left, right) in enumerate(zip(chained, derived, strict=True)):
            name = left.get("position", index) if isinstance(left, Mapping) else index
            label = f"position {name}" if isinstance(left, Mapping) and "position" in left else str(index)
            yield from _differences(left, right, f"{path}[{label}]")
    elif chained != derived:
        yield (path, chained, derived)


def _stored(value: Any) -> Any:
    return getattr(value, "value", value)  # an enum as its stored text


# Columns the chain does not decide: times the writer stamps, the theoretical win (the table's
# math, not chained), and the kept required setting (compared field by field on its own).
_NOT_PROJECTED: Final = frozenset(
    {"closed_at", "opened_at", "theoretical_win_cents", "theoretical_variance", "house_way_required"}
)
# Columns added by a later migration: NULL in a row written before it is not a finding.
_NULL_BEFORE_MIGRATION: Final = frozenset({"dice_direction"})


class _Projection:
    """Every ``rounds`` and ``round_positions`` column of one round as its chained events project
    it, by the recorder's own definitions (recorder.opening_projection, step_projection) from the
    fresh row's defaults (the models' own): cards, hands, categories, outcomes, money, who banked,
    the dice, the phase, the void. ``compare`` names each stored column that differs."""

    def __init__(self, opened: RoundOpened) -> None:
        opening, seats = opening_projection(opened)
        self.round: dict[str, Any] = {**_defaults(RoundFields), "phase": open_round(opened).phase.value}
        self.round.update(opening)
        self.positions = {
            position: {**_defaults(RoundPositionFields), **values} for position, values in seats.items()
        }

    def step(self, state: Any, event: Any) -> None:
        changes, positions = step_projection(state, event)
        self.round.update(changes)
        for position, values in positions.items():
            self.positions.setdefault(position, dict(_defaults(RoundPositionFields))).update(values)

    def compare(self, found: _Findings, where: str, row: Any, stored: dict[int, Any]) -> None:
        for name, value in self.round.items():
            self._one(found, where, name, value, row)
        for position in sorted(set(self.positions) | set(stored)):
            at = f"{where} position {position}"
            if position not in stored:
                found.add(at, "missing from round_positions")
            elif position not in self.positions:
                found.add(at, "in round_positions but never seated by the chain (inserted)")
            else:
                for name, value in self.positions[position].items():
                    self._one(found, at, name, value, stored[position])

    @staticmethod
    def _one(found: _Findings, where: str, name: str, value: Any, row: Any) -> None:
        if name in _NOT_PROJECTED or not hasattr(row, name):
            return
        kept = _stored(getattr(row, name))
        if kept is None and name in _NULL_BEFORE_MIGRATION:
            return
        if kept != _stored(value):
            found.add(where, name, _stored(value), kept)


def _defaults(model: type[SQLModel]) -> dict[str, Any]:
    """A fresh row's value of each column the round fills in as it goes (the model's defaults)."""
    return dict(_model_defaults(model))


@functools.cache
def _model_defaults(model: type[SQLModel]) -> tuple[tuple[str, Any], ...]:
    return tuple(
        (name, info.default) for name, info in model.model_fields.items() if name not in _NOT_PROJECTED
    )


class _RoundCheck:
    def __init__(self, session: Session, rules: PinnedRules, found: _Findings) -> None:
        self.session, self.rules, self.found = session, rules, found
        self.checked = 0
        self.unchained = 0

    def check(
        self, round_id: str, events: list[tuple[int, str, str]], row: Any, positions: dict[int, Any]
    ) -> None:
        where = f"round {round_id}"
        self.checked += 1
        try:
            parsed = [(seq, event_from_payload(json.loads(payload))) for seq, _kind, payload in events]
        except Exception as error:
            self.found.add(where, f"a chained event cannot be read: {error}" + _NOT_CHECKED)
            return
        if not parsed or not isinstance(parsed[0][1], RoundOpened):
            self.found.add(
                where,
                "its chained events do not begin with round.opened" + _NOT_CHECKED,
            )
            return
        opened = parsed[0][1]
        assert isinstance(opened, RoundOpened)
        try:
            rules = self.rules.load(self.session, opened)
        except Exception as error:  # EvidenceError, a way file that no longer builds...
            self.found.add(
                where,
                f"the rules it was opened under cannot be loaded by hash: {error}" + _NOT_CHECKED,
            )
            return
        state = open_round(opened)
        chained_result: dict[str, Any] | None = None
        settled = False
        projected = _Projection(opened)
        for seq, event in parsed[1:]:
            if isinstance(event, RoundSettled):
                settled, chained_result = True, event.result
                event = event.model_copy(update={"result": None})  # re-derived, then compared
            try:
                state = apply(state, event, rules)
                projected.step(state, event)
            except Exception as error:
                kind = getattr(event, "kind", type(event).__name__)
                self.found.add(
                    where,
                    f"chained event seq {seq} ({kind}) cannot be replayed: {error}" + _NOT_CHECKED,
                )
                return
        if row is None:
            self.found.add(where, "chained, but missing from the rounds table (deleted)")
            return
        projected.compare(self.found, where, row, positions)
        if row.house_way_required is not None:  # NULL: recorded before 0007 kept it
            self._compare_required(where, state, row.house_way_required)
        if settled:
            assert state.result is not None
            derived = state.result.as_dict()
            if chained_result is None:
                self.unchained += 1
            else:
                for path, chained, again in _differences(chained_result, derived):
                    self.found.add(where, f"settlement {path}", chained, again, "re-derived")

    def _compare_required(self, where: str, state: Any, stored: str) -> None:
        """The kept required setting of the banker's hand against the one replay derives."""
        derived = None if state.required is None else json.loads(required_projection(state.required))
        try:
            kept = json.loads(stored)
        except ValueError:
            kept = stored
        if not isinstance(derived, dict) or not isinstance(kept, dict):
            if derived != kept:
                self.found.add(where, "house_way_required", derived, kept)
            return
        for name in sorted(set(derived) | set(kept)):
            if derived.get(name) != kept.get(name):
                self.found.add(where, f"house_way_required.{name}", derived.get(name), kept.get(name))


def check_rounds(
    session: Session,
    *,
    table_id: str | None = None,
    rules: PinnedRules | None = None,
    last: int | None = None,
    round_ids: list[str] | None = None,
) -> tuple[int, int, list[Finding], int]:
    """Re-derive every round (or the table's ``last`` ones, or ``round_ids``: the round detail's
    one) and compare; returns (rounds checked, settled rounds without a chained settlement,
    findings, findings not listed)."""
    found = _Findings()
    only: list[str] | None = round_ids  # every round; the table's newest ``last`` with both given
    if last is not None and table_id is not None:
        only = newest_round_ids(session, table_id=table_id, last=last)
    rounds, positions = round_projections(session, table_id=table_id, round_ids=only)
    check = _RoundCheck(session, rules or PinnedRules(), found)
    seen: set[str] = set()
    for round_id, events in events_by_round(
        session, kinds=ROUND_EVENT_KINDS, table_id=table_id, round_ids=only
    ):
        seen.add(round_id)
        check.check(round_id, events, rounds.get(round_id), positions.get(round_id, {}))
    if only is None:  # a projection row the chain never opened: inserted
        for round_id in sorted(set(rounds) - seen):
            found.add(f"round {round_id}", "in the rounds table with no round.opened in the chain (inserted)")
    return check.checked, check.unchained, found.items, found.unlisted


def check_pools(session: Session) -> list[Finding]:
    """Every progressive pool re-derived from its chain (game/progressive_state.py) and compared
    with its ``progressive_pools`` row, meter by meter (docs/progressive.md)."""
    from ..game.progressive_state import pool_as_dict, replay_events

    found = _Findings()
    for pool_id in pool_ids(session):
        where = f"progressive pool {pool_id}"
        events = pool_events(session, pool_id=pool_id)
        row = stored_pool(session, pool_id=pool_id)
        assert row is not None
        try:
            derived = pool_as_dict(replay_events((kind, payload) for _seq, kind, _actor, payload in events))
        except Exception as error:  # a record that does not replay, a chain without its creation
            found.add(where, f"its chain cannot be replayed: {error}")
            continue
        last = events[-1][0] if events else 0
        if row.last_seq != last:
            found.add(where, "last_seq", last, row.last_seq)
        try:
            kept = json.loads(row.state)
        except ValueError:
            found.add(where, "state is not JSON")
            continue
        for path, chained, stored in _differences(derived, kept):
            found.add(where, path, chained, stored)
    return found.items


# --------------------------------------------------------------------------- people and rules


def check_people(session: Session) -> tuple[int, list[Finding]]:
    """Every person in the ``users`` table against the people chain."""
    found = _Findings()
    try:
        chained = chained_people(session)
    except ValueError as error:
        found.add("people chain", str(error))
        return 0, found.items
    rows = {row.name: row for row in user_rows(session)}
    for name in sorted(set(rows) | set(chained)):
        where = f"user {name}"
        row, record = rows.get(name), chained.get(name)
        if record is None:
            found.add(
                where, "in the users table but never in the people chain (inserted behind the store's back)"
            )
            continue
        if row is None:
            found.add(
                where, f"in the people chain (seq {record.seq}) but missing from the users table (deleted)"
            )
            continue
        for column in PERSON_FIELDS:
            if column in record.fields and getattr(row, column) != record.fields[column]:
                found.add(where, column, record.fields[column], getattr(row, column))
    return len(rows), found.items


def check_evidence(session: Session) -> list[Finding]:
    """Every stored rules content still hashes to its key and was chained when stored."""
    found = _Findings()
    chained = set()
    for payload in event_payloads(session, table_id=EVIDENCE_CHAIN, kind=EVIDENCE_STORED):
        try:
            chained.add(json.loads(payload)["sha256"])
        except (ValueError, KeyError, TypeError):
            found.add("evidence chain", f"an evidence.stored event is not readable: {payload[:80]!r}")
    for row in evidence_rows(session):
        where = f"rules {row.kind} {row.name!r} sha256 {row.sha256}"
        if sha256_hex(bytes(row.content)) != row.sha256:
            found.add(where, f"its content now hashes to {sha256_hex(bytes(row.content))} (edited)")
        if row.sha256 not in chained:
            found.add(where, "stored but never chained (inserted behind the store's back)")
    return found.items


# --------------------------------------------------------------------------- values never written


def unreadable_time_findings(session: Session) -> list[Finding]:
    """Every stored time outside the chain that is not a time the store writes, named by its
    row (storage/record_rows.unreadable_times): a forged text stops no read of the check."""
    return [
        Finding(f"{table} row {key}", f"{column} stored as {text!r}: not a time the store writes (forged)")
        for table, key, column, text in unreadable_times(session)
    ]


def _tolerant(unreadable: list[Finding], what: str, read: Callable[[], _T], empty: _T) -> _T:
    """``read()``, or ``empty`` with a finding naming ``what`` when a stored value cannot be read
    at all (a forged value the models refuse): the check names it and goes on, never dies. A
    store outage is not a finding: it is raised, for the caller to treat as an outage."""
    try:
        return read()
    except Exception as error:
        if is_outage(error):
            raise
        unreadable.append(Finding(what, f"a stored value cannot be read: {error_text(error)}"))
        return empty


# --------------------------------------------------------------------------- the whole record


def check_record(
    session: Session,
    *,
    table_id: str | None = None,
    checkpoints: list[Checkpoint] | None = None,
    public_key: str | None = None,
    last_rounds: int | None = None,
    rules: PinnedRules | None = None,
    chain: ChainReport | None = None,
) -> RecordReport:
    """Every check of the module docstring, in one read snapshot (``session``).

    ``table_id`` limits the chains and rounds to one table (the people, evidence and floor
    chains are always checked); ``last_rounds`` re-derives only the table's newest rounds (the daemon's
    check while it plays); ``checkpoints`` with ``public_key`` proves the chain reaches each;
    ``chain`` is the links' report when the caller checked them itself (a window at a time)."""
    not_checked: list[str] = []
    unreadable: list[Finding] = []  # a part that could not be read at all: named, the rest goes on
    if chain is not None:
        pass
    elif table_id is None:
        chain = verify_chain(session)
    else:
        pools = tuple(pool_chain(pool_id) for pool_id in pool_ids(session))  # the pools' chains too
        chains = (
            table_id,
            PEOPLE_CHAIN,
            EVIDENCE_CHAIN,
            FLOOR_CHAIN,
            *pools,
        )  # the table's and the store's own
        parts = [verify_chain(session, table_id=name) for name in chains]
        chain = ChainReport(
            events_checked=sum(p.events_checked for p in parts),
            tables_checked=sum(p.tables_checked for p in parts),
            breaks=tuple(b for p in parts for b in p.breaks),
            unlisted=sum(p.unlisted for p in parts),
        )
    none: list[Finding] = []  # what a part that could not be read contributes
    rounds_checked, unchained, round_findings, unlisted = _tolerant(
        unreadable,
        "the rounds",
        lambda: check_rounds(session, table_id=table_id, rules=rules, last=last_rounds),
        (0, 0, none, 0),
    )
    people_checked, people_findings = _tolerant(
        unreadable, "the people", lambda: check_people(session), (0, none)
    )
    evidence_findings = _tolerant(unreadable, "the rules contents", lambda: check_evidence(session), none)
    pool_findings = _tolerant(unreadable, "the progressive pools", lambda: check_pools(session), none)
    findings = [
        *_tolerant(unreadable, "the stored times", lambda: unreadable_time_findings(session), none),
        *unreadable,
        *round_findings,
        *people_findings,
        *evidence_findings,
        *pool_findings,
    ]
    checked_checkpoints = None
    if checkpoints is not None and public_key is None:
        not_checked.append("checkpoints given without the public key that signed them")
    elif public_key is not None:  # the chained checkpoints, and the file's
        signed = []
        chain_ids: list[str | None] = [None] if table_id is None else [table_id, *STORE_CHAINS]
        for chain_id in chain_ids:
            for seq, item in chained_checkpoints(session, table_id=chain_id):
                if isinstance(item, str):
                    findings.append(Finding(f"checkpoint event seq {seq}", item))
                else:
                    signed.append(item)
        findings += [
            Finding(
                f"people chain seq {seq}",
                f"{kind} of {name!r} after the people chain's newest signed checkpoint: no key signed"
                " this change to a person (forged, or made without the table's key)",
            )
            for seq, kind, name in unanchored_people(session, public_key=public_key)
        ]
        signed += [item for item in checkpoints or [] if item not in signed]  # a copy of a chained one once
        checked_checkpoints = len(signed)
        problems = check_checkpoints(session, checkpoints=signed, public_key=public_key)
        named = {where for where, _what in problems}
        problems += [  # the file's against the chain's: a chained checkpoint removed or renamed
            (where, what)
            for where, what in unchained_checkpoints(
                session, checkpoints=checkpoints or [], public_key=public_key
            )
            if where not in named  # a checkpoint the chain no longer reaches is named once
        ]
        findings += [Finding(where, what) for where, what in problems]
    return RecordReport(
        chain=chain,
        findings=tuple(findings[:FINDINGS_LISTED]),
        unlisted=unlisted + max(0, len(findings) - FINDINGS_LISTED),
        rounds_checked=rounds_checked,
        rounds_unchained_settlement=unchained,
        people_checked=people_checked,
        checkpoints_checked=checked_checkpoints,
        not_checked=tuple(not_checked),
    )


def audit_verify_record(
    *,
    data_dir: Path | None = None,
    db_url: str | None = None,
    checkpoints_file: Path | None = None,
    public_key: str | None = None,
) -> tuple[int, str]:
    """What ``table-controller audit verify`` does: (exit code, text). 0 whole and consistent;
    1 with every break and finding named; 2 when the store (or the checkpoint file) could not
    be read at all. Never writes."""
    from ..storage.checkpoints import read_checkpoint_file
    from ..storage.engine import make_engine, redacted, sqlite_path
    from ..storage.errors import StorageError, StoreNotFoundError, StoreUnavailableError
    from ..storage.migrate import check_schema_current
    from ..storage.session import read_snapshot
    from ..storage.store import EXIT_BROKEN, EXIT_NOT_CHECKED, EXIT_WHOLE, store_url

    try:
        url = store_url(data_dir=data_dir, db_url=db_url)
        checkpoints = None if checkpoints_file is None else read_checkpoint_file(checkpoints_file)
        path = sqlite_path(url)
        if path is not None and not path.is_file():
            raise StoreNotFoundError(f"no store at {path}")
        engine: Engine = make_engine(url)
    except (StorageError, ValueError, OSError) as exc:
        return EXIT_NOT_CHECKED, f"audit chain NOT CHECKED: {exc}"
    try:
        try:
            check_schema_current(engine)
        except Exception as exc:
            if isinstance(exc, StorageError):
                raise
            raise StoreUnavailableError(f"cannot open the store at {redacted(url)}: {exc}") from exc
        with read_snapshot(engine) as session:
            report = check_record(
                session, checkpoints=checkpoints, public_key=public_key, rules=PinnedRules()
            )
    except (StorageError, ValueError) as exc:
        return EXIT_NOT_CHECKED, f"audit chain NOT CHECKED: {exc}"
    finally:
        engine.dispose()
    return (EXIT_WHOLE if report.ok else EXIT_BROKEN), report.describe()


__all__ = [
    "Finding",
    "RecordReport",
    "audit_verify_record",
    "check_evidence",
    "check_people",
    "check_pools",
    "check_record",
    "check_rounds",
]
