"""A fouled setting is recorded as made: a low hand may hold up to seven cards.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-25

A player's setting other than five behind and two in front is a foul (004) settled by the
foul rule, and the round records it as made; ``round_positions.low`` was sized for two cards,
so such a setting could not be stored and the round was held. SQLite keeps no lengths: only
PostgreSQL's column changes.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("round_positions") as batch:
        batch.alter_column(
            "low", existing_type=sa.String(length=8), type_=sa.String(length=24), existing_nullable=True
        )


def downgrade() -> None:
    with op.batch_alter_table("round_positions") as batch:
        batch.alter_column(
            "low", existing_type=sa.String(length=24), type_=sa.String(length=8), existing_nullable=True
        )
