"""No command breaks the table: random sequences of every command on ``TableService`` with its
real store (SQLite and PostgreSQL), checked after every step.

The machine (``TableMachine``) plays every command a table takes, from every kind of actor,
in any order: rounds opened with wagers inside and outside the limits, dice, good deals
(a shuffled deck) and misdeals, player settings (legal, foul, a split other than five and
two, cards not the position's, a card twice, a position without a wager, twice), the
dealer's setting (the house way's, a deviation, a foul, wrong cards), pit overrides, voids,
the table opened and closed, device faults and clears, misdeals in a row holding the table
with deck checks and the pit's clear, a round held by the conductor, settlement, restarts
(the service rebuilt from the store) and store outages (the recorder refusing with
``OperationalError`` until ``retry_store``).

After every step: only typed refusals are raised (``TableRefused``, ``TransitionRefused``,
``StoreOutage`` and their subclasses); a refused command changes neither the round in memory
nor the round's stored events (only ``round.refused`` and ``alert.raised`` notes may be
added); the command was refused exactly when the table's own rules say it must be; the
store's round replays to the round in memory; no round settles twice; every settled round's
money in the projections is the game core's settlement replayed from the stored events; the
chain verifies. At the end every round is settled or voided (the open one is voided).

The pit's desk plays beside the round (docs/accounting.md, docs/dealers.md): rated players
seated, leaving, buying in, their closed ratings adjusted; the opener entered and signed (the
supervisor or another person signing is refused, the dealer it names accepted), fill and credit
slips requested, delivered, voided by two pit users (one person alone refused), the drop and
named lines; dealers signing in to the box; the limits changed (refused once a round's wagers
lock). The machine keeps the tray as the chips would be: the opener, each settled round's
house result, chips sold for the drop, fills and credits delivered (a voided delivered slip
taken back), named lines. After every step: a refused desk command wrote nothing but its
``two-person.refused`` note; the day's fills, credits and drop are the ones the machine made; a
day with both counts has win = drop + (closer - opener) + credits - fills; every rating's
totals are the sums of the settled rounds it lists (its seat's wagers and results), and it lists
every round its seat wagered in while it ran. At the end the closer is the tray: the counted win
less the computed result is the named lines (no chips taken: variance 0).

Each example plays on a table id of its own in the test's database, so one database serves a
whole run. ``benchmarks/bench_stateful.py`` runs the same machine for as long as asked.
"""

from __future__ import annotations

import random
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import Phase as Phase_
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)
from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError
from sqlmodel import col, select
from structlog.testing import capture_logs

from table_controller.accounting.chips import CountKind
from table_controller.accounting.drop import DropKind
from table_controller.accounting.errors import AccountingError
from table_controller.accounting.ratings import AdjustableField, BuyInKind
from table_controller.accounting.slips import SlipKind
from table_controller.game.cards import Card, Game, codes, parse_cards
from table_controller.game.deal import BANKER_POSITION
from table_controller.game.setting import Setting, all_settings, is_legal, same_values
from table_controller.record.recorder import json_payload
from table_controller.round.events import ROUND_EVENT_KINDS, DiceRolled, PilesDealt, Wager, event_from_payload
from table_controller.round.machine import TransitionRefused, replay
from table_controller.round.phases import Phase
from table_controller.settings import TableSettings
from table_controller.storage import accounting as accounting_store
from table_controller.storage import (
    add_user,
    get_positions,
    get_round,
    list_events,
    unit_of_work,
    verify_chain,
)
from table_controller.storage import dealers as dealer_store
from table_controller.storage import ratings as rating_store
from table_controller.storage.errors import StorageError
from table_controller.storage.models import Round, RoundPosition
from table_controller.storage.session import read_snapshot
from table_controller.storage.users import UserExistsError
from table_controller.table import accounting as desk_accounting
from table_controller.table import dealers as desk_dealers
from table_controller.table import ratings as desk_ratings
from table_controller.table.limits import LimitsError
from table_controller.table.service import (
    LimitsRefused,
    RoundHeld,
    StoreOutage,
    TableRefused,
    TableService,
    check_wagers,
    rules_for,
)
from table_controller.table.state import DeckCheck

from .round.tables import BANKER as BANKER_HAND
from .round.tables import POSITION_3, deal

REFUSALS = (TableRefused, TransitionRefused, StoreOutage)
DESK_REFUSALS = (AccountingError, StorageError, LimitsError)  # the desk's typed refusals
NOTES_ON_DESK_REFUSAL = {"two-person.refused"}  # all a refused desk command may add to the chain
PEOPLE = {"dealer-ann": "dealer", "dealer-dan": "dealer", "pit-bob": "pit", "pit-pia": "pit"}
DENOMINATIONS = (1, 100, 500, 2_500, 10_000, 100_000)  # a 1-cent chip: any tray is counted exactly
OPENER = {100_000: 10_000}  # $10,000,000: the tray never runs dry in a sequence
LIMIT_CHOICES = [(500, 100_000, 2_500), (1_000, 50_000, 0), (2_500, 100_000, 2_500), (400, 100_000, 2_500)]
DESK_TABLES: tuple[Any, ...] = (
    accounting_store.AccountingCount,
    accounting_store.AccountingSlip,
    accounting_store.AccountingDrop,
    accounting_store.AccountingLine,
    rating_store.RatingRow,
    rating_store.RatingBuyInRow,
    rating_store.RatingAdjustmentRow,
    dealer_store.DealerStintRow,
)


def ensure_people(engine: Engine) -> None:
    """The pit's people in the store (the examples share it): who signs, delivers, voids, deals."""
    for name, role in PEOPLE.items():
        try:
            with unit_of_work(engine) as session:
                add_user(session, name=name, role=role)
        except UserExistsError:
            pass


def _chips_of(value: int) -> dict[int, int]:
    """``value`` cents in the fewest chips of DENOMINATIONS (greedy: each divides the next's)."""
    chips: dict[int, int] = {}
    for denomination in sorted(DENOMINATIONS, reverse=True):
        count, value = divmod(value, denomination)
        if count:
            chips[denomination] = count
    return chips


@dataclass
class SlipModel:
    kind: SlipKind
    value: int
    delivered: bool = False
    voided: bool = False
    void_asked_by: str | None = None


NOTES_ON_REFUSAL = {"round.refused", "alert.raised"}  # all a refused command may add to the chain
FINAL_KINDS = {"round.settled", "round.voided"}
# What the projection calls each outcome of the game core (the round_positions contract).
OUTCOMES = {"win": "win", "premium": "win", "push": "push", "not-qualified": "push", "lose": "lose"}

ACTORS = ["dealer-ann", "pit-bob", "surveillance-cy", "admin-dee", "auto-dealer", "device:shuffler", "system"]
DEVICES = ["shuffler", "dice-shaker"]
FAULTS = ["door-open", "jam", "link-lost", "cover_open"]
REASONS = ["wagers placed late", "approved by the pit", "shuffler misfeed", "the dealer misread"]
SOME_HAND = "As Ks Qs Js Ts 9s 8s"  # seven cards for a position that was never dealt one


@dataclass
class Stats:
    """What a run played: sequences (examples), steps, refusals by type."""

    sequences: int = 0
    checks: int = 0  # invariant checks: one after the start of each sequence, one after each step
    refused: Counter[str] = field(default_factory=Counter)
    settled: int = 0
    voided: int = 0
    desk: Counter[str] = field(default_factory=Counter)  # desk commands taken, by name
    desk_refused: Counter[str] = field(default_factory=Counter)  # desk commands refused, by name

    @property
    def steps(self) -> int:
        return self.checks - self.sequences


def stored_events(engine: Engine, table_id: str) -> list[Any]:
    with read_snapshot(engine) as session:
        return list_events(session, table_id=table_id)


def _setting_codes(setting: Setting) -> tuple[list[str], list[str]]:
    return codes(setting.high), codes(setting.low)


def _other_card(cards: tuple[Card, ...], pick: int) -> str:
    """A card code that is not one of ``cards``."""
    taken = {c.code for c in cards}
    free = [code for code in codes(Game.STANDARD.deck()) if code not in taken]
    return free[pick % len(free)]


def _outage(*args: Any, **kwargs: Any) -> Any:
    raise OperationalError("INSERT", {}, Exception("connection refused (injected by the state machine)"))


class TableMachine(RuleBasedStateMachine):
    """Every command on one table, with the table's rules as the model of what must be refused."""

    def __init__(self, engine: Engine, stats: Stats | None = None) -> None:
        super().__init__()
        self.engine = engine
        self.stats = stats if stats is not None else Stats()
        self.service: TableService | None = None
        self.down = False  # the store refuses every write (the recorder is patched)
        self.results: dict[str, dict[str, Any]] = {}  # round id -> the result settle() returned
        self.checked: set[str] = set()  # settled rounds whose money was checked

    # -- helpers --------------------------------------------------------------------------------

    @property
    def svc(self) -> TableService:
        assert self.service is not None
        return self.service

    def events(self) -> list[Any]:
        return stored_events(self.engine, self.table_id)

    def snapshot(self) -> dict[str, Any]:
        s = self.svc
        events = self.events()
        return {
            "round": s.round,
            "held": s.held,
            "table_open": s.table_open,
            "hold": s.hold,
            "faults": dict(s.faults),
            "misdeals": s.misdeals,
            "outage": s.outage,
            "round_events": [(e.seq, e.kind) for e in events if e.kind in ROUND_EVENT_KINDS],
            "last_seq": events[-1].seq if events else 0,
        }

    def attempt(
        self, what: str, expected: str | None, call: Callable[..., Any], *args: Any, **kwargs: Any
    ) -> Any:
        """Run one command. ``expected`` is the refusal the table's rules call for (a word for
        the message), or None when the command must be taken; "?" when the model does not say."""
        before = self.snapshot()
        if self.down and expected is None:
            expected = "store"
        try:
            result = call(*args, **kwargs)
        except REFUSALS as refusal:
            self.stats.refused[type(refusal).__name__] += 1
            self._check_unchanged(before, what, refusal)
            if expected is None:
                raise AssertionError(
                    f"{what} was refused although the table should take it: {refusal!r}"
                ) from refusal
            if isinstance(refusal, RoundHeld) and before["held"] is None:
                raise AssertionError(f"{what} failed inside the round and held it: {refusal}") from refusal
            return refusal
        if expected not in (None, "?"):
            raise AssertionError(f"{what} was taken although it should be refused ({expected})")
        return result

    def _check_unchanged(self, before: dict[str, Any], what: str, refusal: Exception) -> None:
        s = self.svc
        assert s.round == before["round"], f"{what} refused ({refusal}) but the round in memory changed"
        assert (s.held is None) == (before["held"] is None) or (
            isinstance(refusal, RoundHeld) and before["held"] is None
        ), f"{what} refused but held changed"
        assert s.table_open == before["table_open"], f"{what} refused but the table opened/closed"
        assert s.hold == before["hold"], f"{what} refused but the table's hold changed"
        assert dict(s.faults) == before["faults"], f"{what} refused but the open faults changed"
        assert s.misdeals == before["misdeals"], f"{what} refused but the misdeal count changed"
        events = self.events()
        after = [(e.seq, e.kind) for e in events if e.kind in ROUND_EVENT_KINDS]
        assert after == before["round_events"], f"{what} refused ({refusal}) but round events were stored"
        added = {e.kind for e in events if e.seq > before["last_seq"]}
        assert added <= NOTES_ON_REFUSAL, f"{what} refused ({refusal}) but {sorted(added)} were stored"

    def phase(self) -> Phase | None:
        return None if self.svc.round is None else self.svc.round.phase

    def round_refusal(self, phase: Phase) -> str | None:
        """Why a round command meant for ``phase`` must be refused now, or None."""
        s = self.svc
        if s.round is None:
            return "no round"
        if s.held is not None:
            return "held"
        if s.round.phase is not phase:
            return "phase"
        return None

    def hand(self, position: int) -> tuple[Card, ...]:
        s = self.svc
        if s.round is not None and position in s.round.hands:
            return s.round.hands[position]
        return parse_cards(SOME_HAND)

    def setting_of(
        self, cards: tuple[Card, ...], kind: str, pick: int, required: Setting | None = None
    ) -> tuple[list[str], list[str], str]:
        """A setting of ``cards`` of the kind asked for, and the kind it turned out to be."""
        every = all_settings(cards)
        legal = [s for s in every if is_legal(s, self.ranking)]
        foul = [s for s in every if not is_legal(s, self.ranking)]
        if kind == "required" and required is not None:
            return (*_setting_codes(required), "required")
        if kind == "deviation" and required is not None:
            others = [s for s in legal if not same_values(s, required, self.ranking)]
            if others:
                return (*_setting_codes(others[pick % len(others)]), "deviation")
            kind = "legal"
        if kind == "foul" and foul:
            return (*_setting_codes(foul[pick % len(foul)]), "foul")
        if kind == "split":
            order = codes(cards)
            cut = (1, 3, 4, 6, 7, 0)[pick % 6]  # 1/6, 3/4, 4/3, 6/1, 7/0, 0/7: a foul by count (004)
            return order[:cut], order[cut:], "split"
        if kind == "wrong":
            high, low = _setting_codes(legal[pick % len(legal)])
            high[pick % 5] = _other_card(cards, pick)
            return high, low, "wrong"
        if kind == "duplicate":
            high, low = _setting_codes(legal[pick % len(legal)])
            high[0] = low[0]
            return high, low, "duplicate"
        return (*_setting_codes(legal[pick % len(legal)]), "legal")

    # -- the table ------------------------------------------------------------------------------

    @initialize(game=st.sampled_from([Game.STANDARD, Game.DOUBLE_JOKER]), hold_after=st.integers(1, 3))
    def start(self, game: Game, hold_after: int) -> None:
        self.table_id = f"sm-{uuid.uuid4().hex[:12]}"
        self.settings = TableSettings(
            table_id=self.table_id,
            game=game,
            misdeal_hold_after=hold_after,
            accounting={"denominations": DENOMINATIONS},
        )
        self.ranking = self.settings.table_rules().ranking
        self.service = TableService(self.settings, self.engine)
        assert self.service.resume() is None
        self.stats.sequences += 1
        self._desk_start()

    @rule(
        wagers=st.dictionaries(
            st.integers(2, 7),
            st.builds(
                Wager,
                main=st.one_of(st.integers(500, 100_000), st.sampled_from([1, 499, 100_001, 10**9])),
                big_hand=st.sampled_from([0, 0, 0, 100, 2_500, 2_501]),
                joker_bonus=st.sampled_from([0, 0, 0, 500, 2_501]),
            ),
            max_size=6,
        ),
        actor=st.sampled_from(ACTORS),
    )
    def open_round(self, wagers: dict[int, Wager], actor: str) -> None:
        s = self.svc
        expected = None
        try:
            check_wagers(self.settings.game, s.limits.main, wagers)
        except TableRefused:
            expected = "limits"
        if not s.table_open:
            expected = "closed"
        elif s.hold is not None:
            expected = "held"
        elif s.in_progress:
            expected = "in progress"
        elif s.faults:
            expected = "fault"
        state = self.attempt("round.open", expected, s.open_round, wagers, actor=actor)
        if state is not None and not isinstance(state, Exception) and not self.down:
            with read_snapshot(self.engine) as session:  # the dealer on the box deals it, else who opened it
                dealt = get_round(session, round_id=state.round_id).dealer
            assert dealt == (self.on_box or actor), (
                f"round {state.round_id} records {dealt}, not {self.on_box}"
            )

    @rule(
        faces=st.tuples(st.integers(1, 6), st.integers(1, 6), st.integers(1, 6)),
        source=st.sampled_from(["shaker", "rng"]),
    )
    def dice(self, faces: tuple[int, int, int], source: str) -> None:
        event = DiceRolled(faces=faces, source=source, actor="device:dice-shaker")  # type: ignore[arg-type]
        self.attempt("dice", self.round_refusal(Phase.OPEN), self.svc.record_dice, event)

    @rule(
        seed=st.integers(0, 2**32 - 1),
        how=st.sampled_from(["good", "good", "good", "duplicate", "interrupted", "short"]),
    )
    def deal(self, seed: int, how: str) -> None:
        deck = codes(self.settings.game.deck())
        shuffler = random.Random(seed)
        shuffler.shuffle(deck)
        piles, unused = [deck[7 * k : 7 * k + 7] for k in range(7)], deck[49:]
        interrupted = None
        if how == "duplicate":  # a card of a pile seen again in the unused cards, one never seen
            seen = [c for c in piles[seed % 7] if c != "JK"]
            unused[0] = seen[(seed // 7) % len(seen)]
        elif how == "short":
            unused = unused[:-1]
        elif how == "interrupted":
            interrupted = "the shuffler stopped mid-deal (jam)"
        event = PilesDealt(piles=piles, unused=unused, interrupted=interrupted, actor="device:shuffler")
        state = self.attempt("deal", self.round_refusal(Phase.DEALING), self.svc.record_deal, event)
        if state is not None and not isinstance(state, Exception):
            assert bool(state.misdeal) == (how != "good"), (
                f"a {how} deal judged misdeal={bool(state.misdeal)}"
            )

    @rule(
        position=st.integers(2, 7),
        kind=st.sampled_from(["legal", "legal", "foul", "split", "wrong", "duplicate"]),
        pick=st.integers(0, 10_000),
        actor=st.sampled_from(ACTORS),
    )
    def player_sets(self, position: int, kind: str, pick: int, actor: str) -> None:
        s = self.svc
        high, low, made = self.setting_of(self.hand(position), kind, pick)
        expected = self.round_refusal(Phase.PLAYERS_SETTING)
        if expected is None:
            assert s.round is not None
            if position not in s.round.wagers:
                expected = "no wager"
            elif position in s.round.player_settings:
                expected = "twice"
            elif made in ("wrong", "duplicate"):
                expected = "not its cards"
        self.attempt(
            f"player.set {position} ({made})", expected, s.set_player, position, high, low, actor=actor
        )

    @rule(
        kind=st.sampled_from(["required", "required", "deviation", "foul", "wrong"]),
        pick=st.integers(0, 10_000),
        actor=st.sampled_from(ACTORS),
    )
    def dealer_sets(self, kind: str, pick: int, actor: str) -> None:
        s = self.svc
        required = None if s.round is None or s.round.required is None else s.round.required.setting
        high, low, made = self.setting_of(self.hand(BANKER_POSITION), kind, pick, required)
        expected = self.round_refusal(Phase.DEALER_SETTING)
        if expected is None and made != "required":
            # a deviation, a foul, wrong cards: refused (only a pit override may let a deviation stand)
            expected = made
        self.attempt(f"dealer.set ({made})", expected, s.set_dealer, high, low, actor=actor)

    @rule(
        kind=st.sampled_from(["required", "deviation", "deviation", "foul", "wrong"]),
        pick=st.integers(0, 10_000),
        reason=st.sampled_from(REASONS),
    )
    def pit_overrides(self, kind: str, pick: int, reason: str) -> None:
        s = self.svc
        required = None if s.round is None or s.round.required is None else s.round.required.setting
        high, low, made = self.setting_of(self.hand(BANKER_POSITION), kind, pick, required)
        expected = self.round_refusal(Phase.DEALER_SETTING)
        if expected is None and made in ("foul", "wrong"):
            expected = made  # the banker's hand is never a foul, in any path
        self.attempt(
            f"dealer.override ({made})",
            expected,
            s.override_dealer,
            high,
            low,
            actor="pit-bob",
            reason=reason,
        )

    @rule()
    def settle(self) -> None:
        state = self.attempt("settle", self.round_refusal(Phase.SETTLING), self.svc.settle)
        if state is not None and not isinstance(state, Exception):
            assert state.round_id not in self.results, f"round {state.round_id} settled twice"
            self.results[state.round_id] = state.result
            self.stats.settled += 1

    @rule(actor=st.sampled_from(ACTORS), reason=st.sampled_from(REASONS))
    def void(self, actor: str, reason: str) -> None:
        s = self.svc
        expected = "no round" if s.round is None else ("final" if s.round.phase.is_final else None)
        state = self.attempt("void", expected, s.void, actor, reason)
        if state is not None and not isinstance(state, Exception):
            assert s.held is None and state.phase is Phase.VOID
            self.stats.voided += 1

    @rule(what=st.sampled_from(["the conductor failed: RuntimeError: boom", "the shuffler port closed"]))
    def hold_round(self, what: str) -> None:
        s = self.svc
        was_held, running = s.held, s.in_progress
        s.hold_round(what)  # never raises, never refused: a no-op without a running round
        assert s.held == (was_held if (was_held is not None or not running) else what)

    @rule(is_open=st.booleans(), actor=st.sampled_from(ACTORS))
    def open_or_close_table(self, is_open: bool, actor: str) -> None:
        s = self.svc
        self.attempt("table.open" if is_open else "table.close", None, s.set_table_open, is_open, actor=actor)
        if not self.down:
            assert s.table_open is is_open
            if not is_open:  # the table's closing ends every rating at it (docs/accounting.md, "Ratings")
                self.seated.clear()

    @rule(
        action=st.sampled_from(["fault", "clear", "clear", "reconcile"]),
        device=st.sampled_from(DEVICES),
        kind=st.sampled_from(FAULTS),
        pick=st.integers(0, 100),
    )
    def device_reports(self, action: str, device: str, kind: str, pick: int) -> None:
        """The conductor's device events: a fault or a lost link, its clear, the status at start."""
        s = self.svc
        if action == "fault":
            s.device_fault(device, kind, "door 2" if pick % 2 else "")  # never raises, even on an outage
            assert (device, kind) in s.faults
        elif action == "clear":
            open_faults = sorted(s.faults)
            device, kind = open_faults[pick % len(open_faults)] if open_faults else (device, kind)
            s.fault_cleared(device, kind, "the device says so")
            assert (device, kind) not in s.faults
        else:
            reported = {k for i, k in enumerate(FAULTS) if pick >> i & 1}
            s.reconcile_faults(device, reported)

    # -- misdeals in a row, deck checks, the pit's clear ----------------------------------------

    @rule(
        action=st.sampled_from(["check", "check", "request", "clear", "clear"]),
        complete=st.booleans(),
        error=st.sampled_from([None, None, "the reader timed out"]),
        actor=st.sampled_from(["pit-bob", "dealer-ann"]),
    )
    def deck(self, action: str, complete: bool, error: str | None, actor: str) -> None:
        if action == "check":
            self.deck_checked(complete, error)
        elif action == "request":
            s = self.svc
            self.attempt("deck.check", "not held" if s.hold is None else None, s.request_deck_check, actor)
        else:
            self.clear_hold(actor)

    def deck_checked(self, complete: bool, error: str | None) -> None:
        s = self.svc
        if error is not None:
            check = DeckCheck(complete=False, error=error)
        elif complete:
            check = DeckCheck(complete=True, scanned=self.settings.game.deck_size)
        else:
            check = DeckCheck(
                complete=False, scanned=self.settings.game.deck_size, missing=("3d",), duplicated=(("As", 2),)
            )
        before = s.hold
        s.record_deck_check(check)  # the conductor's; never refused
        if before is None:
            assert s.hold is None
        else:
            assert s.hold is not None and s.hold.deck_check == check and not s.hold.deck_check_wanted

    def clear_hold(self, actor: str) -> None:
        s = self.svc
        hold = s.hold
        if hold is None:
            expected: str | None = "not held"
        elif hold.deck_check is None or hold.deck_check_wanted:
            expected = "no deck check"
        elif not hold.deck_check.complete:
            expected = "not clean"
        else:
            expected = None
        self.attempt("hold.clear", expected, s.clear_hold, actor)
        if expected is None and not self.down:
            assert s.hold is None and s.misdeals == 0

    # -- restarts and outages -------------------------------------------------------------------

    @precondition(lambda self: not self.down)
    @rule()
    def restart(self) -> None:
        before = self.svc
        again = TableService(self.settings, self.engine)
        again.resume()
        # a restart restores the open round; a finished one is history (find_open_round)
        assert again.round == (before.round if before.in_progress else None), "the restored round differs"
        assert again.table_open == before.table_open, "the restored table is not open/closed as before"
        assert again.hold == before.hold, "the restored hold differs"
        assert set(again.faults) == set(before.faults), "the restored open faults differ"
        held = before.held if before.in_progress else None
        assert (again.held is None) == (held is None), f"held {held!r} restored as {again.held!r}"
        if held is not None:
            assert again.held == before.held, f"held {before.held!r} restored as {again.held!r}"
        assert (again.limits, again.wager_limits) == (before.limits, before.wager_limits), "the limits"
        assert again.misdeals == before.misdeals, (
            f"the restored count of misdeals in a row is {again.misdeals}, it was {before.misdeals}"
        )
        self.service = again

    @rule(action=st.sampled_from(["away", "retry", "back"]))
    def store(self, action: str) -> None:
        """The store goes away (every write raises OperationalError), is retried, comes back."""
        s = self.svc
        if not self.down:
            if action == "away":
                for name in ("notes", "record", "open"):
                    setattr(
                        s.recorder, name, _outage
                    )  # an instance attribute: deleted when the store is back
                self.down = True
            else:
                assert s.retry_store() is True and s.outage is None
        elif action == "retry":
            assert s.retry_store() is (s.outage is None)
        else:
            self._store_back()

    # -- a diligent table: the next step of the round, as the conductor and the dealer would ----

    def next_step(self, pick: int) -> None:
        s = self.svc
        if self.down:
            self._store_back()
        elif not s.table_open:
            self.attempt("table.open", None, s.set_table_open, True, actor="pit-bob")
        elif s.hold is not None:
            if s.hold.deck_check is None or s.hold.deck_check_wanted or not s.hold.deck_check.complete:
                self.deck_checked(True, None)
            else:
                self.clear_hold("pit-bob")
        elif s.held is not None:
            self.void("pit-bob", "the round was held")
        elif s.round is None or s.round.phase.is_final:
            if s.faults:
                device, kind = min(s.faults)
                s.fault_cleared(device, kind, "fixed")
            else:
                rng = random.Random(pick)
                positions = rng.sample(range(2, 8), rng.randint(1, 6))
                bonus = self.settings.game is Game.DOUBLE_JOKER
                wagers = {
                    p: Wager(
                        main=rng.choice([500, 2500, 10_000, 100_000]),
                        big_hand=rng.choice([0, 500]) if bonus else 0,
                        joker_bonus=rng.choice([0, 2500]) if bonus else 0,
                    )
                    for p in positions
                }
                self.open_round(wagers, "dealer-ann")
        elif s.round.phase is Phase.OPEN:
            self.dice((1 + pick % 6, 1 + pick // 6 % 6, 1 + pick // 36 % 6), "shaker")
        elif s.round.phase is Phase.DEALING:
            self.deal(pick, "good" if pick % 5 else "duplicate")
        elif s.round.phase is Phase.PLAYERS_SETTING:
            position = min(set(s.round.wagers) - set(s.round.player_settings))
            self.player_sets(
                position, ("legal", "legal", "legal", "foul", "split")[pick % 5], pick, "dealer-ann"
            )
        elif s.round.phase is Phase.DEALER_SETTING:
            if pick % 4:
                self.dealer_sets("required", pick, "dealer-ann")
            else:
                self.pit_overrides("deviation", pick, "approved by the pit")
        elif s.round.phase is Phase.SETTLING:
            self.settle()

    @rule(pick=st.integers(0, 10_000), steps=st.integers(1, 10))
    def play_on(self, pick: int, steps: int) -> None:
        for step in range(steps):
            self.next_step(pick + step)

    @rule(pick=st.integers(0, 10_000), steps=st.integers(1, 10))
    def play_on_too(self, pick: int, steps: int) -> None:
        for step in range(steps):
            self.next_step(pick + step)

    @rule(pick=st.integers(0, 10_000), steps=st.integers(1, 10))
    def and_play_on(self, pick: int, steps: int) -> None:
        for step in range(steps):
            self.next_step(pick + step)

    @rule(pick=st.integers(0, 10_000), steps=st.integers(1, 10))
    def keep_playing(self, pick: int, steps: int) -> None:
        for step in range(steps):
            self.next_step(pick + step)

    def _store_back(self) -> None:
        recorder = self.svc.recorder
        for name in ("notes", "record", "open"):
            recorder.__dict__.pop(name, None)
        self.down = False
        assert self.svc.retry_store() is True and self.svc.outage is None

    # -- the pit's desk: ratings, accounting, dealers, limits --------------------------------------

    def _desk_start(self) -> None:
        ensure_people(self.engine)
        self.pit_desk = desk_accounting.Desk.of(self.settings)
        self.rating_desk = desk_ratings.RatingDesk.of(self.settings)
        self.dealer_desk = desk_dealers.DealerDesk.of(self.settings)
        self.day = self.pit_desk.today(datetime.now(UTC))
        self.players = [f"{self.table_id[3:11]}-{n}" for n in range(4)]  # card numbers of this example
        self.seated: dict[int, str] = {}  # seat -> the rating id open there
        self.players_at: dict[str, str] = {}  # rating id -> its card number
        self.ratings: set[str] = set()
        self.opener: int | None = None  # the opener's count id
        self.opener_signed = False
        self.tray = sum(d * n for d, n in OPENER.items())  # the chips in the tray, as the machine moves them
        self.slips: dict[int, SlipModel] = {}
        self.drop = 0
        self.lines = 0
        self.markers = 0
        self.on_box: str | None = None

    def desk_rows(self) -> list[Any]:
        with read_snapshot(self.engine) as session:
            return [
                sorted(
                    row.model_dump_json()
                    for row in session.exec(select(table).where(table.table_id == self.table_id))
                )
                for table in DESK_TABLES
            ]

    def at_desk(
        self, what: str, expected: str | None, call: Callable[..., Any], *args: Any, **kwargs: Any
    ) -> Any:
        """One desk command: ``expected`` as for ``attempt``. A refusal must be a typed one and
        must leave every desk row as it was, its chain holding at most a ``two-person.refused``."""
        rows, last = self.desk_rows(), self.snapshot()["last_seq"]
        try:
            result = call(*args, **kwargs)
        except DESK_REFUSALS as refusal:
            self.stats.desk_refused[what] += 1
            assert self.desk_rows() == rows, f"{what} refused ({refusal!r}) but desk rows changed"
            added = {e.kind for e in self.events() if e.seq > last}
            assert added <= NOTES_ON_DESK_REFUSAL, (
                f"{what} refused ({refusal!r}) but {sorted(added)} were stored"
            )
            if expected is None:
                raise AssertionError(
                    f"{what} was refused although the desk should take it: {refusal!r}"
                ) from refusal
            return refusal
        self.stats.desk[what] += 1
        if expected not in (None, "?"):
            raise AssertionError(f"{what} was taken although it should be refused ({expected})")
        return result

    @rule(seat=st.integers(2, 7), pick=st.integers(0, 3))
    def rated_player_sits(self, seat: int, pick: int) -> None:
        player = self.players[pick]
        expected = None
        if seat in self.seated:
            expected = "seat held"
        elif player in {self.players_at[rating_id] for rating_id in self.seated.values()}:
            expected = "card seated"
        done = self.at_desk(
            "rating.seat",
            expected,
            desk_ratings.seat_player,
            self.engine,
            self.rating_desk,
            seat=seat,
            player=player,
            by="dealer-ann",
        )
        if expected is None:
            self.seated[seat] = done.rating.rating_id
            self.ratings.add(done.rating.rating_id)
            self.players_at[done.rating.rating_id] = player

    @rule(seat=st.integers(2, 7))
    def rated_player_leaves(self, seat: int) -> None:
        expected = None if seat in self.seated else "no rated player"
        self.at_desk(
            "rating.leave",
            expected,
            desk_ratings.leave_seat,
            self.engine,
            self.rating_desk,
            seat=seat,
            by="dealer-ann",
        )
        if expected is None:
            del self.seated[seat]

    @rule(
        seat=st.integers(2, 7),
        kind=st.sampled_from(list(BuyInKind)),
        amount=st.sampled_from([10_000, 2_500, 0, -100]),
    )
    def buy_in(self, seat: int, kind: BuyInKind, amount: int) -> None:
        expected = None if seat in self.seated and amount > 0 else "refused"
        self.at_desk(
            "rating.buy-in",
            expected,
            desk_ratings.add_buy_in,
            self.engine,
            self.rating_desk,
            seat=seat,
            kind=kind,
            amount=amount,
            by="pit-bob",
        )

    @rule(
        pick=st.integers(0, 100),
        value=st.sampled_from([0, 12_500, -2_500]),
        reason=st.sampled_from(["", "the wrong seat was rated"]),
    )
    def adjust_rating(self, pick: int, value: int, reason: str) -> None:
        if not self.ratings:
            return
        rating_id = sorted(self.ratings)[pick % len(self.ratings)]
        expected = "open" if rating_id in self.seated.values() else "no reason" if not reason else None
        self.at_desk(
            "rating.adjust",
            expected,
            desk_ratings.adjust_rating,
            self.engine,
            self.rating_desk,
            rating_id=rating_id,
            field=AdjustableField.ACTUAL_WIN,
            new_value=value,
            reason=reason,
            actor="pit-pia",
        )

    @rule()
    def enter_opener(self) -> None:
        expected = "twice" if self.opener is not None else None
        done = self.at_desk(
            "count.opener",
            expected,
            desk_accounting.enter_count,
            self.engine,
            self.pit_desk,
            kind=CountKind.OPENER,
            day=self.day,
            shift=None,
            chips=OPENER,
            supervisor="pit-bob",
            dealer="dealer-ann",
        )
        if expected is None:
            self.opener = done.id

    @rule(signer=st.sampled_from(["dealer-ann", "pit-bob", "pit-pia"]))
    def sign_opener(self, signer: str) -> None:
        """The supervisor who entered it is refused (one person), another pit user too; the
        dealer it names signs (the second person)."""
        if self.opener is None:
            return
        expected = "signed" if self.opener_signed else None if signer == "dealer-ann" else "two-person"
        self.at_desk(
            "count.sign",
            expected,
            desk_accounting.sign_count,
            self.engine,
            self.pit_desk,
            count_id=self.opener,
            signer=signer,
        )
        if expected is None:
            self.opener_signed = True

    @rule()
    def closer_before_the_opener_is_signed(self) -> None:
        if self.opener_signed:
            return  # the closer is the day's last step: the teardown's
        self.at_desk(
            "count.closer",
            "no signed opener",
            desk_accounting.enter_count,
            self.engine,
            self.pit_desk,
            kind=CountKind.CLOSER,
            day=self.day,
            shift=None,
            chips=_chips_of(self.tray),
            supervisor="pit-bob",
            dealer="dealer-ann",
        )

    @rule(kind=st.sampled_from(list(SlipKind)), count=st.sampled_from([4, 40, 0]))
    def request_slip(self, kind: SlipKind, count: int) -> None:
        chips = {2_500: count} if count else {}
        done = self.at_desk(
            "slip.request",
            None if count else "no chips",
            desk_accounting.request_slip,
            self.engine,
            self.pit_desk,
            kind=kind,
            chips=chips,
            requested_by="pit-bob",
        )
        if count:
            self.slips[done.slip.number] = SlipModel(kind, 2_500 * count)

    def _slip(self, pick: int) -> tuple[int, SlipModel | None]:
        if not self.slips or pick % 7 == 0:
            return 10**9, None  # no such slip
        number = sorted(self.slips)[pick % len(self.slips)]
        return number, self.slips[number]

    def _tray_moves(self, slip: SlipModel, sign: int) -> None:
        self.tray += sign * (slip.value if slip.kind is SlipKind.FILL else -slip.value)

    @rule(pick=st.integers(0, 100), runner=st.sampled_from(["runner-rex", "runner-rex", "dealer-ann"]))
    def deliver_slip(self, pick: int, runner: str) -> None:
        number, slip = self._slip(pick)
        if slip is None:
            expected: str | None = "no such slip"
        elif slip.void_asked_by is not None or slip.delivered or slip.voided:
            expected = "out of order"
        else:
            expected = "one person" if runner == "dealer-ann" else None
        self.at_desk(
            "slip.deliver",
            expected,
            desk_accounting.deliver_slip,
            self.engine,
            self.pit_desk,
            number=number,
            runner=runner,
            table_signer="dealer-ann",
        )
        if expected is None and slip is not None:
            slip.delivered = True
            self._tray_moves(slip, +1)

    @rule(pick=st.integers(0, 100), asker=st.sampled_from(["pit-bob", "pit-pia"]))
    def ask_void(self, pick: int, asker: str) -> None:
        number, slip = self._slip(pick)
        expected = (
            "no such slip"
            if slip is None
            else "voided or waiting"
            if slip.voided or slip.void_asked_by
            else None
        )
        self.at_desk(
            "slip.void-ask",
            expected,
            desk_accounting.ask_void,
            self.engine,
            self.pit_desk,
            number=number,
            asked_by=asker,
            reason="asked twice",
        )
        if expected is None and slip is not None:
            slip.void_asked_by = asker

    @rule(pick=st.integers(0, 100), approver=st.sampled_from(["pit-bob", "pit-pia"]))
    def confirm_void(self, pick: int, approver: str) -> None:
        """One person alone is refused (chained); a second pit user voids the slip."""
        number, slip = self._slip(pick)
        if slip is None:
            expected: str | None = "no such slip"
        elif slip.voided:
            expected = "voided"
        elif slip.void_asked_by is None:
            expected = "no void asked"
        else:
            expected = "one person" if approver == slip.void_asked_by else None
        self.at_desk(
            "slip.void",
            expected,
            desk_accounting.confirm_void,
            self.engine,
            self.pit_desk,
            number=number,
            approved_by=approver,
        )
        if expected is None and slip is not None:
            if slip.delivered:  # the chips go back the way they came: the slip no longer counts
                self._tray_moves(slip, -1)
            slip.voided, slip.void_asked_by = True, None

    @rule(kind=st.sampled_from(list(DropKind)), amount=st.sampled_from([10_000, 50_000, 0, -100]))
    def enter_drop(self, kind: DropKind, amount: int) -> None:
        reference = None
        if kind is DropKind.MARKER:
            self.markers += 1
            reference = f"M-{self.markers}"
        # an empty box is a drop of 0; a marker is never of 0
        expected = None if amount > 0 or (amount == 0 and kind is DropKind.CASH) else "amount"
        self.at_desk(
            "drop",
            expected,
            desk_accounting.enter_drop,
            self.engine,
            self.pit_desk,
            day=self.day,
            shift=None,
            kind=kind,
            amount=amount,
            reference=reference,
            entered_by="pit-bob",
        )
        if expected is None:
            self.drop += amount
            self.tray -= amount  # chips sold for the cash or the marker

    @rule(amount=st.sampled_from([500, -300, 0]))
    def named_line(self, amount: int) -> None:
        done = self.at_desk(
            "line",
            "?",
            desk_accounting.enter_line,
            self.engine,
            self.pit_desk,
            day=self.day,
            shift=None,
            name="chip exchange",
            amount=amount,
            entered_by="pit-bob",
        )
        if not isinstance(done, Exception):
            self.lines += amount
            self.tray += amount  # what the line names moved the tray

    @rule(dealer=st.sampled_from(["dealer-ann", "dealer-dan", "pit-bob"]), out=st.booleans())
    def dealer_box(self, dealer: str, out: bool) -> None:
        if out:
            expected = None if self.on_box is not None else "nobody on the box"
            self.at_desk(
                "dealer.out", expected, desk_dealers.sign_out, self.engine, self.dealer_desk, by="pit-bob"
            )
            if expected is None:
                self.on_box = None
            return
        expected = "on the box already" if self.on_box == dealer else None
        self.at_desk(
            "dealer.in",
            expected,
            desk_dealers.sign_in,
            self.engine,
            self.dealer_desk,
            dealer=dealer,
            by="pit-bob",
        )
        if expected is None:
            self.on_box = dealer

    @rule(pick=st.integers(0, len(LIMIT_CHOICES) - 1))
    def change_limits(self, pick: int) -> None:
        s = self.svc
        low, high, bonus = LIMIT_CHOICES[pick]
        before = s.limits
        expected: str | None = None
        if low < self.settings.limits.min_main:
            expected = "past the approved"
        elif (low, high, bonus) == (before.main.min_main, before.main.max_main, before.main.max_bonus):
            expected = "the same"
        if s.round is not None and s.in_progress and s.round.phase is not Phase.OPEN:
            expected = "locked"
        if s.outage is not None:
            expected = "store"
        rows, last = self.desk_rows(), self.snapshot()["last_seq"]
        try:
            s.change_limits(min_main=low, max_main=high, max_bonus=bonus, actor="pit-bob")
        except (LimitsError, LimitsRefused, StoreOutage) as refusal:
            assert expected is not None, f"limits refused although they should be taken: {refusal!r}"
            assert s.limits == before and self.desk_rows() == rows
            assert not [e for e in self.events() if e.seq > last and e.kind != "round.refused"]
            return
        assert expected is None, f"limits taken although they should be refused ({expected})"
        assert (s.limits.main.min_main, s.limits.main.max_main, s.limits.main.max_bonus) == (low, high, bonus)

    def next_desk_step(self, pick: int) -> None:
        """A diligent pit: the next sensible step at the desk, as ``next_step`` is for the round."""
        free = [seat for seat in range(2, 8) if seat not in self.seated]
        closed = sorted(self.ratings - set(self.seated.values()))
        requested = [n for n, slip in sorted(self.slips.items()) if not (slip.delivered or slip.voided)]
        choice = pick % 9
        if self.opener is None or not self.opener_signed:
            self.enter_opener() if self.opener is None else self.sign_opener(
                ("dealer-ann", "pit-bob")[pick % 2]
            )
        elif choice == 0 and free:
            taken = {self.players_at[r] for r in self.seated.values()}
            player = next((n for n, p in enumerate(self.players) if p not in taken), None)
            if player is not None:
                self.rated_player_sits(free[pick % len(free)], player)
        elif choice == 1 and self.seated:
            self.buy_in(sorted(self.seated)[pick % len(self.seated)], BuyInKind.CASH, 10_000)
        elif choice == 2 and self.seated:
            self.rated_player_leaves(sorted(self.seated)[pick % len(self.seated)])
        elif choice == 3 and closed:
            self.adjust_rating(pick, 12_500, "the wrong seat was rated")
        elif choice == 4:
            self.request_slip((SlipKind.FILL, SlipKind.CREDIT)[pick % 2], 40)
        elif choice == 5 and requested:
            self.deliver_slip(sorted(self.slips).index(requested[0]) + 1, "runner-rex")
        elif choice == 6 and self.slips:
            number = sorted(self.slips)[pick % len(self.slips)]
            slip = self.slips[number]
            index = sorted(self.slips).index(number) + 7 * len(self.slips)  # never the "no such slip" pick
            if slip.void_asked_by is None:
                self.ask_void(index, "pit-bob")
            else:  # one person alone first (refused), then the second
                self.confirm_void(index, slip.void_asked_by)
                self.confirm_void(index, "pit-pia" if slip.void_asked_by == "pit-bob" else "pit-bob")
        elif choice == 7:
            self.enter_drop((DropKind.CASH, DropKind.MARKER)[pick % 2], 25_000)
        else:
            self.dealer_box(("dealer-ann", "dealer-dan")[pick % 2], False)

    @rule(pick=st.integers(0, 10_000), steps=st.integers(1, 8))
    def pit_works(self, pick: int, steps: int) -> None:
        for step in range(steps):
            self.next_desk_step(pick + step)

    @invariant()
    def the_desk_adds_up(self) -> None:
        if self.service is None:
            return
        with read_snapshot(self.engine) as session:
            found = desk_accounting.day_accounting(session, self.pit_desk, day=self.day, shift=None)
            counted = [r.slip for r in found.slips if r.slip.counts]
            fills = sum(x.value for x in counted if x.kind is SlipKind.FILL)
            credits = sum(x.value for x in counted if x.kind is SlipKind.CREDIT)
            model = [x for x in self.slips.values() if x.delivered and not x.voided]
            assert fills == sum(x.value for x in model if x.kind is SlipKind.FILL), "the day's fills"
            assert credits == sum(x.value for x in model if x.kind is SlipKind.CREDIT), "the day's credits"
            assert sum(r.entry.amount for r in found.drop) == self.drop, "the day's drop"
            assert sum(r.line.amount for r in found.lines) == self.lines, "the day's named lines"
            account = found.account
            if account is not None:
                assert account.win == account.drop.total + (account.closer - account.opener) + credits - fills
            self._ratings_add_up(session)

    def _ratings_add_up(self, session: Any) -> None:
        """Every rating's totals are the sums of the settled rounds it lists, at its seat; and it
        lists every settled round its seat wagered in while it ran."""
        live = {
            r.rating.rating_id: r.rating
            for r in rating_store.seated(
                session, table_id=self.table_id, now=datetime.now(UTC), folding=self.rating_desk.folding
            )
        }
        for rating_id in self.ratings:
            rating = (
                live.get(rating_id)
                or rating_store.get_rating(session, table_id=self.table_id, rating_id=rating_id).rating
            )
            rows = (
                {
                    p.round_id: p
                    for p in session.exec(
                        select(RoundPosition).where(
                            RoundPosition.position == rating.seat,
                            col(RoundPosition.round_id).in_(list(rating.round_ids)),
                        )
                    )
                }
                if rating.round_ids
                else {}
            )
            assert set(rows) == set(rating.round_ids), f"{rating_id} lists rounds its seat did not play"
            assert rating.rounds == len(rating.round_ids)
            assert rating.main_wagered == sum(p.wager_cents for p in rows.values()), (
                f"{rating_id}: main wagered"
            )
            assert rating.bonus_wagered == sum(
                p.big_hand_bonus_cents + p.joker_bonus_cents for p in rows.values()
            )
            assert rating.actual_win == -sum(p.net_cents for p in rows.values()), (
                f"{rating_id}: the house's actual win"
            )
            played = session.exec(
                select(RoundPosition.round_id)
                .join(Round, Round.round_id == RoundPosition.round_id)
                .where(
                    Round.table_id == self.table_id,
                    Round.phase == Phase.CLOSED.value,
                    RoundPosition.position == rating.seat,
                    Round.closed_at > rating.start,
                    *([] if rating.end is None else [Round.closed_at < rating.end]),
                )
            ).all()
            assert set(played) <= set(rating.round_ids), f"{rating_id} misses rounds its seat played"

    def _close_the_day(self) -> None:
        """The day's last step: the opener signed, the closer counted from the tray (no chips
        taken), the day reconciled: the counted win less the computed result is the named lines."""
        if (
            self.on_box is not None
        ):  # the game closes: the dealer leaves the box (the examples share the people)
            self.dealer_box(self.on_box, True)
        if self.opener is None:
            self.enter_opener()
        if not self.opener_signed:
            self.sign_opener("dealer-ann")
        with read_snapshot(self.engine) as session:
            rounds = accounting_store.settled_rounds(
                session,
                table_id=self.table_id,
                start=self.pit_desk.period(self.day, None).start,
                end=self.pit_desk.period(self.day, None).end,
            )
        computed = sum(r.house_result for r in rounds)
        assert computed == sum(result.house_result for result in self.results.values()), (
            "the game core's results"
        )
        closer = self.at_desk(
            "count.closer",
            None,
            desk_accounting.enter_count,
            self.engine,
            self.pit_desk,
            kind=CountKind.CLOSER,
            day=self.day,
            shift=None,
            chips=_chips_of(self.tray + computed),
            supervisor="pit-bob",
            dealer="dealer-ann",
        )
        self.at_desk(
            "count.sign",
            None,
            desk_accounting.sign_count,
            self.engine,
            self.pit_desk,
            count_id=closer.id,
            signer="dealer-ann",
        )
        found, kept = desk_accounting.reconcile_day(
            self.engine, self.pit_desk, day=self.day, shift=None, reconciled_by="pit-bob"
        )
        assert found.account is not None and found.reconciliation is not None
        assert found.reconciliation.counted_win - found.reconciliation.computed_result == self.lines
        assert kept.variance == 0 and kept.alert_seq is None, f"chips were taken: variance {kept.variance}"

    # -- after every step -----------------------------------------------------------------------

    @invariant()
    def the_table_is_whole(self) -> None:
        if self.service is None:
            return
        self.stats.checks += 1
        s = self.svc
        events = self.events()
        with read_snapshot(self.engine) as session:
            report = verify_chain(session, table_id=self.table_id)
            assert report.ok, f"the chain is broken: {report}"
            by_round: dict[str, list[Any]] = {}
            for e in events:
                if e.kind in ROUND_EVENT_KINDS:
                    by_round.setdefault(e.round_id, []).append(e)
            for round_id, round_events in by_round.items():
                kinds = [e.kind for e in round_events]
                assert kinds[0] == "round.opened" and kinds.count("round.opened") == 1
                assert sum(k in FINAL_KINDS for k in kinds) <= 1, f"round {round_id} ended twice: {kinds}"
                if "round.settled" in kinds and round_id not in self.checked:
                    self._check_money(session, round_id, round_events)
                    self.checked.add(round_id)
            if not self.down and s.round is not None:
                stored = by_round.get(s.round.round_id, [])
                assert stored, f"round {s.round.round_id} is in memory but not in the store"
                replayed = replay([event_from_payload(json_payload(e.payload)) for e in stored], rules_for)
                assert replayed == s.round, f"the store replays round {s.round.round_id} to another state"

    def _check_money(self, session: Any, round_id: str, round_events: list[Any]) -> None:
        """The projections' money is the game core's settlement replayed from the stored inputs."""
        state = replay([event_from_payload(json_payload(e.payload)) for e in round_events], rules_for)
        assert state.phase is Phase.CLOSED and state.result is not None
        if round_id in self.results:
            assert self.results[round_id] == state.result, (
                f"round {round_id}: settled and replayed results differ"
            )
        result = state.result.as_dict()
        totals = result["totals"]
        row = get_round(session, round_id=round_id)
        assert row.phase == Phase.CLOSED.value and not row.voided
        assert row.wagered_cents == sum(w.main for w in state.wagers.values()) == totals["main_wagered"]
        assert row.bonus_wagered_cents == totals["bonus_wagered"]
        assert (row.commission_cents, row.bonuses_paid_cents, row.house_result_cents) == (
            totals["commission"],
            totals["bonuses_paid"],
            totals["house_result"],
        ), f"round {round_id}: totals"
        assert totals["house_result"] == -sum(p["net"] for p in result["positions"])
        positions = {p.position: p for p in get_positions(session, round_id=round_id)}
        assert set(positions) == {BANKER_POSITION, *state.wagers}
        for record in result["positions"]:
            row_p = positions[record["position"]]
            bonus_paid = sum(max(b["net"], 0) for b in record["bonuses"])
            assert (
                row_p.outcome,
                row_p.fouled,
                row_p.win_cents,
                row_p.commission_cents,
                row_p.bonus_paid_cents,
                row_p.net_cents,
            ) == (
                OUTCOMES[record["outcome"]],
                record["foul"] is not None,
                record["win"],
                record["commission"],
                bonus_paid,
                record["net"],
            ), f"round {round_id} position {record['position']}: projection differs from the settlement"
            wager = state.wagers[record["position"]]
            assert (row_p.wager_cents, row_p.big_hand_bonus_cents, row_p.joker_bonus_cents) == (
                wager.main,
                wager.big_hand,
                wager.joker_bonus,
            )

    def teardown(self) -> None:
        """The last step: the store back, the open round voided; every round ended exactly once."""
        if self.service is None:
            return
        if self.down:
            self._store_back()
        s = self.svc
        if s.in_progress:
            s.void("pit-bob", "end of the sequence")
            self.stats.voided += 1
        assert not s.in_progress
        self._close_the_day()
        events = self.events()
        opened = [e.round_id for e in events if e.kind == "round.opened"]
        with read_snapshot(self.engine) as session:
            for round_id in opened:
                kinds = [e.kind for e in events if e.round_id == round_id and e.kind in ROUND_EVENT_KINDS]
                row = get_round(session, round_id=round_id)
                misdealt = row.misdeal and kinds[-1] == "piles.dealt"
                assert misdealt or kinds[-1] in FINAL_KINDS, f"round {round_id} never ended: {kinds}"
                assert row.closed_at is not None and row.phase in (Phase.CLOSED.value, Phase.VOID.value)
                assert (row.phase == Phase.CLOSED.value) == ("round.settled" in kinds)
        self.the_table_is_whole()


# The suite's budget: fixed and derandomized, a few seconds per backend. The long run is
# ``python -m benchmarks.bench_stateful``.
SUITE_BUDGET = settings(
    max_examples=15,
    stateful_step_count=30,
    deadline=None,
    derandomize=True,
    database=None,
    phases=[Phase_.explicit, Phase_.reuse, Phase_.generate],  # no shrinking: a failure prints its sequence
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)


def run_machine(engine: Engine, budget: settings = SUITE_BUDGET, stats: Stats | None = None) -> Stats:
    stats = stats if stats is not None else Stats()
    with capture_logs():  # thousands of log lines, none of them read here
        run_state_machine_as_test(lambda: TableMachine(engine, stats), settings=budget)
    return stats


def test_no_command_sequence_breaks_the_table(engine):
    stats = run_machine(engine)
    assert stats.sequences >= 15 and stats.steps > stats.sequences * 10
    assert stats.settled > 0 and stats.refused  # the budget reaches settlement and refusals
    # and the desk: ratings seated, bought in, left and adjusted, slips delivered and voided by two
    # people (one alone refused), the counts signed, the day closed and reconciled each time
    assert {
        "rating.seat",
        "rating.buy-in",
        "rating.leave",
        "rating.adjust",
        "slip.deliver",
        "slip.void",
    } <= set(stats.desk)
    assert stats.desk["count.closer"] == stats.sequences and {"count.sign", "slip.void"} <= set(
        stats.desk_refused
    )


# -- the bugs the machine found (fixed), each as its minimal sequence ---------------------------------------


def test_a_player_foul_by_card_count_is_recorded_not_held(engine):
    """Found by the machine (fixed in b438643): the projection refused a 6/1 split and the round was held."""
    service = TableService(TableSettings(table_id="t1"), engine)
    service.open_round({3: Wager(main=2500)}, actor="dealer-ann")
    service.record_dice(DiceRolled(faces=(1, 1, 1), source="rng"))
    piles, unused = deal({1: BANKER_HAND, 3: POSITION_3}, start=3)
    service.record_deal(PilesDealt(piles=piles, unused=unused))
    # six behind, one in front: a foul (004), settled by the foul rule; PlayerSet and the API accept it
    state = service.set_player(3, ["As", "Ah", "Kd", "Kh", "9c", "8c"], ["2c"], actor="dealer-ann")
    assert state.phase is Phase.DEALER_SETTING and service.held is None


def test_a_cleared_hold_stays_cleared_after_a_restart(engine):
    settings_ = TableSettings(table_id="t1", misdeal_hold_after=2)
    service = TableService(settings_, engine)
    for _ in range(2):
        service.open_round({3: Wager(main=2500)}, actor="dealer-ann")
        service.record_dice(DiceRolled(faces=(1, 1, 1), source="rng"))
        piles, unused = deal({3: POSITION_3}, start=3)
        unused[0] = piles[2][0]  # the same card twice
        assert service.record_deal(PilesDealt(piles=piles, unused=unused)).misdeal
    service.record_deck_check(DeckCheck(complete=True, scanned=53))
    service.clear_hold("pit-bob")
    assert service.misdeals == 0
    again = TableService(settings_, engine)
    again.resume()
    assert again.misdeals == 0  # restored as 2: one more misdeal holds the table again


def test_a_good_deal_ends_the_misdeal_run_across_a_restart(engine):
    settings_ = TableSettings(table_id="t1", misdeal_hold_after=2)
    service = TableService(settings_, engine)
    service.open_round({3: Wager(main=2500)}, actor="dealer-ann")
    service.record_dice(DiceRolled(faces=(1, 1, 1), source="rng"))
    piles, unused = deal({3: POSITION_3}, start=3)
    unused[0] = piles[2][0]  # the same card twice: a misdeal
    service.record_deal(PilesDealt(piles=piles, unused=unused))
    service.open_round({3: Wager(main=2500)}, actor="dealer-ann")
    service.record_dice(DiceRolled(faces=(1, 1, 1), source="rng"))
    piles, unused = deal({1: BANKER_HAND, 3: POSITION_3}, start=3)
    service.record_deal(PilesDealt(piles=piles, unused=unused))  # a good deal ends the run
    assert service.misdeals == 0
    again = TableService(settings_, engine)
    again.resume()
    assert again.misdeals == 0  # restored as 1: the next misdeal would hold the table


def test_a_rating_the_tables_closing_ended_is_read_ended(engine):
    """Found by the machine (fixed with it): the live read of the seats (``GET /api/ratings/seated``)
    showed a rating the table's closing had ended, before any command wrote the end, as open with
    the figures last written (no round), instead of ended at the closing with its round."""
    from table_controller.accounting.ratings import EndReason

    settings_ = TableSettings(table_id="t1")
    service = TableService(settings_, engine)
    rating_desk = desk_ratings.RatingDesk.of(settings_)
    desk_ratings.seat_player(engine, rating_desk, seat=3, player="P-3", by="dealer-ann")
    service.open_round({3: Wager(main=2500)}, actor="dealer-ann")
    service.record_dice(DiceRolled(faces=(1, 1, 1), source="rng"))
    piles, unused = deal({1: BANKER_HAND, 3: POSITION_3}, start=3)
    service.record_deal(PilesDealt(piles=piles, unused=unused))
    service.set_player(3, ["As", "Ah", "9c", "8c", "2c"], ["Kd", "Kh"], actor="dealer-ann")
    service.set_dealer(["Ac", "9h", "5c", "3d", "2h"], ["Qd", "7s"], actor="dealer-ann")
    service.settle()
    service.set_table_open(False, actor="pit-bob")
    with read_snapshot(engine) as session:
        (live,) = rating_store.seated(
            session, table_id="t1", now=datetime.now(UTC), folding=rating_desk.folding
        )
    assert live.rating.end_reason is EndReason.TABLE_CLOSED and live.rating.end is not None
    assert live.rating.rounds == 1 and live.rating.main_wagered == 2500 and not live.seated


def test_a_rating_the_tables_closing_ended_can_be_adjusted_before_the_sweep(engine):
    """Found by the machine (fixed with it): adjusting a rating the table's closing had ended was
    refused as "still open" until the worker's sweep wrote the end; the adjustment now folds the
    seats first, as every other rating command does."""
    settings_ = TableSettings(table_id="t1")
    service = TableService(settings_, engine)
    rating_desk = desk_ratings.RatingDesk.of(settings_)
    seated = desk_ratings.seat_player(engine, rating_desk, seat=3, player="P-3", by="dealer-ann")
    service.set_table_open(False, actor="pit-bob")
    done = desk_ratings.adjust_rating(
        engine,
        rating_desk,
        rating_id=seated.rating.rating_id,
        field=AdjustableField.ACTUAL_WIN,
        new_value=500,
        reason="the wrong seat was rated",
        actor="pit-pia",
    )
    assert done.rating.end is not None and done.rating.value(AdjustableField.ACTUAL_WIN) == 500
