"""People and roles for the terminals; indexes for the API's queries (docs/api.md).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22

- ``users``: name, role (dealer / pit / surveillance / admin), SHA-256 of the bearer token,
  created_at, disabled (``table_controller/storage/users.py``).
- ``events (table_id, kind, seq)``: alerts and their acknowledgements, device events.
- ``rounds (table_id, <filter>, number)``: round history pages walk a table's rounds by
  number, newest first; a filter on the dealer, a void, a misdeal or an override follows its
  own index instead of scanning every round.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_ROUND_INDEXES = {
    "ix_rounds_table_dealer_number": ["table_id", "dealer", "number"],
    "ix_rounds_table_voided_number": ["table_id", "voided", "number"],
    "ix_rounds_table_misdeal_number": ["table_id", "misdeal", "number"],
    "ix_rounds_table_override_number": ["table_id", "override", "number"],
}


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("disabled", sa.Boolean(), nullable=False),
        sa.CheckConstraint("role IN ('dealer', 'pit', 'surveillance', 'admin')", name="ck_users_role"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name", name="uq_users_name"),
        sa.UniqueConstraint("token_hash", name="uq_users_token_hash"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_events_table_kind_seq", "events", ["table_id", "kind", "seq"])
    for name, columns in _ROUND_INDEXES.items():
        op.create_index(name, "rounds", columns)


def downgrade() -> None:
    for name in reversed(list(_ROUND_INDEXES)):
        op.drop_index(name, table_name="rounds")
    op.drop_index("ix_events_table_kind_seq", table_name="events")
    op.drop_table("users")
