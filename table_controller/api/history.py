"""Round history, one round in full, its replay: the answers built from storage/history.py's
queries (docs/api.md, "History").
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import TypeAdapter
from sqlmodel import Session

from ..game.cards import parse_cards
from ..game.deal import BANKER_POSITION, pile_positions
from ..game.evaluator import RankingRules
from ..game.house_way.errors import HouseWayFileError
from ..record.pinned_rules import PinnedRules
from ..round.events import ROUND_EVENT_KINDS, RoundOpened, event_from_payload
from ..round.machine import apply, open_round
from ..storage.history import (
    HistoryFilter,
    history_rows,
    parse_json,
    round_events,
    round_positions,
    round_row,
    summary_data,
)
from .errors import ApiError
from .hand_view import round_ranking, setting_words
from .models.rounds import ReplayPublic, ReplayStepPublic, RoundDetailPublic, RoundSummaryPublic
from .models.table import round_state_view

MAX_PAGE = 200
_SUMMARIES = TypeAdapter(list[RoundSummaryPublic])


def summaries(rows: Iterable[Any]) -> list[RoundSummaryPublic]:
    """Rounds of the history from rows of ``storage.history.SUMMARY_COLUMNS``: one validation for the page."""
    return _SUMMARIES.validate_python([summary_data(row) for row in rows])


def history_page(
    session: Session,
    table_id: str,
    where: HistoryFilter,
    *,
    newest_first: bool = True,
    cursor: int | None = None,
    limit: int = 50,
) -> tuple[list[RoundSummaryPublic], int | None]:
    """One page of rounds and the cursor of the next page (None on the last)."""
    if not 1 <= limit <= MAX_PAGE:
        raise ApiError(422, f"limit must be 1..{MAX_PAGE}")
    rows, more = history_rows(session, table_id, where, newest_first=newest_first, cursor=cursor, limit=limit)
    page = summaries(rows)
    return page, (page[-1].number if more else None)


# --------------------------------------------------------------------------- one round


def _split(text: str | None) -> list[str] | None:
    return None if text is None else text.split()


def _pinned(session: Session, opened: RoundOpened) -> Any:
    """The round's rules by the hashes its opening pinned; 409 when they cannot be had as they
    were (edited or missing: docs/audit-chain.md), never a 500."""
    from ..storage.rules_store import EvidenceError

    try:
        return PinnedRules().load(session, opened)
    except (EvidenceError, HouseWayFileError) as error:
        raise _not_trusted(opened.round_id, error) from None


def _not_trusted(round_id: str, error: Exception) -> ApiError:
    return ApiError(409, f"round {round_id}: its rules are not trusted: {error}", "rules-not-trusted")


def _house_way(
    session: Session,
    stored: str | None,
    opened: dict[str, Any] | None,
    banker_cards: list[str] | None,
    rules: RankingRules | None,
) -> dict[str, Any] | None:
    """How the house way the round was opened under sets the banker's seven cards (002): as
    the recorder kept it when the piles were dealt (``recorder.required_projection``), the
    setting read as a dealer reads it under ``rules``."""
    if stored is not None:
        kept = parse_json(stored)
        setting = {"high": kept["high"], "low": kept["low"]}
        if rules is not None:
            setting.update(setting_words(setting["high"], setting["low"], rules))
        return {
            "way": kept["way"],
            "rule_id": kept["rule_id"],
            "rule_words": kept["rule_words"],
            "setting": setting,
        }
    if opened is None or banker_cards is None:
        return None
    # A round recorded before migration 0007 kept no required setting: for it (and only for it)
    # the house way its opening pinned by hash (record/pinned_rules.py) sets the hand here, which is
    # what the recorder would have kept, since the pinned rules cannot have changed.
    event = event_from_payload(opened)
    assert isinstance(event, RoundOpened)
    pinned = _pinned(session, event)
    required = pinned.required_setting(parse_cards(banker_cards))
    high, low = [c.code for c in required.setting.high], [c.code for c in required.setting.low]
    return {
        "way": required.way,
        "rule_id": required.rule_id,
        "rule_words": required.rule_words,
        "setting": {"high": high, "low": low} | setting_words(high, low, pinned.table.ranking),
    }


def _house_hand_setting(positions: list[dict[str, Any]], settled: dict[str, Any] | None) -> None:
    """The house's own hand against a player's bank is set by the house way at settlement, so
    its row keeps no setting: show it as the chained settlement recorded it
    (``bank.house_hand.setting``; docs/settlement.md, 8)."""
    bank = ((settled or {}).get("result") or {}).get("bank") or {}
    house = bank.get("house_hand") or {}
    setting = house.get("setting")
    if not setting:
        return
    for position in positions:
        if (
            position["house_hand"]
            and position["position"] == house.get("position")
            and position["high"] is None
        ):
            position["high"], position["low"] = list(setting["high"]), list(setting["low"])


def round_detail(session: Session, table_id: str, round_id: str) -> RoundDetailPublic:
    """One round in full: the projection, its positions, and every event of the round in order
    (four indexed SELECTs, the evidence by hash last; one validation of the whole answer)."""
    detail = round_row(session, table_id, round_id)
    stored_required = detail.pop("house_way_required")
    positions = round_positions(session, round_id)
    for position in positions:
        for name in ("cards", "high", "low"):
            position[name] = _split(position[name])
    events = round_events(session, table_id, round_id)
    payloads = {
        e["kind"]: e["payload"]
        for e in events
        if e["kind"] in ("round.opened", "dice.rolled", "piles.dealt", "round.settled")
    }
    _house_hand_setting(positions, payloads.get("round.settled"))
    opened = payloads.get("round.opened")
    rules = None if opened is None else round_ranking(opened["rules"]["table"])
    if rules is not None:  # each setting as a dealer reads it, under the round's own rules
        for position in positions:
            position.update(setting_words(position["high"], position["low"], rules))
        for event in events:
            event["setting"] = _event_setting(event, rules)
    dealt, rolled = payloads.get("piles.dealt"), payloads.get("dice.rolled")
    start = detail["start_position"]
    owners = (
        pile_positions(start) if start is not None and dealt is not None and not detail["misdeal"] else None
    )
    banker = next((p for p in positions if p["position"] == BANKER_POSITION), None)
    findings = record_findings(session, table_id, round_id)
    detail.update(
        dice_rolled=None
        if rolled is None
        else {"faces": rolled["faces"], "source": rolled["source"], "roll_id": rolled.get("roll_id")},
        piles=[]
        if dealt is None
        else [
            {"pile": n, "position": owners[n - 1] if owners else None, "cards": cards}
            for n, cards in enumerate(dealt["piles"], start=1)
        ],
        unused=[] if dealt is None else dealt["unused"],
        house_way=None
        if detail["misdeal"] or banker is None or findings
        else _house_way(session, stored_required, opened, banker["cards"], rules),
        positions=positions,
        events=events,
        rules_version=_trusted(session, round_id, payloads.get("round.opened")),
        record_findings=findings,
    )
    return RoundDetailPublic.model_validate(detail)


# The events that set hands: their payload's own high and low, or (a refusal) the tried event's.
_SETTING_KINDS = frozenset({"player.set", "dealer.set", "dealer.override"})


def _event_setting(event: dict[str, Any], rules: RankingRules) -> dict[str, Any] | None:
    """The hands an event sets (or a refused dealer setting tried), read as a dealer reads them."""
    payload = event["payload"]
    if event["kind"] == "round.refused" and isinstance(payload.get("event"), dict):
        payload = payload["event"]
        if payload.get("kind") not in _SETTING_KINDS:
            return None
    elif event["kind"] not in _SETTING_KINDS:
        return None
    high, low = payload.get("high"), payload.get("low")
    if not isinstance(high, list) or not isinstance(low, list):
        return None
    return {"high": high, "low": low, **setting_words(high, low, rules)}


# the house ways of the checks, by the SHA-256 of their bytes: a content never changes, so one
# loaded (and checked against its hash) is kept for every detail after (record/pinned_rules.py)
_RULES = PinnedRules()


def record_findings(session: Session, table_id: str, round_id: str) -> list[str]:
    """The round re-derived from its chained events and compared with what is stored, as
    ``audit verify`` does it (record_check.check_rounds): a forged card code, hand, outcome or
    amount is named here, so the detail never shows a forged row as if it stood. (The house
    way is not derived from cards the chain does not hold: ``house_way`` is then null.)"""
    from ..record.check import check_rounds

    _checked, _unchained, findings, more = check_rounds(
        session, table_id=table_id, rules=_RULES, round_ids=[round_id]
    )
    lines = [item.describe() for item in findings]
    return lines + ([f"... and {more} more"] if more else [])


def _trusted(session: Session, round_id: str, opened: dict[str, Any] | None) -> dict[str, str]:
    """The rules the round's opening pinned, by hash, each checked against its stored content
    (one SELECT): a round whose rules were edited behind the store's back is 409
    ``rules-not-trusted``, never shown as if they stood (docs/audit-chain.md)."""
    from ..storage.rules_store import EvidenceError, check_evidence

    pins = dict((opened or {}).get("evidence") or {})
    try:
        check_evidence(session, pins.values())
    except EvidenceError as error:
        raise _not_trusted(round_id, error) from None
    return pins


def round_replay(session: Session, table_id: str, round_id: str) -> ReplayPublic:
    """The round step by step: the state after each of its round events (``machine.replay``)."""
    round_row(session, table_id, round_id)
    stored = [e for e in round_events(session, table_id, round_id) if e["kind"] in ROUND_EVENT_KINDS]
    if not stored or stored[0]["kind"] != "round.opened":
        raise ApiError(409, f"round {round_id} has no stored round.opened event to replay from", "no-events")
    first = event_from_payload(stored[0]["payload"])
    assert isinstance(first, RoundOpened)
    state = open_round(first)
    rules = _pinned(session, first)
    steps = []
    for event in stored:
        if event is not stored[0]:
            state = apply(state, event_from_payload(event["payload"]), rules)
        steps.append(
            ReplayStepPublic(
                seq=event["seq"],
                kind=event["kind"],
                actor=event["actor"],
                created_at=event["created_at"],
                state=round_state_view(state),
            )
        )
    return ReplayPublic(round_id=round_id, steps=steps)
