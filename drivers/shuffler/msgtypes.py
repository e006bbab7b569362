"""The shuffler's message types, 0x10-0x3F (docs/protocols/shuffler.md, section 3).

Only numbers: the simulator may import this module (message-type constants), never the codec.
"""

from __future__ import annotations

import enum


class ShufflerMsg(enum.IntEnum):
    """Commands 0x10-0x1F (host to device), events 0x20-0x3F (device to host)."""

    SHUFFLE = 0x10
    DEAL = 0x11
    DECK_CHECK = 0x12
    STATUS_REQUEST = 0x13

    STATUS = 0x20
    SHUFFLED = 0x21
    PILE = 0x22
    UNUSED_CARDS = 0x23
    DEAL_ABORTED = 0x24
    DECK_CHECKED = 0x25
    FAULT = 0x26
    FAULT_CLEARED = 0x27
    COMMAND_REJECTED = 0x28
