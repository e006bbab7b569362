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
    _upgrade_evidence()


def downgrade() -> None:
    _downgrade_evidence()
    _downgrade_two_person_keys()


# -- the record as evidence (docs/audit-chain.md; storage/rules_store.py, storage/people.py) ---------
# ``evidence``: rules files and snapshots by the SHA-256 of their exact bytes. The people chain:
# every person who exists already is recorded once as ``user.enrolled`` by ``migration-0005``,
# so that from now on a person in the ``users`` table and not in the chain was inserted behind
# the store's back (the upgrade is the one moment the table is taken as it is; say so to the pit).

ENROLLED_BY = "migration-0005"


def _upgrade_evidence() -> None:
    import sqlalchemy as sa
    from alembic import op

    from table_controller.storage.models import UTCDateTime

    op.create_table(
        "evidence",
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("content", sa.LargeBinary(), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("stored_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("sha256"),
    )
    _enroll_people()


def _enroll_people() -> None:
    from datetime import UTC, datetime

    import sqlalchemy as sa
    from alembic import op

    from table_controller.storage.chain import GENESIS_HASH, ChainLink, canonical_payload, format_timestamp
    from table_controller.storage.models import UTCDateTime
    from table_controller.storage.people import PEOPLE_CHAIN

    # the users columns as this revision has them (people.PERSON_FIELDS grew with 0007)
    PERSON_FIELDS = ("name", "role", "disabled", "token_hash", "keyed_by", "confirmed", "confirmed_by")

    bind = op.get_bind()
    people = bind.execute(
        sa.text(f"SELECT {', '.join(PERSON_FIELDS)} FROM users ORDER BY id")  # fixed column names
    ).all()
    if not people:
        return
    head = bind.execute(
        sa.text("SELECT last_seq, last_hash FROM chain_heads WHERE table_id = :t"), {"t": PEOPLE_CHAIN}
    ).first()
    seq, prev = (int(head[0]), str(head[1])) if head is not None else (0, GENESIS_HASH)
    events = sa.table(
        "events",
        sa.column("table_id", sa.String),
        sa.column("seq", sa.BigInteger),
        sa.column("round_id", sa.String),
        sa.column("kind", sa.String),
        sa.column("actor", sa.String),
        sa.column("created_at", UTCDateTime()),
        sa.column("payload", sa.Text),
        sa.column("prev_hash", sa.String),
        sa.column("hash", sa.String),
    )
    heads = sa.table(
        "chain_heads",
        sa.column("table_id", sa.String),
        sa.column("last_seq", sa.BigInteger),
        sa.column("last_hash", sa.String),
        sa.column("updated_at", UTCDateTime()),
    )
    now = datetime.now(UTC)
    for person in people:
        record = dict(zip(PERSON_FIELDS, person, strict=True))
        record["disabled"], record["confirmed"] = bool(record["disabled"]), bool(record["confirmed"])
        payload = canonical_payload(record)
        seq += 1
        digest = ChainLink(
            PEOPLE_CHAIN, seq, None, "user.enrolled", ENROLLED_BY, format_timestamp(now), prev, payload
        ).digest()
        bind.execute(
            events.insert().values(
                table_id=PEOPLE_CHAIN,
                seq=seq,
                round_id=None,
                kind="user.enrolled",
                actor=ENROLLED_BY,
                created_at=now,
                payload=payload,
                prev_hash=prev,
                hash=digest,
            )
        )
        prev = digest
    if head is None:
        bind.execute(
            heads.insert().values(table_id=PEOPLE_CHAIN, last_seq=seq, last_hash=prev, updated_at=now)
        )
    else:
        bind.execute(
            heads.update()
            .where(heads.c.table_id == PEOPLE_CHAIN)
            .values(last_seq=seq, last_hash=prev, updated_at=now)
        )


def _downgrade_evidence() -> None:
    from alembic import op

    op.drop_table("evidence")  # the people chain's events stay: the chain is append-only


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
