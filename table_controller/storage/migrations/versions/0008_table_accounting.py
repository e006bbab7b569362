"""Schema for the table's accounting (docs/accounting.md, "Storage, API and pages").

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-04

Projections of the table's chain, each row written with its event in one transaction
(storage/accounting.py): ``accounting_counts`` (openers and closers: the chips by denomination
as JSON, the supervisor who entered it, the dealer who signed it), ``accounting_slips`` (fill and
credit slips, numbered by the store: request, delivery, a void asked by one person and confirmed
by a second), ``accounting_drop`` (cash and markers of a gaming day, entered or imported from
the count room's file with its SHA-256 and line), ``accounting_lines`` (named variance lines)
and ``accounting_reconciliations`` (a day reconciled: the figures, and the alert it raised).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from table_controller.storage.models import UTCDateTime

revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _id() -> sa.Column[int]:
    return sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True)


def upgrade() -> None:
    op.create_table(
        "accounting_counts",
        _id(),
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("gaming_day", sa.Date(), nullable=False),
        sa.Column("shift", sa.String(length=32), nullable=True),
        sa.Column("counted_at", UTCDateTime(), nullable=False),
        sa.Column("chips", sa.Text(), nullable=False),
        sa.Column("value_cents", sa.BigInteger(), nullable=False),
        sa.Column("supervisor", sa.String(length=128), nullable=False),
        sa.Column("dealer", sa.String(length=128), nullable=False),
        sa.Column("signed_at", UTCDateTime(), nullable=True),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_accounting_counts_table_day", "accounting_counts", ["table_id", "gaming_day"])
    op.create_table(
        "accounting_slips",
        sa.Column("number", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("chips", sa.Text(), nullable=False),
        sa.Column("value_cents", sa.BigInteger(), nullable=False),
        sa.Column("requested_at", UTCDateTime(), nullable=False),
        sa.Column("requested_by", sa.String(length=128), nullable=False),
        sa.Column("delivered_at", UTCDateTime(), nullable=True),
        sa.Column("runner", sa.String(length=128), nullable=True),
        sa.Column("table_signer", sa.String(length=128), nullable=True),
        sa.Column("void_asked_at", UTCDateTime(), nullable=True),
        sa.Column("void_asked_by", sa.String(length=128), nullable=True),
        sa.Column("void_reason", sa.String(length=500), nullable=True),
        sa.Column("voided_at", UTCDateTime(), nullable=True),
        sa.Column("void_approved_by", sa.String(length=128), nullable=True),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_accounting_slips_table_requested", "accounting_slips", ["table_id", "requested_at"])
    op.create_table(
        "accounting_drop",
        _id(),
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("gaming_day", sa.Date(), nullable=False),
        sa.Column("shift", sa.String(length=32), nullable=True),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("amount_cents", sa.BigInteger(), nullable=False),
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.Column("reference", sa.String(length=128), nullable=True),
        sa.Column("entered_by", sa.String(length=128), nullable=False),
        sa.Column("entered_at", UTCDateTime(), nullable=False),
        sa.Column("file_sha256", sa.String(length=64), nullable=True),
        sa.Column("file_line", sa.Integer(), nullable=True),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_accounting_drop_table_day", "accounting_drop", ["table_id", "gaming_day"])
    op.create_table(
        "accounting_lines",
        _id(),
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("gaming_day", sa.Date(), nullable=False),
        sa.Column("shift", sa.String(length=32), nullable=True),
        sa.Column("name", sa.String(length=128), nullable=False),
        sa.Column("amount_cents", sa.BigInteger(), nullable=False),
        sa.Column("entered_by", sa.String(length=128), nullable=False),
        sa.Column("entered_at", UTCDateTime(), nullable=False),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_accounting_lines_table_day", "accounting_lines", ["table_id", "gaming_day"])
    op.create_table(
        "accounting_reconciliations",
        _id(),
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("gaming_day", sa.Date(), nullable=False),
        sa.Column("shift", sa.String(length=32), nullable=True),
        sa.Column("reconciled_at", UTCDateTime(), nullable=False),
        sa.Column("reconciled_by", sa.String(length=128), nullable=False),
        sa.Column("counted_win_cents", sa.BigInteger(), nullable=False),
        sa.Column("computed_result_cents", sa.BigInteger(), nullable=False),
        sa.Column("explained_cents", sa.BigInteger(), nullable=False),
        sa.Column("variance_cents", sa.BigInteger(), nullable=False),
        sa.Column("alert_above_cents", sa.BigInteger(), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("alert_seq", sa.BigInteger(), nullable=True),
        sqlite_autoincrement=True,
    )
    op.create_index(
        "ix_accounting_reconciliations_table_day", "accounting_reconciliations", ["table_id", "gaming_day"]
    )


def downgrade() -> None:
    for table in ("reconciliations", "lines", "drop", "counts"):
        op.drop_index(f"ix_accounting_{table}_table_day", table_name=f"accounting_{table}")
        op.drop_table(f"accounting_{table}")
    op.drop_index("ix_accounting_slips_table_requested", table_name="accounting_slips")
    op.drop_table("accounting_slips")
