"""The table now, and a round's state as the state machine holds it (docs/api.md, "What they see").

``RoundStatePublic`` is built from a ``RoundState`` (``round/machine.py``): the live round in
the table view, and each step of a replay. Money is integer cents.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field, computed_field

from ...game.banking import main_exposure
from ...game.deal import BANKER_POSITION, PLAYER_POSITIONS, pile_positions
from ...game.house_way.wording import rule_wording
from ...game.table_rules import TableRules
from ...round.events import PlayerPosition
from ...round.machine import RoundState
from ...round.phase_words import phase_words
from ..hand_view import round_ranking, setting_words, with_words
from .dealers import DealerNowPublic, LimitsNowPublic
from .errors import SettingPublic


class WagerPublic(BaseModel):
    position: PlayerPosition
    main: int = Field(description="main wager, cents")
    big_hand: int = Field(0, description="Big Hand Bonus wager, cents (Double Joker, 003)")
    joker_bonus: int = Field(0, description="Joker Bonus wager, cents (Double Joker, 003)")


class DicePublic(BaseModel):
    faces: list[int] = Field(min_length=3, max_length=3)
    source: str = Field(description="shaker or rng")
    roll_id: str | None = None


class PilePublic(BaseModel):
    """One pile in dealing order and the position it went to (000, 004)."""

    pile: int = Field(ge=1, le=7, description="1 is the first pile dealt")
    position: int | None = Field(None, description="None when the deal was a misdeal")
    cards: list[str]


class HandPublic(BaseModel):
    position: int
    cards: list[str]


class NamedSettingPublic(SettingPublic):
    """A setting with each hand as a dealer reads it (game/hand_words.py, under the round's own
    ranking rules): the made part first, then the kickers high to low, the joker where it plays,
    and the hand named. Null where a side is not a hand (a split other than five and two)."""

    high_sorted: list[str] | None = Field(None, examples=[["Ac", "9h", "5c", "3d", "2h"]])
    high_name: str | None = Field(None, examples=["ace high"], description="pair of kings, ace high...")
    low_sorted: list[str] | None = Field(None, examples=[["Qd", "7s"]], description="the higher card first")
    low_name: str | None = Field(None, examples=["queen-seven"], description="pair of nines, king-jack...")


class HouseWayPublic(BaseModel):
    """How the house way sets the banker's hand, and the rule that fired (002)."""

    way: str
    rule_id: str
    rule_words: str = Field(description="the row as the table writes it and the round's record keeps it")
    setting: NamedSettingPublic

    @computed_field(description="rule_words as the pages show them: no empty cells (house_way/wording.py)")  # type: ignore[prop-decorator]
    @property
    def rule_wording(self) -> str:
        return rule_wording(self.rule_words)


class PlayerSettingPublic(NamedSettingPublic):
    position: int
    actor: str
    fouled: bool | None = Field(
        None,
        description="the setting is a foul: not five cards behind and two in front, or the low hand "
        "outranks the high hand (001, 004); null where it is not judged (a replay's steps)",
    )


class OverridePublic(NamedSettingPublic):
    actor: str
    reason: str


class DiscrepancyPublic(BaseModel):
    kind: str
    detail: str
    cards: list[str] = []
    pile: int | None = None


class BonusPublic(BaseModel):
    bonus: str
    wager: int
    line: str
    odds: int | None
    net: int
    rule: str


class PositionResultPublic(BaseModel):
    """One position's settlement (cents; ``net`` from the player's side)."""

    position: int
    outcome: str = Field(description="win, premium, push, not-qualified or lose")
    rule: str
    foul: str | None
    house_way_reset: bool
    setting: NamedSettingPublic | None
    wager: int
    win: int
    commission: int
    fee: int
    bonuses: list[BonusPublic]
    net: int


class SettlementPublic(BaseModel):
    positions: list[PositionResultPublic]
    totals: dict[str, int]
    bank: dict[str, Any] | None = Field(
        default=None, description="a player's bank settled: gross, commission, net and its split"
    )


class BankPublic(BaseModel):
    """Who banks a player-banked round and what the bank stands to pay (docs/settlement.md, 8)."""

    seat: int = Field(description="the banking player's seat: position 1 this round")
    amount: int = Field(description="the bank declared, cents")
    house_wager: int = Field(description="the house's own hand against the bank, cents (0: none)")
    house_position: int = Field(description="the position of the dealer's seat this round")
    co_banked: bool
    house_share_bp: int | None = Field(description="the house's share of a co-banked bank, basis points")
    exposure: int = Field(description="the most the bank could pay on this round's main wagers, cents")


class RoundStatePublic(BaseModel):
    """A round as the state machine holds it after some event."""

    round_id: str
    number: int
    game: str
    phase: str
    opened_by: str
    wagers: list[WagerPublic]
    dice: DicePublic | None = None
    start_position: int | None = None
    piles: list[PilePublic] = Field(default_factory=list, description="empty until dealt")
    unused: list[str] = Field(default_factory=list)
    hands: list[HandPublic] = Field(default_factory=list, description="banker and playing positions")
    face_down: list[int] = Field(
        default_factory=list,
        description="positions whose cards are withheld from this role: the banker's while the "
        "players set (standard game), for a role without see-face-down",
    )
    house_way: HouseWayPublic | None = None
    player_settings: list[PlayerSettingPublic] = Field(default_factory=list)
    dealer_setting: NamedSettingPublic | None = None
    override: OverridePublic | None = None
    misdeal: list[DiscrepancyPublic] = Field(default_factory=list)
    settlement: SettlementPublic | None = None
    void_reason: str | None = None
    banker: Literal["house", "player"] = "house"
    bank: BankPublic | None = None
    bank_offer: int | None = Field(default=None, description="the seat the bank was offered to this round")
    dice_direction: str = "counter-clockwise"

    @computed_field(description="the phase in words, as the pages show it (round/phase_words.py)")  # type: ignore[prop-decorator]
    @property
    def phase_words(self) -> str:
        return phase_words(self.phase)


class FaultPublic(BaseModel):
    kind: str
    detail: str


class DeviceIdentityPublic(BaseModel):
    """What the device said of itself in its last HELLO (docs/protocols/link.md, 4.1)."""

    model: str
    serial_number: str
    firmware: str
    protocol: str = Field(description="protocol version, major.minor")
    session_id: int = Field(description="the device's link session: a new one after each power-up")


class DeviceHealthPublic(BaseModel):
    """One device: its open faults, and whether it is actually talking (docs/api.md, "Device health")."""

    device: str
    status: Literal["ok", "stale", "fault"] = Field(
        description="fault while a fault is open (a lost link included; play stops); stale when the link "
        "is up but no frame has been received for longer than the link's loss window; else ok"
    )
    faults: list[FaultPublic] = Field(default_factory=list)
    link: Literal["up", "down", "never"] = Field(
        "never",
        description="the device link: up, down (lost or closed), or never connected since the "
        "controller started (also when the API runs without the device conductor)",
    )
    link_since: datetime | None = Field(
        None, description="when the link went up or down (UTC); null while never connected"
    )
    link_reason: str | None = Field(
        None, description="why the link is down, or why it could not be brought up"
    )
    last_seen: datetime | None = Field(
        None,
        description="the last valid frame received from the device, heartbeats included (UTC); "
        "null if none since the controller started",
    )
    silent_for_ms: int | None = Field(
        None, ge=0, description="milliseconds since last_seen, measured on the controller's monotonic clock"
    )
    identity: DeviceIdentityPublic | None = Field(
        None, description="the device's identity from its last HELLO; null until it has said hello"
    )


class AlertPublic(BaseModel):
    """An alert (an ``alert.raised`` event); its id is the event's chain seq."""

    seq: int
    alert: str = Field(description="misdeal, house-way-deviation, override, void, device-fault, link-loss...")
    detail: str
    round_id: str | None
    actor: str
    raised_at: datetime
    data: dict[str, Any] = Field(default_factory=dict, description="the rest of the alert's payload")
    acknowledged_by: str | None = None
    acknowledged_at: datetime | None = None
    note: str | None = None
    acknowledgement_seq: int | None = None
    may_acknowledge: bool | None = Field(
        None,
        description="in GET /api/alerts: whether the person asking may acknowledge it now (their role"
        " may, it is open, and it is not about their own act: the two-person rule); null where not said",
    )


class DeckCheckPublic(BaseModel):
    """The shuffler's DECK_CHECK (shuffler.md 4) as the pit reads it before clearing a hold."""

    complete: bool
    words: str = Field(description="the result in words: what is missing, duplicated or unreadable")
    scanned: int
    unreadable: int
    missing: list[str]
    duplicated: list[tuple[str, int]] = Field(description="(card code, times seen)")
    error: str | None = Field(default=None, description="why there is no scan (the shuffler refused...)")
    at: str


class TableHoldPublic(BaseModel):
    """No new round until the pit clears the hold (after a clean deck check)."""

    reason: str
    since: str
    deck_check: DeckCheckPublic | None
    deck_check_pending: bool = Field(description="a DECK_CHECK is asked for and has not run yet")


class StoreOutagePublic(BaseModel):
    """The database stopped answering: play is stopped until it does (alerts are kept meanwhile)."""

    since: str
    error: str
    alerts_kept: int


class StopPublic(BaseModel):
    """One reason the table does not deal now (table/stops.py; docs/round-lifecycle.md, "What a
    stopped table shows")."""

    kind: Literal[
        "closed",
        "store-outage",
        "record-check-pending",
        "record-broken",
        "table-hold",
        "round-held",
        "device-fault",
    ]
    detail: str
    clears: str = Field(description="what clears it, in words")
    cleared_by: Literal["automatic", "pit", "at-the-machine"] = Field(
        description="who clears it: nobody (play resumes by itself), a pit user, or someone at the machine"
    )
    since: str | None = None


class BankingPublic(BaseModel):
    """The table's player banking (docs/settlement.md, 8): its settings and the last offer."""

    policy: Literal["never", "alternate", "rotation"]
    house_wager: str = Field(description="what the house's own hand wagers against a player-banker")
    co_bank_share_bp: int = Field(description="the house's share of a co-banked bank, basis points")
    allowed: bool = Field(description="a player may bank at this table (policy and game)")
    last_offer: int | None = Field(
        description="the seat the bank was offered to last round (None: the house)"
    )
    dice_direction: str


class LimitsPublic(BaseModel):
    """The table's limits per position, in integer cents (settings.Limits)."""

    min_main_cents: int
    max_main_cents: int
    max_bonus_cents: int = Field(description="the most on each bonus wager (Double Joker, 003)")


class RulesHouseWayPublic(BaseModel):
    """The house way new rounds are set by, and the SHA-256 of its file (docs/audit-chain.md)."""

    name: str
    title: str
    source: str
    sha256: str


class CommissionPublic(BaseModel):
    """How the house takes its share of a win (002, 003, 004), and that in words."""

    kind: Literal["percent", "none", "flat-fee"]
    rate_bp: int | None = Field(None, description="percent: basis points of each win")
    rounding_unit_cents: int | None = Field(None, description="percent: rounded to a multiple of this")
    rounding: str | None = Field(None, description="percent: up, half-up or down")
    fee_cents: int | None = Field(None, description="flat-fee: cents per hand played")
    words: str


class PayLinePublic(BaseModel):
    line: str
    odds: int | None = Field(description="N for 'N to 1'; null: the line loses")
    words: str = Field(examples=["8888 to 1", "loss"])


class PayTablePublic(BaseModel):
    """A bonus's pay table (Double Joker, 003), every line in the order of the table."""

    bonus: str = Field(description="big-hand or joker-bonus")
    source: str
    lines: list[PayLinePublic]


class DeparturePublic(BaseModel):
    """A house option in force that departs from a rules document (game/departures.py)."""

    setting: str = Field(description="the setting, as the configuration names it")
    value: str
    rule: str = Field(description="the document's words it departs from")
    cite: str = Field(description="the rules document's file name")
    words: str


class TableRulesPublic(BaseModel):
    """What new rounds at this table are decided under (docs/api.md, "The table's rules")."""

    table_id: str
    game: str
    limits: LimitsPublic
    house_way: RulesHouseWayPublic
    foul_rule: str = Field(description="forfeit or house-way (004)")
    foul_rule_words: str
    foul_forfeits_bonuses: bool
    banker_foul_rule: str = Field(description="a player-banker's foul: forfeit or house-way (001, 004)")
    banker_foul_rule_words: str
    departures: list[DeparturePublic] = Field(
        default_factory=list,
        description="house options in force that depart from the rules documents; empty by default",
    )
    commission: CommissionPublic
    overqualifier: bool = Field(description="Double Joker's overqualifier (003)")
    premium_multiple: int | None = Field(description="the premium's multiple of the main wager; null: none")
    paytables: list[PayTablePublic] = Field(description="empty when the game offers no bonus")
    rules_version: dict[str, str] = Field(
        description="the contents new rounds pin, by SHA-256 (house_way, table_rules, paytable.<bonus>)"
    )


class ReadLagPublic(BaseModel):
    """How far behind the replica that served a read is (docs/floor-replica.md, "How lag is shown")."""

    read_from: Literal["replica"] = "replica"
    lag_seconds: float | None = Field(
        description="seconds behind the primary: 0 when caught up; null when unknown (shown as behind)"
    )
    lag_bytes: int | None = Field(
        None, description="WAL written on the primary and not yet replayed on the replica, bytes"
    )
    paused: bool = Field(description="the replica's replay is paused")
    behind: bool = Field(
        description="further behind than the table's read_lag_warn_seconds, or not known to be within them"
    )
    warn_seconds: float = Field(description="the table's read_lag_warn_seconds")
    words: str = Field(description="the lag in words, for a banner")


class CodePublic(BaseModel):
    """The code the controller runs (docs/audit-chain.md, "The code that runs")."""

    sha256: str = Field(description="the SHA-256 of the installed package's files, chained at each start")
    release_sha256: str | None = Field(
        None, description="the signed release manifest's; null: none configured"
    )
    matches_release: bool | None = Field(None, description="null when no release manifest is configured")


class PositionsPublic(BaseModel):
    """The table's positions as game/deal.py defines them (000_f88fa0f023e5142c.txt,
    004_60e2fc6346e3399b.txt): the pages tell the banker's row and build the wager inputs from
    these, never from numbers of their own."""

    @computed_field(description="the banker's position, from which the others count")  # type: ignore[prop-decorator]
    @property
    def banker_position(self) -> int:
        return BANKER_POSITION

    @computed_field(description="the players' positions: every position but the banker's")  # type: ignore[prop-decorator]
    @property
    def player_positions(self) -> list[int]:
        return list(PLAYER_POSITIONS)


class TableStatePublic(PositionsPublic):
    table_id: str
    game: str
    house_way: str
    table_open: bool
    hold: TableHoldPublic | None = None
    round_held: str | None = Field(
        default=None, description="what failed inside the open round: only a pit void moves it on"
    )
    store_outage: StoreOutagePublic | None = None
    not_dealing: list[StopPublic] = Field(
        default_factory=list,
        description="every reason the table does not deal now, with what clears it and who can; "
        "empty while it deals (or waits for a dealer to open a round)",
    )
    round: RoundStatePublic | None
    open_alerts: list[AlertPublic]
    devices: list[DeviceHealthPublic]
    banking: BankingPublic | None = None
    read_lag: ReadLagPublic | None = Field(
        None,
        description="set when the alerts shown were read from a replica (read_db_url): how far behind it "
        "is; null when read from the primary",
    )
    code: CodePublic | None = Field(None, description="the running code's hash and its release's")
    progressive: dict[str, Any] | None = Field(
        None,
        description="the table's progressive pool: its meters, hits pending payment and last hits "
        "(GET /api/progressive/{pool_id}); null when the table offers none (docs/progressive.md)",
    )
    limits: LimitsNowPublic | None = Field(
        None, description='the limits in force and the approved ones (docs/dealers.md, "Table limits")'
    )
    dealer: DealerNowPublic | None = Field(
        None,
        description="the dealer on the box and today's hands per hour (GET /api/table only; null in a"
        " command's answer)",
    )


def _setting(setting: Any) -> NamedSettingPublic | None:
    if setting is None:
        return None
    return NamedSettingPublic(high=[c.code for c in setting.high], low=[c.code for c in setting.low])


def _bank_view(state: RoundState) -> BankPublic | None:
    bank = state.opened.bank
    if bank is None:
        return None
    wagers = {p: w.main for p, w in state.wagers.items()} | {0: bank.house_wager}
    try:  # the premium multiple of the round's own rules (Double Joker, 003)
        exposure = main_exposure(TableRules.model_validate(state.opened.rules["table"]), wagers)
    except (KeyError, TypeError, ValueError):
        exposure = sum(wagers.values())
    return BankPublic(
        seat=bank.seat,
        amount=bank.amount,
        house_wager=bank.house_wager,
        house_position=bank.house_position,
        co_banked=bank.co_banked,
        house_share_bp=bank.house_share_bp,
        exposure=exposure,
    )


def round_state_view(state: RoundState) -> RoundStatePublic:
    """A RoundState as the terminals show it; every setting read as a dealer reads it, under the
    ranking rules the round was opened with (api/hand_view.py)."""
    view = _round_state_view(state)
    rules = round_ranking(state.opened.rules["table"])
    settings = [view.house_way.setting if view.house_way else None, view.dealer_setting, view.override]
    settings += view.player_settings
    settings += [p.setting for p in view.settlement.positions] if view.settlement else []
    for setting in settings:
        with_words(setting, rules)
    # the house's own hand against a player's bank, set at settlement (docs/settlement.md, 8)
    house = ((view.settlement.bank or {}).get("house_hand") or {}) if view.settlement else {}
    if house.get("setting"):
        made = house["setting"]
        house["setting"] = {**made, **setting_words(made["high"], made["low"], rules)}
    return view


def _round_state_view(state: RoundState) -> RoundStatePublic:
    positions = pile_positions(state.start) if state.start is not None and not state.misdeal else None
    required = state.required
    return RoundStatePublic(
        round_id=state.round_id,
        number=state.opened.number,
        game=state.game.value,
        phase=state.phase.value,
        opened_by=state.opened.actor,
        wagers=[
            WagerPublic(position=p, main=w.main, big_hand=w.big_hand, joker_bonus=w.joker_bonus)
            for p, w in sorted(state.wagers.items())
        ],
        dice=None
        if state.dice is None
        else DicePublic(faces=list(state.dice.faces), source=state.dice.source, roll_id=state.dice.roll_id),
        start_position=state.start,
        piles=[
            PilePublic(pile=n, position=positions[n - 1] if positions else None, cards=list(pile))
            for n, pile in enumerate(state.piles, start=1)
        ],
        unused=list(state.unused),
        hands=[
            HandPublic(position=p, cards=[c.code for c in cards]) for p, cards in sorted(state.hands.items())
        ],
        house_way=None
        if required is None
        else HouseWayPublic(
            way=required.way,
            rule_id=required.rule_id,
            rule_words=required.rule_words,
            setting=_setting(required.setting),
        ),
        player_settings=[
            PlayerSettingPublic(position=p, high=s.high, low=s.low, actor=s.actor)
            for p, s in sorted(state.player_settings.items())
        ],
        dealer_setting=_setting(state.dealer_setting),
        override=None
        if state.override is None
        else OverridePublic(
            high=state.override.high,
            low=state.override.low,
            actor=state.override.actor,
            reason=state.override.reason,
        ),
        misdeal=[
            DiscrepancyPublic(kind=d.kind, detail=d.detail, cards=list(d.cards), pile=d.pile)
            for d in state.misdeal
        ],
        settlement=None if state.result is None else SettlementPublic.model_validate(state.result.as_dict()),
        void_reason=state.void_reason,
        banker="house" if state.opened.bank is None else "player",
        bank=_bank_view(state),
        bank_offer=state.opened.bank_offer,
        dice_direction=state.opened.dice_direction.value,
    )
