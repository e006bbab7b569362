"""Card codes and decks (docs/design.md, "Naming"; 001 and 003 for the deck sizes)."""

import pytest

from table_controller.game.cards import (
    JOKER,
    Card,
    DuplicateCardError,
    Game,
    HandSizeError,
    TooManyJokersError,
    UnknownCardError,
    check_cards,
    parse_card,
    parse_cards,
    parse_hand,
)


@pytest.mark.parametrize(
    ("code", "canonical"),
    [
        ("As", "As"),
        ("as", "As"),
        ("AS", "As"),
        ("td", "Td"),
        ("10d", "Td"),
        ("10H", "Th"),
        ("jk", "JK"),
        ("7c", "7c"),
    ],
)
def test_codes_are_case_insensitive_in_and_canonical_out(code, canonical):
    assert parse_card(code).code == canonical


@pytest.mark.parametrize("code", ["1s", "Ax", "A", "", "JKK", "11h", "10", "Jo", "XX"])
def test_unknown_code_is_an_error_naming_the_code(code):
    with pytest.raises(UnknownCardError) as info:
        parse_card(code)
    assert repr(code) in str(info.value)
    assert "a rank (A K Q J T 9 .. 2; 10 for T) then a suit (s h d c)" in str(info.value)


def test_card_attributes():
    assert parse_card("Kh") == Card(13, "h")
    assert parse_card("JK") is JOKER and JOKER.is_joker
    assert parse_card("2s").index == 0 and parse_card("Ac").index == 51 and JOKER.index == 52


def test_decks():
    assert Game.STANDARD.deck_size == 53 and Game.STANDARD.unused_cards == 4
    assert Game.DOUBLE_JOKER.deck_size == 54 and Game.DOUBLE_JOKER.unused_cards == 5
    assert len(set(Game.STANDARD.deck())) == 53
    assert Game.DOUBLE_JOKER.deck().count(JOKER) == 2


def test_parse_cards_accepts_a_string():
    assert [c.code for c in parse_cards("As, 10h jk")] == ["As", "Th", "JK"]


def test_duplicates_and_jokers_are_checked_per_game():
    with pytest.raises(DuplicateCardError, match="As"):
        check_cards(parse_cards("As As"))
    with pytest.raises(TooManyJokersError):
        check_cards(parse_cards("JK JK"), Game.STANDARD)
    check_cards(parse_cards("JK JK"), Game.DOUBLE_JOKER)
    with pytest.raises(TooManyJokersError):
        check_cards(parse_cards("JK JK JK"), Game.DOUBLE_JOKER)


def test_parse_hand_checks_size():
    with pytest.raises(HandSizeError, match="6 cards, expected 7"):
        parse_hand("As Ks Qs Js Ts 9s")
