"""A round's theoretical win and its variance (docs/math.md, "Theoretical win and hold").

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-25

``rounds.theoretical_win_cents``: the house's expected win on the round's wagers (whole
cents, rounded half-even), and ``rounds.theoretical_variance``: the variance of the house's
result on the round (cents squared, rounded half-even). Both nullable: a round settled
before this, or without the table's math, shows its theoretical win as missing, never 0.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("rounds") as batch:
        batch.add_column(sa.Column("theoretical_win_cents", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("theoretical_variance", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("rounds") as batch:
        batch.drop_column("theoretical_variance")
        batch.drop_column("theoretical_win_cents")
