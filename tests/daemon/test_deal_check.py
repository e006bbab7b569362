"""The deal check's two additions for devices (game/deal.py): an unreadable card and an
interrupted deal are misdeals with the exact discrepancy (docs/round-lifecycle.md, "The phases")."""

from __future__ import annotations

from table_controller.game.cards import Game, codes
from table_controller.game.deal import UNREADABLE_CODE, check_deal

DECK = codes(Game.STANDARD.deck())  # 2s 2h 2d 2c 3s ... As Ah Ad Ac JK


def _piles(cards: list[str]) -> tuple[list[list[str]], list[str]]:
    return [cards[i * 7 : (i + 1) * 7] for i in range(7)], cards[49:]


def test_an_unreadable_card_is_named_by_its_place_and_the_card_not_seen_is_missing():
    piles, unused = _piles(list(DECK))
    assert piles[1] == ["3c", "4s", "4h", "4d", "4c", "5s", "5h"]  # pile 2 is cards 8-14 of the deck
    piles[1][3] = UNREADABLE_CODE  # the reader could not read the 4d
    check = check_deal(Game.STANDARD, piles, unused, start=1)
    assert [(d.kind, d.detail) for d in check.discrepancies] == [
        ("unreadable-card", "card 4 of pile 2 could not be read"),
        ("missing-card", "missing 4d"),
    ]
    assert check.hands == {}


def test_an_interrupted_deal_is_a_misdeal_with_the_reason_and_checks_only_the_cards_dealt():
    piles, _ = _piles(list(DECK))
    dealt = piles[:3]
    check = check_deal(
        Game.STANDARD, dealt, [], start=4, interrupted="the shuffler aborted the deal after 3 piles: jam"
    )
    assert [(d.kind, d.detail) for d in check.discrepancies] == [
        ("deal-interrupted", "the shuffler aborted the deal after 3 piles: jam"),
    ]


def test_an_interrupted_deal_still_reports_a_duplicate_and_too_many_jokers_among_the_cards_dealt():
    piles, _ = _piles(list(DECK))
    dealt = [list(piles[0]), list(piles[1])]
    dealt[1][0] = dealt[0][0]  # 2s twice
    dealt[1][1] = "JK"
    dealt[1][2] = "JK"  # two jokers in a 53-card game
    check = check_deal(
        Game.STANDARD, dealt, [], start=1, interrupted="deal interrupted: the shuffler restarted"
    )
    assert [d.kind for d in check.discrepancies] == ["deal-interrupted", "joker-count", "duplicate-card"]
    assert check.discrepancies[1].detail == "2 jokers, the standard deck has 1"
    assert check.discrepancies[2].detail == "2s appears 2 times (pile 1, pile 2)"
