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

Speed: this runs for every hand, so the work per card is done by C-level calls. Each deck
card has a precomputed *code*, an integer of counters: one nibble per natural rank, one per
suit, one for jokers. One ``sum`` gives the hand's counters (joker count, flush suit,
straight); a duplicated card is the same deck object twice, seen in the count of distinct
ids; everything else is read from them or computed when first asked for.
"""

from __future__ import annotations

try:  # the C helper Counter itself uses (CPython); the same result in Python otherwise
    from collections import _count_elements  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover

    def _count_elements(mapping: dict, iterable) -> None:
        for element in iterable:
            mapping[element] = mapping.get(element, 0) + 1

from collections.abc import Sequence
from dataclasses import dataclass

from ..cards import JOKER, NATURAL_CARDS, Card, DuplicateCardError, HandSizeError, TooManyJokersError, UnknownCardError
from ..evaluator import RankingRules, Wheel, rank_high, rank_low
from .straights import ACE_LOW, NIBBLE, five_card_windows, presence, rank_bit, rank_mask, straight_window

ACE = 14
SUITS = "shdc"
MAX_JOKERS = 2  # the most any deck holds (003)
_SUIT_INDEX = {suit: index for index, suit in enumerate(SUITS)}
_ROYAL = rank_mask(range(10, 15)) & ~rank_bit(1)

# Layout of a card code (module docstring): 80 bits, so that sums and shifts stay cheap.
_RANKS_AT, _SUITS_AT, _JOKERS_AT = 0, 60, 76
_RANK_FIELD = (1 << 60) - 1


def _card_info(card: Card) -> tuple[int, str, int]:
    """(grouping rank, suit, code) of a card; validates a card made by hand (module doc)."""
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
_GRANK_OF = {id(card): _card_info(card)[0] for card in _DECK}
_SUIT_OF = {id(card): _card_info(card)[1] for card in _DECK}
_CODE_OF = {id(card): _card_info(card)[2] for card in _DECK}
_JOKER_ID = id(JOKER)
_BY_KEY = {(card.rank, card.suit): card for card in NATURAL_CARDS}
_NO_JOKERS: list[int] = []
_NEVADA = Wheel.NEVADA
_ONES = sum(1 << (NIBBLE * rank) for rank in range(15))
_ACE_TO_LOW = NIBBLE * (ACE - 1)
_WINDOW_MEMO: dict[int, tuple[int, int] | None] = {}  # bounded: 2**14 masks x jokers x wheel
_MISSING = object()

# What the seven cards can make (G1), as bits: kinds() computes them once per hand.
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


def _canonical(cards: tuple) -> tuple[tuple, list[int], list[int]]:
    """Cards not from the deck's own objects: validated, and replaced by equal deck cards."""
    infos = [_card_info(card) for card in cards]
    canonical = tuple(JOKER if info[1] == "" else _BY_KEY[(info[0], info[1])] for info in infos)
    ids = list(map(id, canonical))
    return canonical, ids, list(map(_GRANK_OF.__getitem__, ids))


def _raise_duplicate(cards: tuple) -> None:
    """Raise for the first natural card held twice (called when the ids say there is one)."""
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


@dataclass(frozen=True, slots=True)
class Run:
    """The straight used: positions ``members`` from its lowest card (``first``) up."""

    low: int  # 1 when an Ace plays low
    members: tuple[int, ...]
    joker_places: tuple[int, ...]  # 1-based places in the run held by a joker
    outside: tuple[int, ...]  # the non-straight cards, hand order

    @property
    def length(self) -> int:
        return len(self.members)


class HandFacts:
    """Seven cards seen once: groups of ranks, the flush suit, the runs (module docstring)."""

    __slots__ = (
        "cards",
        "ranking",
        "nevada",
        "grank",
        "ids",
        "_suits",
        "jokers",
        "counts",
        "sizes",
        "code",
        "flush_suit",
        "run_kind",
        "memo",
        "_pairs",
        "_threes",
        "_singles",
        "_straight",
        "_kinds",
    )

    def __init__(self, cards: Sequence[Card], ranking: RankingRules, max_jokers: int = MAX_JOKERS) -> None:
        if type(cards) is not tuple:
            cards = tuple(cards)
        if len(cards) != 7:
            raise HandSizeError(len(cards), (7,))
        ids = list(map(id, cards))
        grank = list(map(_GRANK_OF.get, ids))
        if None in grank:
            cards, ids, grank = _canonical(cards)
        counters = sum(map(_CODE_OF.__getitem__, ids))
        njokers = counters >> _JOKERS_AT
        if len(set(ids)) != 7 - njokers + (njokers > 0):
            _raise_duplicate(cards)
        if njokers > max_jokers:
            raise TooManyJokersError(njokers, max_jokers)
        counts: dict[int, int] = {}
        _count_elements(counts, grank)
        self.cards = cards
        self.ranking = ranking
        self.nevada = ranking.wheel is _NEVADA
        self.grank = grank
        self.ids = ids
        self._suits = None
        self.jokers = [i for i in range(7) if ids[i] == _JOKER_ID] if njokers else _NO_JOKERS
        self.counts = counts
        self.sizes = list(counts.values())
        self.code = counters
        self.flush_suit = _FLUSH_SUIT[(counters >> _SUITS_AT) & 0xFFFF | njokers << 16]
        self.run_kind = "straight"
        self.memo: dict = {}
        self._pairs = self._threes = self._singles = None
        self._kinds = self._compute_kinds(self.sizes)  # every hand needs them: section dispatch

    @property
    def suits(self) -> list[str]:
        """Suit of each card ("" for a joker)."""
        suits = self._suits
        if suits is None:
            suits = self._suits = list(map(_SUIT_OF.__getitem__, self.ids))
        return suits

    # -- groups of ranks (joker = Ace, G2) -----------------------------------------------------

    @property
    def pairs(self) -> list[int]:
        """Ranks held exactly twice, lowest first ("first pair" = lowest, G10)."""
        if self._pairs is None:
            self._pairs = sorted(rank for rank, size in self.counts.items() if size == 2)
        return self._pairs

    @property
    def threes(self) -> list[int]:
        """Ranks held exactly three times, lowest first."""
        if self._threes is None:
            self._threes = sorted(rank for rank, size in self.counts.items() if size == 3)
        return self._threes

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
        grank = self.grank
        return [i for i in range(7) if grank[i] == rank]

    def natural_places(self, rank: int) -> list[int]:
        """Positions of the natural cards of ``rank``, hand order."""
        grank = self.grank
        suits = self.suits
        return [i for i in range(7) if grank[i] == rank and suits[i]]

    def ranks_high_first(self) -> list[int]:
        """The seven ranks, highest first (joker = Ace, G6)."""
        ranks = self.memo.get("ranks")
        if ranks is None:
            ranks = self.memo["ranks"] = sorted(self.grank, reverse=True)
        return ranks

    # -- flushes and straights ------------------------------------------------------------

    def flush_mask(self) -> int:
        """Presence mask of the flush suit's natural cards (straights.py), 0 without a flush."""
        suit = self.flush_suit
        if suit is None:
            return 0
        mask = self.memo.get("flush-mask")
        if mask is None:
            grank = self.grank
            suits = self.suits
            mask = self.memo["flush-mask"] = rank_mask(grank[i] for i in range(7) if suits[i] == suit)
        return mask

    def can_make_royal(self) -> bool:
        if self.flush_suit is None:
            return False
        return (_ROYAL & ~self.flush_mask()).bit_count() <= len(self.jokers)

    def straight_window(self) -> tuple[int, int] | None:
        return self._straight

    def kinds(self) -> int:
        """Bits of what the seven cards can make (G1: the joker may fill); see __init__."""
        return self._kinds

    def _compute_kinds(self, sizes: list[int]) -> int:
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
                if self.counts.get(ACE, 0) >= 5:
                    kinds |= FIVE_ACES
        if self.flush_suit is not None:
            kinds |= FLUSH
            if self.straight_flush_window() is not None:
                kinds |= STRAIGHT_FLUSH
                if self.can_make_royal():
                    kinds |= ROYAL_FLUSH
        window = self._straight = self._window_of_code(self.code)
        if window is not None:
            kinds |= STRAIGHT
        return kinds

    def straight_flush_window(self) -> tuple[int, int] | None:
        if self.flush_suit is None:
            return None
        return straight_window(self.flush_mask(), len(self.jokers), self.nevada)

    @property
    def plain(self) -> bool:
        """No straight or flush can be made and the joker is an Ace in front: copies of a rank
        are then worth the same wherever they go (G5 needs no scoring)."""
        value = self.memo.get("plain")
        if value is None:
            value = self.flush_suit is None and self.straight_window() is None and not self.ranking.joker_wild_in_low
            self.memo["plain"] = value
        return value

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
        key = "run:" + self.run_kind
        if key in self.memo:
            return self.memo[key]
        if self.run_kind == "straight-flush":
            window = self.straight_flush_window()
            suit = self.flush_suit
        else:
            window = self.straight_window()
            suit = None
        run = None if window is None else self._build_run(window, suit)
        self.memo[key] = run
        return run

    def _build_run(self, window: tuple[int, int], suit: str | None) -> Run:
        low, length = window
        # rank -> the last natural copy in hand order (it plays in the run; G7)
        if suit is None and not self.jokers:
            last = dict(zip(self.grank, range(7)))
        else:
            suits = self.suits
            last = {self.grank[i]: i for i in range(7) if suits[i] and (suit is None or suits[i] == suit)}
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
        return sum(map(_CODE_OF.__getitem__, map(self.ids.__getitem__, places)))

    @staticmethod
    def _flush_of_code(code: int) -> bool:
        return _FLUSH_SUIT[(code >> _SUITS_AT) & 0xFFFF | ((code >> _JOKERS_AT) & 15) << 16] is not None

    def _window_of_code(self, code: int) -> tuple[int, int] | None:
        # straights.straight_window, memoized here under one int key (this is on every
        # hand's path): presence mask | jokers | wheel rule
        counters = code & _RANK_FIELD
        mask = (counters | counters >> 1 | counters >> 2) & _ONES
        mask |= (mask >> _ACE_TO_LOW) & ACE_LOW
        key = mask | (code >> _JOKERS_AT & 15) << 64 | self.nevada << 68
        window = _WINDOW_MEMO.get(key, _MISSING)
        if window is _MISSING:
            window = _WINDOW_MEMO[key] = straight_window(mask, (code >> _JOKERS_AT) & 15, self.nevada)
        return window

    def makes_flush(self, places) -> bool:
        """Do these cards make a flush, the jokers among them filling (G9)?"""
        return self._flush_of_code(self.code_of(places))

    def run_window_of(self, places) -> tuple[int, int] | None:
        """The run (straights.straight_window) these cards make, jokers among them filling."""
        return self._window_of_code(self.code_of(places))

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
            distinct = len(counts) - (counts[low_a] == 1) - (counts[low_b] == 1)
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
        ids = self.ids
        rest = self.code - _CODE_OF[ids[a]] - _CODE_OF[ids[b]]
        return self._flush_of_code(rest) or self._window_of_code(rest) is not None

    def value(self, low: tuple[int, int]) -> tuple[int, int]:
        """(high hand score, low hand score) of a split, by the evaluator (for G5)."""
        cards = self.cards
        a, b = low
        high = tuple(cards[i] for i in range(7) if i != a and i != b)
        return rank_high(high, self.ranking), rank_low((cards[a], cards[b]), self.ranking)

    def jokers_in(self, low: tuple[int, ...]) -> int:
        jokers = self.jokers
        return sum(1 for i in low if i in jokers) if jokers else 0
