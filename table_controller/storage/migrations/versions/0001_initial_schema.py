"""Initial schema: the event log and its chain heads, the round projections.

Revision ID: 0001
Revises:
Create Date: 2026-11-22

Also installs the append-only guard on ``events`` (UPDATE, DELETE and TRUNCATE refused by
triggers): the log is evidence (docs/round-lifecycle.md). The verifier still catches edits made by someone
who drops the triggers first.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_PG_GUARD = [
    """
    CREATE FUNCTION events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION 'events are append-only: % refused', TG_OP USING ERRCODE = 'restrict_violation';
    END
    $$
    """,
    "CREATE TRIGGER events_no_update_delete BEFORE UPDATE OR DELETE ON events"
    " FOR EACH ROW EXECUTE FUNCTION events_append_only()",
    "CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events"
    " FOR EACH STATEMENT EXECUTE FUNCTION events_append_only()",
]
_PG_UNGUARD = [
    "DROP TRIGGER IF EXISTS events_no_truncate ON events",
    "DROP TRIGGER IF EXISTS events_no_update_delete ON events",
    "DROP FUNCTION IF EXISTS events_append_only()",
]
_SQLITE_GUARD = [
    "CREATE TRIGGER events_no_update BEFORE UPDATE ON events"
    " BEGIN SELECT RAISE(ABORT, 'events are append-only: UPDATE refused'); END",
    "CREATE TRIGGER events_no_delete BEFORE DELETE ON events"
    " BEGIN SELECT RAISE(ABORT, 'events are append-only: DELETE refused'); END",
]
_SQLITE_UNGUARD = [
    "DROP TRIGGER IF EXISTS events_no_update",
    "DROP TRIGGER IF EXISTS events_no_delete",
]


def _id_type() -> sa.types.TypeEngine:
    return sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "chain_heads",
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("last_seq", sa.BigInteger(), nullable=False),
        sa.Column("last_hash", sa.String(length=64), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("table_id"),
    )
    op.create_table(
        "events",
        sa.Column("id", _id_type(), nullable=False),
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("round_id", sa.String(length=80), nullable=True),
        sa.Column("kind", sa.String(length=64), nullable=False),
        sa.Column("actor", sa.String(length=128), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("payload", sa.Text(), nullable=False),
        sa.Column("prev_hash", sa.String(length=64), nullable=False),
        sa.Column("hash", sa.String(length=64), nullable=False),
        sa.CheckConstraint("seq >= 1", name="ck_events_seq_positive"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("hash", name="uq_events_hash"),
        sa.UniqueConstraint("table_id", "seq", name="uq_events_table_seq"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_events_created_at", "events", ["created_at"])
    op.create_index("ix_events_round_seq", "events", ["round_id", "seq"])

    op.create_table(
        "rounds",
        sa.Column("round_id", sa.String(length=80), nullable=False),
        sa.Column("number", sa.BigInteger(), nullable=False),
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("game", sa.String(length=16), nullable=False),
        sa.Column("dealer", sa.String(length=128), nullable=False),
        sa.Column("phase", sa.String(length=32), nullable=False),
        sa.Column("opened_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("voided", sa.Boolean(), nullable=False),
        sa.Column("misdeal", sa.Boolean(), nullable=False),
        sa.Column("void_reason", sa.String(length=500), nullable=True),
        sa.Column("die_1", sa.Integer(), nullable=True),
        sa.Column("die_2", sa.Integer(), nullable=True),
        sa.Column("die_3", sa.Integer(), nullable=True),
        sa.Column("dice_source", sa.String(length=16), nullable=True),
        sa.Column("start_position", sa.Integer(), nullable=True),
        sa.Column("wagered_cents", sa.BigInteger(), nullable=False),
        sa.Column("bonus_wagered_cents", sa.BigInteger(), nullable=False),
        sa.Column("commission_cents", sa.BigInteger(), nullable=False),
        sa.Column("bonuses_paid_cents", sa.BigInteger(), nullable=False),
        sa.Column("house_result_cents", sa.BigInteger(), nullable=False),
        sa.Column("house_way_rule_id", sa.String(length=64), nullable=True),
        sa.Column("override", sa.Boolean(), nullable=False),
        sa.CheckConstraint("die_1 BETWEEN 1 AND 6", name="ck_rounds_die_1"),
        sa.CheckConstraint("die_2 BETWEEN 1 AND 6", name="ck_rounds_die_2"),
        sa.CheckConstraint("die_3 BETWEEN 1 AND 6", name="ck_rounds_die_3"),
        sa.CheckConstraint("number >= 1", name="ck_rounds_number_positive"),
        sa.CheckConstraint("start_position BETWEEN 1 AND 7", name="ck_rounds_start_position"),
        sa.CheckConstraint(
            "wagered_cents >= 0 AND bonus_wagered_cents >= 0 AND commission_cents >= 0"
            " AND bonuses_paid_cents >= 0",
            name="ck_rounds_money_not_negative",
        ),
        sa.PrimaryKeyConstraint("round_id"),
        sa.UniqueConstraint("table_id", "number", name="uq_rounds_table_number"),
    )
    op.create_index("ix_rounds_dealer_opened_at", "rounds", ["dealer", "opened_at"])
    op.create_index("ix_rounds_game_opened_at", "rounds", ["game", "opened_at"])
    op.create_index("ix_rounds_misdeal_opened_at", "rounds", ["misdeal", "opened_at"])
    op.create_index("ix_rounds_opened_at", "rounds", ["opened_at", "round_id"])
    op.create_index("ix_rounds_override_opened_at", "rounds", ["override", "opened_at"])
    op.create_index("ix_rounds_table_opened_at", "rounds", ["table_id", "opened_at"])
    op.create_index("ix_rounds_voided_opened_at", "rounds", ["voided", "opened_at"])

    op.create_table(
        "round_positions",
        sa.Column("round_id", sa.String(length=80), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("wager_cents", sa.BigInteger(), nullable=False),
        sa.Column("big_hand_bonus_cents", sa.BigInteger(), nullable=False),
        sa.Column("joker_bonus_cents", sa.BigInteger(), nullable=False),
        sa.Column("cards", sa.String(length=32), nullable=True),
        sa.Column("high", sa.String(length=24), nullable=True),
        sa.Column("low", sa.String(length=8), nullable=True),
        sa.Column("high_category", sa.String(length=24), nullable=True),
        sa.Column("low_category", sa.String(length=24), nullable=True),
        sa.Column("seven_card_category", sa.String(length=40), nullable=True),
        sa.Column("house_way_rule_id", sa.String(length=64), nullable=True),
        sa.Column("fouled", sa.Boolean(), nullable=False),
        sa.Column("outcome", sa.String(length=8), nullable=True),
        sa.Column("win_cents", sa.BigInteger(), nullable=False),
        sa.Column("commission_cents", sa.BigInteger(), nullable=False),
        sa.Column("bonus_paid_cents", sa.BigInteger(), nullable=False),
        sa.Column("net_cents", sa.BigInteger(), nullable=False),
        sa.Column("override", sa.Boolean(), nullable=False),
        sa.CheckConstraint("position BETWEEN 1 AND 7", name="ck_round_positions_position"),
        sa.CheckConstraint(
            "wager_cents >= 0 AND big_hand_bonus_cents >= 0 AND joker_bonus_cents >= 0"
            " AND win_cents >= 0 AND commission_cents >= 0 AND bonus_paid_cents >= 0",
            name="ck_round_positions_money_not_negative",
        ),
        sa.ForeignKeyConstraint(["round_id"], ["rounds.round_id"], name="fk_round_positions_round"),
        sa.PrimaryKeyConstraint("round_id", "position"),
    )
    op.create_index("ix_round_positions_high_category", "round_positions", ["high_category"])
    op.create_index("ix_round_positions_outcome", "round_positions", ["outcome"])
    op.create_index("ix_round_positions_position_outcome", "round_positions", ["position", "outcome"])
    op.create_index("ix_round_positions_seven_card_category", "round_positions", ["seven_card_category"])

    guard = _PG_GUARD if op.get_bind().dialect.name == "postgresql" else _SQLITE_GUARD
    for statement in guard:
        op.execute(statement)


def downgrade() -> None:
    unguard = _PG_UNGUARD if op.get_bind().dialect.name == "postgresql" else _SQLITE_UNGUARD
    for statement in unguard:
        op.execute(statement)
    op.drop_table("round_positions")
    op.drop_table("rounds")
    op.drop_table("events")
    op.drop_table("chain_heads")
