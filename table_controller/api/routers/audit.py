"""The record as evidence (docs/audit-chain.md): the table's signed checkpoints, and the pit's
chained override to run on a broken record for investigation (docs/api.md, "Audit")."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field
from sqlmodel import Session

from ...storage.checkpoints import chained_checkpoints, verifies
from ..deps import AuditDep, OverrideDep, ServiceDep, SettingsDep, StoreDep
from ..errors import responses

router = APIRouter(prefix="/api/audit", tags=["audit"])


class CheckpointPublic(BaseModel):
    """One signed checkpoint of the table's chain: the head (``seq``, ``hash``) at ``at``.
    ``verified``: its signature checks with the configured public key (None: no key configured)."""

    model_config = ConfigDict(frozen=True)

    event_seq: int  # the audit.checkpoint event that chained it
    table_id: str
    seq: int
    hash: str
    at: str
    reason: str
    signature: str
    public_key: str
    verified: bool | None


class CheckpointsPublic(BaseModel):
    model_config = ConfigDict(frozen=True)

    checkpoint_file: str  # the append-only file beside the database that surveillance copies
    public_key: str | None
    checkpoints: list[CheckpointPublic]
    unreadable: list[str]  # checkpoint events that are not checkpoints (named by their seq)


class RecordOverrideCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    reason: Annotated[str, Field(min_length=3, max_length=500)]


class RecordOverridePublic(BaseModel):
    model_config = ConfigDict(frozen=True)

    actor: str
    reason: str
    findings: list[str]


@router.get("/checkpoints", response_model=CheckpointsPublic, responses=responses())
async def get_checkpoints(
    _: AuditDep, service: ServiceDep, store: StoreDep, settings: SettingsDep
) -> CheckpointsPublic:
    """Every checkpoint chained by the table, oldest first, each with its signature checked."""
    key = settings.audit.public_key

    def found(session: Session) -> CheckpointsPublic:
        listed, unreadable = [], []
        for event_seq, item in chained_checkpoints(session, table_id=service.table_id):
            if isinstance(item, str):
                unreadable.append(f"event seq {event_seq}: {item}")
                continue
            listed.append(
                CheckpointPublic(
                    event_seq=event_seq,
                    table_id=item.table_id,
                    seq=item.seq,
                    hash=item.hash,
                    at=item.at,
                    reason=item.reason,
                    signature=item.signature,
                    public_key=item.public_key,
                    verified=None if key is None else verifies(item, key),
                )
            )
        return CheckpointsPublic(
            checkpoint_file=str(service.record.checkpoint_file),
            public_key=key,
            checkpoints=listed,
            unreadable=unreadable,
        )

    return await store.read(found)


@router.post("/override", response_model=RecordOverridePublic, responses=responses(409, 503))
async def override_record(
    body: RecordOverrideCreate, who: OverrideDep, service: ServiceDep, store: StoreDep
) -> RecordOverridePublic:
    """Run on a broken record for investigation: the findings are named in a chained
    ``audit.override`` and play resumes until something new is found. 409 when the record is whole."""
    findings = await store.run(service.override_record, who.name, body.reason)
    return RecordOverridePublic(actor=who.name, reason=body.reason, findings=findings)
