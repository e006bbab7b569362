"""The bodies of the API's refusals: every 4xx says what was wrong, in words (docs/api.md, Bad input)."""

from __future__ import annotations

from pydantic import BaseModel, Field


class ErrorBody(BaseModel):
    """A refusal: a stable code for programs and a reason for people."""

    error: str = Field(examples=["forbidden"], description="machine-readable code")
    detail: str = Field(examples=["role dealer may not void"], description="the reason, in words")


class TwoPersonBody(ErrorBody):
    """403: a step that needs a second person, taken by the first (docs/api.md, "Two people");
    also chained as a ``two-person.refused`` event."""

    rule: str = Field(
        examples=["same-person"],
        description="same-person, own-act, own-setting, unconfirmed-key, same-admin or own-key",
    )


class FieldProblem(BaseModel):
    loc: list[str | int] = Field(description="where: 'body', 'query', 'path' or 'header', then the field")
    msg: str


class ValidationBody(ErrorBody):
    """422: the request itself is malformed or outside the table's limits."""

    errors: list[FieldProblem] = Field(default_factory=list)


class SettingPublic(BaseModel):
    """A seven-card hand set into a high hand (five cards) and a low hand (two)."""

    high: list[str] = Field(examples=[["Ac", "9h", "5c", "3d", "2h"]])
    low: list[str] = Field(examples=[["Qd", "7s"]])


class RefusalBody(ErrorBody):
    """409: the table or the round refused the command in its present state (nothing was changed
    but the audit note saying so). A house-way deviation also gives the setting the house way
    requires and the id of the rule that fired (002_08ea07f9e4b504bc.txt)."""

    phase: str | None = Field(default=None, description="the round's phase when it refused")
    required: SettingPublic | None = None
    rule_id: str | None = None
    rule_words: str | None = None
    rule_wording: str | None = Field(
        default=None, description="rule_words as the pages show them: no empty cells (house_way/wording.py)"
    )


class UnreadableBody(ErrorBody):
    """409 ``record-unreadable``: a stored value the store never writes (a forged time, payload or
    amount) stopped the read; ``findings`` names each such row as ``audit verify`` would
    (docs/api.md, "A forged stored value")."""

    findings: list[str] = Field(
        default_factory=list,
        examples=[["table t1, seq 4 (round.opened): created_at stored as '2026-01-01T00:00:00+02:00'"]],
        description="each row holding a value the store never writes",
    )
