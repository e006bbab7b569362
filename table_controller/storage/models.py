"""What the store keeps: the event log (the audit chain) and the round projections (docs/round-lifecycle.md).

Per entity a Base / Create / Table / Public family (docs/design.md, "Model families"): Create
and Update models validate what callers hand in, table models stay inside the storage package,
Public models go out. Money is integer cents (BIGINT columns, strict ``int`` in, never a float).

- ``events``: the append-only log, one row per event, hash-chained per table (``chain.py``,
  ``docs/audit-chain.md``). It is the evidence; UPDATE, DELETE and TRUNCATE are refused by
  database triggers (installed by the migration).
- ``chain_heads``: per table the last seq and hash. Appends lock this row, so two writers for
  one table queue; the verifier compares it with the last event, so a deleted tail is seen.
- ``rounds`` and ``round_positions``: projections of the log for fast queries (docs/api.md).
  They are derived data: no foreign key from ``events`` to ``rounds``.

Round ids are ``<table_id>-<number>`` (``PG-3-1042``): readable on a floor of many tables,
unique because ``(table_id, number)`` is unique and the number is the part after the last
``-``. Positions are 1..7, the banker is position 1 (003_4dcc2fceebc6e4af.txt).
"""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Iterable
from datetime import UTC, datetime
from functools import partial
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BeforeValidator, Strict
from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    DateTime,
    Dialect,
    ForeignKeyConstraint,
    Index,
    Integer,
    Text,
    TypeDecorator,
    UniqueConstraint,
)
from sqlmodel import Field, SQLModel
from sqlmodel._compat import SQLModelConfig  # model_config's type; not exported yet (sqlmodel#2091)

from drivers.dice_shaker.roll import DiceSource

from ..game.banking import PLAYER_SEATS
from ..game.cards import Card, Game, codes, parse_cards
from ..game.deal import BANKER_POSITION, POSITIONS
from ..game.evaluator import HighCategory, LabelledCategory, LowCategory, SevenCardCategory
from ..game.money import StrictCents
from .chain import (
    ACTOR_MAX,
    KIND_MAX,
    ROUND_ID_MAX,
    TABLE_ID_MAX,
    canonical_payload,
    check_actor,
    check_kind,
    check_name,
    check_round_id,
    check_table_id,
    utc_timestamp,
)
from .errors import InvalidFieldError

PHASE_MAX = 32
RULE_ID_MAX = 64
REASON_MAX = 500

_PHASE = re.compile(r"[a-z][a-z0-9_-]*")


StrictCount = Annotated[int, Strict()]
StoredCents = Annotated[StrictCents, Field(ge=0)]  # an amount the store keeps: never negative
DieFace = Annotated[StrictCount, Field(ge=1, le=6)]
PositionNumber = Annotated[StrictCount, Field(ge=min(POSITIONS), le=max(POSITIONS))]  # banker's or player's
Seat = Annotated[StrictCount, Field(ge=min(PLAYER_SEATS), le=max(PLAYER_SEATS))]  # a player's seat


class UTCDateTime(TypeDecorator[datetime]):
    """A UTC time kept to the microsecond on both backends; naive times are refused.

    PostgreSQL: ``timestamp with time zone``. SQLite: text ``YYYY-MM-DD HH:MM:SS.ffffff`` in UTC.
    Read back always as an aware UTC datetime; on SQLite the text is parsed in one C call
    (``_utc_from_sqlite``: a history page reads two times per round).
    """

    impl = DateTime
    cache_ok = True

    def __init__(self) -> None:
        super().__init__(timezone=True)

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        utc = utc_timestamp(value)
        return utc.replace(tzinfo=None) if dialect.name == "sqlite" else utc

    def result_processor(self, dialect: Dialect, coltype: object) -> Any:
        if dialect.name == "sqlite":
            return _utc_from_sqlite
        return super().result_processor(dialect, coltype)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _utc_from_sqlite(value: str | None) -> datetime | None:
    """SQLite's stored text (UTC, no zone) as an aware UTC datetime."""
    return None if value is None else datetime.fromisoformat(value + "+00:00")


_ID_TYPE = BigInteger().with_variant(Integer, "sqlite")  # SQLite autoincrements INTEGER keys only


class PositionOutcome(enum.StrEnum):
    """The main wager's result against the banker (000, 001_c9adb19db438d99f.txt).

    Win: both hands beat the banker's. Push: one each, or the banker did not qualify (003).
    Lose: the banker wins or copies both, or wins one and copies the other. (``lose``, the
    word of the game core and the chain; projections before migration 0007 said ``loss``.)
    """

    WIN = "win"
    PUSH = "push"
    LOSE = "lose"


# --------------------------------------------------------------------------- validators


def _check_phase(value: str | None) -> str | None:
    if value is not None and (len(value) > PHASE_MAX or not _PHASE.fullmatch(value)):
        raise InvalidFieldError(f"phase {value!r} is not valid: lowercase word like 'dealing'")
    return value


def _check_rule_id(value: str | None) -> str | None:
    if value is not None and (not value or len(value) > RULE_ID_MAX or value != value.strip()):
        raise InvalidFieldError(f"house way rule id {value!r} is not valid: 1..{RULE_ID_MAX} characters")
    return value


def _check_reason(value: str | None) -> str | None:
    if value is not None and (not value.strip() or len(value) > REASON_MAX):
        raise InvalidFieldError(f"reason must be 1..{REASON_MAX} characters, got {value!r}")
    return value


def _card_text(value: Any, what: str, sizes: range) -> str | None:
    """Canonical codes, space-separated (``As Kd JK``), of a number of cards in ``sizes``."""
    if value is None:
        return None
    if isinstance(value, str):
        cards = parse_cards(value)
    elif isinstance(value, Iterable):
        items = list(value)
        cards = tuple(item if isinstance(item, Card) else parse_cards([item])[0] for item in items)
    else:
        raise InvalidFieldError(f"{what} must be card codes, got {type(value).__name__}")
    if len(cards) not in sizes:
        expected = str(sizes.start) if len(sizes) == 1 else f"{sizes.start}..{sizes.stop - 1}"
        raise InvalidFieldError(f"{what} has {len(cards)} cards, expected {expected}")
    return " ".join(codes(cards))


def _category_label(value: Any, category: type[LabelledCategory], what: str) -> str | None:
    if value is None:
        return None
    labels = category.by_label()
    if isinstance(value, category):
        return value.label
    if isinstance(value, str) and value in labels:
        return value
    raise InvalidFieldError(f"{what} {value!r} is not one of {', '.join(labels)}")


def _payload(value: dict[str, Any]) -> dict[str, Any]:
    canonical_payload(value)  # refuses what the chain could not hash (a float, a non-JSON value)
    return value


def _optional(check: Any) -> Any:
    return lambda value: None if value is None else check(value)


# The checked field types of the Create and Update models: each check written once.
TableIdText = Annotated[str, AfterValidator(check_table_id)]
RoundIdText = Annotated[str, AfterValidator(check_round_id)]
KindText = Annotated[str, AfterValidator(check_kind)]
ActorText = Annotated[str, AfterValidator(check_actor)]
PayloadData = Annotated[dict[str, Any], AfterValidator(_payload)]
DealerName = Annotated[str, AfterValidator(partial(check_name, "dealer"))]
PhaseText = Annotated[str, AfterValidator(_check_phase)]
UtcTime = Annotated[datetime, AfterValidator(utc_timestamp)]
ReasonText = Annotated[str, AfterValidator(_check_reason)]
RuleIdText = Annotated[str, AfterValidator(_check_rule_id)]
SevenCards = Annotated[str | None, BeforeValidator(partial(_card_text, what="cards", sizes=range(7, 8)))]
# A setting is normally five behind and two in front; any other split of the seven cards is a
# foul (004) that the round records as made (docs/settlement.md), so a hand holds 0..7 cards.
HighHandCards = Annotated[str | None, BeforeValidator(partial(_card_text, what="high hand", sizes=range(8)))]
LowHandCards = Annotated[str | None, BeforeValidator(partial(_card_text, what="low hand", sizes=range(8)))]
HighCategoryLabel = Annotated[
    str | None, BeforeValidator(partial(_category_label, category=HighCategory, what="high hand category"))
]
LowCategoryLabel = Annotated[
    str | None, BeforeValidator(partial(_category_label, category=LowCategory, what="low hand category"))
]
SevenCardCategoryLabel = Annotated[
    str | None,
    BeforeValidator(partial(_category_label, category=SevenCardCategory, what="seven-card category")),
]


# --------------------------------------------------------------------------- events


class EventBase(SQLModel):
    table_id: str = Field(max_length=TABLE_ID_MAX)
    round_id: str | None = Field(default=None, max_length=ROUND_ID_MAX)
    kind: str = Field(max_length=KIND_MAX)
    actor: str = Field(max_length=ACTOR_MAX)


class EventCreate(EventBase):
    """An event as a caller (API, state machine) describes it; ``append_event`` chains it."""

    table_id: TableIdText
    round_id: RoundIdText | None = None
    kind: KindText
    actor: ActorText
    payload: PayloadData = Field(default_factory=dict)

    model_config = SQLModelConfig(extra="forbid")


class _EventKey(SQLModel):
    id: int | None = Field(default=None, primary_key=True, sa_type=_ID_TYPE)


class Event(EventBase, _EventKey, table=True):
    """One stored event, chained: ``hash`` covers every field and ``prev_hash``."""

    __tablename__ = "events"
    __table_args__ = (
        UniqueConstraint("table_id", "seq", name="uq_events_table_seq"),
        UniqueConstraint("hash", name="uq_events_hash"),
        CheckConstraint("seq >= 1", name="ck_events_seq_positive"),
        Index("ix_events_round_seq", "round_id", "seq"),
        Index("ix_events_created_at", "created_at"),
        Index("ix_events_table_kind_seq", "table_id", "kind", "seq"),  # alerts, device events (0002)
        {"sqlite_autoincrement": True},  # row ids are never reused after a delete
    )

    seq: int = Field(sa_type=BigInteger)
    created_at: datetime = Field(sa_type=UTCDateTime)
    payload: str = Field(sa_type=Text)
    prev_hash: str = Field(max_length=64)
    hash: str = Field(max_length=64)


class EventPublic(EventBase):
    """A stored event as shown outward: ``payload`` is the exact canonical JSON text hashed."""

    model_config = SQLModelConfig(frozen=True)

    id: int
    seq: int
    created_at: datetime
    payload: str
    prev_hash: str
    hash: str

    def payload_data(self) -> dict[str, Any]:
        """The payload parsed back into Python values."""
        data: dict[str, Any] = json.loads(self.payload)
        return data


class ChainHead(SQLModel, table=True):
    """Per table: the last seq and hash of its chain. Internal bookkeeping, never returned."""

    __tablename__ = "chain_heads"

    table_id: str = Field(primary_key=True, max_length=TABLE_ID_MAX)
    last_seq: int = Field(sa_type=BigInteger)
    last_hash: str = Field(max_length=64)
    updated_at: datetime = Field(sa_type=UTCDateTime)


# --------------------------------------------------------------------------- rounds


class RoundBase(SQLModel):
    table_id: str = Field(max_length=TABLE_ID_MAX)
    game: str = Field(max_length=16)
    dealer: str = Field(max_length=ACTOR_MAX)
    phase: str = Field(max_length=PHASE_MAX)
    opened_at: datetime = Field(sa_type=UTCDateTime)


class RoundCreate(RoundBase):
    """A new round; the store gives it the table's next number and its id."""

    table_id: TableIdText
    game: Game
    dealer: DealerName
    phase: PhaseText
    opened_at: UtcTime

    model_config = SQLModelConfig(extra="forbid")


class RoundFields(SQLModel):
    """What the round state machine fills in as the round goes (all of it optional at first)."""

    closed_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    voided: bool = False
    misdeal: bool = False
    void_reason: str | None = Field(default=None, max_length=REASON_MAX)
    die_1: int | None = None
    die_2: int | None = None
    die_3: int | None = None
    dice_source: str | None = Field(default=None, max_length=16)
    start_position: int | None = None
    wagered_cents: int = Field(default=0, sa_type=BigInteger)
    bonus_wagered_cents: int = Field(default=0, sa_type=BigInteger)
    commission_cents: int = Field(default=0, sa_type=BigInteger)
    bonuses_paid_cents: int = Field(default=0, sa_type=BigInteger)
    house_result_cents: int = Field(default=0, sa_type=BigInteger)  # + house won, - house lost
    house_way_rule_id: str | None = Field(default=None, max_length=RULE_ID_MAX)
    override: bool = False
    # the house's expected win on the round's wagers and its variance (docs/math.md); None: not known
    theoretical_win_cents: int | None = Field(default=None, sa_type=BigInteger)
    theoretical_variance: int | None = Field(default=None, sa_type=BigInteger)  # cents squared
    # who banked (migration 0006; docs/settlement.md, 8): None, the house; else the seat (2..7)
    # of the player-banker, the bank declared, the house's wager and co-banking share, the seat
    # the bank was offered to, how the dice counted (None in older rows: counter-clockwise)
    banker_seat: int | None = None
    bank_cents: int | None = Field(default=None, sa_type=BigInteger)
    house_wager_cents: int | None = Field(default=None, sa_type=BigInteger)
    house_share_bp: int | None = None
    bank_offer: int | None = None
    dice_direction: str | None = Field(default=None, max_length=20)
    # a player-banked round's bank once settled: what it won less what it paid, the commission
    # the banker paid, the player-banker's result, the house hand's result against the bank
    bank_gross_cents: int | None = Field(default=None, sa_type=BigInteger)
    bank_commission_cents: int | None = Field(default=None, sa_type=BigInteger)
    banker_result_cents: int | None = Field(default=None, sa_type=BigInteger)
    house_hand_result_cents: int | None = Field(default=None, sa_type=BigInteger)
    # the setting the house way required of the banker's hand, as JSON (way, rule_id, rule_words,
    # high, low), kept when the hand is set so the round's detail need not set it again (0007)
    house_way_required: str | None = Field(default=None, sa_type=Text)
    # the side wagers (0009; docs/progressive.md): Fortune and progressive wagered, and once
    # settled what the table paid on them and the house's result on them (apart from
    # house_result_cents, the base game's); 0 in older rows and at tables without them
    side_wagered_cents: int = Field(default=0, sa_type=BigInteger)
    side_paid_cents: int = Field(default=0, sa_type=BigInteger)
    side_house_result_cents: int = Field(default=0, sa_type=BigInteger)


class _RoundKey(SQLModel):
    round_id: str = Field(primary_key=True, max_length=ROUND_ID_MAX)
    number: int = Field(sa_type=BigInteger)


class Round(RoundFields, RoundBase, _RoundKey, table=True):
    """The ``rounds`` projection."""

    __tablename__ = "rounds"
    __table_args__ = (
        UniqueConstraint("table_id", "number", name="uq_rounds_table_number"),
        CheckConstraint("number >= 1", name="ck_rounds_number_positive"),
        CheckConstraint("start_position BETWEEN 1 AND 7", name="ck_rounds_start_position"),
        CheckConstraint("die_1 BETWEEN 1 AND 6", name="ck_rounds_die_1"),
        CheckConstraint("die_2 BETWEEN 1 AND 6", name="ck_rounds_die_2"),
        CheckConstraint("die_3 BETWEEN 1 AND 6", name="ck_rounds_die_3"),
        CheckConstraint(
            "wagered_cents >= 0 AND bonus_wagered_cents >= 0 AND commission_cents >= 0"
            " AND bonuses_paid_cents >= 0",
            name="ck_rounds_money_not_negative",
        ),
        Index("ix_rounds_opened_at", "opened_at", "round_id"),
        Index("ix_rounds_table_opened_at", "table_id", "opened_at"),
        Index("ix_rounds_game_opened_at", "game", "opened_at"),
        Index("ix_rounds_dealer_opened_at", "dealer", "opened_at"),
        Index("ix_rounds_voided_opened_at", "voided", "opened_at"),
        Index("ix_rounds_misdeal_opened_at", "misdeal", "opened_at"),
        Index("ix_rounds_override_opened_at", "override", "opened_at"),
        # round history pages walk a table's rounds by number (docs/api.md, migration 0002)
        Index("ix_rounds_table_dealer_number", "table_id", "dealer", "number"),
        Index("ix_rounds_table_voided_number", "table_id", "voided", "number"),
        Index("ix_rounds_table_misdeal_number", "table_id", "misdeal", "number"),
        Index("ix_rounds_table_override_number", "table_id", "override", "number"),
        # history by banker (house or player), migration 0006
        Index("ix_rounds_table_banker_number", "table_id", "banker_seat", "number"),
    )


class RoundUpdate(SQLModel):
    """Changes to a round's projection; only the fields given are written."""

    phase: PhaseText | None = None
    dealer: DealerName | None = None
    closed_at: UtcTime | None = None
    voided: bool | None = None
    misdeal: bool | None = None
    void_reason: ReasonText | None = None
    die_1: DieFace | None = None
    die_2: DieFace | None = None
    die_3: DieFace | None = None
    dice_source: DiceSource | None = None
    start_position: PositionNumber | None = None
    wagered_cents: StoredCents | None = None
    bonus_wagered_cents: StoredCents | None = None
    commission_cents: StoredCents | None = None
    bonuses_paid_cents: StoredCents | None = None
    house_result_cents: StrictCents | None = None
    house_way_rule_id: RuleIdText | None = None
    override: bool | None = None
    theoretical_win_cents: StrictCents | None = None
    theoretical_variance: StoredCents | None = None
    banker_seat: Seat | None = None
    bank_cents: StoredCents | None = None
    house_wager_cents: StoredCents | None = None
    house_share_bp: Annotated[StrictCount, Field(gt=0, lt=10_000)] | None = None
    bank_offer: Seat | None = None
    dice_direction: Literal["counter-clockwise", "clockwise"] | None = None
    bank_gross_cents: StrictCents | None = None
    bank_commission_cents: StoredCents | None = None
    banker_result_cents: StrictCents | None = None
    house_hand_result_cents: StrictCents | None = None
    house_way_required: str | None = None  # JSON, recorder.required_projection (0007)
    side_wagered_cents: StoredCents | None = None
    side_paid_cents: StoredCents | None = None
    side_house_result_cents: StrictCents | None = None

    model_config = SQLModelConfig(extra="forbid")


class RoundPublic(RoundFields, RoundBase, _RoundKey):
    """A round as shown outward."""

    model_config = SQLModelConfig(frozen=True)

    @property
    def dice(self) -> tuple[int, int, int] | None:
        if self.die_1 is None or self.die_2 is None or self.die_3 is None:
            return None
        return (self.die_1, self.die_2, self.die_3)


# --------------------------------------------------------------------------- positions


class RoundPositionBase(SQLModel):
    position: int
    house_hand: bool = False  # the dealer's own hand, played for the house against a player's bank
    wager_cents: int = Field(default=0, sa_type=BigInteger)
    big_hand_bonus_cents: int = Field(default=0, sa_type=BigInteger)  # side wager (003)
    joker_bonus_cents: int = Field(default=0, sa_type=BigInteger)  # side wager (003)
    fortune_cents: int = Field(default=0, sa_type=BigInteger)  # Fortune Bonus wager (0009)
    progressive_cents: int = Field(default=0, sa_type=BigInteger)  # progressive wager (0009)


class RoundPositionCreate(RoundPositionBase):
    """A position taking part in a round: the banker (1) or a position with a wager."""

    position: PositionNumber
    wager_cents: StoredCents = 0
    big_hand_bonus_cents: StoredCents = 0
    joker_bonus_cents: StoredCents = 0
    fortune_cents: StoredCents = 0
    progressive_cents: StoredCents = 0

    model_config = SQLModelConfig(extra="forbid")


class RoundPositionFields(SQLModel):
    """The hand and the settlement of one position, filled in as the round goes."""

    cards: str | None = Field(default=None, max_length=32)  # the 7 cards, "As Kd ..."
    high: str | None = Field(default=None, max_length=24)  # the high hand: 5 cards (0..7 in a foul split)
    low: str | None = Field(default=None, max_length=24)  # the low hand: 2 cards (0..7 in a foul split)
    high_category: str | None = Field(default=None, max_length=24)
    low_category: str | None = Field(default=None, max_length=24)
    seven_card_category: str | None = Field(default=None, max_length=40)
    house_way_rule_id: str | None = Field(default=None, max_length=RULE_ID_MAX)
    fouled: bool = False
    outcome: str | None = Field(default=None, max_length=8)
    win_cents: int = Field(default=0, sa_type=BigInteger)
    commission_cents: int = Field(default=0, sa_type=BigInteger)
    bonus_paid_cents: int = Field(default=0, sa_type=BigInteger)
    net_cents: int = Field(default=0, sa_type=BigInteger)  # the position's result, + won, - lost
    override: bool = False
    # the side wagers settled (0009), from the player's side: the Fortune wager's result, the
    # envy received, the progressive wager's result at the table (a meter award is the pool's)
    fortune_net_cents: int = Field(default=0, sa_type=BigInteger)
    envy_cents: int = Field(default=0, sa_type=BigInteger)
    progressive_net_cents: int = Field(default=0, sa_type=BigInteger)


class _RoundPositionKey(SQLModel):
    round_id: str = Field(primary_key=True, max_length=ROUND_ID_MAX)


class RoundPosition(RoundPositionFields, RoundPositionBase, _RoundPositionKey, table=True):
    """The ``round_positions`` projection: one row per position taking part."""

    __tablename__ = "round_positions"
    __table_args__ = (
        ForeignKeyConstraint(["round_id"], ["rounds.round_id"], name="fk_round_positions_round"),
        CheckConstraint("position BETWEEN 1 AND 7", name="ck_round_positions_position"),
        CheckConstraint(
            "wager_cents >= 0 AND big_hand_bonus_cents >= 0 AND joker_bonus_cents >= 0"
            " AND win_cents >= 0 AND commission_cents >= 0 AND bonus_paid_cents >= 0",
            name="ck_round_positions_money_not_negative",
        ),
        Index("ix_round_positions_position_outcome", "position", "outcome"),
        Index("ix_round_positions_outcome", "outcome"),
        Index("ix_round_positions_high_category", "high_category"),
        Index("ix_round_positions_seven_card_category", "seven_card_category"),
    )

    position: int = Field(primary_key=True)


class RoundPositionUpdate(SQLModel):
    """Changes to one position; only the fields given are written."""

    wager_cents: StoredCents | None = None
    big_hand_bonus_cents: StoredCents | None = None
    joker_bonus_cents: StoredCents | None = None
    cards: SevenCards = None
    high: HighHandCards = None
    low: LowHandCards = None
    high_category: HighCategoryLabel = None
    low_category: LowCategoryLabel = None
    seven_card_category: SevenCardCategoryLabel = None
    house_way_rule_id: RuleIdText | None = None
    fouled: bool | None = None
    outcome: PositionOutcome | None = None
    win_cents: StoredCents | None = None
    commission_cents: StoredCents | None = None
    bonus_paid_cents: StoredCents | None = None
    net_cents: StrictCents | None = None
    override: bool | None = None
    fortune_cents: StoredCents | None = None
    progressive_cents: StoredCents | None = None
    fortune_net_cents: StrictCents | None = None
    envy_cents: StoredCents | None = None
    progressive_net_cents: StrictCents | None = None

    model_config = SQLModelConfig(extra="forbid")


class RoundPositionPublic(RoundPositionFields, RoundPositionBase, _RoundPositionKey):
    """A position of a round as shown outward."""

    model_config = SQLModelConfig(frozen=True)


__all__ = [
    "BANKER_POSITION",
    "ChainHead",
    "DiceSource",
    "Event",
    "EventBase",
    "EventCreate",
    "EventPublic",
    "PositionOutcome",
    "Round",
    "RoundBase",
    "RoundCreate",
    "RoundFields",
    "RoundPosition",
    "RoundPositionBase",
    "RoundPositionCreate",
    "RoundPositionFields",
    "RoundPositionPublic",
    "RoundPositionUpdate",
    "RoundPublic",
    "RoundUpdate",
    "UTCDateTime",
]
