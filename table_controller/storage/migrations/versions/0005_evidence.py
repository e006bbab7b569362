"""Schema for the record as evidence (content-addressed rules, checkpoints); filled by the evidence work.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-25
"""

from collections.abc import Sequence

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    _upgrade_two_person_keys()


def downgrade() -> None:
    _downgrade_two_person_keys()


# -- two people for a key (docs/api.md, "Two people"; table_controller/storage/users.py) -------------
# Who made a person's current key and whether a second admin confirmed it. Rows that exist already
# were keyed before the rule: they stay confirmed.


def _upgrade_two_person_keys() -> None:
    import sqlalchemy as sa
    from alembic import op

    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("keyed_by", sa.String(length=64), nullable=True))
        batch.add_column(sa.Column("confirmed", sa.Boolean(), nullable=False, server_default=sa.true()))
        batch.add_column(sa.Column("confirmed_by", sa.String(length=64), nullable=True))


def _downgrade_two_person_keys() -> None:
    from alembic import op

    with op.batch_alter_table("users") as batch:
        batch.drop_column("confirmed_by")
        batch.drop_column("confirmed")
        batch.drop_column("keyed_by")
