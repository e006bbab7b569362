"""People in the chain: every change to the ``users`` table is also an event of the ``people``
chain, so a role edited or a user inserted behind the store's back is caught by ``audit
verify`` (docs/audit-chain.md, "What the chain holds").

Each event carries the person's whole row after the change (name, role, disabled, the
SHA-256 of their token: the value the ``users`` table keeps, never the token; who keyed
them and who confirmed it), so the chain alone says who may do what at any moment, and the
table is compared with it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

from sqlmodel import Session, col, select

from .audit import append_event
from .models import Event

PEOPLE_CHAIN: Final = "people"  # the chain's id in the events table (no table may take it)
PERSON_KINDS: Final = frozenset(
    {
        "user.added",
        "user.confirmed",
        "user.disabled",
        "user.enrolled",
        "user.key-rotated",
        "user.role-changed",
        "user.scope-changed",  # a pit or a table set on the person, or cleared (docs/api.md, "Who sees what")
    }
)


# The ``users`` columns the chain records after each change (the token as its stored hash).
PERSON_FIELDS: Final = (
    "name",
    "role",
    "disabled",
    "token_hash",
    "keyed_by",
    "confirmed",
    "confirmed_by",
    "pit",  # migration 0007: the person's scope on the floor
    "table_id",
)
# Fields an event older than migration 0007 does not carry, whose value it implies: nobody had a
# scope then (the migration added both columns empty), so a scope set behind the store's back on
# a person last chained before it is still a finding.
IMPLIED_BEFORE: Final = {"pit": None, "table_id": None}


@dataclass(frozen=True, slots=True)
class PersonRecord:
    """A person as the chain last recorded them: ``fields`` holds PERSON_FIELDS (those an older
    event did not carry are absent, and not compared, except the scope: ``IMPLIED_BEFORE``)."""

    name: str
    fields: dict[str, Any]
    seq: int  # the people-chain event that recorded this state


def person_payload(row: Any) -> dict[str, Any]:
    """A ``users`` row as the people chain records it."""
    return {name: getattr(row, name) for name in PERSON_FIELDS}


def chain_person(session: Session, *, kind: str, actor: str, row: Any) -> None:
    """Append the person's row after a change (``kind``), in the caller's transaction."""
    if kind not in PERSON_KINDS:
        raise ValueError(f"{kind!r} is not a people-chain event ({sorted(PERSON_KINDS)})")
    append_event(
        session, table_id=PEOPLE_CHAIN, round_id=None, kind=kind, actor=actor, payload=person_payload(row)
    )


def people_from_events(events: Iterable[tuple[int, str, str]]) -> dict[str, PersonRecord]:
    """Each person's last chained state from ``(seq, kind, payload text)`` in seq order.

    A payload that is not a person's row raises ValueError naming its seq."""
    people: dict[str, PersonRecord] = {}
    for seq, kind, payload in events:
        if kind not in PERSON_KINDS:
            continue
        try:
            data = json.loads(payload)
            name = data["name"]
            if not isinstance(name, str):
                raise TypeError("name is not text")
        except (ValueError, KeyError, TypeError) as error:
            raise ValueError(f"people chain seq {seq}: not a person's row ({error})") from None
        people[name] = PersonRecord(
            name=name,
            fields={
                key: data.get(key, IMPLIED_BEFORE.get(key))
                for key in PERSON_FIELDS
                if key in data or key in IMPLIED_BEFORE
            },
            seq=seq,
        )
    return people


def chained_people(session: Session) -> dict[str, PersonRecord]:
    """Every person as the people chain last recorded them, by name."""
    rows = session.exec(
        select(Event.seq, Event.kind, Event.payload)
        .where(Event.table_id == PEOPLE_CHAIN)
        .order_by(col(Event.seq))
    )
    return people_from_events((row[0], row[1], row[2]) for row in rows)


__all__ = [
    "PEOPLE_CHAIN",
    "PERSON_KINDS",
    "PersonRecord",
    "chain_person",
    "chained_people",
    "people_from_events",
]
