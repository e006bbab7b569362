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

Each example plays on a table id of its own in the test's database, so one database serves a
whole run. ``benchmarks/bench_stateful.py`` runs the same machine for as long as asked.
"""

from __future__ import annotations

import random
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
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
from structlog.testing import capture_logs

from table_controller.game.cards import Card, Game, codes, parse_cards
from table_controller.game.deal import BANKER_POSITION
from table_controller.game.setting import Setting, all_settings, is_legal, same_values
from table_controller.record.recorder import json_payload
from table_controller.round.events import ROUND_EVENT_KINDS, DiceRolled, PilesDealt, Wager, event_from_payload
from table_controller.round.machine import TransitionRefused, replay
from table_controller.round.phases import Phase
from table_controller.settings import TableSettings
from table_controller.storage import get_positions, get_round, list_events, verify_chain
from table_controller.storage.session import read_snapshot
from table_controller.table.service import (
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
        self.settings = TableSettings(table_id=self.table_id, game=game, misdeal_hold_after=hold_after)
        self.ranking = self.settings.table_rules().ranking
        self.service = TableService(self.settings, self.engine)
        assert self.service.resume() is None
        self.stats.sequences += 1

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
            check_wagers(self.settings.game, self.settings.limits, wagers)
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
        self.attempt("round.open", expected, s.open_round, wagers, actor=actor)

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
