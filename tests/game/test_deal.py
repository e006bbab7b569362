"""The deal (000, 003, 004): start position, piles to positions, the complete-deck check."""

import random

import pytest

from table_controller.game.cards import Game, codes
from table_controller.game.deal import DiceDirection, DiceError, check_deal, pile_positions, start_position


@pytest.mark.parametrize(
    ("faces", "start"),
    [
        ((1, 1, 1), 3),
        ((1, 2, 4), 7),
        ((2, 3, 3), 1),
        ((6, 6, 6), 4),
        ((4, 5, 5), 7),
        ((5, 5, 5), 1),
        ((1, 1, 2), 4),
    ],
)
def test_dice_total_counted_from_the_banker_as_one_picks_the_start_position(faces, start):
    # total 3 -> positions 1,2,3 -> 3; total 8 -> once round (7) and on to 1; 18 -> 7+7+4 -> 4
    assert start_position(faces) == start


# Every total 3..18 counted by hand from the banker (position 1) as one.
# 000, counter-clockwise: 1, 2, 3, 4, 5, 6, 7, 1, 2 ...
# 004, clockwise "from the first position": 1, 7, 6, 5, 4, 3, 2, 1, 7 ...
BY_TOTAL = {
    # total: (counter-clockwise, clockwise)
    3: (3, 6),
    4: (4, 5),
    5: (5, 4),
    6: (6, 3),
    7: (7, 2),
    8: (1, 1),
    9: (2, 7),
    10: (3, 6),
    11: (4, 5),
    12: (5, 4),
    13: (6, 3),
    14: (7, 2),
    15: (1, 1),
    16: (2, 7),
    17: (3, 6),
    18: (4, 5),
}


def faces_for(total):
    first = min(6, total - 2)
    second = min(6, total - first - 1)
    return (first, second, total - first - second)


@pytest.mark.parametrize("total", sorted(BY_TOTAL))
def test_both_dice_directions_for_every_total(total):
    faces = faces_for(total)
    assert sum(faces) == total and all(1 <= face <= 6 for face in faces)
    ccw, cw = BY_TOTAL[total]
    assert start_position(faces) == ccw  # the default: 000, as before
    assert start_position(faces, DiceDirection.COUNTER_CLOCKWISE) == ccw
    assert start_position(faces, DiceDirection.CLOCKWISE) == cw


def test_the_two_readings_differ_on_14_of_the_16_totals():
    assert sum(ccw != cw for ccw, cw in BY_TOTAL.values()) == 14


@pytest.mark.parametrize("faces", [(0, 1, 2), (1, 2, 7), (1, 2), (1, 2, 3, 4)])
def test_impossible_dice_are_refused(faces):
    with pytest.raises(DiceError):
        start_position(faces)


def test_piles_go_round_counter_clockwise_from_the_start():
    assert pile_positions(1) == (1, 2, 3, 4, 5, 6, 7)
    assert pile_positions(6) == (6, 7, 1, 2, 3, 4, 5)


def shuffled(game, seed=1):
    deck = codes(game.deck())
    random.Random(seed).shuffle(deck)
    return [deck[i * 7 : i * 7 + 7] for i in range(7)], deck[49:]


@pytest.mark.parametrize("game", list(Game))
def test_a_complete_deck_is_assigned_to_positions(game):
    piles, unused = shuffled(game)
    check = check_deal(game, piles, unused, start=6)
    assert not check.is_misdeal
    assert len(unused) == game.unused_cards
    assert codes(check.hands[6]) == piles[0]
    assert codes(check.hands[7]) == piles[1]
    assert codes(check.hands[1]) == piles[2]
    assert codes(check.hands[5]) == piles[6]


def kinds(check):
    return [d.kind for d in check.discrepancies]


def test_a_duplicated_card_is_a_misdeal_naming_the_card_and_the_missing_one():
    piles, unused = shuffled(Game.STANDARD)
    lost = piles[3][2]
    piles[3][2] = piles[0][0]
    check = check_deal(Game.STANDARD, piles, unused, start=1)
    assert check.is_misdeal and check.hands == {}
    assert kinds(check) == ["duplicate-card", "missing-card"]
    assert check.discrepancies[0].cards == (piles[0][0],)
    assert "pile 1, pile 4" in check.discrepancies[0].detail
    assert check.discrepancies[1].cards == (lost,)


def test_a_short_pile_is_a_misdeal():
    piles, unused = shuffled(Game.STANDARD)
    dropped = piles[2].pop()
    check = check_deal(Game.STANDARD, piles, unused, start=1)
    assert kinds(check) == ["pile-size", "missing-card"]
    assert check.discrepancies[0].pile == 3
    assert check.discrepancies[1].cards == (dropped,)


def test_wrong_number_of_unused_cards_for_double_joker():
    piles, unused = shuffled(Game.STANDARD)  # 4 unused, one joker
    check = check_deal(Game.DOUBLE_JOKER, piles, unused, start=1)
    assert kinds(check) == ["unused-count", "joker-count"]
    assert check.discrepancies[0].detail == "4 unused cards, expected 5 (double-joker)"


def test_an_extra_joker_is_a_misdeal():
    piles, unused = shuffled(Game.STANDARD)
    replaced = unused[0] if unused[0] != "JK" else unused[1]
    unused[unused.index(replaced)] = "JK"
    check = check_deal(Game.STANDARD, piles, unused, start=1)
    assert kinds(check) == ["joker-count", "missing-card"]
    assert check.discrepancies[1].cards == (replaced,)


def test_an_unknown_card_code_is_a_misdeal_naming_the_code():
    piles, unused = shuffled(Game.STANDARD)
    lost = piles[6][6]
    piles[6][6] = "Zz"
    check = check_deal(Game.STANDARD, piles, unused, start=1)
    assert kinds(check) == ["unknown-card", "missing-card"]
    assert check.discrepancies[0].cards == ("Zz",) and check.discrepancies[0].pile == 7
    assert check.discrepancies[1].cards == (lost,)
