"""Who may do what, as data (docs/api.md, "Who may do what").

Each endpoint needs one permission; this table says which roles hold it. The dealer submits
settings and opens rounds; the pit does what the dealer does plus void, override a house-way
deviation, acknowledge alerts, open and close the table; surveillance reads everything,
raw device frames included, and changes nothing; the admin keeps configuration and user keys.
"""

from __future__ import annotations

import enum
from types import MappingProxyType

from ..storage.users import Role


class Permission(enum.StrEnum):
    READ_TABLE = "read-table"  # the table now: round, wagers, cards, house way, alerts, devices
    PLAY = "play"  # open a round, submit the players' and the dealer's settings
    VOID = "void"
    OVERRIDE = "override"  # let a deviating dealer setting stand, with a reason
    ACKNOWLEDGE = "acknowledge"  # acknowledge an alert with a note
    OPEN_CLOSE = "open-close"  # open or close the table
    AUDIT = "audit"  # round history, one round, replay, alerts, reports, the live stream
    DEVICE_FRAMES = "device-frames"  # the raw device events
    ADMIN = "admin"  # configuration, user keys
    CONFIRM = "confirm"  # confirm or cancel another pit user's void or override request (two people)
    ACCOUNT = "account"  # the table's accounting: counts, slips, drop, variance lines, reconcile a day
    SIGN = "sign"  # the second signature of a count (the dealer) or a slip's delivery (the table's signer)
    # the banker's seven cards while they are face down (players-setting of the standard game):
    # a dealer terminal that showed them would invite signalling (game protection)
    SEE_FACE_DOWN = "see-face-down"
    RATE = "rate"  # seat a rated player (card number), move them, end their rating
    LIMITS = "limits"  # change the table's limits while it runs, within the approved ones


_D, _P, _S, _A = Role.DEALER, Role.PIT, Role.SURVEILLANCE, Role.ADMIN

GRANTS: MappingProxyType[Permission, frozenset[Role]] = MappingProxyType(
    {
        Permission.READ_TABLE: frozenset({_D, _P, _S}),
        Permission.PLAY: frozenset({_D, _P}),
        Permission.VOID: frozenset({_P}),
        Permission.OVERRIDE: frozenset({_P}),
        Permission.ACKNOWLEDGE: frozenset({_P}),
        Permission.OPEN_CLOSE: frozenset({_P}),
        Permission.AUDIT: frozenset({_P, _S}),
        Permission.DEVICE_FRAMES: frozenset({_S}),
        Permission.ADMIN: frozenset({_A}),
        Permission.CONFIRM: frozenset({_P}),
        Permission.ACCOUNT: frozenset({_P}),
        Permission.SIGN: frozenset({_D, _P}),
        Permission.SEE_FACE_DOWN: frozenset({_P, _S}),
        Permission.RATE: frozenset({_D, _P}),
        Permission.LIMITS: frozenset({_P}),
    }
)
"""Permission -> the roles holding it. Surveillance holds no permission that changes anything."""

CHANGES_STATE = frozenset(
    {
        Permission.PLAY,
        Permission.VOID,
        Permission.OVERRIDE,
        Permission.ACKNOWLEDGE,
        Permission.OPEN_CLOSE,
        Permission.ADMIN,
        Permission.CONFIRM,
        Permission.ACCOUNT,
        Permission.SIGN,
        Permission.RATE,
        Permission.LIMITS,
    }
)


def allowed(role: Role, permission: Permission) -> bool:
    return role in GRANTS[permission]


def roles_for(permission: Permission) -> list[str]:
    return sorted(role.value for role in GRANTS[permission])


__all__ = ["CHANGES_STATE", "GRANTS", "Permission", "allowed", "roles_for"]
