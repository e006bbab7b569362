"""Facts about seven cards, computed once per hand; the predicates and card selectors read them.

Cards are named by their position 0..6 in the hand, so two jokers (Double Joker,
003_4dcc2fceebc6e4af.txt) stay two cards. Conventions of house-way-readings.md:

- G2 / G6: when ranks are grouped (pairs, 3-of-a-kind, singletons, "highest") a joker is an
  Ace, even when it also fills a straight or flush. Two jokers are a pair of Aces.
- G7: the straight used is the longest run (straights.py); a card of a repeated rank that is
  not in the run is a non-straight: the run takes the *last* copy in hand order, so the
  earlier copies go in front (suits only, the choices are worth the same: G5).
- G8: the flush suit is the one whose natural cards plus the jokers reach five (one suit
  at most in seven cards); its size counts the jokers held.

The legality check here is the foul rule of house-way-readings.md section 1, as
setting.is_legal computes it, without building hands (it is on every hand's path; the
tests check it against is_legal).

Speed (docs/house-way.md, "Speed"): this runs for every hand, so the work per card is done
by C-level calls, and only what every hand needs is computed up front. Each deck card has a
precomputed small *code*: a nibble per suit and the joker count; one ``sum`` gives the
hand's, which is the key of the flush table (G8) and holds the joker count. Duplicates are
the same deck object twice (fewer distinct ids). The rank groups are counted in C (joker =
Ace); their sizes make a *size histogram*, and one bit per rank held a presence mask, from
which a few shifts tell whether five ranks in a row (less the jokers) are held. With the
flush and straight bits, the joker count and the ranking rule, the histogram is the hand's
**signature**, on which the engine picks the precompiled rows (engine.py). Everything else
(the straight used, runs, singletons, scores) is computed when a row first asks for it.
Nothing is remembered from one hand to the next. A second, wider code per card (a nibble
per rank too) answers questions about some of the cards (G9: "still have a Flush after
removing ...").
"""

from __future__ import annotations

try:  # the C helper Counter itself uses (CPython); the same result in Python otherwise
    from collections import _count_elements  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover

    def _count_elements(mapping: dict, iterable) -> None:
        for element in iterable:
            mapping[element] = mapping.get(element, 0) + 1

from collections.abc import Sequence
from functools import reduce
from operator import or_

from ..cards import JOKER, NATURAL_CARDS, Card, DuplicateCardError, HandSizeError, TooManyJokersError, UnknownCardError
from ..evaluator import RankingRules, Wheel, rank_high, rank_low
from .straights import (
    NIBBLE,
    five_card_windows,
    presence,
    rank_mask,
    straight_possible,
    straight_window,
    straight_window_of_ranks,
)

ACE = 14
SUITS = "shdc"
MAX_JOKERS = 2  # the most any deck holds (003)
_SUIT_INDEX = {suit: index for index, suit in enumerate(SUITS)}

# Layout of the wide code (module docstring): rank nibbles, suit nibbles, the joker count.
_RANKS_AT, _SUITS_AT, _JOKERS_AT = 0, 60, 76
_RANK_FIELD = (1 << 60) - 1


def _card_info(card: Card) -> tuple[int, str, int]:
    """(grouping rank, suit, wide code) of a card; validates a card made by hand (module doc)."""
    try:
        rank = card.rank
        suit = card.suit
    except AttributeError:
        raise UnknownCardError(repr(card)) from None
    if rank == 0 and suit == "":
        return (ACE, "", 1 << _JOKERS_AT)
    index = _SUIT_INDEX.get(suit) if isinstance(suit, str) else None
    if index is None or type(rank) is not int or not 2 <= rank <= 14:
        raise UnknownCardError(f"Card(rank={rank!r}, suit={suit!r})")
    return (rank, suit, (1 << (NIBBLE * rank)) | (1 << (_SUITS_AT + NIBBLE * index)))


# The deck's own card objects (parse_card returns them), found by identity on the hot path; the
# tables keep them alive, so an id found here is that very card, and two equal deck cards in a
# hand are one object twice (a duplicate).
_DECK = (*NATURAL_CARDS, JOKER)
_CODE_OF = {id(card): _card_info(card)[2] for card in _DECK}
# The card code of the hot path: suit nibbles, the joker count, one bit per natural card.
_CARD_JOKERS_AT, _CARD_BITS_AT = 16, 20
_SUITS_AND_JOKERS = (1 << _CARD_BITS_AT) - 1  # also the key layout of the flush table
_CARD_CODE = {
    id(card): (code >> _SUITS_AT) | (0 if card is JOKER else 1 << (_CARD_BITS_AT + index))
    for index, (card, code) in enumerate((card, _CODE_OF[id(card)]) for card in _DECK)
}
_JOKER_ID = id(JOKER)
_BY_KEY = {(card.rank, card.suit): card for card in NATURAL_CARDS}
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
# The presence mask of the groups: bit r for rank r, and bit 1 for an Ace (it plays low too).
_RANK_BIT = {rank: (1 << rank) | (2 if rank == ACE else 0) for rank in range(2, 15)}
_ACE_BITS = _RANK_BIT[ACE]
_ROYAL_RANKS = sum(1 << rank for rank in range(10, 15))  # T J Q K A, the Ace high
_STARTS = sum(1 << low for low in range(1, 11))  # A-2-3-4-5 .. T-J-Q-K-A
_FIVE_WINDOWS = tuple(0b11111 << low for low in range(1, 11))
# Signature layout: histogram (32 bits), kinds (10 bits), jokers (4 bits), joker wild in front.
_KINDS_AT, _SIG_JOKERS_AT, _WILD_AT = 32, 42, 46
_HIST_FIELD = (1 << _KINDS_AT) - 1


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
_SINGLES = histogram((1,) * 7)
_ONE_PAIR = histogram((2, 1, 1, 1, 1, 1))


def _straight_in(mask: int, jokers: int) -> bool:
    """Do the ranks of a presence mask (bit r, and bit 1 for an Ace) make five in a row,
    the jokers filling? (straights.straight_window, asked only whether; the tests compare)"""
    if jokers == 0:
        return bool(mask & mask >> 1 & mask >> 2 & mask >> 3 & mask >> 4)
    if jokers == 1:
        # at least four of the five ranks from each start: a|b|c|d|e with at most one missing
        a, b, c, d, e = mask, mask >> 1, mask >> 2, mask >> 3, mask >> 4
        ab, cd = a & b, c & d
        return bool((ab & cd | ab & e & (c | d) | cd & e & (a | b)) & _STARTS)
    return any((mask & window).bit_count() >= 5 - jokers for window in _FIVE_WINDOWS)


def signature(hist: int, kinds: int, jokers: int, wild: bool) -> int:
    """The hand's signature (module docstring): the histogram, the flush and straight bits of
    ``kinds`` (the rest follow from the histogram), the jokers, and ``wild`` with a joker held."""
    return (
        hist
        | (kinds & _STRAIGHT_OR_FLUSH_BITS) << _KINDS_AT
        | jokers << _SIG_JOKERS_AT
        | (bool(wild) and jokers > 0) << _WILD_AT
    )


def _canonical(cards: tuple) -> tuple:
    """Cards not from the deck's own objects: validated, and replaced by equal deck cards."""
    infos = [_card_info(card) for card in cards]
    return tuple(JOKER if info[1] == "" else _BY_KEY[(info[0], info[1])] for info in infos)


def _raise_duplicate(cards: tuple) -> None:
    """Raise for the first natural card held twice (called when the code says there is one)."""
    seen: set[int] = set()
    for card in cards:
        if id(card) in seen and id(card) != _JOKER_ID:
            raise DuplicateCardError(card)
        seen.add(id(card))
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
                        found = next((suit for suit, n in zip(SUITS, (s, h, d, c)) if n + jokers >= 5), None)
                        table[counters | jokers << 16] = found
    return table


_FLUSH_SUIT = _flush_table()


class Run:
    """The straight used: positions ``members`` from its lowest card (``low``) up."""

    __slots__ = ("low", "members", "joker_places", "outside", "length")

    def __init__(self, low: int, members: tuple[int, ...], joker_places: tuple[int, ...], outside: tuple[int, ...]):
        self.low = low  # 1 when an Ace plays low
        self.members = members
        self.joker_places = joker_places  # 1-based places in the run held by a joker
        self.outside = outside  # the non-straight cards, hand order
        self.length = len(members)

    def __repr__(self) -> str:
        return f"Run(low={self.low}, members={self.members}, joker_places={self.joker_places}, outside={self.outside})"


_UNSET = object()
_PLACE_BIT = {place: 1 << place for place in range(7)}
# places held (bits) -> the other places, hand order
_OUTSIDE = tuple(tuple(place for place in range(7) if not held >> place & 1) for held in range(128))


class HandFacts:
    """Seven cards seen once: groups of ranks, the flush suit, the runs (module docstring)."""

    __slots__ = (
        "cards",
        "ranking",
        "grank",
        "jokers",
        "counts",
        "_code",
        "flush_suit",
        "signature",
        "run_kind",
        "_suits",
        "_memo",
        "_pairs",
        "_threes",
        "_singles",
        "_ranks",
        "_straight",
        "_run",
        "_held",
        "_suit_code",
    )

    def __init__(self, cards: Sequence[Card], ranking: RankingRules, max_jokers: int = MAX_JOKERS) -> None:
        if type(cards) is not tuple:
            cards = tuple(cards)
        if len(cards) != 7:
            raise HandSizeError(len(cards), (7,))
        try:
            code = sum(map(_CARD_CODE.__getitem__, map(id, cards)))
        except KeyError:
            cards = _canonical(cards)
            code = sum(map(_CARD_CODE.__getitem__, map(id, cards)))
        njokers = code >> _CARD_JOKERS_AT & 15
        if (code >> _CARD_BITS_AT).bit_count() + njokers != 7:
            _raise_duplicate(cards)  # a card twice carries out of its bit: fewer bits are set
        if njokers > max_jokers:
            raise TooManyJokersError(njokers, max_jokers)
        # deck cards from here on (validated by their codes)
        grank = [card.rank or ACE for card in cards] if njokers else [card.rank for card in cards]
        counts: dict[int, int] = {}
        _count_elements(counts, grank)
        distinct = len(counts)
        if distinct == 7:
            hist = _SINGLES
        elif distinct == 6:
            hist = _ONE_PAIR
        else:
            hist = sum(map(_SIZE_BIT.__getitem__, counts.values()))
        self.cards = cards
        self.ranking = ranking
        self.grank = grank
        self.counts = counts
        self.run_kind = "straight"
        self._code = self._suits = self._memo = self._pairs = self._threes = self._singles = self._ranks = None
        self._run = _UNSET
        mask = sum(map(_RANK_BIT.__getitem__, counts))
        code &= _SUITS_AND_JOKERS
        flush_suit = self.flush_suit = _FLUSH_SUIT[code]
        if njokers:
            self.jokers = [i for i in range(7) if cards[i] is JOKER]
            if counts[ACE] == njokers:
                mask -= _ACE_BITS  # the jokers are the only Aces: no natural Ace in a run
            extra = njokers << _SIG_JOKERS_AT - _KINDS_AT | ranking.joker_wild_in_low << _WILD_AT - _KINDS_AT
            straight = _straight_in(mask, njokers)
        else:
            self.jokers = _NO_JOKERS
            extra = 0
            straight = mask & mask >> 1 & mask >> 2 & mask >> 3 & mask >> 4  # _straight_in, inline
        if flush_suit is not None:
            extra |= self._flush_kinds()
        if straight:
            extra |= STRAIGHT
            self._straight = _UNSET
        else:
            self._straight = None
        self._held = mask
        self._suit_code = code
        self.signature = hist | extra << _KINDS_AT

    @property
    def memo(self) -> dict:
        """Answers computed once for this hand (runs, the best straight-or-flush top)."""
        memo = self._memo
        if memo is None:
            memo = self._memo = {}
        return memo

    @property
    def sizes(self) -> list[int]:
        """The sizes of the rank groups (joker = Ace, G2)."""
        return list(self.counts.values())

    @property
    def ids(self) -> list[int]:
        """The identities of the cards (deck objects)."""
        return list(map(id, self.cards))

    @property
    def suits(self) -> list[str]:
        """Suit of each card ("" for a joker)."""
        suits = self._suits
        if suits is None:
            suits = self._suits = [card.suit for card in self.cards]
        return suits

    # -- groups of ranks (joker = Ace, G2) -----------------------------------------------------

    @property
    def pairs(self) -> list[int]:
        """Ranks held exactly twice, lowest first ("first pair" = lowest, G10)."""
        pairs = self._pairs
        if pairs is None:
            counts = self.counts
            pairs = self._pairs = [rank for rank in counts if counts[rank] == 2]
            pairs.sort()
        return pairs

    @property
    def threes(self) -> list[int]:
        """Ranks held exactly three times, lowest first."""
        threes = self._threes
        if threes is None:
            counts = self.counts
            threes = self._threes = [rank for rank in counts if counts[rank] == 3]
            threes.sort()
        return threes

    @property
    def singles(self) -> list[int]:
        """Ranks held once (singletons, G6), highest first."""
        singles = self._singles
        if singles is None:
            counts = self.counts
            if len(counts) == 7:
                singles = sorted(counts, reverse=True)
            else:
                singles = [rank for rank in counts if counts[rank] == 1]
                singles.sort(reverse=True)
            self._singles = singles
        return singles

    def places(self, rank: int) -> list[int]:
        """Positions of the cards of ``rank``, hand order; the jokers are among the Aces (G2)."""
        copies = self.counts.get(rank, 0)
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

    def ranks_high_first(self) -> list[int]:
        """The seven ranks, highest first (joker = Ace, G6)."""
        ranks = self._ranks
        if ranks is None:
            ranks = self._ranks = sorted(self.grank, reverse=True)
        return ranks

    # -- flushes and straights ------------------------------------------------------------

    def flush_mask(self) -> int:
        """Presence mask of the flush suit's natural cards (straights.py), 0 without a flush."""
        suit = self.flush_suit
        if suit is None:
            return 0
        grank = self.grank
        suits = self.suits
        return rank_mask(grank[i] for i in range(7) if suits[i] == suit)

    def _flush_ranks(self) -> int:
        """Rank mask (bit r; bit 1 for an Ace) of the flush suit's natural cards."""
        suit = self.flush_suit
        grank = self.grank
        suits = self.suits
        return sum([_RANK_BIT[grank[i]] for i in range(7) if suits[i] == suit])

    def can_make_royal(self) -> bool:
        if self.flush_suit is None:
            return False
        return (_ROYAL_RANKS & ~self._flush_ranks()).bit_count() <= len(self.jokers)

    def straight_window(self) -> tuple[int, int] | None:
        """``(lowest rank, length)`` of the longest straight (G7, straights.py), or None."""
        window = self._straight
        if window is _UNSET:
            window = self._straight = straight_window_of_ranks(self._held, len(self.jokers), self.nevada)
        return window  # type: ignore[return-value]

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

    @property
    def code(self) -> int:
        """The wide code of the seven cards (module docstring)."""
        code = self._code
        if code is None:
            code = self._code = sum(map(_CODE_OF.__getitem__, map(id, self.cards)))
        return code

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

    def _build_run(self, window: tuple[int, int], suit: str | None) -> Run:
        low, length = window
        # rank -> the last natural copy in hand order (it plays in the run; G7)
        jokers = self.jokers
        if suit is None:
            last = dict(zip(self.grank, range(7)))
            if not jokers:
                last[1] = last.get(ACE, -1)
                members = tuple(map(last.__getitem__, range(low, low + length)))
                return Run(low, members, (), _OUTSIDE[sum(map(_PLACE_BIT.__getitem__, members))])
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

    def code_of(self, places) -> int:
        return sum(map(_CODE_OF.__getitem__, map(id, map(self.cards.__getitem__, places))))

    @staticmethod
    def _flush_of_code(code: int) -> bool:
        return _FLUSH_SUIT[(code >> _SUITS_AT) & 0xFFFF | ((code >> _JOKERS_AT) & 15) << 16] is not None

    def _window_of_code(self, code: int) -> tuple[int, int] | None:
        return straight_window(presence(code & _RANK_FIELD), (code >> _JOKERS_AT) & 15, self.nevada)

    def makes_flush(self, places) -> bool:
        """Do these cards make a flush, the jokers among them filling (G9)?"""
        code = sum(map(_CARD_CODE.__getitem__, map(id, map(self.cards.__getitem__, places))))
        return _FLUSH_SUIT[code & _SUITS_AND_JOKERS] is not None

    def makes_straight(self, places) -> bool:
        """Do these cards make a straight, the jokers among them filling (G9)? The same as
        ``run_window_of(places) is not None``."""
        jokers = self.jokers
        if jokers:
            naturals = [i for i in places if i not in jokers]
            held = len(places) - len(naturals)
        else:
            naturals, held = places, 0
        return _straight_in(reduce(or_, map(_RANK_BIT.__getitem__, map(self.grank.__getitem__, naturals)), 0), held)

    def run_window_of(self, places) -> tuple[int, int] | None:
        """The run (straights.straight_window) these cards make, jokers among them filling."""
        jokers = self.jokers
        if jokers:
            naturals = [i for i in places if i not in jokers]
            held = len(places) - len(naturals)
        else:
            naturals, held = places, 0
        ranks = reduce(or_, map(_RANK_BIT.__getitem__, map(self.grank.__getitem__, naturals)), 0)
        return straight_window_of_ranks(ranks, held, self.nevada)

    def five_card_windows_of(self, places) -> tuple[int, ...]:
        code = self.code_of(places)
        return five_card_windows(presence(code & _RANK_FIELD), (code >> _JOKERS_AT) & 15)

    # -- legality and value of a split -----------------------------------------------------

    def legal(self, a: int, b: int) -> bool:
        """Is the split with cards ``a`` and ``b`` in front legal (not a foul)? See module doc."""
        grank = self.grank
        counts = self.counts
        low_a = grank[a]
        low_b = grank[b]
        # Distinct ranks left behind (joker = Ace): the hand's, less those the front empties.
        if low_a != low_b:
            single_a = counts[low_a] == 1
            single_b = counts[low_b] == 1
            if single_a and single_b and len(counts) < 7 and not (self.jokers and self.ranking.joker_wild_in_low):
                return True  # two unmatched cards in front, a pair or better behind (the steps below)
            distinct = len(counts) - single_a - single_b
        else:
            distinct = len(counts) - (counts[low_a] == 2)
        if distinct <= 3:
            return True  # two pair or better behind
        jokers = self.jokers
        if jokers and self.ranking.joker_wild_in_low and (a in jokers or b in jokers):
            low_pair = True
            low_a = low_b = low_b if a in jokers else low_a
        else:
            low_pair = low_a == low_b
        if not low_pair and max(counts) > (low_a if low_a > low_b else low_b):
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
        code = (self._suit_code - _CARD_CODE[id(card_a)] - _CARD_CODE[id(card_b)]) & _SUITS_AND_JOKERS  # the five behind
        if _FLUSH_SUIT[code] is not None:
            return True
        if not kinds & STRAIGHT:
            return False
        # the ranks of the natural cards behind: the hand's, less a front card's rank when no
        # natural copy of it stays behind
        mask = self._held
        aces_wild = len(self.jokers)  # jokers are counted among the Aces (G2)
        rank_a, rank_b = grank[a], grank[b]
        natural_a, natural_b = card_a is not JOKER, card_b is not JOKER
        if natural_a:
            left = counts[rank_a] - (aces_wild if rank_a == ACE else 0) - 1 - (natural_b and rank_b == rank_a)
            if left == 0:
                mask -= _RANK_BIT[rank_a]
        if natural_b and not (natural_a and rank_b == rank_a):
            if counts[rank_b] - (aces_wild if rank_b == ACE else 0) - 1 == 0:
                mask -= _RANK_BIT[rank_b]
        return _straight_in(mask, code >> _CARD_JOKERS_AT)

    def value(self, low: tuple[int, int]) -> tuple[int, int]:
        """(high hand score, low hand score) of a split, by the evaluator (for G5)."""
        cards = self.cards
        a, b = low
        high = tuple(cards[i] for i in range(7) if i != a and i != b)
        return rank_high(high, self.ranking), rank_low((cards[a], cards[b]), self.ranking)

    def jokers_in(self, low: tuple[int, ...]) -> int:
        jokers = self.jokers
        return sum(1 for i in low if i in jokers) if jokers else 0
