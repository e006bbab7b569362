"""The deal: the start position from three dice, piles to positions, the complete-deck check.

- Positions 1..7, the banker is 1, numbered counter-clockwise (004_60e2fc6346e3399b.txt).
- Three dice are counted round the positions from the banker as 1 up to their total; that
  position gets the first pile and the next piles follow counter-clockwise. Which way the
  count goes is a table setting (``DiceDirection``): 000_f88fa0f023e5142c.txt counts
  counter-clockwise "starting with himself" (``start = ((total - 1) mod 7) + 1``, the
  default); 004 says "count betting spots clockwise from the first position"
  (``start = ((1 - total) mod 7) + 1``). The two agree only on totals 8 and 15.
- Seven piles of seven cards; 4 unused cards in the standard game (000, 004), 5 in Double
  Joker (003_4dcc2fceebc6e4af.txt). The piles and the unused cards must be exactly one
  complete deck; anything else is a misdeal, reported with every discrepancy found.
- The shuffler's reader reports a card it could not read as ``??``
  (docs/protocols/shuffler.md, 3.1): never guessed, it is an ``unreadable-card`` discrepancy.
- A deal the shuffler stopped (jam, door opened) or lost (it restarted mid-deal) is
  ``interrupted``: a misdeal with the device's reason, plus what is wrong with the cards that
  were dealt (the cards not dealt are not listed as missing: the interruption says why).
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from .cards import JOKER, Card, CardError, Game, codes, parse_card

# Positions 1..7 counter-clockwise, the banker is 1 (000_f88fa0f023e5142c.txt, 004_60e2fc6346e3399b.txt).
POSITIONS: Final = tuple(range(1, 8))
BANKER_POSITION: Final = 1
PLAYER_POSITIONS: Final = tuple(p for p in POSITIONS if p != BANKER_POSITION)  # all but the banker's
PILES = 7
PILE_SIZE = 7
DIE_FACES = range(1, 7)
UNREADABLE_CODE = "??"  # a card the shuffler's reader could not read (docs/protocols/shuffler.md, 3.1)
INTERRUPTED = "deal-interrupted"  # the discrepancy of a deal the shuffler stopped or lost


class DiceError(ValueError):
    """Dice faces that three six-sided dice cannot show."""


class DiceDirection(enum.StrEnum):
    """Which way the dice total is counted round the positions from the banker (position 1)."""

    COUNTER_CLOCKWISE = (
        "counter-clockwise"  # 000: "counts around ... counter-clockwise, starting with himself"
    )
    CLOCKWISE = "clockwise"  # 004: "count betting spots clockwise from the first position"


DEFAULT_DICE_DIRECTION: Final = DiceDirection.COUNTER_CLOCKWISE


def start_position(faces: Sequence[int], direction: DiceDirection = DEFAULT_DICE_DIRECTION) -> int:
    """The position that gets the first pile: count the dice total from the banker as 1 (000, 004).

    Counter-clockwise the count runs 1, 2, 3 ...; clockwise it runs 1, 7, 6 ... The piles
    then follow counter-clockwise from the start either way (004 "proceeds counter-clockwise").
    """
    if len(faces) != 3 or any(face not in DIE_FACES for face in faces):
        raise DiceError(f"three dice show 1..6 each, got {list(faces)}")
    steps = sum(faces) - 1
    if DiceDirection(direction) is DiceDirection.CLOCKWISE:
        steps = -steps
    return steps % 7 + 1


def pile_positions(start: int) -> tuple[int, ...]:
    """Position of each pile in dealing order: the first at ``start``, then counter-clockwise."""
    if start not in POSITIONS:
        raise ValueError(f"start position must be 1..7, got {start}")
    return tuple((start - 1 + k) % 7 + 1 for k in range(PILES))


@dataclass(frozen=True, slots=True)
class Discrepancy:
    """One thing wrong with a deal, in words the pit can act on."""

    kind: str  # pile-count, pile-size, unused-count, unknown-card, unreadable-card, duplicate-card,
    #            missing-card, joker-count, deal-interrupted
    detail: str
    cards: tuple[str, ...] = ()
    pile: int | None = None  # 1-based pile number in dealing order


@dataclass(frozen=True, slots=True)
class DealCheck:
    """The outcome of checking a deal; ``hands`` maps position -> seven cards when valid."""

    discrepancies: tuple[Discrepancy, ...]
    hands: dict[int, tuple[Card, ...]] = field(default_factory=dict)

    @property
    def is_misdeal(self) -> bool:
        return bool(self.discrepancies)


def counts_toward_hold(misdeal: Sequence[Discrepancy]) -> bool:
    """Whether a misdeal is evidence against the deck (docs/round-lifecycle.md, "When things go
    wrong"): only a deal that completed with a wrong card set counts toward the table's hold
    after misdeals in a row. A deal the shuffler stopped or lost (a restart, a lost link, a jam)
    is voided all the same, but says nothing of the deck: it neither counts nor ends the run."""
    return bool(misdeal) and not any(d.kind == INTERRUPTED for d in misdeal)


def _parse_pile(codes_: Sequence[str], pile: int | None, problems: list[Discrepancy]) -> list[Card]:
    cards: list[Card] = []
    where = f"pile {pile}" if pile else "the unused cards"
    for place, code in enumerate(codes_, start=1):
        if code == UNREADABLE_CODE:
            problems.append(
                Discrepancy("unreadable-card", f"card {place} of {where} could not be read", (), pile)
            )
            continue
        try:
            cards.append(parse_card(code))
        except CardError:
            problems.append(
                Discrepancy("unknown-card", f"unknown card code {code!r} in {where}", (str(code),), pile)
            )
    return cards


def check_deal(
    game: Game,
    piles: Sequence[Sequence[str]],
    unused: Sequence[str],
    start: int,
    interrupted: str | None = None,
) -> DealCheck:
    """Check that seven piles and the unused cards are exactly one deck of ``game``.

    ``piles`` are in dealing order (pile 1 is the first dealt). On success the piles are
    assigned to positions from ``start``; on a misdeal no hand is assigned. ``interrupted``
    (the device's reason) makes the deal a misdeal whatever the cards: only the cards that
    were dealt are checked then (unknown, unreadable, duplicated, too many jokers).
    """
    if interrupted is not None:
        return _check_interrupted(game, piles, unused, interrupted)
    problems: list[Discrepancy] = []
    if len(piles) != PILES:
        problems.append(Discrepancy("pile-count", f"{len(piles)} piles dealt, expected {PILES}"))
    parsed_piles = []
    for number, pile in enumerate(piles, start=1):
        if len(pile) != PILE_SIZE:
            problems.append(
                Discrepancy(
                    "pile-size", f"pile {number} has {len(pile)} cards, expected {PILE_SIZE}", pile=number
                )
            )
        parsed_piles.append(_parse_pile(pile, number, problems))
    if len(unused) != game.unused_cards:
        problems.append(
            Discrepancy(
                "unused-count", f"{len(unused)} unused cards, expected {game.unused_cards} ({game.value})"
            )
        )
    parsed_unused = _parse_pile(unused, None, problems)

    seen = _seen_cards(game, parsed_piles, parsed_unused, problems, exact_jokers=True)
    expected = Counter(game.deck())
    expected.pop(JOKER)
    missing = sorted(set(expected) - set(seen))
    if missing:
        problems.append(
            Discrepancy("missing-card", f"missing {' '.join(codes(missing))}", tuple(codes(missing)))
        )
    if problems:
        return DealCheck(discrepancies=tuple(problems))
    positions = pile_positions(start)
    return DealCheck(discrepancies=(), hands={positions[k]: tuple(parsed_piles[k]) for k in range(PILES)})


def _seen_cards(
    game: Game,
    parsed_piles: list[list[Card]],
    parsed_unused: list[Card],
    problems: list[Discrepancy],
    *,
    exact_jokers: bool,
) -> Counter[Card]:
    """Count the natural cards seen; report the joker count and every duplicated card."""
    seen = Counter(card for pile in parsed_piles for card in pile) + Counter(parsed_unused)
    jokers = seen.pop(JOKER, 0)
    if jokers > game.jokers or (exact_jokers and jokers != game.jokers):
        problems.append(
            Discrepancy("joker-count", f"{jokers} jokers, the {game.value} deck has {game.jokers}")
        )
    for card, count in sorted(seen.items()):
        if count > 1:
            where = [n for n, pile in enumerate(parsed_piles, start=1) if card in pile]
            place = ", ".join(f"pile {n}" for n in where) + (" and unused" if card in parsed_unused else "")
            problems.append(
                Discrepancy(
                    "duplicate-card",
                    f"{card} appears {count} times ({place})",
                    (card.code,),
                    where[0] if where else None,
                )
            )
    return seen


def _check_interrupted(
    game: Game, piles: Sequence[Sequence[str]], unused: Sequence[str], reason: str
) -> DealCheck:
    problems = [Discrepancy(INTERRUPTED, reason)]
    parsed_piles = []
    for number, pile in enumerate(piles, start=1):
        if len(pile) > PILE_SIZE:
            problems.append(
                Discrepancy(
                    "pile-size", f"pile {number} has {len(pile)} cards, expected {PILE_SIZE}", pile=number
                )
            )
        parsed_piles.append(_parse_pile(pile, number, problems))
    parsed_unused = _parse_pile(unused, None, problems)
    _seen_cards(game, parsed_piles, parsed_unused, problems, exact_jokers=False)
    return DealCheck(discrepancies=tuple(problems))
