"""The ranking against two independent references: a brute-force oracle and treys.

- tests/game/oracle.py tries every joker role (every natural card not held, or an Ace) and
  values natural hands from the rules text (001_c9adb19db438d99f.txt,
  002_08ea07f9e4b504bc.txt, 003_4dcc2fceebc6e4af.txt, 004_60e2fc6346e3399b.txt).
- treys ranks joker-free five-card hands with A-2-3-4-5 the lowest straight: California
  (004) exactly; for Nevada (001) its wheel is moved just below the A-high straight.

Two kinds of check: hypothesis draws whole hands from the standard (one joker) and Double
Joker (two jokers) decks, which tests that every real hand is read as its class; the
exhaustive tests take one hand of every class (natural ranks, jokers, naturals of one suit
or not: all hands of a class rank alike) and check the whole order at once.
"""

from itertools import combinations, combinations_with_replacement, pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from treys import Card as TreysCard
from treys import Evaluator as TreysEvaluator

from table_controller.game.cards import JOKER, NATURAL_CARDS, Card, Game, parse_cards
from table_controller.game.evaluator import (
    RankingRules,
    SevenCardCategory,
    Wheel,
    card_ints,
    compare,
    high_category,
    rank_high,
    rank_high_ints,
    rank_low,
    seven_card_category,
)
from tests.game import oracle

RULES = [RankingRules(wheel=wheel) for wheel in Wheel]
GAMES = list(Game)
TREYS = TreysEvaluator()

BIG_HAND_LINE = {
    "straight or worse": SevenCardCategory.NOTHING,
    "flush": SevenCardCategory.FLUSH,
    "full house": SevenCardCategory.FULL_HOUSE,
    "four of a kind": SevenCardCategory.FOUR_OF_A_KIND,
    "straight flush": SevenCardCategory.STRAIGHT_FLUSH,
    "royal flush": SevenCardCategory.ROYAL_FLUSH,
    "five aces": SevenCardCategory.FIVE_ACES,
    "7-card straight flush": SevenCardCategory.SEVEN_CARD_STRAIGHT_FLUSH,
    "six aces": SevenCardCategory.SIX_ACES,
    "7-card natural straight flush": SevenCardCategory.SEVEN_CARD_NATURAL_STRAIGHT_FLUSH,
}


def sign(x: int) -> int:
    return (x > 0) - (x < 0)


def hands(size: int, game: Game, jokers: st.SearchStrategy[int] | None = None) -> st.SearchStrategy:
    """Hands of ``size`` cards one deck of ``game`` can deal, jokers drawn often enough to matter.

    Jokers come last; test_order_of_cards_and_naming_of_suits_do_not_change_the_score shuffles.
    """
    joker_counts = jokers if jokers is not None else st.integers(0, min(game.jokers, size))

    def with_jokers(j: int) -> st.SearchStrategy:
        naturals = st.lists(st.sampled_from(NATURAL_CARDS), min_size=size - j, max_size=size - j, unique=True)
        return naturals.map(lambda cards: (*cards, *[JOKER] * j))

    return joker_counts.flatmap(with_jokers)


def treys_key(cards, rules: RankingRules) -> int:
    """treys' rank (smaller is better) doubled, with the Nevada wheel moved where 001 puts it."""
    rank = TREYS._five([TreysCard.new(card.code) for card in cards])
    if rules.wheel is Wheel.NEVADA:
        for wheel, ace_high in (("Ac 2d 3h 4s 5d", "Ac Kd Qh Js Td"), ("As 2s 3s 4s 5s", "As Ks Qs Js Ts")):
            if rank == TREYS._five([TreysCard.new(code) for code in wheel.split()]):
                return 2 * TREYS._five([TreysCard.new(code) for code in ace_high.split()]) + 1
    return 2 * rank


# --- five cards against the oracle ---------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES, ids=str)
@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.wheel.value)
@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_five_card_order_and_category_match_the_brute_force_oracle(game, rules, data):
    a = data.draw(hands(5, game))
    b = data.draw(hands(5, game))
    ours_a, ours_b = rank_high(a, rules), rank_high(b, rules)
    value_a, value_b = oracle.high_value(a, rules.wheel.value), oracle.high_value(b, rules.wheel.value)
    assert compare(ours_a, ours_b) == sign((value_a > value_b) - (value_a < value_b))
    assert high_category(ours_a).name == oracle.CATEGORIES[value_a[0]].upper().replace(" ", "_")


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.wheel.value)
@settings(max_examples=50, deadline=None)
@given(data=st.data())
def test_two_joker_hands_match_the_oracle(rules, data):
    hand = data.draw(hands(5, Game.DOUBLE_JOKER, jokers=st.just(2)))
    other = data.draw(hands(5, Game.DOUBLE_JOKER))
    value = oracle.high_value(hand, rules.wheel.value)
    other_value = oracle.high_value(other, rules.wheel.value)
    assert compare(rank_high(hand, rules), rank_high(other, rules)) == sign(
        (value > other_value) - (value < other_value)
    )


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.wheel.value)
@settings(max_examples=100, deadline=None)
@given(hand=hands(5, Game.DOUBLE_JOKER), data=st.data())
def test_order_of_cards_and_naming_of_suits_do_not_change_the_score(rules, hand, data):
    shuffled = data.draw(st.permutations(hand))
    renamed_suits = dict(zip("shdc", data.draw(st.permutations("shdc")), strict=False))
    renamed = [card if card.is_joker else Card(card.rank, renamed_suits[card.suit]) for card in shuffled]
    assert rank_high(renamed, rules) == rank_high(hand, rules) == rank_high_ints(card_ints(shuffled), rules)


# --- five cards against treys (joker-free) ---------------------------------------------------------


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.wheel.value)
@settings(max_examples=150, deadline=None)
@given(a=hands(5, Game.STANDARD, jokers=st.just(0)), b=hands(5, Game.STANDARD, jokers=st.just(0)))
def test_joker_free_hands_order_as_treys_orders_them(rules, a, b):
    treys_says = sign(treys_key(b, rules) - treys_key(a, rules))  # treys: smaller is better
    assert compare(rank_high(a, rules), rank_high(b, rules)) == treys_says


# --- exhaustive: one hand of every class ------------------------------------------------------------


def one_hand_per_class(jokers: int) -> list[tuple[Card, ...]]:
    """A hand for every (natural ranks, suited or not) with ``jokers`` jokers."""
    naturals = 5 - jokers
    found = [tuple(Card(rank, "s") for rank in ranks) for ranks in combinations(range(2, 15), naturals)]
    for ranks in combinations_with_replacement(range(2, 15), naturals):
        if any(ranks.count(rank) > 4 for rank in ranks):
            continue
        cards = [Card(rank, "shdc"[ranks[:i].count(rank)]) for i, rank in enumerate(ranks)]
        if len({card.suit for card in cards}) == 1:
            cards[0] = Card(cards[0].rank, "h")  # distinct ranks: break the flush
        found.append(tuple(cards))
    return [hand + (JOKER,) * jokers for hand in found]


def assert_same_order(hands_, ours, reference) -> None:
    """Sorted by our score, the reference never goes down, and ties are the same ties."""
    rows = sorted(zip(ours, reference, hands_, strict=False), key=lambda row: row[0])
    for (score_a, ref_a, hand_a), (score_b, ref_b, hand_b) in pairwise(rows):
        assert (score_a == score_b) == (ref_a == ref_b) and ref_a <= ref_b, (hand_a, hand_b)


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.wheel.value)
def test_every_joker_free_class_orders_as_treys(rules):
    all_hands = one_hand_per_class(0)
    assert len(all_hands) == 7462  # treys' count of distinct five-card values
    ours = [rank_high(hand, rules) for hand in all_hands]
    assert len(set(ours)) == 7462
    assert_same_order(all_hands, ours, [-treys_key(hand, rules) for hand in all_hands])


@pytest.mark.slow
@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.wheel.value)
def test_every_hand_class_orders_as_the_oracle(rules):
    # ~2 s a wheel: the two-joker classes try 1,176 pairs of cards each.
    joker_free = one_hand_per_class(0)
    with_jokers = one_hand_per_class(1) + one_hand_per_class(2)
    all_hands = joker_free + with_jokers
    ours = [rank_high(hand, rules) for hand in all_hands]
    reference = [oracle.high_value(hand, rules.wheel.value) for hand in all_hands]
    assert_same_order(all_hands, ours, reference)
    for hand, score, value in zip(all_hands, ours, reference, strict=False):
        assert high_category(score).name == oracle.CATEGORIES[value[0]].upper().replace(" ", "_"), hand


# --- two cards and seven cards against the oracle ------------------------------------------------


@pytest.mark.parametrize("wild", [False, True], ids=["joker-ace", "joker-wild"])
@pytest.mark.parametrize("game", GAMES, ids=str)
@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_low_hand_order_matches_the_oracle(wild, game, data):
    rules = RankingRules(joker_wild_in_low=wild)
    a, b = data.draw(hands(2, game)), data.draw(hands(2, game))
    value_a, value_b = oracle.low_value(a, wild), oracle.low_value(b, wild)
    assert compare(rank_low(a, rules), rank_low(b, rules)) == sign((value_a > value_b) - (value_a < value_b))


@pytest.mark.parametrize("game", GAMES, ids=str)
@settings(max_examples=50, deadline=None)
@given(data=st.data())
def test_seven_card_category_matches_the_oracle(game, data):
    hand = data.draw(hands(7, game))
    assert seven_card_category(hand) is BIG_HAND_LINE[oracle.big_hand_line(hand)]


ACES = tuple(card for card in NATURAL_CARDS if card.rank == 14)
HEARTS_AND_NINES = tuple(
    card for card in NATURAL_CARDS if card.rank != 14 and (card.suit == "h" or card.rank == 9)
)


@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_seven_card_category_of_ace_and_suit_rich_hands_matches_the_oracle(data):
    # Random deals rarely reach the top lines; so many Aces, jokers, hearts and nines do:
    # six and five Aces, (7-card) straight flushes, royals, quads, full houses, flushes.
    jokers = data.draw(st.integers(0, 2))
    aces = data.draw(st.permutations(ACES))[: data.draw(st.integers(0, 4))]
    rest = 7 - jokers - len(aces)
    others = data.draw(st.lists(st.sampled_from(HEARTS_AND_NINES), min_size=rest, max_size=rest, unique=True))
    hand = (*aces, *others, *[JOKER] * jokers)
    assert seven_card_category(hand) is BIG_HAND_LINE[oracle.big_hand_line(hand)]


@settings(max_examples=40, deadline=None)
@given(
    suit=st.sampled_from("shdc"),
    low_rank=st.sampled_from([14, *range(2, 9)]),
    holes=st.lists(st.integers(0, 6), max_size=2, unique=True),
)
def test_seven_suited_cards_in_a_row_match_the_oracle(suit, low_rank, holes):
    ranks = [14, 2, 3, 4, 5, 6, 7] if low_rank == 14 else list(range(low_rank, low_rank + 7))
    hand = tuple(JOKER if i in holes else Card(rank, suit) for i, rank in enumerate(ranks))
    expected = BIG_HAND_LINE[oracle.big_hand_line(hand)]
    assert seven_card_category(hand) is expected
    natural = SevenCardCategory.SEVEN_CARD_NATURAL_STRAIGHT_FLUSH
    assert expected is (SevenCardCategory.SEVEN_CARD_STRAIGHT_FLUSH if holes else natural)


def test_oracle_sanity_on_rules_examples():
    """The oracle itself, on hands whose values the rules state outright."""
    assert oracle.high_category_name(parse_cards("As Ad Ah Ac JK")) == "five aces"  # 002
    assert oracle.high_category_name(parse_cards("Kh 9h 7h 5h JK")) == "flush"
    assert oracle.high_value(parse_cards("Kh 9h 7h 5h JK"))[1] == (14, 13, 9, 7, 5)  # 003: Ah
    wheel = oracle.high_value(parse_cards("Ac 2d 3h 4s 5d"), "nevada")
    assert oracle.high_value(parse_cards("Kc Qd Jh Ts 9d"), "nevada") < wheel  # 001
    assert wheel < oracle.high_value(parse_cards("Ac Kd Qh Js Td"), "nevada")
    assert oracle.high_value(parse_cards("Ac 2d 3h 4s 5d"), "california") < oracle.high_value(
        parse_cards("6c 2d 3h 4s 5d"), "california"
    )  # 004
    assert oracle.big_hand_line(parse_cards("As Ad Ah Ac JK JK 2c")) == "six aces"
