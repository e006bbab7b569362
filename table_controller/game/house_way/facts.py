"""Facts about seven cards, computed once per hand; the predicates and card selectors read them.

Cards are named by their position 0..6 in the hand, so two jokers (Double Joker,
003_4dcc2fceebc6e4af.txt) stay two cards. Conventions (docs/house-way.md, Readings):

- G2 / G6: when ranks are grouped (pairs, 3-of-a-kind, singletons, "highest") a joker is an
  Ace, even when it also fills a straight or flush. Two jokers are a pair of Aces.
- G7: the straight used is the longest run (straights.py); a card of a repeated rank that is
  not in the run is a non-straight: the run takes the *last* copy in hand order, so the
  earlier copies go in front (suits only, the choices are worth the same: G5).
- G8: the flush suit is the one whose natural cards plus the jokers reach five (one suit
  at most in seven cards); its size counts the jokers held.

The legality check here is the foul rule of docs/house-way.md, Readings ("Values and fouls"), as
setting.is_legal computes it, without building hands (it is on every hand's path; the
tests check it against is_legal).

How: each card has a precomputed integer code, the seven codes added give the hand's, and
most facts are read from it with a few operations; the rest is computed when a row first
asks. docs/house-way.md, "Speed", tells why and how.
"""

from __future__ import annotations

import enum
from collections.abc import Hashable, Iterable, Sequence
from functools import reduce
from operator import or_
from typing import Any, Final

try:  # the C helper Counter itself uses (CPython); the same result in Python otherwise
    from collections import _count_elements  # type: ignore[attr-defined]  # private, not in typeshed
except ImportError:  # pragma: no cover

    def _count_elements(mapping: dict[int, int], iterable: Iterable[int]) -> None:
        for element in iterable:
            mapping[element] = mapping.get(element, 0) + 1


from ..cards import (
    ACE,
    SUIT_CHARS,
    Card,
    DuplicateCardError,
    HandSizeError,
    TooManyJokersError,
    UnknownCardError,
)
from ..evaluator import RankingRules, Wheel, rank_high, rank_low
from ..ranking_tables import MAX_JOKERS
from .straights import (
    NIBBLE,
    five_card_windows,
    presence,
    spread,
    straight_possible,
    straight_window_of_ranks,
    straight_windows,
)

# Layout of a card's code (module docstring): a nibble per suit and the joker count (the
# flush table's key), the card bits (16 per suit, bit r for rank r), a nibble per rank.
_JOKERS_AT, _CARDS_AT, _RANKS_AT = 16, 20, 84
_FLUSH_KEY = (1 << _CARDS_AT) - 1
_LANE = (1 << 16) - 1  # the card bits of one suit
_LANES = (1 << 64) - 1
_ACE_RANK = 1 << ACE
_ACE_AT = NIBBLE * ACE


def _card_codes() -> dict[str, dict[int, int]]:
    """suit -> rank -> code, for every card of the decks (the joker: suit "", rank 0)."""
    codes: dict[str, dict[int, int]] = {"": {0: 1 << _JOKERS_AT}}
    for index, suit in enumerate(SUIT_CHARS):
        codes[suit] = {
            rank: 1 << (NIBBLE * index)
            | 1 << (_CARDS_AT + 16 * index + rank)
            | 1 << (_RANKS_AT + NIBBLE * rank)
            for rank in range(2, ACE + 1)
        }
    return codes


_CODE = _card_codes()
_NO_JOKERS: list[int] = []
_NEVADA = Wheel.NEVADA

# What the seven cards can make (G1), as bits: the signature carries them.
FIVE_ACES, ROYAL_FLUSH, STRAIGHT_FLUSH, FOUR_OF_A_KIND = 1, 2, 4, 8
FLUSH, STRAIGHT, FULL_HOUSE, THREE_OF_A_KIND, PAIR = 16, 32, 64, 128, 256
KINDS = {
    "five-aces": FIVE_ACES,
    "royal-flush": ROYAL_FLUSH,
    "straight-flush": STRAIGHT_FLUSH,
    "four-of-a-kind": FOUR_OF_A_KIND,
    "flush": FLUSH,
    "straight": STRAIGHT,
    "straight-or-flush": FLUSH | STRAIGHT,
    "full-house": FULL_HOUSE,
    "three-of-a-kind": THREE_OF_A_KIND,
    "pair": PAIR,
}
_STRAIGHT_OR_FLUSH_BITS = ROYAL_FLUSH | STRAIGHT_FLUSH | FLUSH | STRAIGHT

# The size histogram: a nibble per group size (how many ranks are held that many times).
_SIZE_BIT = {size: 1 << (NIBBLE * size) for size in range(8)}  # a dict: its __getitem__ is fast in map
# A rank mask (bit r for rank r, and bit 1 for an Ace: it plays low too), for the questions
# about some of the cards and the flush suit's ranks.
_RANK_BIT = {rank: (1 << rank) | (2 if rank == ACE else 0) for rank in range(2, 15)}
_ROYAL_RANKS = sum(1 << rank for rank in range(10, 15))  # T J Q K A, the Ace high
_STARTS = sum(1 << low for low in range(1, 11))  # A-2-3-4-5 .. T-J-Q-K-A
_FIVE_WINDOWS = tuple(0b11111 << low for low in range(1, 11))
# Signature layout: histogram (32 bits), kinds (10 bits), jokers (4 bits), joker wild in front.
_KINDS_AT, _SIG_JOKERS_AT, _WILD_AT = 32, 42, 46
_HIST_FIELD = (1 << _KINDS_AT) - 1


def _rank_tables() -> tuple[dict[int, tuple[int, ...]], dict[int, tuple[int, ...]], frozenset[int]]:
    """For every set of ranks 2..14 as a mask (bit r for rank r): its ranks lowest first, its
    ranks highest first; and the masks that hold five ranks in a row (the Ace also low)."""
    low_first: dict[int, tuple[int, ...]] = {}
    high_first: dict[int, tuple[int, ...]] = {}
    five_in_row = set()
    for held in range(1 << 13):
        mask = held << 2
        ranks = tuple(rank for rank in range(2, ACE + 1) if mask >> rank & 1)
        low_first[mask] = ranks
        high_first[mask] = ranks[::-1]
        if _straight_in(mask | (2 if mask >> ACE & 1 else 0), 0):
            five_in_row.add(mask)
    return low_first, high_first, frozenset(five_in_row)


def histogram(sizes: Sequence[int]) -> int:
    """The size histogram of rank groups of these sizes (module docstring)."""
    return sum(_SIZE_BIT[size] for size in sizes)


def group_kinds(sizes: Sequence[int]) -> int:
    """The "can make" bits that the rank groups alone give (G1; joker = Ace, G2)."""
    sizes = list(sizes)
    kinds = 0
    if len(sizes) < 7:
        if 2 in sizes:
            kinds = PAIR
        if len(sizes) < 6:  # a 3-of-a-kind or more is possible
            if 3 in sizes:
                kinds |= THREE_OF_A_KIND
                # G1: one 3-of-a-kind with one or two pairs (two go to Three of a kind)
                if kinds & PAIR and sizes.count(3) == 1 and 4 not in sizes:
                    kinds |= FULL_HOUSE
            if 4 in sizes:
                kinds |= FOUR_OF_A_KIND
            if max(sizes) >= 5:  # only the Aces reach five: four and a joker or two
                kinds |= FIVE_ACES
    return kinds


def partitions(total: int = 7, largest: int = 7) -> list[tuple[int, ...]]:
    """Every way to split ``total`` cards into rank groups (sizes, largest first)."""
    if total == 0:
        return [()]
    found = []
    for size in range(min(total, largest), 0, -1):
        found += [(size, *rest) for rest in partitions(total - size, size)]
    return found


_GROUP_KINDS = {histogram(sizes): group_kinds(sizes) for sizes in partitions()}


def _straight_in(mask: int, jokers: int) -> bool:
    """Do the ranks of a rank mask (bit r, and bit 1 for an Ace) make five in a row, the
    jokers filling? (straights.straight_window_of_ranks, asked only whether; the tests compare)"""
    if jokers == 0:
        return bool(mask & mask >> 1 & mask >> 2 & mask >> 3 & mask >> 4)
    if jokers == 1:
        # at least four of the five ranks from each start: a|b|c|d|e with at most one missing
        a, b, c, d, e = mask, mask >> 1, mask >> 2, mask >> 3, mask >> 4
        ab, cd = a & b, c & d
        return bool((ab & cd | ab & e & (c | d) | cd & e & (a | b)) & _STARTS)
    return any((mask & window).bit_count() >= 5 - jokers for window in _FIVE_WINDOWS)


_LOW_FIRST, _HIGH_FIRST, _FIVE_IN_ROW = _rank_tables()
_SINGLES = histogram((1,) * 7)
_ONE_PAIR = histogram((2, 1, 1, 1, 1, 1))
_TWO_PAIRS = histogram((2, 2, 1, 1, 1))
_THREE_OF_A_KIND = histogram((3, 1, 1, 1, 1))


def signature(hist: int, kinds: int, jokers: int, wild: bool) -> int:
    """The hand's signature (module docstring): the histogram, the flush and straight bits of
    ``kinds`` (the rest follow from the histogram), the jokers, and ``wild`` with a joker held."""
    return (
        hist
        | (kinds & _STRAIGHT_OR_FLUSH_BITS) << _KINDS_AT
        | jokers << _SIG_JOKERS_AT
        | (bool(wild) and jokers > 0) << _WILD_AT
    )


def _code_of_card(card: Card) -> int:
    """A card's code; UnknownCardError for anything that is not a card of the decks."""
    try:
        return _CODE[card.suit][card.rank]
    except AttributeError:
        raise UnknownCardError(repr(card)) from None
    except (KeyError, TypeError):
        raise UnknownCardError(f"Card(rank={card.rank!r}, suit={card.suit!r})") from None


def _raise_duplicate(cards: Sequence[Card]) -> None:
    """Raise for the first natural card held twice (called when the code says there is one)."""
    seen: set[tuple[int, str]] = set()
    for card in cards:
        key = (card.rank, card.suit)
        if key in seen and card.suit:
            raise DuplicateCardError(card)
        seen.add(key)
    raise AssertionError("no duplicated card found")  # unreachable: the caller counted one


def _flush_table() -> dict[int, str | None]:
    """(suit counters | jokers << 16) -> the suit whose natural cards plus the jokers reach
    five (G8), or None; for every way to hold at most seven cards."""
    table: dict[int, str | None] = {}
    for s in range(8):
        for h in range(8 - s):
            for d in range(8 - s - h):
                for c in range(8 - s - h - d):
                    counters = s | h << 4 | d << 8 | c << 12
                    for jokers in range(8 - s - h - d - c):
                        found = next(
                            (
                                suit
                                for suit, n in zip(SUIT_CHARS, (s, h, d, c), strict=True)
                                if n + jokers >= 5
                            ),
                            None,
                        )
                        table[counters | jokers << 16] = found
    return table


_FLUSH_SUIT = _flush_table()


class Run:
    """The straight used: positions ``members`` from its lowest card (``low``) up."""

    __slots__ = ("joker_places", "length", "low", "members", "outside")

    def __init__(
        self, low: int, members: tuple[int, ...], joker_places: tuple[int, ...], outside: tuple[int, ...]
    ):
        self.low = low  # 1 when an Ace plays low
        self.members = members
        self.joker_places = joker_places  # 1-based places in the run held by a joker
        self.outside = outside  # the non-straight cards, hand order
        self.length = len(members)

    def __repr__(self) -> str:
        return (
            f"Run(low={self.low}, members={self.members}, joker_places={self.joker_places}, "
            f"outside={self.outside})"
        )


class _Unset(enum.Enum):
    """Not computed yet (None is an answer: no straight, no run)."""

    UNSET = enum.auto()


_UNSET: Final = _Unset.UNSET
_PLACE_BIT = {place: 1 << place for place in range(7)}
# places held (bits) -> the other places, hand order
_OUTSIDE = tuple(tuple(place for place in range(7) if not held >> place & 1) for held in range(128))


class HandFacts:
    """Seven cards seen once: groups of ranks, the flush suit, the runs (module docstring).

    Set for every hand: ``grank`` (each card's rank, a joker an Ace: G2), ``jokers`` (their
    positions), ``singles`` (ranks held once, highest first: G6), ``pairs`` and ``threes``
    (lowest first: "first pair" = lowest, G10), ``distinct`` (how many ranks), ``groups``
    (a nibble per rank: how many cards of it), ``code`` (module docstring), ``flush_suit``
    and ``signature``.
    """

    __slots__ = (
        "_counts",
        "_memo",
        "_present",
        "_ranks",
        "_run",
        "_straight",
        "_suits",
        "cards",
        "code",
        "distinct",
        "flush_suit",
        "grank",
        "groups",
        "jokers",
        "pairs",
        "ranking",
        "run_kind",
        "signature",
        "singles",
        "threes",
    )

    _counts: dict[int, int] | None
    _memo: dict[Hashable, Any] | None
    _present: int
    _ranks: Sequence[int] | None
    _run: tuple[str, Run | None] | _Unset
    _straight: tuple[int, int] | _Unset | None
    _suits: list[str] | None
    cards: Sequence[Card]
    code: int
    distinct: int
    flush_suit: str | None
    grank: list[int]
    groups: int
    jokers: list[int]
    pairs: tuple[int, ...]
    ranking: RankingRules
    run_kind: str
    signature: int
    singles: tuple[int, ...]
    threes: tuple[int, ...]

    def __init__(self, cards: Sequence[Card], ranking: RankingRules, max_jokers: int = MAX_JOKERS) -> None:
        if type(cards) is not tuple:
            cards = tuple(cards)
        if len(cards) != 7:
            raise HandSizeError(len(cards), (7,))
        a, b, c, d, e, f, g = cards
        try:
            ranks = [a.rank, b.rank, c.rank, d.rank, e.rank, f.rank, g.rank]
            code = (
                _CODE[a.suit][ranks[0]]
                + _CODE[b.suit][ranks[1]]
                + _CODE[c.suit][ranks[2]]
                + _CODE[d.suit][ranks[3]]
                + _CODE[e.suit][ranks[4]]
                + _CODE[f.suit][ranks[5]]
                + _CODE[g.suit][ranks[6]]
            )
        except (AttributeError, KeyError, TypeError):
            for card in cards:
                _code_of_card(card)
            raise
        flush_key = code & _FLUSH_KEY
        njokers = flush_key >> _JOKERS_AT
        held = code >> _CARDS_AT & _LANES  # the natural cards, 16 bits per suit
        if held.bit_count() + njokers != 7:
            _raise_duplicate(cards)  # a card twice carries out of its bit: fewer bits are set
        if njokers > max_jokers:
            raise TooManyJokersError(njokers, max_jokers)
        self.cards = cards
        self.ranking = ranking
        self.code = code
        self.run_kind = "straight"
        self._counts = self._suits = self._memo = self._ranks = None
        self._run = _UNSET
        # The natural ranks held (bit r for rank r): the four suits' card bits OR-ed; the
        # group counters (joker = Ace, G2).
        halves = held | held >> 32
        present = self._present = (halves | halves >> 16) & _LANE
        groups = code >> _RANKS_AT
        if njokers:
            jokers = self.jokers = [ranks.index(0)] if njokers == 1 else [i for i in range(7) if not ranks[i]]
            for i in jokers:
                ranks[i] = ACE  # a joker is an Ace in the groups (G2)
            self.grank = ranks
            groups += njokers << _ACE_AT
            extra = njokers << _SIG_JOKERS_AT - _KINDS_AT | ranking.joker_wild_in_low << _WILD_AT - _KINDS_AT
            straight = _straight_in(present | present >> 13 & 2, njokers)  # an Ace plays low too
            grouped = present | _ACE_RANK  # the ranks of the groups: the jokers are Aces
            flip = _ACE_RANK if njokers == 1 else 0  # one joker more in the Aces' group
        else:
            self.jokers = _NO_JOKERS
            self.grank = ranks
            extra = 0
            straight = present in _FIVE_IN_ROW
            grouped = present
            flip = 0
        self.groups = groups
        # 7, 6 or 5 groups: singletons, one pair, two pairs or a 3-of-a-kind, told apart by
        # the ranks held an odd number of times (the card bits XOR-ed); other hands count
        distinct = self.distinct = grouped.bit_count()
        if distinct == 7:
            hist = _SINGLES
            self.singles = self._ranks = _HIGH_FIRST[grouped]
            self.pairs = self.threes = ()
        else:
            halves = held ^ held >> 32
            odd = (halves ^ halves >> 16) & _LANE ^ flip
            if distinct == 6 or (distinct == 5 and odd.bit_count() == 3):
                hist = _ONE_PAIR if distinct == 6 else _TWO_PAIRS
                self.singles = _HIGH_FIRST[odd]
                self.pairs = _LOW_FIRST[grouped ^ odd]
                self.threes = ()
            elif distinct == 5 and not njokers:  # a 3-of-a-kind: the rank held in three suits
                hist = _THREE_OF_A_KIND
                spades, hearts, diamonds, clubs = (
                    held & _LANE,
                    held >> 16 & _LANE,
                    held >> 32 & _LANE,
                    held >> 48,
                )
                threes = spades & hearts & (diamonds | clubs) | diamonds & clubs & (spades | hearts)
                self.singles = _HIGH_FIRST[odd ^ threes]
                self.pairs = ()
                self.threes = _LOW_FIRST[threes]
            else:
                hist = self._groups_of_counts()
        flush_suit = self.flush_suit = _FLUSH_SUIT[flush_key]
        if flush_suit is not None:
            extra |= self._flush_kinds()
        if straight:
            extra |= STRAIGHT
            self._straight = _UNSET
        else:
            self._straight = None
        self.signature = hist | extra << _KINDS_AT

    def _groups_of_counts(self) -> int:
        """Sets singles, pairs and threes from the counts and returns the size histogram:
        for the hands with a 3-of-a-kind or more, or four groups or fewer."""
        counts = self.counts
        self.singles = tuple(sorted([rank for rank in counts if counts[rank] == 1], reverse=True))
        self.pairs = tuple(sorted([rank for rank in counts if counts[rank] == 2]))
        self.threes = tuple(sorted([rank for rank in counts if counts[rank] == 3]))
        return sum(map(_SIZE_BIT.__getitem__, counts.values()))

    @property
    def counts(self) -> dict[int, int]:
        """Rank -> how many cards of it (joker = Ace, G2), ranks in hand order."""
        counts = self._counts
        if counts is None:
            counts = self._counts = {}
            _count_elements(counts, self.grank)
        return counts

    def count(self, rank: int) -> int:
        """How many cards of ``rank`` (joker = Ace, G2)."""
        return self.groups >> (rank << 2) & 15

    @property
    def memo(self) -> dict[Hashable, Any]:
        """Answers computed once for this hand (runs, the best straight-or-flush top)."""
        memo = self._memo
        if memo is None:
            memo = self._memo = {}
        return memo

    @property
    def suits(self) -> list[str]:
        """Suit of each card ("" for a joker)."""
        suits = self._suits
        if suits is None:
            suits = self._suits = [card.suit for card in self.cards]
        return suits

    # -- groups of ranks (joker = Ace, G2) -----------------------------------------------------

    def places(self, rank: int) -> list[int]:
        """Positions of the cards of ``rank``, hand order; the jokers are among the Aces (G2)."""
        copies = self.groups >> (rank << 2) & 15
        if copies == 0:
            return []
        index = self.grank.index
        place = index(rank)
        if copies == 1:
            return [place]
        found = [place]
        for _ in range(copies - 1):
            place = index(rank, place + 1)
            found.append(place)
        return found

    def natural_places(self, rank: int) -> list[int]:
        """Positions of the natural cards of ``rank``, hand order."""
        if rank == ACE and self.jokers:
            jokers = self.jokers
            return [i for i in self.places(rank) if i not in jokers]
        return self.places(rank)

    def ranks_high_first(self) -> Sequence[int]:
        """The seven ranks, highest first (joker = Ace, G6)."""
        ranks = self._ranks
        if ranks is None:
            ranks = self._ranks = sorted(self.grank, reverse=True)
        return ranks

    # -- flushes and straights ------------------------------------------------------------

    def _flush_ranks(self) -> int:
        """Rank mask (bit r; bit 1 for an Ace) of the flush suit's natural cards."""
        suit = self.flush_suit
        grank = self.grank
        suits = self.suits
        return sum([_RANK_BIT[grank[i]] for i in range(7) if suits[i] == suit])

    def straight_window(self) -> tuple[int, int] | None:
        """``(lowest rank, length)`` of the longest straight (G7, straights.py), or None."""
        window = self._straight
        if window is _UNSET:
            held = self._present | self._present >> 13 & 2  # an Ace plays low too
            window = self._straight = straight_window_of_ranks(held, len(self.jokers), self.nevada)
        return window

    def kinds(self) -> int:
        """Bits of what the seven cards can make (G1: the joker may fill); see __init__."""
        return self.kinds_bits

    @property
    def kinds_bits(self) -> int:
        """The "can make" bits (kinds): the groups' and the signature's flush and straight bits."""
        signature = self.signature
        return _GROUP_KINDS[signature & _HIST_FIELD] | (signature >> _KINDS_AT) & _STRAIGHT_OR_FLUSH_BITS

    @property
    def nevada(self) -> bool:
        return self.ranking.wheel is _NEVADA

    def _flush_kinds(self) -> int:
        """The flush bits of kinds: flush, straight flush, royal flush (G1)."""
        kinds = FLUSH
        ranks = self._flush_ranks()
        jokers = len(self.jokers)
        if straight_window_of_ranks(ranks, jokers, self.nevada) is not None:
            kinds |= STRAIGHT_FLUSH
            if (_ROYAL_RANKS & ~ranks).bit_count() <= jokers:
                kinds |= ROYAL_FLUSH
        return kinds

    def straight_flush_window(self) -> tuple[int, int] | None:
        if self.flush_suit is None:
            return None
        return straight_window_of_ranks(self._flush_ranks(), len(self.jokers), self.nevada)

    @property
    def plain(self) -> bool:
        """No straight or flush can be made and the joker is an Ace in front: copies of a rank
        are then worth the same wherever they go (G5 needs no scoring)."""
        return (
            self.flush_suit is None
            and not (self.signature >> _KINDS_AT) & STRAIGHT
            and not self.ranking.joker_wild_in_low
        )

    def flush_cards(self) -> list[int]:
        """Natural cards of the flush suit, highest first."""
        suit = self.flush_suit
        if suit is None:
            return []
        suits = self.suits
        places = [i for i in range(7) if suits[i] == suit]
        places.sort(key=self.grank.__getitem__, reverse=True)
        return places

    def flush_size(self) -> int:
        """G8: natural cards of the flush suit plus the jokers held (0 without a flush)."""
        if self.flush_suit is None:
            return 0
        return self.suits.count(self.flush_suit) + len(self.jokers)

    def run(self) -> Run | None:
        """The straight used by the section being read: the straight flush's run in the
        Straight Flush section (``run_kind``), else the longest straight (G7)."""
        kind = self.run_kind
        found = self._run
        if found is not _UNSET and found[0] == kind:
            return found[1]
        if kind == "straight-flush":
            window = self.straight_flush_window()
            suit = self.flush_suit
        else:
            window = self.straight_window()
            suit = None
        run = None if window is None else self._build_run(window, suit)
        self._run = (kind, run)
        return run

    def run_asked(self) -> bool:
        """Did a row ask for the straight used, and is there one?"""
        found = self._run
        return found is not _UNSET and found[1] is not None

    def run_windows(self) -> list[tuple[int, int]]:
        """Every run of the longest length the section's rows could use, the higher first
        (straights.straight_windows; the first is the one run() builds)."""
        if self.run_kind == "straight-flush":
            if self.flush_suit is None:
                return []
            ranks = self._flush_ranks()
        else:
            ranks = self._present | self._present >> 13 & 2  # an Ace plays low too
        return straight_windows(spread(ranks), len(self.jokers), self.nevada)

    def force_run(self, window: tuple[int, int]) -> None:
        """Use this run as the straight (Readings G7: the engine tries each of run_windows)."""
        suit = self.flush_suit if self.run_kind == "straight-flush" else None
        self._run = (self.run_kind, self._build_run(window, suit))

    def _build_run(self, window: tuple[int, int], suit: str | None) -> Run:
        low, length = window
        # rank -> the last natural copy in hand order (it plays in the run; G7)
        jokers = self.jokers
        if suit is None:
            last = dict(zip(self.grank, range(7), strict=True))
            if not jokers:
                last[1] = last.get(ACE, -1)
                in_run = tuple(map(last.__getitem__, range(low, low + length)))
                return Run(low, in_run, (), _OUTSIDE[sum(map(_PLACE_BIT.__getitem__, in_run))])
            # the jokers group with the Aces (G2) but play in the run as jokers
            aces = [i for i in self.places(ACE) if i not in jokers]
            if aces:
                last[ACE] = aces[-1]
            else:
                del last[ACE]
        else:
            suits = self.suits
            last = {self.grank[i]: i for i in range(7) if suits[i] == suit}
        last[1] = last.get(ACE, -1)
        spare = list(self.jokers)
        members: list[int] = []
        joker_places: list[int] = []
        for place, rank in enumerate(range(low, low + length), start=1):
            chosen = last.get(rank, -1)
            if chosen < 0:
                chosen = spare.pop(0)
                joker_places.append(place)
            members.append(chosen)
        used = set(members)
        outside = tuple(i for i in range(7) if i not in used)
        return Run(low=low, members=tuple(members), joker_places=tuple(joker_places), outside=outside)

    # Questions about some of the cards, answered from the sum of their codes (module doc).

    def code_of(self, places: Sequence[int]) -> int:
        cards = self.cards
        return sum([_CODE[cards[i].suit][cards[i].rank] for i in places])

    def makes_flush(self, places: Sequence[int]) -> bool:
        """Do these cards make a flush, the jokers among them filling (G9)?"""
        return _FLUSH_SUIT[self.code_of(places) & _FLUSH_KEY] is not None

    def _rank_bits_of(self, places: Sequence[int]) -> tuple[int, int]:
        """The rank bits of the natural cards at ``places``, and how many jokers are among them."""
        jokers = self.jokers
        naturals: Sequence[int]
        if jokers:
            naturals = [i for i in places if i not in jokers]
            held = len(places) - len(naturals)
        else:
            naturals, held = places, 0
        return reduce(or_, map(_RANK_BIT.__getitem__, map(self.grank.__getitem__, naturals)), 0), held

    def makes_straight(self, places: Sequence[int]) -> bool:
        """Do these cards make a straight, the jokers among them filling (G9)? The same as
        ``run_window_of(places) is not None``."""
        return _straight_in(*self._rank_bits_of(places))

    def run_window_of(self, places: Sequence[int]) -> tuple[int, int] | None:
        """The run (straights.straight_window) these cards make, jokers among them filling."""
        ranks, held = self._rank_bits_of(places)
        return straight_window_of_ranks(ranks, held, self.nevada)

    def five_card_windows_of(self, places: Sequence[int]) -> tuple[int, ...]:
        code = self.code_of(places)
        return five_card_windows(presence(code >> _RANKS_AT), code >> _JOKERS_AT & 15)

    # -- legality and value of a split -----------------------------------------------------

    def legal(self, a: int, b: int) -> bool:
        """Is the split with cards ``a`` and ``b`` in front legal (not a foul)? See module doc."""
        grank = self.grank
        groups = self.groups
        low_a = grank[a]
        low_b = grank[b]
        held = self.distinct
        # Distinct ranks left behind (joker = Ace): the hand's, less those the front empties.
        if low_a != low_b:
            single_a = groups >> (low_a << 2) & 15 == 1
            single_b = groups >> (low_b << 2) & 15 == 1
            if single_a and single_b and held < 7 and not (self.jokers and self.ranking.joker_wild_in_low):
                return True  # two unmatched cards in front, a pair or better behind (the steps below)
            distinct = held - single_a - single_b
        else:
            distinct = held - (groups >> (low_a << 2) & 15 == 2)
        if distinct <= 3:
            return True  # two pair or better behind
        jokers = self.jokers
        if jokers and self.ranking.joker_wild_in_low and (a in jokers or b in jokers):
            low_pair = True
            low_a = low_b = low_b if a in jokers else low_a
        else:
            low_pair = low_a == low_b
        if not low_pair and (groups.bit_length() - 1) >> 2 > (low_a if low_a > low_b else low_b):
            return True  # the high hand keeps a higher card (or a pair, or better)
        if distinct == 4:
            if not low_pair:
                return True  # a pair behind beats two unmatched cards
            # one pair behind (natural, or the joker with an Ace: Aces): its rank decides
            high = [grank[i] for i in range(7) if i != a and i != b]
            return sum(high) - sum(set(high)) >= low_a
        if not low_pair:
            high = [grank[i] for i in range(7) if i != a and i != b]
            high.sort(reverse=True)
            if (high[0], high[1]) >= ((low_a, low_b) if low_a > low_b else (low_b, low_a)):
                return True
        # Nothing grouped behind beats the front: only a straight or a flush does.
        kinds = self.signature >> _KINDS_AT
        if not kinds & (FLUSH | STRAIGHT):
            return False  # the seven cannot make one, so no five of them can
        card_a, card_b = self.cards[a], self.cards[b]
        code = (
            self.code - _CODE[card_a.suit][card_a.rank] - _CODE[card_b.suit][card_b.rank]
        )  # the five behind
        if _FLUSH_SUIT[code & _FLUSH_KEY] is not None:
            return True
        if not kinds & STRAIGHT:
            return False
        # the natural ranks behind: the rank nibbles of their code
        return straight_possible(code >> _RANKS_AT, code >> _JOKERS_AT & 15)

    def value(self, low: tuple[int, int]) -> tuple[int, int]:
        """(high hand score, low hand score) of a split, by the evaluator (for G5)."""
        cards = self.cards
        a, b = low
        high = tuple(cards[i] for i in range(7) if i != a and i != b)
        return rank_high(high, self.ranking), rank_low((cards[a], cards[b]), self.ranking)

    def jokers_in(self, low: tuple[int, ...]) -> int:
        jokers = self.jokers
        return sum(1 for i in low if i in jokers) if jokers else 0
