"""Checks shared by the accounting's models: whole cents, names of people, two distinct signers,
aware instants (docs/accounting.md, "Signatures")."""

from __future__ import annotations

from datetime import UTC, datetime

from ..game.money import Cents
from .errors import AmountError, NaiveTimeError, SignatureError


def whole_cents(value: object, what: str, *, minimum: int | None = 0) -> Cents:
    """``value`` if it is an ``int`` of cents at or above ``minimum`` (None: any sign).

    A ``bool``, ``float``, ``Decimal`` or string is refused, never rounded.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise AmountError(f"{what} must be a whole number of cents, got {value!r}")
    if minimum is not None and value < minimum:
        raise AmountError(f"{what} must be at least {minimum} cents, got {value!r}")
    return value


def person(name: object, what: str) -> str:
    """A signer's name, stripped; refused when empty."""
    if not isinstance(name, str) or not name.strip():
        raise SignatureError(f"{what} must be a person's name, got {name!r}")
    return name.strip()


def two_people(first: object, second: object, first_role: str, second_role: str) -> tuple[str, str]:
    """Two signers who must be two people: the same name twice (case and spaces aside) is refused."""
    one, two = person(first, first_role), person(second, second_role)
    if one.casefold() == two.casefold():
        raise SignatureError(f"the {first_role} and the {second_role} must be two people, both are {one!r}")
    return one, two


def instant(value: object, what: str) -> datetime:
    """An aware datetime, in UTC; a naive one is refused (the zone of a time is never guessed)."""
    if type(value) is datetime and value.tzinfo is UTC:  # the common case, fast
        return value
    if not isinstance(value, datetime):
        raise NaiveTimeError(f"{what} must be a datetime, got {value!r}")
    if value.tzinfo is None or value.utcoffset() is None:
        raise NaiveTimeError(f"{what} {value.isoformat()} has no time zone")
    return value.astimezone(UTC)


__all__ = ["instant", "person", "two_people", "whole_cents"]
