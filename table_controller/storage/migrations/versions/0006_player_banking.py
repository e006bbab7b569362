"""Schema for player banking and co-banking (who banked, the bank, the share).

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-25

``rounds``: ``banker_seat`` (NULL: the house banked, as every round stored before this),
``bank_cents`` (the bank declared), ``house_wager_cents`` (the house's own hand against the
bank), ``house_share_bp`` (the house's share of a co-banked bank), ``bank_offer`` (the seat the
bank was offered to), ``dice_direction`` (NULL in older rows: counter-clockwise, as they were
played), and once settled the bank's gross, the commission the banker paid, the banker's
result and the house hand's result (docs/settlement.md, 8). An index serves the history's
filter by banker. ``round_positions.house_hand``: the row of the dealer's own hand played for
the house against a player's bank (false in every older row).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_ROUND_COLUMNS = (
    ("banker_seat", sa.Integer()),
    ("bank_cents", sa.BigInteger()),
    ("house_wager_cents", sa.BigInteger()),
    ("house_share_bp", sa.Integer()),
    ("bank_offer", sa.Integer()),
    ("dice_direction", sa.String(length=20)),
    ("bank_gross_cents", sa.BigInteger()),
    ("bank_commission_cents", sa.BigInteger()),
    ("banker_result_cents", sa.BigInteger()),
    ("house_hand_result_cents", sa.BigInteger()),
)


def upgrade() -> None:
    with op.batch_alter_table("rounds") as batch:
        for name, kind in _ROUND_COLUMNS:
            batch.add_column(sa.Column(name, kind, nullable=True))
    op.create_index("ix_rounds_table_banker_number", "rounds", ["table_id", "banker_seat", "number"])
    with op.batch_alter_table("round_positions") as batch:
        batch.add_column(sa.Column("house_hand", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("round_positions") as batch:
        batch.drop_column("house_hand")
    op.drop_index("ix_rounds_table_banker_number", table_name="rounds")
    with op.batch_alter_table("rounds") as batch:
        for name, _ in reversed(_ROUND_COLUMNS):
            batch.drop_column(name)
