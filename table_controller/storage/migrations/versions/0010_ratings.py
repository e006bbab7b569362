"""Schema for rated players (docs/accounting.md, "Ratings").

Revision ID: 0010
Revises: 0009 (the side wagers)
Create Date: 2026-12-05

Projections of the table's chain, each row written with its event in one transaction
(storage/ratings.py): ``ratings`` (one player's stay at one seat: the figures folded from the
settled rounds, the end and its reason, whether the player still holds the seat),
``rating_buy_ins`` (cash, chips and markers the pit entered), ``rating_adjustments`` (a figure
changed by a pit user: both values, the reason, the chained event's seq) and ``rating_outbox``
(closed ratings waiting for the player-tracking system: the idempotency key, the attempts).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from table_controller.storage.models import UTCDateTime

revision: str = "0010"
down_revision: str | Sequence[str] | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _id() -> sa.Column[int]:
    return sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True)


def _cents(name: str) -> sa.Column[int]:
    return sa.Column(name, sa.BigInteger(), nullable=False)


def upgrade() -> None:
    op.create_table(
        "ratings",
        _id(),
        sa.Column("rating_id", sa.String(length=128), nullable=False),
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("player", sa.String(length=40), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("gaming_day", sa.Date(), nullable=False),
        sa.Column("started_at", UTCDateTime(), nullable=False),
        sa.Column("started_by", sa.String(length=128), nullable=False),
        sa.Column("last_at", UTCDateTime(), nullable=False),
        sa.Column("ended_at", UTCDateTime(), nullable=True),
        sa.Column("end_reason", sa.String(length=16), nullable=True),
        sa.Column("ended_by", sa.String(length=128), nullable=True),
        sa.Column("seated", sa.Boolean(), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        _cents("main_wagered_cents"),
        _cents("bonus_wagered_cents"),
        _cents("actual_win_cents"),
        _cents("theoretical_win_cents"),
        sa.Column("theoretical_rounds", sa.Integer(), nullable=False),
        _cents("buy_in_cash_cents"),
        _cents("buy_in_chips_cents"),
        _cents("buy_in_markers_cents"),
        sa.Column("banks", sa.Integer(), nullable=False),
        _cents("bank_actual_win_cents"),
        sa.Column("round_ids", sa.Text(), nullable=False),
        sa.UniqueConstraint("rating_id", name="uq_ratings_rating_id"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_ratings_table_day", "ratings", ["table_id", "gaming_day"])
    op.create_index("ix_ratings_player", "ratings", ["player"])
    op.create_table(
        "rating_buy_ins",
        _id(),
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("rating_id", sa.String(length=128), nullable=True),
        sa.Column("kind", sa.String(length=8), nullable=False),
        _cents("amount_cents"),
        sa.Column("entered_by", sa.String(length=128), nullable=False),
        sa.Column("entered_at", UTCDateTime(), nullable=False),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_rating_buy_ins_table_seat", "rating_buy_ins", ["table_id", "seat"])
    op.create_table(
        "rating_adjustments",
        _id(),
        sa.Column("rating_id", sa.String(length=128), nullable=False),
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("field", sa.String(length=32), nullable=False),
        sa.Column("old_value", sa.BigInteger(), nullable=True),
        sa.Column("new_value", sa.BigInteger(), nullable=False),
        sa.Column("reason", sa.String(length=500), nullable=False),
        sa.Column("actor", sa.String(length=128), nullable=False),
        sa.Column("adjusted_at", UTCDateTime(), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_rating_adjustments_rating", "rating_adjustments", ["rating_id"])
    op.create_table(
        "rating_outbox",
        _id(),
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("rating_id", sa.String(length=128), nullable=False),
        sa.Column("idempotency_key", sa.String(length=136), nullable=False),
        sa.Column("payload", sa.Text(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", UTCDateTime(), nullable=False),
        sa.Column("delivered_at", UTCDateTime(), nullable=True),
        sa.Column("last_error", sa.String(length=500), nullable=True),
        sa.UniqueConstraint("idempotency_key", name="uq_rating_outbox_key"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_rating_outbox_due", "rating_outbox", ["delivered_at", "next_attempt_at"])


def downgrade() -> None:
    op.drop_index("ix_rating_outbox_due", table_name="rating_outbox")
    op.drop_table("rating_outbox")
    op.drop_index("ix_rating_adjustments_rating", table_name="rating_adjustments")
    op.drop_table("rating_adjustments")
    op.drop_index("ix_rating_buy_ins_table_seat", table_name="rating_buy_ins")
    op.drop_table("rating_buy_ins")
    op.drop_index("ix_ratings_player", table_name="ratings")
    op.drop_index("ix_ratings_table_day", table_name="ratings")
    op.drop_table("ratings")
