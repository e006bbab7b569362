"""Durable rounds: each accepted event is appended to the audit chain and projected onto the
round tables in ONE transaction, before anything is shown as done (docs/round-lifecycle.md, Durability).

The machine judges first (``apply`` raises before anything is written), so a refused event
changes nothing but the audit notes that say it was refused. After a restart ``resume``
replays the open round's stored events through the same machine.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypedDict

import structlog
from sqlalchemy.engine import Engine

from ..game.cards import codes
from ..game.dealer import RequiredSetting
from ..round.events import (
    ROUND_EVENT_KINDS,
    DealerOverride,
    DealerSet,
    DiceRolled,
    PilesDealt,
    PlayerSet,
    RoundOpened,
    RoundSettled,
    RoundVoided,
    SideWagerPlaced,
    Wager,
    event_from_payload,
)
from ..round.machine import RoundRules, RoundState, SetHand, apply, open_round
from ..round.phases import Phase
from ..storage import (
    BANKER_POSITION,
    PositionOutcome,
    RoundCreate,
    RoundPositionCreate,
    RoundPositionUpdate,
    RoundUpdate,
    add_positions,
    append_event,
    create_round,
    find_open_round,
    get_round,
    last_event,
    list_events,
    trailing_misdeals,
    unit_of_work,
    update_positions,
    update_round,
)
from ..storage.dealers import on_box
from ..storage.rounds import expect_round_phase, last_main_wagers
from ..storage.session import read_snapshot
from .pinned_rules import rules_from_snapshot

log = structlog.get_logger()

TABLE_STATE = "table.state"  # the table's whole state after each change to it (service.TableRecord)
HELD_ALERT = "round.held"  # the alert that holds a round nobody may play on until the pit voids it


@dataclass(frozen=True)
class Note:
    """An audit-only event: no round state changes (a refusal, an alert, the table's state)."""

    kind: str
    actor: str
    payload: Mapping[str, Any]
    round_id: str | None = None


@dataclass(frozen=True)
class Resumed:
    """The table's open round as the store has it; ``failure`` says which stored event the
    machine could not replay (the round is then held at the state before it)."""

    state: RoundState
    rules: RoundRules
    failure: str | None = None
    held: str | None = None  # the reason of a ``round.held`` alert stored with the round


_OUTCOMES: dict[str, PositionOutcome] = {
    "win": PositionOutcome.WIN,
    "premium": PositionOutcome.WIN,
    "push": PositionOutcome.PUSH,
    "not-qualified": PositionOutcome.PUSH,
    "lose": PositionOutcome.LOSE,
}


# the ``rounds`` columns create_round writes itself (the rest of the opening is an update)
_CREATED = frozenset({"table_id", "number", "game", "dealer"})


def _now() -> datetime:
    return datetime.now(UTC)


def _payload(event: Any) -> dict[str, Any]:
    return event.model_dump(mode="json")


class RoundRecorder:
    """Writes rounds of one table to the store; reads them back for recovery."""

    def __init__(self, engine: Engine, table_id: str, rules_for: Callable[[RoundOpened], RoundRules]) -> None:
        self.engine = engine
        self.table_id = table_id
        self.rules_for = rules_for

    # -- writing -----------------------------------------------------------------------------

    def open(
        self,
        *,
        game: Any,
        rules: Mapping[str, Any],
        wagers: Mapping[int, Wager],
        actor: str,
        evidence: Mapping[str, str] | None = None,
        opening: Mapping[str, Any] | None = None,
    ) -> tuple[RoundState, RoundRules]:
        """Record a new round with its wagers (limits are the caller's check) and the hashes of
        the rules' contents it is decided under (``evidence``, record/pinned_rules.py)."""
        with unit_of_work(self.engine) as session:
            box = on_box(session, table_id=self.table_id)  # the dealer on the box deals it (dealers.md)
            row = create_round(
                session,
                data=RoundCreate(
                    table_id=self.table_id,
                    game=game,
                    dealer=actor if box is None else box.dealer,
                    phase=Phase.OPEN.value,
                    opened_at=_now(),
                ),
            )
            event = RoundOpened(
                table_id=self.table_id,
                round_id=row.round_id,
                number=row.number,
                game=game,
                rules=dict(rules),
                wagers=dict(wagers),
                actor=actor,
                evidence=dict(evidence or {}),
                dealer=None if box is None else box.dealer,
                **dict(opening or {}),  # who banks, the bank offer, the dice direction
            )
            append_event(
                session,
                table_id=self.table_id,
                round_id=row.round_id,
                kind=event.kind,
                actor=actor,
                payload=_payload(event),
            )
            round_fields, positions = opening_projection(event)
            seats = [RoundPositionCreate(**values, position=p) for p, values in positions.items()]
            add_positions(session, round_id=row.round_id, seats=seats)
            update_round(
                session,
                round_id=row.round_id,
                changes=RoundUpdate(**{k: v for k, v in round_fields.items() if k not in _CREATED}),
            )
        return open_round(event), self.rules_for(event)

    def record(
        self,
        state: RoundState,
        event: Any,
        rules: RoundRules,
        theoretical: Callable[[RoundState], tuple[int, int] | None] | None = None,
        also: Callable[[Any], None] | None = None,
        applied: RoundState | None = None,
    ) -> RoundState:
        """Apply ``event`` (refused events raise, nothing written), then store it and its projection.

        ``theoretical`` gives a settled round's theoretical win and its variance (cents, cents
        squared) for the projection, or None when the table's math is not known (then missing).
        ``also`` writes more in the same transaction (a request's confirmation with the void it
        confirms: both are chained, or neither). ``applied``: the round after ``event`` as the
        caller derived it already from the same state and rules (the settle with a progressive
        pool), so it is not derived twice."""
        new = apply(state, event, rules) if applied is None else applied
        if isinstance(event, RoundSettled) and event.result is None and new.result is not None:
            # the chain carries the money: every position's outcome, net, commission, bonus
            # lines and the banker's result (docs/audit-chain.md, "What the chain holds")
            event = event.model_copy(update={"result": new.result.as_dict()})
        with unit_of_work(self.engine) as session:
            append_event(
                session,
                table_id=self.table_id,
                round_id=state.round_id,
                kind=event.kind,
                actor=event.actor,
                payload=_payload(event),
            )
            # the round as the store has it is the one this step was judged on: another process
            # (the console's void) may have moved it meanwhile (RoundClosedError, RoundChangedError).
            # A void is judged on any open phase (a held round's replay may stop short of what
            # the store shows): only a closed round refuses it, at its projection below.
            if not isinstance(event, RoundVoided):
                expect_round_phase(session, round_id=state.round_id, phase=state.phase.value)
            extra = theoretical(new) if theoretical is not None and isinstance(event, RoundSettled) else None
            _project(session, new, event, extra)
            if also is not None:  # what must be chained with the event or not at all (table/approvals.py)
                also(session)
        return new

    def note(self, *, kind: str, actor: str, payload: Mapping[str, Any], round_id: str | None = None) -> None:
        """An audit-only event (a refusal, a device fault, a link loss): no round state changes."""
        self.notes([Note(kind, actor, payload, round_id)])

    def notes(self, notes: Iterable[Note]) -> None:
        """Audit-only events in ONE transaction: all of them are in the chain, or none."""
        notes = list(notes)
        for note in notes:
            if note.kind in ROUND_EVENT_KINDS:
                raise ValueError(f"{note.kind} is a round event: record it through the machine")
        with unit_of_work(self.engine) as session:
            for note in notes:
                append_event(
                    session,
                    table_id=self.table_id,
                    round_id=note.round_id,
                    kind=note.kind,
                    actor=note.actor,
                    payload=dict(note.payload),
                )

    # -- reading -----------------------------------------------------------------------------

    def last_opened(self) -> RoundOpened | None:
        """The table's newest ``round.opened`` (who banked, the bank offer), or None: after a
        restart the rotation of the bank carries on from it (game/banking.py)."""
        with read_snapshot(self.engine) as session:
            stored = last_event(session, table_id=self.table_id, kinds=["round.opened"])
        if stored is None:
            return None
        opened = event_from_payload(json_payload(stored.payload))
        return opened if isinstance(opened, RoundOpened) else None

    def last_main_wagers(self) -> dict[int, int]:
        """Each seat's last main wager as a player (storage/rounds.py): the ``banker-last-wager``
        house wager after a restart, for a seat that sat out the last round too."""
        with read_snapshot(self.engine) as session:
            return last_main_wagers(session, table_id=self.table_id)

    def resume(self) -> Resumed | None:
        """The table's open round rebuilt from its stored events, or None.

        Never raises for a stored event the machine refuses (a record written by an older,
        wrong version, or edited): the round is rebuilt up to it and ``failure`` names it, so
        the table holds the round for the pit instead of dying at every start."""
        with read_snapshot(self.engine) as session:
            row = find_open_round(session, table_id=self.table_id)
            if row is None:
                return None
            stored = list_events(session, table_id=self.table_id, round_id=row.round_id)
        return self._rebuilt(row.round_id, stored)

    def read_round(self, round_id: str) -> Resumed:
        """One round of the table rebuilt from its stored events, open or final: what another
        process (the console) made of the round this daemon has open (docs/round-lifecycle.md)."""
        with read_snapshot(self.engine) as session:
            stored = list_events(session, table_id=self.table_id, round_id=round_id)
        return self._rebuilt(round_id, stored)

    def stored_phase(self, round_id: str) -> str:
        """The round's phase as the store has it now (one row read by its key)."""
        with read_snapshot(self.engine) as session:
            return get_round(session, round_id=round_id).phase

    def _rebuilt(self, round_id: str, stored: list[Any]) -> Resumed:
        held = None
        for event in stored:
            if event.kind == "alert.raised":
                payload = json_payload(event.payload)
                if payload.get("alert") == HELD_ALERT:
                    held = str(payload.get("what_failed", payload.get("detail", "")))
        events = [e for e in stored if e.kind in ROUND_EVENT_KINDS]
        if not events or events[0].kind != "round.opened":
            raise ValueError(f"round {round_id}: its events do not begin with round.opened")
        opened = event_from_payload(json_payload(events[0].payload))
        if not isinstance(opened, RoundOpened):  # the payload's own kind, checked as the row's was
            raise ValueError(f"round {round_id}: its events do not begin with round.opened")
        state, failure = open_round(opened), None
        try:
            rules = self.rules_for(opened)
        except Exception as error:  # its pinned rules are gone or changed: hold it, do not die
            failure = f"the rules round {opened.round_id} was opened under cannot be loaded: {error}"
            log.error("round.rules_not_trusted", round_id=opened.round_id, error=str(error))
            return Resumed(state, rules_from_snapshot(opened.rules), failure, held)
        for stored_event in events[1:]:
            try:
                state = apply(state, event_from_payload(json_payload(stored_event.payload)), rules)
            except Exception as error:  # the record, not the daemon, is at fault: hold the round
                failure = f"stored event {stored_event.seq} ({stored_event.kind}) cannot be replayed: {error}"
                log.error(
                    "round.replay_failed",
                    round_id=state.round_id,
                    seq=stored_event.seq,
                    kind=stored_event.kind,
                    error=str(error),
                )
                break
        log.info("round.resumed", round_id=state.round_id, phase=state.phase.value, events=len(events))
        return Resumed(state, rules, failure, held)

    def table_record(self, misdeal_limit: int) -> tuple[dict[str, Any] | None, bool | None, int]:
        """What a restart restores of the table: its last ``table.state`` (or None), the last
        ``table.opened`` / ``table.closed`` (True, False, or None when never said; records
        older than ``table.state`` have only these), and the misdeals in a row up to now,
        counted from the round the last cleared hold left off at (``misdeal_run_from``)."""
        with read_snapshot(self.engine) as session:
            stored = last_event(session, table_id=self.table_id, kinds=[TABLE_STATE])
            state = None if stored is None else json_payload(stored.payload)
            opened = last_event(session, table_id=self.table_id, kinds=["table.opened", "table.closed"])
            misdeals = trailing_misdeals(
                session,
                table_id=self.table_id,
                limit=misdeal_limit,
                from_number=int((state or {}).get("misdeal_run_from", 1)),
            )
        return state, None if opened is None else opened.kind == "table.opened", misdeals


def json_payload(payload: Any) -> dict[str, Any]:
    """A stored payload (canonical JSON text) as a dict."""
    return json.loads(payload) if isinstance(payload, str) else dict(payload)


# -- the projection of each step ----------------------------------------------------------------


def _hand_text(cards: Any) -> str:
    return " ".join(codes(cards))


def _project(
    session: Any,
    state: RoundState,
    event: Any,
    theoretical: tuple[int, int] | None = None,
) -> None:
    round_id = state.round_id
    changes, positions = step_projection(state, event)
    if "closed_at" in changes:
        changes["closed_at"] = _now()
    if isinstance(event, RoundSettled) and theoretical is not None:
        # else missing: shown as missing, never as 0 (docs/math.md)
        changes.update(theoretical_win_cents=theoretical[0], theoretical_variance=theoretical[1])
    if positions:
        update_positions(
            session,
            round_id=round_id,
            changes={position: RoundPositionUpdate(**values) for position, values in positions.items()},
        )
    update_round(session, round_id=round_id, changes=RoundUpdate(**changes))


def opening_projection(event: RoundOpened) -> tuple[dict[str, Any], dict[int, dict[str, Any]]]:
    """What a round's opening writes to its ``rounds`` row and its ``round_positions`` rows (the
    banker, each wagering position, the house's own hand against a player's bank): one
    definition, written by ``RoundRecorder.open`` and compared by ``audit verify``."""
    round_fields: dict[str, Any] = {
        "table_id": event.table_id,
        "number": event.number,
        "game": _stored_text(event.game),
        "dealer": event.actor if event.dealer is None else event.dealer,  # who dealt it (dealers.md)
        "wagered_cents": sum(w.main for w in event.wagers.values()),
        "bonus_wagered_cents": sum(w.big_hand + w.joker_bonus for w in event.wagers.values()),
        "side_wagered_cents": sum(w.fortune + w.progressive for w in event.wagers.values()),
        "dice_direction": _stored_text(event.dice_direction),
        "bank_offer": event.bank_offer,
        "banker_seat": None,
        "bank_cents": None,
        "house_wager_cents": None,
        "house_share_bp": None,
        **_bank_columns(event),
    }
    positions: dict[int, dict[str, Any]] = {
        BANKER_POSITION: {
            "house_hand": False,
            "wager_cents": 0,
            "big_hand_bonus_cents": 0,
            "joker_bonus_cents": 0,
        }
    }
    for position, wager in sorted(event.wagers.items()):
        positions[position] = {
            "house_hand": False,
            "wager_cents": wager.main,
            "big_hand_bonus_cents": wager.big_hand,
            "joker_bonus_cents": wager.joker_bonus,
            "fortune_cents": wager.fortune,
            "progressive_cents": wager.progressive,
        }
    bank = event.bank
    if bank is not None and bank.house_wager:
        positions[bank.house_position] = {
            "house_hand": True,
            "wager_cents": bank.house_wager,
            "big_hand_bonus_cents": 0,
            "joker_bonus_cents": 0,
        }
    return round_fields, positions


def _stored_text(value: Any) -> Any:
    return getattr(value, "value", value)  # an enum as the text its column keeps


def step_projection(state: RoundState, event: Any) -> tuple[dict[str, Any], dict[int, dict[str, Any]]]:
    """The columns one accepted round event changes: (``rounds`` columns, ``round_positions``
    columns by position), computed from the round's state after it (``state``) alone, so that
    ``audit verify`` derives every projected field a person reads from the chain with this same
    definition (docs/audit-chain.md, "What verify checks"). ``closed_at`` is given as None: the
    writer stamps its time; the theoretical win is the writer's (not in the chain).

    One pass down: the cards, the settings and their categories are read as the round machine
    took them (``RoundState.hands``, ``seven_card``, ``set_hands``: parsed and ranked once, by
    ``apply``), never parsed or ranked again here. ``audit verify`` still ranks every hand
    itself: it replays the chain through the machine to get the state it projects from
    (record/check.py)."""
    changes: dict[str, Any] = {"phase": state.phase.value}
    positions: dict[int, dict[str, Any]] = {}
    if isinstance(event, SideWagerPlaced):  # before the lock (docs/progressive.md)
        positions[event.position] = {"fortune_cents": event.fortune, "progressive_cents": event.progressive}
        changes["side_wagered_cents"] = sum(w.fortune + w.progressive for w in state.wagers.values())
    elif isinstance(event, DiceRolled):
        changes.update(
            die_1=event.faces[0],
            die_2=event.faces[1],
            die_3=event.faces[2],
            dice_source=event.source,
            start_position=state.start,
        )
    elif isinstance(event, PilesDealt):
        if state.misdeal:
            detail = "; ".join(d.detail for d in state.misdeal)
            changes.update(misdeal=True, voided=True, void_reason=f"misdeal: {detail}"[:500], closed_at=None)
        else:
            assert state.required is not None
            changes["house_way_rule_id"] = state.required.rule_id
            # kept with the round, so its detail reads it instead of setting the hand again
            changes["house_way_required"] = required_projection(state.required)
            positions = {
                position: {
                    "cards": _hand_text(cards),
                    "seven_card_category": state.seven_card[position].label,
                    "house_way_rule_id": state.required.rule_id if position == BANKER_POSITION else None,
                }
                for position, cards in state.hands.items()
            }
    elif isinstance(event, PlayerSet):
        positions[event.position] = dict(_setting_columns(state.set_hands[event.position]))
    elif isinstance(event, DealerSet):
        override = isinstance(event, DealerOverride)
        positions[BANKER_POSITION] = {
            **_setting_columns(state.set_hands[BANKER_POSITION]),
            "override": override,
        }
        if override:
            changes["override"] = True
    elif isinstance(event, RoundSettled):
        result = state.result
        assert result is not None
        money = settled_projection(result)
        positions = {position: dict(values) for position, values in money.positions.items()}
        changes.update(money.round, closed_at=None)
    elif isinstance(event, RoundVoided):
        changes.update(voided=True, void_reason=event.reason, closed_at=None)
    return changes, positions


@dataclass(frozen=True)
class SettledProjection:
    """What a settlement writes to the ``rounds`` row and each ``round_positions`` row: one
    definition, used by the projection and by ``audit verify`` to compare it with the chain."""

    round: dict[str, Any]
    positions: dict[int, dict[str, Any]]


def settled_projection(result: Any) -> SettledProjection:
    """The projected money of a settled round (``result``: the game core's RoundSettlement)."""
    positions = {
        record.position: {
            "outcome": _OUTCOMES[record.outcome.value],
            "fouled": record.foul is not None,
            "win_cents": record.win,
            "commission_cents": record.commission,
            "bonus_paid_cents": sum(b.won for b in record.bonuses),
            "net_cents": record.net,
        }
        for record in result.positions
    }
    totals = {
        "commission_cents": result.commission,
        "bonuses_paid_cents": result.bonuses_paid,
        "house_result_cents": result.house_result,
    }
    side = result.side
    if side is not None:  # the Fortune, envy and progressive wagers (docs/progressive.md)
        totals.update(side_paid_cents=side.paid, side_house_result_cents=side.house_result)
        for record in side.positions:
            positions[record.position].update(
                fortune_net_cents=record.fortune_net,
                envy_cents=record.envy_total,
                progressive_net_cents=record.progressive_net,
            )
    bank = result.bank
    if bank is not None:  # a player banked (docs/settlement.md, 8)
        totals.update(
            bank_gross_cents=bank.gross,
            bank_commission_cents=bank.commission,
            banker_result_cents=bank.banker_net,
            house_hand_result_cents=bank.house_hand.net if bank.house_hand is not None else 0,
        )
        if bank.house_hand is not None:
            hand = bank.house_hand
            positions[hand.position] = {
                "outcome": _OUTCOMES[hand.outcome.value],
                "fouled": False,
                "win_cents": hand.win,
                "commission_cents": 0,
                "bonus_paid_cents": 0,
                "net_cents": hand.net,
            }
    return SettledProjection(round=totals, positions=positions)


def required_projection(required: RequiredSetting) -> str:
    """The ``rounds.house_way_required`` text of the setting the house way required of the
    banker's seven cards (002): one definition, written by the projection when the piles are
    dealt and compared by ``audit verify`` (record/check.py) with what replay derives."""
    return json.dumps(
        {
            "way": required.way,
            "rule_id": required.rule_id,
            "rule_words": required.rule_words,
            "high": codes(required.setting.high),
            "low": codes(required.setting.low),
        },
        sort_keys=True,
        separators=(",", ":"),
    )


def _bank_columns(opened: RoundOpened) -> dict[str, Any]:
    """The ``rounds`` columns of who banks (migration 0006); none when the house banks."""
    bank = opened.bank
    if bank is None:
        return {}
    return {
        "banker_seat": bank.seat,
        "bank_cents": bank.amount,
        "house_wager_cents": bank.house_wager,
        "house_share_bp": bank.house_share_bp,
    }


class _SettingColumns(TypedDict):
    high: str
    low: str
    high_category: str | None
    low_category: str | None


def _setting_columns(hand: SetHand) -> _SettingColumns:
    """A setting's ``round_positions`` columns; no category for a foul by card count (004)."""
    high, low = hand.high_category, hand.low_category
    return {
        "high": _hand_text(hand.setting.high),
        "low": _hand_text(hand.setting.low),
        "high_category": None if high is None else high.label,
        "low_category": None if low is None else low.label,
    }
