"""The table as a service: every command that changes a round, with the checks a casino needs.

Everything that changes state goes through here, whoever asks (the device conductor, the
auto-dealer, the command line, the pit terminals): table limits, the open/closed table, open
device faults (play stops while a fault is open: no new round starts), the round machine, and
the audit notes and alerts that surveillance reads. Each step is one transaction
(record/recorder.py). Every line logged while a round runs carries the table id and the round id.

Alerts (misdeal, house-way deviation, override, void, device fault, link loss) are audit
events of kind ``alert.raised``: they are in the chain like everything else.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import asdict, replace
from datetime import UTC, datetime
from types import MappingProxyType
from typing import Any, TypeVar

import structlog
from sqlalchemy.engine import Engine

from ..game.banking import (
    BankHistory,
    BankingError,
    BankingTerms,
    BankNotCovered,
    BankPlan,
    check_banking_allowed,
    next_bank_offer,
    plan_bank,
    seat_of_position,
)
from ..game.cards import Game
from ..game.deal import counts_toward_hold
from ..game.fortune import EnvyRules
from ..game.money import format_cents
from ..game.progressive import ProgressiveError
from ..game.side_wagers import SideWagerError
from ..logs import error_text
from ..record.device_events import DeviceRecord, recent_device_events, round_device_events
from ..record.pinned_rules import (
    PinnedRules,
    SideFiles,
    current_rules,
    keep_version,
    refreshed,
    rules_from_snapshot,
    side_files,
)
from ..record.recorder import HELD_ALERT, TABLE_STATE, Note, RoundRecorder
from ..record.watch import RecordWatch
from ..round.events import (
    DealerOverride,
    DealerSet,
    DiceRolled,
    PilesDealt,
    PlayerSet,
    RoundBank,
    RoundOpened,
    RoundSettled,
    RoundVoided,
    SideWagerPlaced,
    Wager,
)
from ..round.machine import HouseWayDeviation, RoundRules, RoundState, TransitionRefused, WagersLocked
from ..settings import Limits, TableSettings
from ..storage import next_round_number, read_snapshot, unit_of_work
from ..storage.errors import (
    ChainHeadMismatchError,
    RoundChangedError,
    RoundClosedError,
    StoreUnavailableError,
    is_outage,
)
from ..storage.floor import last_payloads
from ..storage.floor_tables import REGISTERED, Registration, heartbeat, last_registration, register_table
from ..storage.limits import limits_for_round, record_change
from ..storage.open_alerts import OpenAlerts
from .device_health import DeviceHealthRegistry
from .limits import LimitsError, TableLimits, check_change
from .progressive_link import LinkDownError, LinkedPoolKeeper
from .progressive_pool import PoolKeeper, PoolStep
from .state import DeckCheck, OpenFault, Outage, TableHold, now_iso

log = structlog.get_logger()
_T = TypeVar("_T")


class TableRefused(ValueError):
    """A command the table cannot take now (closed table, open fault, limits, a round running)."""


class BankRefused(TableRefused):
    """A player's bank the table refuses (policy, turn, Double Joker, not covering the action);
    ``shortfall`` is how much a bank that does not cover is short by, in cents, else None."""

    def __init__(self, reason: str, shortfall: int | None = None) -> None:
        super().__init__(reason)
        self.shortfall = shortfall


class RoundHeld(TableRefused):
    """The round is held: something failed inside it; only a pit void moves it on."""


class RoundChanged(TableRefused):
    """Another process (the console) changed the open round in the store meanwhile: the table
    took the round as the store has it (a void ends it), and this command was not recorded."""


class LimitsRefused(TableRefused):
    """A change of the limits while the open round's wagers are locked: never mid-round."""


class StoreOutage(StoreUnavailableError):
    """The database went away (or is locked) under a command: nothing of it was written."""


def rules_for(opened: RoundOpened) -> RoundRules:
    """The rules a round was opened under, from its own stored snapshot."""
    return rules_from_snapshot(opened.rules)


def check_wagers(game: Game, limits: Limits, wagers: Mapping[int, Wager]) -> None:
    """Table limits (docs/round-lifecycle.md, "The phases") and the bonuses only Double Joker offers (003)."""
    if not wagers:
        raise TableRefused("no position has a wager")
    for position, wager in sorted(wagers.items()):
        if not limits.min_main <= wager.main <= limits.max_main:
            raise TableRefused(
                f"position {position}: main wager {wager.main} cents is outside the table limits "
                f"{limits.min_main}..{limits.max_main}"
            )
        for name, amount in (("big hand bonus", wager.big_hand), ("joker bonus", wager.joker_bonus)):
            if amount and game is not Game.DOUBLE_JOKER:
                raise TableRefused(f"position {position}: the {game.value} game offers no {name}")
            if amount > limits.max_bonus:
                raise TableRefused(
                    f"position {position}: {name} {amount} cents is above the limit {limits.max_bonus}"
                )


class TableService:
    """One table: its current round, its open faults, its hold, and the commands on them.

    Every piece of the table's state (open or closed, the hold, the open faults) is written
    to the chain as a ``table.state`` event whenever it changes, and restored from the last
    one at start (``resume``), so a restart after SIGTERM or SIGKILL finds the table as the
    pit left it."""

    def __init__(self, settings: TableSettings, engine: Engine) -> None:
        self.settings = settings
        self.table_id = settings.table_id
        self._pinned = PinnedRules(engine)
        self.recorder = RoundRecorder(engine, settings.table_id, self._pinned)
        # the rules by content (record/pinned_rules.py): a new version when the way file changes
        self._version = current_rules(
            settings.table_rules(), settings.house_way, side=table_side_files(settings)
        )
        self._kept: dict[str, str] | None = None  # the version whose contents are in the store
        self._rules = self._version.rules
        self._rules_snapshot = self._version.snapshot  # what each round.opened records
        # the table's stand-alone progressive pool (table/progressive_pool.py), loaded at resume
        side = self._rules.side
        self.pool: PoolKeeper | None = None
        if side is not None and side.progressive is not None and settings.pool_id is not None:
            self.pool = _pool_keeper(settings, engine, side.progressive)
        self._pool_broken: str | None = None  # why the pool cannot be trusted: its wager is closed
        self._link_alerted = False  # the linked pool's link-down alert is raised (until it is back)
        # the record checked at start and as the table plays, and anchored (record/watch.py)
        self.record = RecordWatch(engine, settings, self._pinned)
        self._record_broken: str | None = None  # what the check found: no round opens
        self._record_check_due: bool | None = None  # a check the store went away under (its ``full``)
        self._record_override: frozenset[str] = frozenset()  # finding keys a pit override covers
        self._start_unreadable: list[str] = []  # stored rows a start could not read: findings
        self.code_sha256: str | None = None  # the installed code's hash (record_start)
        self.code_release: str | None = None  # the signed release's, when one is configured
        self.code_matches_release: bool | None = None  # None: no release manifest configured
        self._round: RoundState | None = None
        self._round_rules: RoundRules | None = None
        # the limits (table/limits.py): the approved ones, those the next round opens under (a
        # pit user's change, chained), and those the open round was opened under
        self._approved_limits = TableLimits.approved(settings)
        self._limits = self._approved_limits
        self._round_limits: TableLimits | None = None
        self._held: str | None = None  # what failed inside the open round (it waits for a pit void)
        self._faults: Mapping[tuple[str, str], OpenFault] = MappingProxyType({})  # replaced, never changed
        self.device_health = DeviceHealthRegistry()  # fed by the conductor's device adapters, read by the API
        self.open_alerts = OpenAlerts()  # the table's open alerts, read by the API's snapshots
        self._table_open = True
        self._hold: TableHold | None = None
        self._misdeals = 0  # misdeals in a row (a good deal ends the run)
        self._misdeal_run_from = 1  # the first round number the run counts from (after a cleared hold)
        self._outage: Outage | None = None
        self._pending: list[Note] = []  # notes the store could not take yet, in order
        self._stale_round = False  # a round write failed on an outage: re-read the round before the next
        self._math: Any = None  # the table's math (analysis.theoretical.TableMath) once known
        self._band_alerted: str | None = None  # the gaming day whose band alert was raised
        self._lock = threading.RLock()  # the conductor, the journal thread and the API share it
        self._bank_history = BankHistory()  # who was offered the bank, each seat's last wager
        self._floor_started: datetime | None = None  # when this start registered the table
        self._floor_chained: Registration | None = None  # the registration this start chained
        self._floor_failing: str | None = None  # why the heartbeat fails, while it does

    # -- what the table is now: read-only snapshots --------------------------------------------------
    # Each is an immutable value the service replaces (under its lock) when it changes, so a
    # reader takes it without the lock: the API and the live stream never wait behind a commit
    # the lock is held for (a 2 s commit must not stall them: tests/daemon/test_table_holds.py).

    @property
    def round(self) -> RoundState | None:
        """The open (or last) round: an immutable snapshot."""
        return self._round

    @property
    def round_rules(self) -> RoundRules | None:
        return self._round_rules

    @property
    def limits(self) -> TableLimits:
        """The limits the next round opens under (a pit user's change holds from it)."""
        return self._limits

    @property
    def approved_limits(self) -> TableLimits:
        """The configured limits: the bounds of any change (table/limits.py)."""
        return self._approved_limits

    @property
    def wager_limits(self) -> TableLimits:
        """The limits wagers are placed under now: the open round's, else the next round's."""
        found = self._round_limits
        return found if found is not None and self.in_progress else self._limits

    @property
    def held(self) -> str | None:
        """What failed inside the open round, while it is held for the pit."""
        return self._held

    @property
    def faults(self) -> Mapping[tuple[str, str], OpenFault]:
        """The open device faults, by (device, kind)."""
        return self._faults

    @property
    def table_open(self) -> bool:
        return self._table_open

    @property
    def hold(self) -> TableHold | None:
        return self._hold

    @property
    def misdeals(self) -> int:
        """Misdeals in a row (a good deal ends the run)."""
        return self._misdeals

    @property
    def outage(self) -> Outage | None:
        return self._outage

    @property
    def engine(self) -> Engine:
        """The store the table writes its record to (what a command layered on the service, such
        as table/approvals.py, reads and writes beside it)."""
        return self.recorder.engine

    @property
    def lock(self) -> AbstractContextManager[Any]:
        """The table's command lock (re-entrant): held across a check and the command it guards,
        as a second pit user's confirmation does (table/approvals.py)."""
        return self._lock

    # -- the table's math: theoretical win on every settled round -------------------------------

    def set_table_math(self, math: Any) -> None:
        """The table's math (``analysis.theoretical.table_math``), computed off the daemon's start:
        rounds settled before it is known carry no theoretical win (missing, never 0)."""
        with self._lock:
            self._math = math
        log.info("table.math_ready", key=getattr(math, "key", None))

    def _theoretical(self, state: RoundState) -> tuple[int, int] | None:
        """A settled round's theoretical win and variance, when the table's math is known and the
        round was played under the rules it was computed for. None for a player-banked round:
        the math is the house's as banker, and there the house only takes commission and plays
        its own hand against the bank (docs/settlement.md, 8), so it is shown as missing."""
        math = self._math
        if math is None or state.opened.rules != self._rules_snapshot or state.opened.bank is not None:
            return None
        from ..analysis.theoretical import round_theoretical  # numpy: only once the math is there

        found = round_theoretical(state.wagers, math)
        return found.win_cents, found.variance_cents2

    def _check_band(self) -> None:
        """After a settlement: today's actual result against its 95% band; one alert a day when
        it lies outside (docs/math.md)."""
        from zoneinfo import ZoneInfo

        from ..storage.reports import band_check

        try:
            zone = ZoneInfo(self.settings.time_zone)
            with read_snapshot(self.recorder.engine) as session:
                found = band_check(session, table_id=self.table_id, zone=zone)
            day = datetime.now(zone).date().isoformat()
        except Exception:  # a report that cannot be read must not undo a settled round
            log.exception("table.band_check_failed")
            return
        if found is None or not found.outside or self._band_alerted == day:
            return
        self._band_alerted = day
        self.alert(
            "outside-band",
            f"today's result {format_cents(found.actual_cents)} is outside its 95% band "
            f"{format_cents(found.low_cents)} to {format_cents(found.high_cents)} around the "
            f"theoretical win {format_cents(found.theoretical_cents)} "
            f"({found.rounds} round{'' if found.rounds == 1 else 's'})",
            day=day,
            actual_cents=found.actual_cents,
            theoretical_cents=found.theoretical_cents,
            low_cents=found.low_cents,
            high_cents=found.high_cents,
        )

    # -- reads for the conductor: the store stays behind the service ------------------------------

    def next_round_number(self) -> int:
        with self._reading("round.number"), read_snapshot(self.recorder.engine) as session:
            return next_round_number(session, table_id=self.table_id)

    def round_device_events(self, round_id: str) -> list[DeviceRecord]:
        """The round's journalled device events and commands (record/device_events.py)."""
        with self._reading("device.events"):
            return round_device_events(self.recorder.engine, self.table_id, round_id)

    def recent_device_events(self) -> list[DeviceRecord]:
        """The device events already stored, so a re-sent one is not stored twice (journal.py).
        Read at start: a stored row that cannot be read is a finding, not a crash (none known)."""
        with self._reading("device.events"):
            return self._start_read(
                "the recent device events",
                lambda: recent_device_events(self.recorder.engine, self.table_id),
                [],
            )

    def _start_read(self, what: str, read: Callable[[], _T], empty: _T) -> _T:
        """A read of stored rows at start that tolerates a forged value (docs/audit-chain.md, "The
        daemon checks its record"): a value the store never writes (a time with a zone, a payload
        that is not JSON) makes it a finding of the record check (no round is dealt until the pit
        runs on with a chained override) and ``empty`` is used; the daemon never dies of it. An
        outage is raised as before."""
        try:
            return read()
        except Exception as error:
            if is_outage(error):
                raise
            first = str(error).splitlines()[0][:300] if str(error) else ""
            line = f"at start, {what} could not be read: {error_text(error)}"
            if line not in self._start_unreadable:
                self._start_unreadable.append(line)
            log.error("record.unreadable_at_start", what=what, error=f"{type(error).__name__}: {first}")
            return empty

    @contextmanager
    def _reading(self, what: str) -> Iterator[None]:
        """A read for the conductor: the store going away is an outage of the table (play stops,
        the watcher tries the store again, an alert says so when it is back), not a crash."""
        try:
            yield
        except Exception as error:
            if is_outage(error):
                with self._lock:
                    raise self._store_lost(what, error) from error
            raise

    # -- start ---------------------------------------------------------------------------------

    def resume(self) -> RoundState | None:
        """Restore the table's state and its open round after a restart (a known state).

        A round whose stored events cannot all be replayed is held at the last good state,
        with a ``round.held`` alert: the daemon keeps running and the pit can void it. The
        store going away meanwhile raises StoreOutage (the conductor waits and resumes again)."""
        with self._lock, self._reading("table.resume"):
            if not self._start_read("the table's state", self._restore_table, False):
                self._table_open = False  # not known: closed until the pit opens it (chained)
            opened = self._start_read("the last round opened", self.recorder.last_opened, None)
            found = self._start_read("the open round", self.recorder.resume, None)
            self._start_read("the people chain's first signature", self._adopt_people, None)
            self._check_record(full=True)
            # the check found the store away: the start waits for it and resumes again, before
            # any device is started (a device's journal write would meet the outage raw)
            self._writable("table.resume")
            none: dict[int, int] = {}
            wagers = self._start_read("each seat's last wager", self.recorder.last_main_wagers, none)
            self._bank_history = _bank_history(opened, wagers)
            self._load_pool()
            self._restore_limits(None if found is None else found.state.opened.number)
            if found is None:
                self._round, self._round_rules, self._held = None, None, None
                return None
            self._round, self._round_rules, self._held = found.state, found.rules, found.held
            log.info(
                "round.restored",
                table_id=self.table_id,
                round_id=self._round.round_id,
                phase=self._round.phase.value,
                held=self._held,
            )
            if found.failure is not None and self._held is None:
                self._hold_round(found.failure)
            return self._round

    def _restore_limits(self, open_round: int | None) -> None:
        """The limits as the pit last changed them (storage/limits.py), and the open round's."""

        def read() -> tuple[TableLimits, TableLimits]:
            with read_snapshot(self.recorder.engine) as session:
                ahead = limits_for_round(session, table_id=self.table_id, number=None)
                held = (
                    ahead
                    if open_round is None
                    else limits_for_round(session, table_id=self.table_id, number=open_round)
                )
            return within(ahead), within(held)

        def within(stored: dict[str, Any] | None) -> TableLimits:
            """The stored limits, or the approved ones where the configuration no longer allows them."""
            if stored is None:
                return self._approved_limits
            found = TableLimits.from_payload(stored)
            try:
                return check_change(
                    self._approved_limits,
                    min_main=found.main.min_main,
                    max_main=found.main.max_main,
                    max_bonus=found.main.max_bonus,
                    max_fortune=found.max_fortune,
                )
            except LimitsError as error:
                log.warning("table.limits_not_restored", reason=str(error), seq=stored.get("seq"))
                return self._approved_limits

        approved = self._approved_limits
        self._limits, self._round_limits = self._start_read("the table's limits", read, (approved, approved))

    def _load_pool(self) -> None:
        """The progressive pool re-derived from its chain (PRG-37); a chain that does not replay
        closes the progressive wager (PRG-34, PRG-35) with an alert, the base game plays on."""
        if self.pool is None:
            return
        try:
            if isinstance(self.pool, LinkedPoolKeeper):
                self.pool.load()  # the floor's store: down, the progressive is closed (PRG-35)
            else:
                self._start_read("the progressive pool", self.pool.load, None)
            self._pool_broken = None
        except LinkDownError as error:
            self._link_down(str(error))
        except ProgressiveError as error:
            self._pool_broken = str(error)
            log.error("progressive.inoperable", pool_id=self.pool.pool_id, error=str(error))
            self.alert(
                "progressive-inoperable",
                f"the progressive pool {self.pool.pool_id} cannot be trusted: {error}",
            )

    def _link_down(self, reason: str) -> None:
        """The linked pool's store does not answer: the progressive wager is closed at this table,
        the base game plays on (PRG-35); the pit is told once (PRG-36), chained and alerted."""
        if self._link_alerted:
            return
        self._link_alerted = True
        assert self.pool is not None
        self.alert(
            "progressive-link-down",
            f"the progressive pool {self.pool.pool_id} cannot be reached ({reason}): the progressive "
            "wager is closed at this table; the base game plays on",
            pool_id=self.pool.pool_id,
        )

    def check_progressive_link(self) -> bool | None:
        """Probe a linked pool's store (the heartbeat calls it): the progressive wager reopens
        when it answers again, chained as ``progressive.link-up``. None: no linked pool."""
        pool = self.pool
        if not isinstance(pool, LinkedPoolKeeper) or self._pool_broken is not None:
            return None
        if not pool.loaded:  # the start found the link down
            try:
                pool.load()
            except LinkDownError as error:
                self._link_down(str(error))
                return False
            except ProgressiveError as error:
                self._pool_broken = str(error)
                self.alert("progressive-inoperable", f"the progressive pool {pool.pool_id}: {error}")
                return False
        up = pool.check_link()
        if not up:
            self._link_down(str(pool.link_down))
        elif self._link_alerted:
            self._link_alerted = False
            with self._lock:
                self._notes([Note("progressive.link-up", "system", {"pool_id": pool.pool_id})])
            log.info("progressive.link_back", pool_id=pool.pool_id)
        return up

    @property
    def progressive_closed(self) -> str | None:
        """Why the progressive wager is closed at this table now (None: it is open)."""
        if self.pool is None:
            return "this table offers no progressive"
        if self._pool_broken is not None:
            return f"the progressive pool cannot be trusted: {self._pool_broken}"
        if isinstance(self.pool, LinkedPoolKeeper) and self.pool.link_down is not None:
            return f"the link to the progressive pool is down: {self.pool.link_down}"
        if not self._pool_open():
            return f"the progressive pool {self.pool.pool_id} is closed"
        return None

    def _pool_step(self, step: PoolStep | None) -> Callable[[Any], None] | None:
        return None if step is None else step.write

    def _pool_done(self, step: PoolStep | None) -> None:
        """Adopt a pool step chained with the round's event, and raise its alerts."""
        if step is None or self.pool is None:
            return
        self.pool.adopt(step)
        for kind, detail, data in step.alerts:
            self.alert(kind, detail, **data)

    def _pool_voided(self, round_id: str) -> None:
        """A voided round's progressive contributions stay on the meters, funded by the house
        (table/progressive_pool.py, ``voided``); a failure to chain the note never undoes the
        void: it is alerted for the pit to reconcile."""
        if self.pool is None or self._pool_broken is not None:
            return
        try:
            self.pool.voided(round_id)
        except Exception as error:
            log.error("progressive.void_note_failed", round_id=round_id, error=error_text(error))
            self.alert(
                "progressive-void-unrecorded",
                f"round {round_id} was voided but its progressive contributions could not be noted: "
                f"{error_text(error)}",
            )

    def pay_hit(self, hit_id: int, *, actor: str, verified_by: str) -> Any:
        """A pending progressive hit paid by a pit user who verified the cards (PRG-28); a hit
        not pending (unknown, or paid already: never twice) raises PaymentError."""
        with self._lock:
            self._writable("progressive.payment")
            if self.pool is None:
                raise self._refuse("progressive.payment", "this table has no progressive")
            return self.pool.pay(hit_id, actor=actor, verified_by=verified_by)

    def _restore_table(self) -> bool:
        record, opened, misdeals = self.recorder.table_record(self.settings.misdeal_hold_after)
        self._misdeals = misdeals
        if record is not None:
            self._misdeal_run_from = int(record.get("misdeal_run_from", 1))
            self._table_open = bool(record["open"])
            self._hold = None if record.get("hold") is None else TableHold.from_payload(record["hold"])
            self._faults = MappingProxyType(
                {
                    (f["device"], f["kind"]): OpenFault(f["device"], f["kind"], f.get("detail", ""), True)
                    for f in record.get("faults", [])
                }
            )
        elif opened is not None:  # a record older than table.state: the last open/close stands
            self._table_open = opened
        log.info(
            "table.restored",
            open=self._table_open,
            hold=None if self._hold is None else self._hold.reason,
            faults=sorted(f"{d} {k}" for d, k in self._faults),
            misdeals_in_a_row=self._misdeals,
        )
        return True

    # -- the round's commands ------------------------------------------------------------------

    @property
    def in_progress(self) -> bool:
        state = self.round
        return state is not None and not state.phase.is_final

    def open_round(
        self,
        wagers: Mapping[int, Wager],
        actor: str,
        *,
        banker_seat: int | None = None,
        bank_amount: int = 0,
        co_bank: bool = False,
    ) -> RoundState:
        """Open a round; ``wagers`` by position, numbered from the banker (004). ``banker_seat``
        banks it (None: the house) with ``bank_amount`` cents, co-banking with the house when
        ``co_bank`` (game/banking.py, docs/settlement.md 8); a refused bank raises BankRefused."""
        with self._lock:
            self._writable("round.open")
            if self.record.due_for_check() or self._record_check_due is not None:
                self._check_record(full=False)
                self._writable("round.open")  # the store went away under the check: 503, not a finding
            if self._record_broken is not None:
                raise self._refuse(
                    "round.open",
                    f"the record is broken: {self._record_broken}; the pit investigates (table-controller"
                    " audit verify) and may run on with a chained override (docs/audit-chain.md)",
                )
            if not self._table_open:
                raise self._refuse("round.open", "the table is closed")
            if self._hold is not None:
                raise self._refuse(
                    "round.open",
                    f"the table is held: {self._hold.reason}; "
                    "the pit clears the hold after a clean deck check",
                )
            if self.in_progress:
                assert self._round is not None
                raise self._refuse("round.open", f"round {self._round.round_id} is still in progress")
            if self._faults:
                open_faults = ", ".join(f"{f.device} {f.kind}" for f in self._faults.values())
                raise self._refuse("round.open", f"a device fault is open: {open_faults}")
            limits = self._limits
            try:
                check_wagers(self.settings.game, limits.main, wagers)
                for position, wager in sorted(wagers.items()):
                    self._check_side_wager(position, wager.fortune, wager.progressive, limits)
            except TableRefused as error:
                raise self._refuse("round.open", str(error)) from None
            plan = self._plan_bank(wagers, banker_seat, bank_amount, co_bank)
            opening = _opening(plan, self.settings)
            try:
                evidence = self._pinned_version()
                self._round, self._round_rules = self.recorder.open(
                    game=self.settings.game,
                    rules=self._rules_snapshot,
                    wagers=wagers,
                    actor=actor,
                    evidence=evidence,
                    opening=opening,
                )
            except Exception as error:
                if is_outage(error):
                    raise self._store_lost("round.open", error) from error
                raise
            self._held = None
            self._round_limits = limits
            self._bank_history = self._bank_history.after(
                plan.offer, {plan.seats[p]: w.main for p, w in wagers.items()}
            )
            structlog.contextvars.bind_contextvars(table_id=self.table_id, round_id=self._round.round_id)
            log.info(
                "round.opened",
                actor=actor,
                positions=sorted(wagers),
                wagered_cents=sum(w.main for w in wagers.values()),
                banker_seat=self._round.opened.banker_seat,
                bank_offer=plan.offer,
                **_bank_fields(plan),
            )
            return self._round

    @property
    def bank_history(self) -> BankHistory:
        """Who was offered the bank last (an immutable value, read without the lock)."""
        return self._bank_history

    def bank_offer(self, seats: Collection[int]) -> int | None:
        """The seat the bank is offered to next among the occupied ``seats`` (None: the house's
        turn, or a table whose game or policy allows no player bank)."""
        terms = self.banking_terms
        try:
            check_banking_allowed(
                self.settings.game, terms.policy, allow_in_double_joker=terms.allow_in_double_joker
            )
        except BankingError:
            return None
        history = self._bank_history
        return next_bank_offer(
            self.banking_terms.policy,
            seats,
            last_offer=history.last_offer,
            last_player_offer=history.last_player_offer,
        )

    @property
    def banking_terms(self) -> BankingTerms:
        """The table's banking settings as the game core takes them."""
        banking = self.settings.banking
        return BankingTerms(
            policy=banking.policy,
            house_wager=banking.house_wager,
            co_bank_share_bp=banking.co_bank_share_bp,
            allow_in_double_joker=banking.allow_in_double_joker,
        )

    def _plan_bank(
        self, wagers: Mapping[int, Wager], banker_seat: int | None, amount: int, co_bank: bool
    ) -> BankPlan:
        try:
            return plan_bank(
                self._rules.table,
                self.banking_terms,
                self._bank_history,
                {position: wager.main for position, wager in wagers.items()},
                banker_seat=banker_seat,
                amount=amount,
                co_bank=co_bank,
                table_minimum=self._limits.main.min_main,
            )
        except BankingError as error:
            shortfall = error.shortfall if isinstance(error, BankNotCovered) else None
            log.warning("table.refused", command="round.open", reason=str(error), shortfall_cents=shortfall)
            raise BankRefused(str(error), shortfall) from None

    def _pinned_version(self) -> dict[str, str]:
        """The rules' hashes for a new round: a way file edited since the last round is a new
        version (stored and chained before the round names it; docs/audit-chain.md)."""
        try:
            self._version = refreshed(self._version)
        except Exception as error:  # the edited file is not a way: no round under unknown rules
            raise self._refuse("round.open", f"the house way file no longer loads: {error}") from None
        if self._version.rules is not self._rules:
            log.warning("rules.new_version", evidence=self._version.evidence)
            self._rules, self._rules_snapshot = self._version.rules, self._version.snapshot
        if self._kept != self._version.evidence:
            with unit_of_work(self.recorder.engine) as session:
                keep_version(session, table_id=self.table_id, version=self._version)
            self._kept = self._version.evidence
        return self._kept

    def _check_side_wager(self, position: int, fortune: int, progressive: int, limits: TableLimits) -> None:
        """The table's side wagers: offered, within the Fortune's limit in force (``limits``),
        the progressive its fixed amount (game/side_wagers.py); TableRefused naming what is wrong."""
        most = limits.max_fortune if limits.max_fortune is not None else self.settings.fortune.max_wager
        if fortune > most:
            raise TableRefused(
                f"position {position}: fortune wager {fortune} cents is above the limit {most}"
            )
        try:
            self._rules.check_side_wager(position, fortune, progressive)
        except SideWagerError as error:
            raise TableRefused(str(error)) from None
        pool = self.pool
        if progressive and isinstance(pool, LinkedPoolKeeper) and not (self._pool_broken or pool.link_down):
            try:  # the pool as the floor has it now: another table may have closed or reopened it
                pool.refresh()
            except LinkDownError as error:
                self._link_down(str(error))
            except ProgressiveError:
                pass  # not created yet (the start found the link down): closed below
        closed = self.progressive_closed if progressive else None
        if closed is not None:
            raise TableRefused(f"position {position}: the progressive is closed (PRG-35): {closed}")

    def _pool_open(self) -> bool:
        try:
            return self.pool is not None and self.pool.pool.open
        except ProgressiveError:  # not loaded
            return False

    def place_side_wager(self, position: int, fortune: int, progressive: int, actor: str) -> RoundState:
        """A position's side wagers before the deal starts (docs/progressive.md, "At the table").

        Once the dice are rolled the wagers are locked: a side wager then is refused with
        WagersLocked, chained as a refusal, logged, and raised as an alert for the pit (PRG-16,
        PRG-17: "sensor event after lock: not counted, alarm raised")."""
        with self._lock:
            if self.in_progress and self._round is not None and self._round.phase.value == "open":
                try:
                    self._check_side_wager(position, fortune, progressive, self.wager_limits)
                except TableRefused as error:
                    raise self._refuse("wager.side", str(error)) from None
            event = SideWagerPlaced(position=position, fortune=fortune, progressive=progressive, actor=actor)
            try:
                state = self._record(event)
            except WagersLocked as locked:
                self.alert(
                    "side-wager-after-lock",
                    f"position {position}: a side wager after the deal started was refused ({locked.reason})",
                    actor=actor,
                    position=position,
                    fortune_cents=fortune,
                    progressive_cents=progressive,
                )
                raise
            log.info("wager.side", position=position, fortune_cents=fortune, progressive_cents=progressive)
            return state

    def record_dice(self, event: DiceRolled) -> RoundState:
        with self._lock:
            step = None
            if self.pool is not None and self._round is not None and not self._round.phase.is_final:
                progressive = {p: w.progressive for p, w in self._round.wagers.items() if w.progressive}
                if (
                    progressive and self._pool_broken is None
                ):  # the wagers lock now: contributions go with the dice
                    try:
                        step = self.pool.contributions(progressive, round_id=self._round.round_id)
                    except ProgressiveError as error:  # never stops the base game (PRG-35)
                        self.alert(
                            "progressive-contribution-refused",
                            str(error),
                            wagers={str(p): w for p, w in progressive.items()},
                        )
                        self._return_progressive(progressive, error)
            try:
                state = self._record(event, self._pool_step(step))
            except Exception:
                if step is not None and self.pool is not None:
                    self.pool.reload()
                raise
            self._pool_done(step)
        log.info("dice.rolled", faces=list(event.faces), source=event.source, start_position=state.start)
        return state

    def _return_progressive(self, wagers: Mapping[int, int], error: ProgressiveError) -> None:
        """The pool took none of the round's progressive wagers (a linked pool's link down, the
        pool closed): each is taken off its position before the dice lock the wagers, chained as the
        system's ``wager.side``, so the round collects none of them and the base game plays on
        (PRG-35)."""
        if isinstance(error, LinkDownError):
            self._link_down(str(error))
        assert self._round is not None
        for position in sorted(wagers):
            fortune = self._round.wagers[position].fortune
            self._record(SideWagerPlaced(position=position, fortune=fortune, progressive=0, actor="system"))
        log.warning("progressive.wagers_returned", positions=sorted(wagers), reason=str(error))

    def record_deal(self, event: PilesDealt) -> RoundState:
        with self._lock:
            state = self._record(event)
            if state.misdeal:
                details = [d.detail for d in state.misdeal]
                counts = counts_toward_hold(state.misdeal)
                self.alert(
                    "misdeal",
                    "; ".join(details),
                    discrepancies=[d.kind for d in state.misdeal],
                    counts_toward_hold=counts,
                )
                if not counts:  # an interrupted deal: voided, not evidence against the deck
                    log.warning(
                        "round.deal_interrupted", discrepancies=details, misdeals_in_a_row=self._misdeals
                    )
                    self._round_done(state)
                    return state
                log.error("round.misdeal", discrepancies=details)
                self._misdeals += 1
                if self._misdeals >= self.settings.misdeal_hold_after and self._hold is None:
                    self._hold_table(f"{self._misdeals} misdeals in a row (last: {'; '.join(details)})")
            else:
                assert state.required is not None
                self._misdeals = 0
                log.info("deal.verified", house_way_rule=state.required.rule_id)
            self._round_done(state)
            return state

    def set_player(self, position: int, high: list[str], low: list[str], actor: str) -> RoundState:
        return self._record(PlayerSet(position=position, high=high, low=low, actor=actor))

    def set_dealer(self, high: list[str], low: list[str], actor: str) -> RoundState:
        try:
            return self._record(DealerSet(high=high, low=low, actor=actor))
        except HouseWayDeviation as deviation:
            required = deviation.required
            self.alert(
                "house-way-deviation",
                str(deviation),
                actor=actor,
                proposed={"high": high, "low": low},
                required={
                    "high": [c.code for c in required.setting.high],
                    "low": [c.code for c in required.setting.low],
                },
                rule=required.rule_id,
            )
            raise

    def override_dealer(
        self,
        high: list[str],
        low: list[str],
        actor: str,
        reason: str,
        *,
        confirmed_by: str | None = None,
        round_id: str | None = None,
        approval: int | None = None,
    ) -> RoundState:
        """The pit lets a deviating setting stand; ``confirmed_by`` the second pit user when the
        round's wagers needed one, ``round_id`` the round it was asked for, ``approval`` the
        request they confirm, closed in the override's own transaction (table/approvals.py)."""
        with self._lock:
            self._check_round("dealer.override", round_id)
            state = self._record(
                DealerOverride(high=high, low=low, actor=actor, reason=reason),
                self._confirming(approval, confirmed_by),
            )
            second = {} if confirmed_by is None else {"confirmed_by": confirmed_by}
            self.alert(
                "override",
                f"{actor} let the dealer's setting stand: {reason}"
                + (f" (confirmed by {confirmed_by})" if confirmed_by else ""),
                actor=actor,
                setting={"high": high, "low": low},
                **second,
            )
            return state

    def settle(self) -> RoundState:
        with self._lock:
            step, settled = self._hits_of_settlement()
            try:
                state = self._record(RoundSettled(), self._pool_step(step), applied=settled)
            except Exception:
                if step is not None and self.pool is not None:
                    self.pool.reload()
                raise
            self._pool_done(step)
        if self._math is not None:
            self._check_band()
        result = state.result
        assert result is not None
        log.info(
            "round.settled",
            positions=len(result.positions),
            wagered_cents=result.total_wagered,
            commission_cents=result.commission,
            bonuses_paid_cents=result.bonuses_paid,
            house_result_cents=result.house_result,
        )
        self._round_done(state)
        if self.record.due_for_checkpoint():
            self.checkpoint("every-rounds")
        return state

    def _hits_of_settlement(self) -> tuple[PoolStep | None, RoundState | None]:
        """The meter hits the round's settlement claims, resolved on the pool, chained with
        ``round.settled``, and the settled round they came from: the settlement is derived
        here once (the game core is pure) and recorded as it is, never derived twice. A linked
        pool's store that does not answer refuses the settle (the hit must be claimed before
        the round can settle; settle again once the link is back), alerted."""
        state, rules = self._round, self._round_rules
        if self.pool is None or state is None or rules is None or self._held is not None:
            return None, None
        from ..round.machine import apply

        try:
            settled = apply(state, RoundSettled(), rules)
        except Exception:
            return None, None  # the settle itself is refused or held as it would be without a pool
        assert settled.result is not None
        try:
            return self.pool.hits(settled.result, round_id=state.round_id), settled
        except LinkDownError as error:
            self._link_down(str(error))
            self.alert(
                "progressive-hit-unclaimed",
                f"round {state.round_id}: a meter hit cannot be claimed ({error}); settle again once "
                "the link to the pool is back",
            )
            raise self._refuse("round.settled", f"the meter hit cannot be claimed: {error}") from error

    def void(
        self,
        actor: str,
        reason: str,
        *,
        confirmed_by: str | None = None,
        round_id: str | None = None,
        approval: int | None = None,
    ) -> RoundState:
        """The pit voids the open round; ``confirmed_by``, ``round_id`` and ``approval`` as for
        an override."""
        with self._lock:
            self._check_round("round.void", round_id)
            state = self._record(
                RoundVoided(actor=actor, reason=reason), self._confirming(approval, confirmed_by)
            )
            self._pool_voided(state.round_id)
            second = {} if confirmed_by is None else {"confirmed_by": confirmed_by}
            self.alert(
                "void",
                f"{actor} voided the round: {reason}"
                + (f" (confirmed by {confirmed_by})" if confirmed_by else ""),
                actor=actor,
                **second,
            )
            self._held = None
            self._round_done(state)
            return state

    def void_for_device(self, device: str, what: str, round_id: str | None) -> RoundState | None:
        """A device kept re-sending a message the controller refused (link.md 3.1: a device of
        protocol 1.0): what round ``round_id`` (open when the message was first refused) was to
        be decided on cannot be trusted, so it is voided (the wagers returned) naming the frame,
        with the ``void`` alert a pit void has. None when that round is no longer open (it
        ended meanwhile, a misdeal for one: a later round is never voided for it)."""
        with self._lock:
            state = self._round
            if round_id is None or state is None or state.phase.is_final or state.round_id != round_id:
                log.warning("device.refused_resent_round_gone", device=device, refused_in=round_id, what=what)
                return None
            reason = f"the {device} re-sent a message the controller refused: {what}"
            state = self._record(RoundVoided(actor=f"device:{device}", reason=reason))
            self._pool_voided(state.round_id)
            self.alert("void", f"the controller voided the round: {reason}", actor=f"device:{device}")
            self._held = None
            self._round_done(state)
            return state

    def _confirming(self, approval: int | None, confirmed_by: str | None) -> Callable[[Any], None] | None:
        """The request's ``approval.confirmed``, written in the transaction of the act it confirms:
        a store failing between the two can leave neither half-done (docs/api.md, "Two people")."""
        if approval is None or confirmed_by is None:
            return None
        from ..storage.approvals import CONFIRMED, close_approval

        def close(session: Any) -> None:
            close_approval(session, table_id=self.table_id, seq=approval, actor=confirmed_by, kind=CONFIRMED)

        return close

    # -- the record: checked, overridden for investigation, anchored (docs/audit-chain.md) -------

    @property
    def record_broken(self) -> str | None:
        """What the record check found, while it stops play (None: play goes on)."""
        return self._record_broken

    @property
    def record_check_pending(self) -> str | None:
        """Which record check waits for the store to answer (None: none waits)."""
        if self._record_check_due is None:
            return None
        return "the whole record (the start's check)" if self._record_check_due else "the check while playing"

    def _check_record(self, *, full: bool) -> None:
        """Check the record; on a finding no pit override covers, stop dealing and alert.

        The store going away under the check is an outage, never a finding: the check waits
        (``record_check_pending``) and runs again as soon as the store answers (``retry_store``)."""
        from ..record.watch import OVERRIDE_KIND, covered, finding_lines
        from ..storage import last_event

        full = full or bool(self._record_check_due)  # a start's check still owed is the whole check
        try:
            report = self.record.check(full=full)
            if full:
                with read_snapshot(self.recorder.engine) as session:
                    override = last_event(session, table_id=self.table_id, kinds=[OVERRIDE_KIND])
                keys = [] if override is None else override.payload_data().get("keys", [])
                self._record_override = frozenset(str(key) for key in keys)
        except Exception as error:
            if is_outage(error):  # the store is away: nothing was found, the check is owed
                self._record_check_due = full
                self._store_went_away(error)
                log.warning("record.check_deferred", full=full, error=f"{type(error).__name__}: {error}")
                return
            log.exception("record.check_failed")  # a record that cannot be read back is a broken one
            lines = [f"the record could not be checked: {error_text(error)}"]
        else:
            lines = finding_lines(report)
        self._record_check_due = None
        lines += self._start_unreadable  # stored rows this start could not read (_start_read)
        if not lines:
            self._record_broken = None
            log.info("record.checked", full=full)
            return
        if covered(lines, self._record_override):
            self._record_broken = None
            log.warning("record.broken_overridden", findings=len(lines), first=lines[0])
            return
        first = self._record_broken is None
        self._record_broken = f"{len(lines)} finding(s), first: {lines[0]}"
        log.error("record.broken", findings=len(lines), first=lines[0], full=full)
        if first:
            try:
                self.alert("record-broken", self._record_broken[:1000], findings=lines[:50])
            except Exception:  # a chain whose head no longer matches takes no alert: the log says it
                log.exception("record.alert_failed")

    def override_record(self, actor: str, reason: str) -> list[str]:
        """A pit user runs on for investigation: the findings are named in a chained
        ``audit.override`` and play resumes; a new finding stops it again. Returns them."""
        from ..record.watch import OVERRIDE_KIND, finding_lines, line_key

        with self._lock:
            self._writable("audit.override")
            with self._reading("audit.override"):
                report = self.record.check(full=True)
            lines = finding_lines(report) + self._start_unreadable
            if not lines:
                raise self._refuse("audit.override", "the record is whole: nothing to run on with")
            if len(reason.strip()) < 3:
                raise self._refuse("audit.override", "give the reason for running on")
            keys = sorted({line_key(line) for line in lines})
            self._writable("audit.override")
            try:
                self.recorder.notes(
                    [Note(OVERRIDE_KIND, actor, {"reason": reason, "findings": lines[:200], "keys": keys})]
                )
            except ChainHeadMismatchError as error:  # nothing can be chained: nothing to run on with
                raise self._refuse("audit.override", f"the override cannot be chained: {error}") from None
            self._record_override = frozenset(keys)
            self._record_broken = None
            log.warning("record.overridden", actor=actor, reason=reason, findings=len(lines))
            return lines

    def recheck_record(self) -> None:
        """The record checked again, whole, with the newest chained override (a pit user just
        acknowledged a ``code-changed`` alert, api/routers/alerts.py): the table deals at once
        when nothing else stops it."""
        with self._lock:
            self._check_record(full=True)

    def _adopt_people(self) -> None:
        """record_watch.RecordWatch.adopt_people; a store that does not answer is not a finding."""
        try:
            self.record.adopt_people()
        except Exception as error:
            if not is_outage(error):
                raise
            log.warning("audit.people_not_adopted", error=str(error))

    def checkpoint(self, reason: str) -> Any:
        """A signed checkpoint of the table's chain now (None without a key); never raises:
        a checkpoint that cannot be written is logged, play is not stopped for it."""
        try:
            return self.record.checkpoint(reason)
        except Exception:
            log.exception("audit.checkpoint_failed", reason=reason)
            return None

    def record_start(self) -> None:
        """Chain this start with the hash of the installed code (record_watch.code_fingerprint),
        compared with the signed release manifest when one is configured (record/release.py): a
        mismatch is a ``code-changed`` alert and a finding no round is dealt past until a pit
        user acknowledges the alert (its chained override: record_watch.code_override)."""
        from ..record.release import check_release
        from ..record.watch import code_fingerprint, line_key

        digest, files = code_fingerprint()
        self.code_sha256 = digest
        audit = self.settings.audit
        problems: tuple[str, ...] = ()
        if audit.release_manifest is not None and audit.release_public_key is not None:
            found = check_release(audit.release_manifest, audit.release_public_key)
            problems, self.code_release = found.problems, found.release_sha256
            self.code_matches_release = found.ok
        log.info("daemon.code", code_sha256=digest, files=files, release_matches=self.code_matches_release)
        try:
            self._notes(
                [
                    Note(
                        "daemon.started",
                        "system",
                        {"code_sha256": digest, "files": files, "release_sha256": self.code_release},
                    )
                ]
            )
        except Exception:
            log.exception("daemon.start_not_chained")
        if problems:
            line = f"code-changed: the installed code {digest} is not the signed release: " + "; ".join(
                problems[:20]
            )
            self._start_unreadable.append(line)
            log.error("daemon.code_changed", code_sha256=digest, problems=list(problems[:50]))
            self.alert(  # its acknowledgement is the override of this finding (record_watch.code_override)
                "code-changed",
                line[:1000],
                code_sha256=digest,
                problems=list(problems[:50]),
                finding=line,
                key=line_key(line),
            )
            if self._record_broken is None:  # a start's check names it with the rest (resume)
                self._record_broken = f"1 finding(s), first: {line}"

    # -- the floor (docs/round-lifecycle.md, "Registration and heartbeat") ----------------------

    def register_on_floor(self) -> None:
        """Put the table on the floor (``floor_tables``) at start. When its pit, game, house way
        or address differ from what its chain last said, chain ``table.registered`` first, as
        any note of the table (kept through an outage), so the chain says which pit the table
        was in when. A table that has never chained its state (``table.state``) chains it with
        its first registration, so the floor shows its devices from its first report rather
        than "not reported yet" until something changes. Never raises: a table that cannot
        register deals all the same, and the heartbeat registers it once the store answers."""
        self._floor_started = datetime.now(UTC)
        try:
            self._register(self._floor_started, self._floor_started)
        except Exception as error:
            self._floor_failing = error_text(error)
            log.error("floor.register_failed", error=self._floor_failing)

    def _register(self, now: datetime, started_at: datetime) -> None:
        settings = self.settings
        registration = Registration(
            pit=settings.pit, game=settings.game.value, house_way=settings.house_way, api_url=settings.api_url
        )
        engine = self.recorder.engine
        with read_snapshot(engine) as session:
            chained = last_registration(session, table_id=self.table_id)
            stated = bool(last_payloads(session, table_ids=[self.table_id], kind=TABLE_STATE))
        changed = registration not in (chained, self._floor_chained)
        if changed or not stated:
            notes = [Note(REGISTERED, "system", registration.payload(previous=chained))] if changed else []
            with self._lock:
                self._notes([*notes, *([] if stated else [self._state_note()])])
        if changed:
            self._floor_chained = registration
            log.info(
                "floor.registration_changed",
                pit=registration.pit,
                game=registration.game,
                previous_pit=None if chained is None else chained.pit,
                previous_game=None if chained is None else chained.game,
            )
        with unit_of_work(engine) as session:
            register_table(
                session, table_id=self.table_id, now=now, started_at=started_at, **asdict(registration)
            )
        log.info("floor.registered", pit=registration.pit, api_url=registration.api_url)

    def floor_heartbeat(self, now: datetime | None = None) -> bool:
        """Tell the floor the table is alive (``seen_at``); a table with no row (its start could
        not register it, or the row was deleted) is registered again. Never raises: a store
        outage is logged once when it starts and once when it ends, and the next beat tries
        again (the daemon's heartbeat thread must never die of it). True when the beat was stored."""
        now = now or datetime.now(UTC)
        try:
            with unit_of_work(self.recorder.engine) as session:
                found = heartbeat(session, self.table_id, now)
            if not found:
                self._register(now, self._floor_started or now)
        except Exception as error:
            failing = error_text(error)
            if self._floor_failing is None:
                log.warning("floor.heartbeat_failed", error=failing, outage=is_outage(error))
            self._floor_failing = failing
            return False
        if self._floor_failing is not None:
            log.info("floor.heartbeat_back", error_was=self._floor_failing)
            self._floor_failing = None
        self._beat_link()
        return True

    def _beat_link(self) -> None:
        try:
            self.check_progressive_link()
        except Exception as error:  # the heartbeat thread never dies of it
            log.error("progressive.link_check_failed", error=error_text(error))

    def hold_round(self, what_failed: str) -> None:
        """Hold the open round: something failed inside it (the conductor, a device step)."""
        with self._lock:
            if self.in_progress and self._held is None:
                self._hold_round(what_failed)

    # -- the table -----------------------------------------------------------------------------

    def change_limits(
        self,
        *,
        min_main: object,
        max_main: object,
        max_bonus: object,
        max_fortune: object = None,
        actor: str,
    ) -> TableLimits:
        """A pit user changes the limits while the table runs (docs/dealers.md, "Table limits"):
        chained as ``table.limits-changed`` with both values and who, they hold from the next
        round; a round taking its wagers keeps the limits it opened under. Refused: values the
        change cannot take (LimitsError: past the approved limits, the least above the most, the
        limits in force already), a round whose wagers are locked (LimitsRefused: never
        mid-round), the store away (StoreOutage); nothing is written then."""
        with self._lock:
            self._writable("limits.change")
            state = self._round
            if state is not None and self.in_progress and state.phase.value != "open":
                raise self._refuse(
                    "limits.change",
                    f"round {state.round_id} is {state.phase.value.replace('-', ' ')}: its wagers are"
                    " locked; change the limits once it ends, they hold from the next round",
                    LimitsRefused,
                )
            old = self._limits
            try:
                new = check_change(
                    self._approved_limits,
                    min_main=min_main,
                    max_main=max_main,
                    max_bonus=max_bonus,
                    max_fortune=max_fortune,
                )
                if new == old:
                    raise LimitsError(f"the limits in force are these already: {old.words()}")
            except LimitsError as error:
                log.warning("table.refused", command="limits.change", reason=str(error), actor=actor)
                raise
            try:
                with unit_of_work(self.recorder.engine) as session:
                    effective = next_round_number(session, table_id=self.table_id)
                    record_change(
                        session,
                        table_id=self.table_id,
                        old=old.payload(),
                        new=new.payload(),
                        effective_from_round=effective,
                        actor=actor,
                    )
            except Exception as error:
                if is_outage(error):
                    raise self._store_lost("limits.change", error) from error
                raise
            self._limits = new
            log.info(
                "table.limits_changed",
                actor=actor,
                effective_from_round=effective,
                old=old.payload(),
                new=new.payload(),
            )
            return new

    def set_table_open(self, is_open: bool, actor: str) -> None:
        with self._lock:
            self._writable("table.open" if is_open else "table.close")
            before = self._table_open
            self._table_open = is_open
            try:
                self.recorder.notes(
                    [Note("table.opened" if is_open else "table.closed", actor, {}), self._state_note()]
                )
            except Exception as error:
                self._table_open = before
                if is_outage(error):
                    raise self._store_lost("table.open" if is_open else "table.close", error) from error
                raise
            if not is_open:  # a table closed (a shift's end): its head signed (docs/audit-chain.md)
                self.checkpoint("table-closed")

    def record_deck_check(self, check: DeckCheck) -> None:
        """The conductor's DECK_CHECK while the table is held: shown to the pit, chained."""
        with self._lock:
            if self._hold is None:
                log.info("deck.checked_without_hold", words=check.words())
                return
            self._hold = replace(self._hold, deck_check=check, deck_check_wanted=False)
            self._notes([Note("deck.checked", "device:shuffler", check.as_payload()), self._state_note()])
            (log.info if check.complete else log.warning)(
                "deck.checked", complete=check.complete, words=check.words()
            )

    def request_deck_check(self, actor: str) -> None:
        """The pit asks for another DECK_CHECK (after fixing the deck) while the table is held."""
        with self._lock:
            self._writable("deck.check")
            if self._hold is None:
                raise self._refuse("deck.check", "the table is not held")
            self._commit_table_change(
                replace(self._hold, deck_check_wanted=True),
                Note("deck.check_requested", actor, {}),
                "deck.check",
            )

    def clear_hold(self, actor: str) -> None:
        """The pit lets play resume; refused while the last deck check was not clean."""
        with self._lock:
            self._writable("hold.clear")
            if self._hold is None:
                raise self._refuse("hold.clear", "the table is not held")
            check = self._hold.deck_check
            if check is None or self._hold.deck_check_wanted:
                raise self._refuse(
                    "hold.clear",
                    "no deck check since the hold (or one was asked for and has "
                    "not run yet): wait for its result",
                )
            if not check.complete:
                raise self._refuse(
                    "hold.clear",
                    f"the last deck check was not clean ({check.words()}): "
                    "fix the deck and ask for a new deck check",
                )
            run_from = self._misdeal_run_from
            self._misdeal_run_from = (self._round.opened.number if self._round is not None else 0) + 1
            try:
                self._commit_table_change(
                    None, Note("table.hold_cleared", actor, {"reason": self._hold.reason}), "hold.clear"
                )
            except Exception:
                self._misdeal_run_from = run_from
                raise
            self._misdeals = 0
            log.info("table.hold_cleared", actor=actor)

    def device_fault(self, device: str, kind: str, detail: str = "") -> None:
        """A fault or a lost link: play stops (no new round) until it clears."""
        with self._lock:
            key = (device, kind)
            if key in self._faults:
                if self._faults[key].restored:  # the device reports it again: no longer only from the record
                    reported = OpenFault(device, kind, self._faults[key].detail)
                    self._faults = MappingProxyType({**self._faults, key: reported})
                return
            self._faults = MappingProxyType({**self._faults, key: OpenFault(device, kind, detail)})
            self._notes(
                [
                    self._alert_note(
                        "device-fault" if kind != "link-lost" else "link-loss",
                        f"{device}: {kind} {detail}".strip(),
                        device=device,
                        fault=kind,
                    ),
                    self._state_note(),
                ]
            )
            log.warning("device.fault", device=device, fault=kind, detail=detail)

    def fault_cleared(self, device: str, kind: str, why: str = "") -> None:
        with self._lock:
            if (device, kind) not in self._faults:
                return
            self._faults = MappingProxyType({k: f for k, f in self._faults.items() if k != (device, kind)})
            payload = {"device": device, "fault": kind, **({"why": why} if why else {})}
            self._notes(
                [
                    Note("device.fault.cleared", f"device:{device}", payload, self._round_id()),
                    self._state_note(),
                ]
            )
            log.info("device.fault_cleared", device=device, fault=kind, why=why or None)

    def reconcile_faults(self, device: str, reported: set[str]) -> None:
        """The device's status at start lists its standing faults: a fault restored from the
        record that the device no longer reports is cleared (and the clear is chained)."""
        with self._lock:
            for fault in [f for f in self._faults.values() if f.device == device and f.restored]:
                if fault.kind not in reported and fault.kind != "link-lost":
                    self.fault_cleared(device, fault.kind, "not reported by the device at start")

    def journal(self, device: str, kind: str, payload: Mapping[str, Any]) -> None:
        """A device event, stored before the driver acknowledges it (drivers.base.Journal).

        Never queued on an outage: the write must fail so the device keeps it and sends it again."""
        with self._lock:
            self.recorder.note(
                kind=f"device.{device}.{kind}",
                actor=f"device:{device}",
                payload=dict(payload),
                round_id=self._round_id(),
            )

    def alert(self, kind: str, detail: str, **data: Any) -> None:
        self._notes([self._alert_note(kind, detail, **data)])

    # -- the store going away ------------------------------------------------------------------

    def retry_store(self) -> bool:
        """Try the store again: write the notes kept meanwhile, re-read the open round, close
        the outage with an alert. True when the store answers (or never went away)."""
        with self._lock:
            if self._outage is None:
                return True
            outage = self._outage
            notes = [
                *self._pending,
                self._alert_note(
                    "store-unavailable",
                    f"the store did not answer from {outage.since} to {now_iso()}: {outage.error}",
                    since=outage.since,
                ),
            ]
            try:
                self.recorder.notes(notes)
                if self._stale_round:
                    found = self.recorder.resume()
                    if found is not None:
                        self._round, self._round_rules = found.state, found.rules
                    elif self._round is not None and not self._round.phase.is_final:
                        self._round = None  # the store has no open round: the open never committed
            except Exception as error:
                if not is_outage(error):
                    raise
                log.debug("store.still_unavailable", error=str(error))
                return False
            self._pending.clear()
            self._outage, self._stale_round = None, False
            log.warning("store.back", since=outage.since, notes_written=len(notes))
            if self._record_check_due is not None:  # the check the outage interrupted, now
                self._check_record(full=self._record_check_due)
            return self._outage is None

    @property
    def kept_notes(self) -> int:
        """Notes waiting for the store to come back."""
        return len(self._pending)

    # -- internals -----------------------------------------------------------------------------

    def _round_id(self) -> str | None:
        return self._round.round_id if self._round is not None else None

    def _check_round(self, what: str, round_id: str | None) -> None:
        """A command asked for one round (a confirmed request) is refused on any other."""
        if round_id is not None and (not self.in_progress or self._round_id() != round_id):
            raise self._refuse(what, f"it was asked for round {round_id}, which is no longer open")

    def _record(
        self, event: Any, also: Callable[[Any], None] | None = None, applied: RoundState | None = None
    ) -> RoundState:
        with self._lock:
            self._writable(event.kind)
            if self._round is None or self._round_rules is None:
                raise self._refuse(event.kind, "no round is open")
            if self._held is not None and not isinstance(event, RoundVoided):
                raise self._refuse(
                    event.kind,
                    f"round {self._round.round_id} is held ({self._held}): only a pit void moves it on",
                    RoundHeld,
                )
            try:
                self._round = self.recorder.record(
                    self._round, event, self._round_rules, self._theoretical, also=also, applied=applied
                )
            except TransitionRefused as refused:
                self._notes(
                    [
                        Note(
                            "round.refused",
                            event.actor,
                            {
                                "event": event.model_dump(mode="json"),
                                "phase": refused.phase.value,
                                "reason": refused.reason,
                            },
                            self._round.round_id,
                        )
                    ]
                )
                log.warning(
                    "round.refused",
                    refused_event=event.kind,
                    phase=refused.phase.value,
                    reason=refused.reason,
                    actor=event.actor,
                )
                raise
            except (RoundClosedError, RoundChangedError) as error:  # the console moved it meanwhile
                raise self._changed_elsewhere(event.kind, error) from error
            except Exception as error:
                if is_outage(error):
                    self._stale_round = True
                    raise self._store_lost(event.kind, error) from error
                # a failure inside the round (the game core could not settle it...): hold it
                self._hold_round(f"{event.kind}: {error_text(error)}")
                raise self._refuse(
                    event.kind, f"round {self._round.round_id} is held: {error}", RoundHeld
                ) from error
            return self._round

    def sync_round(self) -> bool:
        """Whether another process (the console's ``round void``, ``round confirm``) changed the
        open round in the store; if so the table takes the round as the store has it, so a void
        from the console ends the round here as a void through the API does. The conductor
        calls it every second; one row read by its key. True when the round was taken again."""
        with self._lock:
            state = self._round
            if state is None or state.phase.is_final or self._outage is not None or self._stale_round:
                return False
            try:
                stored = self.recorder.stored_phase(state.round_id)
            except Exception as error:
                if is_outage(error):
                    return False  # the next write finds the outage; the watcher reads again later
                raise
            if stored == state.phase.value:
                return False
            self._take_stored_round(f"the store has it {stored}")
            return True

    def _changed_elsewhere(self, what: str, error: Exception) -> TableRefused | StoreOutage:
        try:
            state = self._take_stored_round(str(error))
        except Exception as reread:
            if is_outage(reread):
                return self._store_lost(what, reread)
            raise
        done = f"it is now {state.phase.value}" + (f" ({state.void_reason})" if state.void_reason else "")
        return self._refuse(
            what, f"round {state.round_id} was changed by another process (the console): {done}", RoundChanged
        )

    def _take_stored_round(self, why: str) -> RoundState:
        """Read the open round again from the store and take it as the table's (no alert: the
        process that changed it chained its own)."""
        before = self._round
        assert before is not None
        found = self.recorder.read_round(before.round_id)
        self._round, self._round_rules = found.state, found.rules
        self._held = None if found.state.phase.is_final else found.held
        log.warning(
            "round.changed_elsewhere",
            round_id=before.round_id,
            phase_was=before.phase.value,
            phase=found.state.phase.value,
            void_reason=found.state.void_reason,
            why=why,
        )
        if found.failure is not None and self._held is None and not found.state.phase.is_final:
            self._hold_round(found.failure)
        self._round_done(found.state)
        return found.state

    def _hold_round(self, what_failed: str) -> None:
        assert self._round is not None
        self._held = what_failed
        self._notes(
            [
                self._alert_note(
                    HELD_ALERT,
                    f"round {self._round.round_id} is held: {what_failed}; the pit may void it",
                    phase=self._round.phase.value,
                    what_failed=what_failed,
                )
            ]
        )
        log.error(
            "round.held",
            round_id=self._round.round_id,
            phase=self._round.phase.value,
            what_failed=what_failed,
        )

    def _hold_table(self, reason: str) -> None:
        self._hold = TableHold(reason=reason, since=now_iso())
        self._notes(
            [
                self._alert_note(
                    "table-held",
                    f"the table is held: {reason}; a deck check runs, then the pit clears the hold",
                ),
                self._state_note(),
            ]
        )
        log.error("table.held", reason=reason)

    def _commit_table_change(self, hold: TableHold | None, note: Note, what: str) -> None:
        """Change the hold and chain it (with the table's new state) in one transaction."""
        before = self._hold
        self._hold = hold
        try:
            self.recorder.notes([note, self._state_note()])
        except Exception as error:
            self._hold = before
            if is_outage(error):
                raise self._store_lost(what, error) from error
            raise

    def _state_note(self) -> Note:
        return Note(
            TABLE_STATE,
            "system",
            {
                "open": self._table_open,
                "misdeal_run_from": self._misdeal_run_from,
                "hold": None if self._hold is None else self._hold.as_payload(),
                "faults": [
                    {"device": f.device, "kind": f.kind, "detail": f.detail}
                    for f in sorted(self._faults.values(), key=lambda f: (f.device, f.kind))
                ],
            },
        )

    def _alert_note(self, kind: str, detail: str, **data: Any) -> Note:
        return Note(
            "alert.raised",
            str(data.pop("actor", "system")),
            {"alert": kind, "detail": detail, **data},
            self._round_id(),
        )

    def _notes(self, notes: list[Note]) -> None:
        """Notes the table raises itself (alerts, faults, its state): on an outage they are kept,
        in order, and written when the store is back (``retry_store``); never lost, never raised."""
        if self._outage is None:
            try:
                self.recorder.notes(notes)
                return
            except Exception as error:
                if not is_outage(error):
                    raise
                self._store_went_away(error)
        kept_at = now_iso()
        self._pending.extend(replace(n, payload={**n.payload, "kept_from": kept_at}) for n in notes)
        log.warning("store.note_kept", kinds=[n.kind for n in notes], kept=len(self._pending))

    def _writable(self, what: str) -> None:
        """A person's command during an outage: refused at once (503), nothing half-done."""
        if self._outage is not None:
            raise StoreOutage(
                f"{what} refused: the store is unavailable since {self._outage.since} "
                f"({self._outage.error}); play resumes when it answers"
            )

    def _store_went_away(self, error: BaseException) -> None:
        if self._outage is None:
            self._outage = Outage(since=now_iso(), error=error_text(error))
            log.error("store.unavailable", error=self._outage.error)

    def _store_lost(self, what: str, error: BaseException) -> StoreOutage:
        self._store_went_away(error)
        return StoreOutage(
            f"{what} not recorded: the store is unavailable ({self._outage.error if self._outage else error})"
        )

    def _round_done(self, state: RoundState) -> None:
        """After the last line about a final round is logged: later lines are not the round's."""
        if state.phase.is_final:
            structlog.contextvars.unbind_contextvars("round_id")

    def _refuse(self, what: str, reason: str, kind: type[TableRefused] = TableRefused) -> TableRefused:
        log.warning("table.refused", command=what, reason=reason)
        return kind(f"{what} refused: {reason}")


def table_side_files(settings: TableSettings) -> SideFiles | None:
    """The side wagers the settings offer, read from their pay table files (None: none)."""
    fortune, progressive = settings.fortune, settings.progressive
    envy = EnvyRules(
        minimum_wager=fortune.envy_minimum,
        eligibility=fortune.envy_eligibility,
        player_banker_hand_qualifies=fortune.player_banker_hand_qualifies,
        trigger_needs_wager=fortune.trigger_needs_wager,
    )
    return side_files(
        fortune=fortune.file if fortune.enabled else None,
        progressive=progressive.file if progressive.enabled else None,
        envy=envy,
        pool_id=settings.pool_id,
    )


def _pool_keeper(settings: TableSettings, engine: Engine, table: Any) -> PoolKeeper:
    """The table's progressive pool: linked on the floor's store when ``link_db_url`` is set
    (table/progressive_link.py), else stand-alone in the table's own store."""
    assert settings.pool_id is not None
    progressive = settings.progressive
    if progressive.link_db_url is None:
        return PoolKeeper(engine, pool_id=settings.pool_id, table=table, table_id=settings.table_id)
    from ..storage import make_engine
    from ..storage.rules_store import sha256_hex

    url = progressive.link_db_url
    url += ("&" if "?" in url else "?") + "connect_timeout=3" if "connect_timeout" not in url else ""
    return LinkedPoolKeeper(
        make_engine(url),
        pool_id=settings.pool_id,
        table=table,
        table_id=settings.table_id,
        paytable_sha256=sha256_hex(progressive.file.read_bytes()),  # as round.opened pins it
        window_seconds=progressive.simultaneous_window_seconds,
    )


def _opening(plan: BankPlan, settings: TableSettings) -> dict[str, Any]:
    """The banking fields of ``round.opened``: who banks, the offer, how the dice count."""
    bank = plan.bank
    return {
        "bank": None
        if bank is None
        else RoundBank(
            seat=bank.seat,
            amount=bank.amount,
            house_wager=bank.house_wager,
            house_share_bp=bank.house_share_bp,
        ),
        "bank_offer": plan.offer,
        "dice_direction": settings.dice_direction,
    }


def _bank_history(opened: RoundOpened | None, last_wagers: Mapping[int, int]) -> BankHistory:
    """The rotation of the bank as the last round left it (after a restart): the last offer from
    the last round; each seat's last main wager from storage (``last_main_wagers``), so a seat
    that sat the last round out keeps its own; an ``alternate`` table whose last round was the
    house's starts its next player offer from the first occupied seat."""
    if opened is None:
        return BankHistory(last_wagers=dict(last_wagers))
    banker = opened.banker_seat
    wagers = {seat_of_position(p, banker): w.main for p, w in opened.wagers.items()}
    return BankHistory(last_wagers=dict(last_wagers)).after(opened.bank_offer, wagers)


def _bank_fields(plan: BankPlan) -> dict[str, Any]:
    bank = plan.bank
    if bank is None:
        return {}
    return {
        "bank_cents": bank.amount,
        "house_wager_cents": bank.house_wager,
        "house_share_bp": bank.house_share_bp,
    }


__all__ = [
    "BankRefused",
    "LimitsRefused",
    "RoundChanged",
    "RoundHeld",
    "StoreOutage",
    "TableRefused",
    "TableService",
    "check_wagers",
    "rules_for",
]
