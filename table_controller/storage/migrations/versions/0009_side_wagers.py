"""The side wagers: the Fortune Bonus, its Envy Bonus and the progressive (docs/progressive.md).

Revision ID: 0009
Revises: 0008 (the table accounting)
Create Date: 2026-12-04

``rounds``: ``side_wagered_cents`` (Fortune and progressive wagers), ``side_paid_cents``
(what the table paid on them: wins, envy, fixed progressive awards) and
``side_house_result_cents`` (the house's result on them, apart from ``house_result_cents``,
the base game's). ``round_positions``: the two wagers and, once settled, the Fortune result,
the envy received and the progressive result at the table. All 0 in older rows.
``progressive_pools``: a progressive pool's state after its chain's last event, by pool id
(storage/progressive.py), the projection ``audit verify`` re-derives from the pool's chain.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from table_controller.storage.models import UTCDateTime

revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_ROUNDS = ("side_wagered_cents", "side_paid_cents", "side_house_result_cents")
_POSITIONS = (
    "fortune_cents",
    "progressive_cents",
    "fortune_net_cents",
    "envy_cents",
    "progressive_net_cents",
)


def upgrade() -> None:
    op.create_table(
        "progressive_pools",
        sa.Column("pool_id", sa.String(length=52), primary_key=True),
        sa.Column("open", sa.Boolean(), nullable=False),
        sa.Column("last_seq", sa.BigInteger(), nullable=False),
        sa.Column("state", sa.Text(), nullable=False),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
    )
    with op.batch_alter_table("rounds") as batch:
        for name in _ROUNDS:
            batch.add_column(sa.Column(name, sa.BigInteger(), nullable=False, server_default="0"))
    with op.batch_alter_table("round_positions") as batch:
        for name in _POSITIONS:
            batch.add_column(sa.Column(name, sa.BigInteger(), nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("round_positions") as batch:
        for name in reversed(_POSITIONS):
            batch.drop_column(name)
    with op.batch_alter_table("rounds") as batch:
        for name in reversed(_ROUNDS):
            batch.drop_column(name)
    op.drop_table("progressive_pools")
