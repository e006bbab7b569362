"""Properties of the house way engine, and its errors.

- For random seven-card hands from the 53-card (001) and 54-card (003) decks, both ways give
  a legal setting (setting.is_legal) of exactly the seven cards, named by one of the way's
  rules, and the same setting values whatever the order the cards come in.
- The engine's own foul check agrees with setting.is_legal on every split.
- Bad input gives a typed error (ValueError subclasses): unknown way, malformed file,
  unknown predicate / action / selector, duplicated ids, bad hands.
"""

from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.game.cards import (
    JOKER,
    Card,
    CardError,
    DuplicateCardError,
    Game,
    HandSizeError,
    TooManyJokersError,
    UnknownCardError,
    parse_cards,
)
from table_controller.game.evaluator import RankingRules, Wheel
from table_controller.game.house_way import (
    DuplicateRuleIdError,
    HouseWay,
    HouseWayError,
    HouseWayFileError,
    NoLegalSettingError,
    UnknownActionError,
    UnknownHouseWayError,
    UnknownPredicateError,
    available_house_ways,
    build_house_way,
    load_house_way,
    set_house_way,
)
from table_controller.game.house_way.facts import HandFacts
from table_controller.game.house_way.loader import WAYS_DIRECTORY
from table_controller.game.setting import all_settings, is_legal, same_values

WAYS = ["house-way-002", "strong-004"]
RANKINGS = [RankingRules(), RankingRules(wheel=Wheel.CALIFORNIA), RankingRules(joker_wild_in_low=True)]


def hands(game: Game):
    deck = game.deck()
    return st.lists(st.sampled_from(range(len(deck))), min_size=7, max_size=7, unique=True).map(
        lambda picks: tuple(deck[i] for i in picks)
    )


def _multiset(cards) -> Counter:
    return Counter(card.code for card in cards)


@settings(max_examples=400, deadline=None)
@given(hand=st.one_of(hands(Game.STANDARD), hands(Game.DOUBLE_JOKER)), name=st.sampled_from(WAYS))
def test_random_hands_get_a_legal_setting_of_exactly_their_cards(hand, name):
    way = load_house_way(name)
    result = way.set(hand)
    assert _multiset(result.setting.high) + _multiset(result.setting.low) == _multiset(hand)
    assert (len(result.setting.high), len(result.setting.low)) == (5, 2)
    assert is_legal(result.setting)
    rule = way.rule(result.rule_id)
    assert result.rule_words == rule.words
    assert result.way == name
    assert all(way.rule(step).action.follows for step in result.via)
    # the table's own rules (joker an Ace in front) always leave a legal row: no last resort
    assert way.last_resort is not None and result.rule_id != way.last_resort.id


@settings(max_examples=200, deadline=None)
@given(
    hand=st.one_of(hands(Game.STANDARD), hands(Game.DOUBLE_JOKER)),
    name=st.sampled_from(WAYS),
    ranking=st.sampled_from(RANKINGS),
)
def test_legal_under_every_table_ranking_rule(hand, name, ranking):
    result = load_house_way(name).set(hand, ranking)
    assert is_legal(result.setting, ranking)


@settings(max_examples=200, deadline=None)
@given(hand=st.one_of(hands(Game.STANDARD), hands(Game.DOUBLE_JOKER)), order=st.permutations(range(7)))
def test_the_order_of_the_cards_changes_no_value(hand, order):
    """Choices left open differ only in suits (G5): a shuffled hand gives the same row and
    a setting worth the same."""
    way = load_house_way("house-way-002")
    first = way.set(hand)
    second = way.set(tuple(hand[i] for i in order))
    assert second.rule_id == first.rule_id
    assert same_values(first.setting, second.setting)


@settings(max_examples=150, deadline=None)
@given(hand=st.one_of(hands(Game.STANDARD), hands(Game.DOUBLE_JOKER)), ranking=st.sampled_from(RANKINGS))
def test_the_engines_foul_check_agrees_with_is_legal(hand, ranking):
    facts = HandFacts(hand, ranking)
    positions = {id(card): [] for card in hand}
    for i, card in enumerate(hand):
        positions[id(card)].append(i)
    for a in range(7):
        for b in range(a + 1, 7):
            high = tuple(hand[i] for i in range(7) if i not in (a, b))
            setting = next(s for s in all_settings(hand) if s.low == (hand[a], hand[b]) and s.high == high)
            assert facts.legal(a, b) == is_legal(setting, ranking), (hand, a, b)


def test_last_resort_at_a_wild_joker_table():
    """Where the joker is wild in the low hand (004), "the two highest singletons" JK and 8
    are a pair of 8s in front of a pair of 2s: a foul, and Pairs has no other one-pair row.
    Every pair in front fouls too (JK-x is a pair of x over 2-2; 2-2 over A-8-7-4-3), so the
    strongest legal low hand is 8-7, with the 2s behind."""
    wild = RankingRules(joker_wild_in_low=True)
    result = load_house_way().set(parse_cards("2s 2h 4s 8s 7h JK 3h"), wild)
    assert result.rule_id == "last-resort.strongest-legal-low"
    assert result.skipped == ("pairs.one",)
    assert _multiset(result.setting.low) == _multiset(parse_cards("8s 7h"))
    assert is_legal(result.setting, wild)
    assert load_house_way().set(parse_cards("2s 2h 4s 8s 7h JK 3h")).rule_id == "pairs.one"


def test_cards_made_outside_the_deck_are_read_the_same():
    made = (
        Card(14, "s"),
        Card(13, "s"),
        Card(12, "s"),
        Card(11, "s"),
        Card(10, "s"),
        Card(14, "h"),
        Card(14, "d"),
    )
    result = set_house_way(made)
    assert result.rule_id == "royal-flush.three-of-a-kind"
    assert _multiset(result.setting.low) == _multiset(parse_cards("Ah Ad"))


def test_the_results_fast_constructor_makes_the_same_result():
    from table_controller.game.house_way.engine import HouseWayResult, _result

    result = set_house_way("Ac Qd 9h 7s 5c 3d 2h")
    fields = [getattr(result, name) for name in HouseWayResult.__dataclass_fields__]
    made = _result(result.setting.high, result.setting.low, *fields[1:])
    assert HouseWayResult(*fields) == result == made
    assert type(made) is HouseWayResult and type(made.setting) is type(result.setting)
    with pytest.raises(AttributeError):
        made.setting.low = ()  # frozen
    with pytest.raises(AttributeError):
        result.rule_id = "other"  # frozen


def test_audit_helpers_name_the_section_and_the_rows_that_match():
    way = load_house_way()
    cards = parse_cards("Kh 9h 7h 5h 3h 9s JK")  # readings G9
    assert way.section_of(cards) == "flush"
    assert way.matching_rules(cards)[:2] == [
        "flush.pair.pair-and-joker-flush-after-removing-pair",
        "flush.pair.pair-and-joker-flush-after-removing-joker",
    ]


def test_codes_as_a_string_are_accepted():
    assert set_house_way("Ac Qd 9h 7s 5c 3d 2h").rule_id == "high-card.second-and-fourth"


# -- bad hands ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "error"),
    [
        (parse_cards("As Ks Qs Js Ts 9s"), HandSizeError),
        (parse_cards("As Ks Qs Js Ts 9s 8s 7s"), HandSizeError),
        (parse_cards("As As Qs Js Ts 9s 8s"), DuplicateCardError),
        ((Card(14, "s"), *parse_cards("As Qs Js Ts 9s 8s")), DuplicateCardError),
        ((JOKER, JOKER, JOKER, *parse_cards("As Qs Js Ts")), TooManyJokersError),
        ((*parse_cards("As Qs Js Ts 9s 8s"), "7s"), UnknownCardError),
        ((*parse_cards("As Qs Js Ts 9s 8s"), Card(15, "s")), UnknownCardError),
        ((*parse_cards("As Qs Js Ts 9s 8s"), Card(7, "x")), UnknownCardError),
    ],
)
def test_bad_hands_are_refused_with_a_card_error(hand, error):
    with pytest.raises(error) as info:
        load_house_way().set(hand)
    assert isinstance(info.value, CardError) and isinstance(info.value, ValueError)


def test_a_bad_code_string_is_a_card_error():
    with pytest.raises(UnknownCardError):
        set_house_way("As Ks Qs Js Ts 9s 1x")


# -- ways and way files ------------------------------------------------------------------------


def test_available_ways_and_cache():
    assert {"house-way-002", "strong-004"} <= set(available_house_ways())
    assert load_house_way() is load_house_way("house-way-002")
    assert load_house_way("house-way-002", WAYS_DIRECTORY) is load_house_way("house-way-002")
    assert isinstance(load_house_way(), HouseWay)


def test_unknown_way_names_the_available_ones():
    with pytest.raises(UnknownHouseWayError) as info:
        load_house_way("no-such-way")
    assert "house-way-002" in str(info.value) and isinstance(info.value, ValueError)
    with pytest.raises(UnknownHouseWayError):
        load_house_way("../house_ways/house-way-002")
    with pytest.raises(UnknownHouseWayError):
        set_house_way("Ac Qd 9h 7s 5c 3d 2h", way="missing")


def _write(directory: Path, name: str, text: str) -> None:
    (directory / f"{name}.toml").write_text(text, encoding="utf-8")


MINIMAL = """
name = "tiny"
title = "two rows"
source = "test"

[[section]]
id = "pairs"
words = "Pairs"
when = [{ name = "can_make", hand = "pair" }]

[[section]]
id = "high-card"
words = "High Card"
when = []

[[combination]]
id = "pairs"
section = "pairs"
words = "One or more pairs"
when = []

[[combination]]
id = "high-card"
section = "high-card"
words = "Otherwise"
when = []

[[rule]]
id = "pairs.lowest-pair"
combination = "pairs"
details = ""
split = "the lowest pair"
when = []
action = { name = "take", cards = [{ name = "pair", which = "lowest" }] }

[[rule]]
id = "high-card.top-two"
combination = "high-card"
details = ""
split = "2nd & 3rd highest"
when = []
action = { name = "take", cards = [{ name = "highest", nth = [2, 3] }] }
"""


def test_a_casino_can_load_its_own_way_from_a_directory(tmp_path):
    _write(tmp_path, "tiny", MINIMAL)
    assert available_house_ways(tmp_path) == ["tiny"]
    way = load_house_way("tiny", tmp_path)
    result = way.set(parse_cards("Kd Kh 6s 6c Qd 9h 3c"))
    assert result.rule_id == "pairs.lowest-pair" and result.way == "tiny"
    assert _multiset(result.setting.low) == _multiset(parse_cards("6s 6c"))
    result = way.set(parse_cards("Kh Jd 9c 7s 5h 3c 2d"))
    assert _multiset(result.setting.low) == _multiset(parse_cards("Jd 9c"))


@pytest.mark.parametrize(
    ("change", "error", "words"),
    [
        (
            lambda t: t.replace('hand = "pair"', 'hand = "pairs"'),
            HouseWayFileError,
            "can_make.hand: Input should be 'five-aces'",
        ),
        (
            lambda t: t.replace('name = "can_make"', 'name = "can_make_it"'),
            UnknownPredicateError,
            "unknown predicate",
        ),
        (
            lambda t: t.replace(
                '{ name = "take", cards = [{ name = "pair"', '{ name = "grab", cards = [{ name = "pair"'
            ),
            UnknownActionError,
            "unknown action",
        ),
        (
            lambda t: t.replace('{ name = "pair", which = "lowest" }', '{ name = "couple" }'),
            UnknownActionError,
            "unknown selector",
        ),
        (
            lambda t: t.replace('which = "lowest"', 'which = "lowermost"'),
            HouseWayFileError,
            "take.cards.0.pair.which: Input should be 'lowest'",
        ),
        (
            lambda t: t.replace('which = "lowest"', 'which = "lowest", colour = "red"'),
            HouseWayFileError,
            "take.cards.0.pair.colour: Extra inputs are not permitted",
        ),
        (
            lambda t: t.replace('id = "high-card.top-two"', 'id = "pairs.lowest-pair"'),
            DuplicateRuleIdError,
            "duplicate rule id",
        ),
        (
            lambda t: t.replace('combination = "high-card"\n', 'combination = "nowhere"\n'),
            HouseWayFileError,
            "unknown combination",
        ),
        (
            lambda t: t.replace('split = "the lowest pair"', 'split = "the lowest pair"\nreachable = false'),
            HouseWayFileError,
            "needs a reason",
        ),
        (lambda t: t.replace('name = "tiny"', 'name = "other"'), HouseWayFileError, "names the way"),
        (
            lambda t: t.replace('title = "two rows"', 'title = "two rows"\ncolour = "red"'),
            HouseWayFileError,
            "unknown key",
        ),
        (lambda t: t.replace("[[rule]]", "[[rules]]", 1), HouseWayFileError, "unknown key"),
        (lambda t: t + "\n[[", HouseWayFileError, "not valid TOML"),
        (lambda t: t.replace("nth = [2, 3]", "nth = [2, 3, 4]"), HouseWayFileError, "the low hand has 2"),
        (
            lambda t: t.replace(
                '{ name = "take", cards = [{ name = "pair", which = "lowest" }] }',
                '{ name = "follow", combination = "pairs" }',
            ),
            HouseWayFileError,
            "follow again",
        ),
        (
            lambda t: t.replace(
                '{ name = "take", cards = [{ name = "pair", which = "lowest" }] }',
                '{ name = "follow", combination = "absent" }',
            ),
            HouseWayFileError,
            "unknown combination",
        ),
        (lambda t: t.replace('id = "high-card.top-two"', 'id = "High Card!"'), HouseWayFileError, "bad id"),
        (
            lambda t: t.replace(
                'when = []\naction = { name = "take", cards = [{ name = "highest"',
                'when = "always"\naction = { name = "take", cards = [{ name = "highest"',
            ),
            HouseWayFileError,
            "must be a list",
        ),
    ],
)
def test_malformed_way_files_are_refused_at_load(tmp_path, change, error, words):
    _write(tmp_path, "tiny", change(MINIMAL))
    with pytest.raises(error) as info:
        load_house_way("tiny", tmp_path)
    assert words in str(info.value)
    assert "tiny.toml" in str(info.value)
    assert isinstance(info.value, HouseWayError) and isinstance(info.value, ValueError)


def test_rows_out_of_section_order_are_refused():
    import tomllib

    data = tomllib.loads(MINIMAL)
    data["rule"].reverse()
    with pytest.raises(HouseWayFileError, match="must come before"):
        build_house_way(data)


def test_a_way_with_a_gap_says_so_instead_of_guessing():
    import tomllib

    data = tomllib.loads(MINIMAL)
    # a Pairs section that only takes two pairs: a one-pair hand has no row
    data["combination"][0]["when"] = [{"name": "groups", "size": 2, "count": 2}]
    way = build_house_way(data)
    with pytest.raises(NoLegalSettingError, match="no row of section 'pairs'"):
        way.set(parse_cards("Jd Jc Ah 9s 6c 4h 2d"))


def test_section_order_must_name_every_section():
    import tomllib

    data = tomllib.loads(MINIMAL)
    data["section_order"] = ["pairs"]
    with pytest.raises(HouseWayFileError, match="section_order"):
        build_house_way(data)
