"""The text patterns the API checks, and the plain words a refusal uses for each (docs/api.md, Bad
input: "a clear 4xx with the reason").

The patterns stay in the OpenAPI document (a terminal's form can check them first); a refused
value is answered in words, never with the regular expression itself:
``query.card: 'Zz' is not a card code: rank then suit ...``.
"""

from __future__ import annotations

from typing import Final

from ..game.cards import JOKER_CODE, RANK_CHARS, SUIT_CHARS, TEN_ALIAS
from ..storage.users import NAME_PATTERN

# A card code as the game core reads it (game/cards.py: parse_card), in either case:
# ^(?:[23456789TJQKAtjqka]|10)[shdcSHDC]$|^[Jj][Kk]$
_RANKS: Final = "".join(dict.fromkeys(RANK_CHARS + RANK_CHARS.lower()))
_JOKER: Final = "".join(f"[{char}{char.lower()}]" for char in JOKER_CODE)
CARD_PATTERN: Final = rf"^(?:[{_RANKS}]|{TEN_ALIAS})[{SUIT_CHARS}{SUIT_CHARS.upper()}]$|^{_JOKER}$"
# Free text (a reason, a note): no control characters, at least one letter or digit; kept as given.
TEXT_PATTERN: Final = r"^[^\x00-\x1f\x7f]*[A-Za-z0-9][^\x00-\x1f\x7f]*$"
ROUND_ID_PATTERN: Final = r"^[A-Za-z0-9][A-Za-z0-9_.-]*-[0-9]+$"
DEVICE_PATTERN: Final = r"^[a-z0-9][a-z0-9-]{0,31}$"

PATTERN_WORDS: Final = {
    CARD_PATTERN: "a card code: rank then suit (ranks 2-9 T J Q K A, 10 for T; suits s h d c; any case), "
    "or JK for the joker; e.g. As, Td, 10h",
    TEXT_PATTERN: "plain text: at least one letter or digit, no control characters (tab, new line...)",
    ROUND_ID_PATTERN: "a round id: the table id, a dash and the round's number; e.g. PG-3-1042",
    DEVICE_PATTERN: "a device name: lowercase letters, digits and dashes; e.g. shuffler",
    NAME_PATTERN: "a person's name: lowercase letters, digits and _ . -, starting with a letter or digit; "
    "e.g. ann.lee",
}


def pattern_words(pattern: str) -> str:
    """What a value matching ``pattern`` looks like, in words."""
    return PATTERN_WORDS.get(pattern, "in the form the API documents for it (see /openapi.json)")


__all__ = [
    "CARD_PATTERN",
    "DEVICE_PATTERN",
    "NAME_PATTERN",
    "PATTERN_WORDS",
    "ROUND_ID_PATTERN",
    "TEXT_PATTERN",
    "pattern_words",
]
