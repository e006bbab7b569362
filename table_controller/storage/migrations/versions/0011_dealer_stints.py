"""Schema for the dealers on the boxes (docs/dealers.md).

Revision ID: 0011
Revises: 0010 (the ratings)
Create Date: 2026-12-07

``dealer_stints``: a projection of the table's chain, each row written with its event in one
transaction (storage/dealers.py): one dealer's time on one table's box, from their sign-in
(``dealer.signed-in``, its seq kept) to the next dealer's sign-in (``relieved``) or their
sign-out (``signed-out``). A round records the dealer on the box in ``rounds.dealer``, as
before; the limits changed on the fly live in the chain alone (storage/limits.py).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from table_controller.storage.models import UTCDateTime

revision: str = "0011"
down_revision: str | Sequence[str] | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "dealer_stints",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("dealer", sa.String(length=128), nullable=False),
        sa.Column("started_at", UTCDateTime(), nullable=False),
        sa.Column("signed_in_by", sa.String(length=128), nullable=False),
        sa.Column("signed_in_seq", sa.BigInteger(), nullable=False),
        sa.Column("ended_at", UTCDateTime(), nullable=True),
        sa.Column("ended_by", sa.String(length=128), nullable=True),
        sa.Column("end_reason", sa.String(length=16), nullable=True),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_dealer_stints_table_started", "dealer_stints", ["table_id", "started_at"])
    op.create_index("ix_dealer_stints_dealer_ended", "dealer_stints", ["dealer", "ended_at"])


def downgrade() -> None:
    op.drop_index("ix_dealer_stints_dealer_ended", table_name="dealer_stints")
    op.drop_index("ix_dealer_stints_table_started", table_name="dealer_stints")
    op.drop_table("dealer_stints")
