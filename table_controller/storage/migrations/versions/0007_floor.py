"""Schema for the floor: people scoped to a pit or a table, the tables of the floor, shifts,
the house way's required setting kept with its round, and one word for a lost wager.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-25

``users``: ``pit`` (a pit user sees only that pit's tables) and ``table_id`` (a dealer deals
only at that table); NULL leaves a person unscoped, as every user stored before this.
``floor_tables``: one row per table that has started against this store, with its pit, game and
house way and when its daemon was last heard from (docs/floor.md). ``shifts``: a shift of a
pit (or of the whole floor), opened and closed with the people on duty named; each change is
also an event of the store's ``floor`` chain. ``rounds.house_way_required``: the setting the
house way required of the banker's hand, kept when the hand is set (JSON; NULL in older rows
and in rounds not yet that far), so a round's detail does not set the hand again.
``round_positions.outcome``: ``loss`` becomes ``lose``, the word of the game core, the chain,
the logs and the pages (the chained settlements always said ``lose``).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from table_controller.storage.models import UTCDateTime

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("pit", sa.String(length=64), nullable=True))
        batch.add_column(sa.Column("table_id", sa.String(length=64), nullable=True))
    op.create_table(
        "floor_tables",
        sa.Column("table_id", sa.String(length=64), primary_key=True),
        sa.Column("pit", sa.String(length=64), nullable=True),
        sa.Column("game", sa.String(length=16), nullable=False),
        sa.Column("house_way", sa.String(length=64), nullable=False),
        sa.Column("api_url", sa.String(length=255), nullable=True),
        sa.Column("started_at", UTCDateTime(), nullable=False),
        sa.Column("seen_at", UTCDateTime(), nullable=False),
    )
    op.create_index("ix_floor_tables_pit", "floor_tables", ["pit", "table_id"])
    op.create_table(
        "shifts",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("pit", sa.String(length=64), nullable=True),
        sa.Column("opened_at", UTCDateTime(), nullable=False),
        sa.Column("opened_by", sa.String(length=64), nullable=False),
        sa.Column("on_duty", sa.Text(), nullable=False),
        sa.Column("closed_at", UTCDateTime(), nullable=True),
        sa.Column("closed_by", sa.String(length=64), nullable=True),
        sa.Column("signed_off", sa.Text(), nullable=True),
        sa.Column("note", sa.Text(), nullable=True),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_shifts_pit_opened", "shifts", ["pit", "opened_at"])
    with op.batch_alter_table("rounds") as batch:
        batch.add_column(sa.Column("house_way_required", sa.Text(), nullable=True))
    op.execute("UPDATE round_positions SET outcome = 'lose' WHERE outcome = 'loss'")


def downgrade() -> None:
    op.execute("UPDATE round_positions SET outcome = 'loss' WHERE outcome = 'lose'")
    with op.batch_alter_table("rounds") as batch:
        batch.drop_column("house_way_required")
    op.drop_index("ix_shifts_pit_opened", table_name="shifts")
    op.drop_table("shifts")
    op.drop_index("ix_floor_tables_pit", table_name="floor_tables")
    op.drop_table("floor_tables")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("table_id")
        batch.drop_column("pit")
