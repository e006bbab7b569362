"""The phases of a round in people's words (docs/round-lifecycle.md, "The phases").

One table, used by the API (``phase_words`` beside ``phase`` in the table state and the round
history) so that every page shows the same words and never the slug.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from .phases import Phase

PHASE_WORDS: Final[Mapping[Phase, str]] = MappingProxyType(
    {
        Phase.OPEN: "wagers in, waiting for the dice",
        Phase.DEALING: "dice rolled, waiting for the deal",
        Phase.PLAYERS_SETTING: "players' hands to set",
        Phase.DEALER_SETTING: "dealer's hand to set",
        Phase.SETTLING: "every hand set, waiting for settlement",
        Phase.CLOSED: "settled",
        Phase.VOID: "void, wagers returned",
    }
)

# a Phase hashes and compares as its slug (StrEnum): one lookup serves both, with no Phase(...)
# to build for each of the rows of a history page
_BY_SLUG: Final[Mapping[str, str]] = {phase.value: words for phase, words in PHASE_WORDS.items()}

# what each round event is, in the words a refusal names it with (machine.TransitionRefused)
EVENT_WORDS: Final[Mapping[str, str]] = MappingProxyType(
    {
        "round.opened": "opening a round",
        "wager.side": "a side wager",
        "dice.rolled": "a roll of the dice",
        "piles.dealt": "a deal",
        "player.set": "a player's setting",
        "dealer.set": "the dealer's setting",
        "dealer.override": "an override",
        "round.settled": "settlement",
        "round.voided": "a void",
    }
)


def phase_words(phase: Phase | str) -> str:
    """The words for ``phase`` (a Phase or its slug); an unknown slug is shown as it is."""
    return _BY_SLUG.get(phase, str(phase))


__all__ = ["EVENT_WORDS", "PHASE_WORDS", "phase_words"]
