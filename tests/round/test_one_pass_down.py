"""One pass down (docs/round-lifecycle.md): the round machine parses and ranks each setting once,
keeps what it found in the state, and the record's projection writes it from there without
parsing or ranking again. ``audit verify`` still ranks every hand itself, by replaying the chain
through the machine (tests/test_record_tamper.py changes a stored category and sees it found)."""

from __future__ import annotations

import pytest

from table_controller.game import cards, evaluator
from table_controller.record import recorder
from table_controller.round import machine
from table_controller.round.events import DealerSet, PilesDealt, PlayerSet
from table_controller.round.machine import apply

from .tables import BANKER, POSITION_3
from .test_machine import RULES, dealt_round

# Five clubs among position 5's seven cards: Kc Qc Jc 7c 6c, a flush (003's Big Hand order).
FLUSH_5 = "Kc Qc Jc 7c 6c 4h 3h"
HANDS = {1: BANKER, 3: POSITION_3, 5: FLUSH_5}


def test_the_deal_keeps_each_hands_big_hand_category():
    state, _ = dealt_round(hands=HANDS)
    # The banker's Ac Qd 9h 7s 5c 3d 2h and position 3's As Ah Kd Kh 9c 8c 2c make nothing the
    # Big Hand Bonus counts (two pair is below its first line, the flush: 003).
    assert {p: c.label for p, c in state.seven_card.items()} == {1: "nothing", 3: "nothing", 5: "flush"}


def test_a_setting_is_ranked_once_and_kept_with_its_categories():
    state, _ = dealt_round(hands=HANDS)
    state = apply(state, PlayerSet(position=3, high=["As", "Ah", "9c", "8c", "2c"], low=["Kd", "Kh"]), RULES)
    hand = state.set_hands[3]
    assert [c.code for c in hand.setting.high] == ["As", "Ah", "9c", "8c", "2c"]
    # A pair of aces behind, a pair of kings in front: the aces outrank the kings, no foul (001).
    assert (hand.high_category.label, hand.low_category.label, hand.fouled) == ("one-pair", "pair", False)


def test_a_wrong_split_is_kept_without_categories_and_fouled():
    state, _ = dealt_round(hands=HANDS)
    # Four behind and three in front (004): a foul by card count, no category to show.
    wrong = PlayerSet(position=3, high=["As", "Ah", "9c", "8c"], low=["Kd", "Kh", "2c"])
    state = apply(state, wrong, RULES)
    hand = state.set_hands[3]
    assert (hand.high_score, hand.low_score, hand.high_category, hand.fouled) == (None, None, None, True)
    _, positions = recorder.step_projection(state, wrong)
    assert positions[3] == {
        "high": "As Ah 9c 8c",
        "low": "Kd Kh 2c",
        "high_category": None,
        "low_category": None,
    }


def test_the_dealers_setting_is_ranked_once(monkeypatch):
    state, _ = dealt_round(hands=HANDS)
    state = apply(state, PlayerSet(position=3, high=["As", "Ah", "9c", "8c", "2c"], low=["Kd", "Kh"]), RULES)
    state = apply(state, PlayerSet(position=5, high=["Kc", "Qc", "Jc", "7c", "6c"], low=["4h", "3h"]), RULES)
    calls = []
    real = machine.rank_high
    monkeypatch.setattr(machine, "rank_high", lambda hand, ranking: calls.append(hand) or real(hand, ranking))
    state = apply(state, DealerSet(high=["Ac", "9h", "5c", "3d", "2h"], low=["Qd", "7s"]), RULES)
    assert len(calls) == 1  # the guard and the effect no longer each set the hand again
    assert state.set_hands[1].high_category.label == "high-card"


def test_the_projection_neither_parses_nor_ranks(monkeypatch):
    state, (piles, unused) = dealt_round(hands=HANDS)
    dealt = state
    aces = PlayerSet(position=3, high=["As", "Ah", "9c", "8c", "2c"], low=["Kd", "Kh"])
    state = apply(state, aces, RULES)
    after_player = state
    state = apply(state, PlayerSet(position=5, high=["Kc", "Qc", "Jc", "7c", "6c"], low=["4h", "3h"]), RULES)
    dealer = DealerSet(high=["Ac", "9h", "5c", "3d", "2h"], low=["Qd", "7s"])
    state = apply(state, dealer, RULES)

    def refused(*args, **kwargs):
        raise AssertionError("the projection parsed or ranked a hand again")

    for module, name in (
        (cards, "parse_cards"),
        (evaluator, "rank_high"),
        (evaluator, "rank_low"),
        (evaluator, "seven_card_category"),
        (machine, "parse_cards"),
        (machine, "rank_high"),
        (machine, "rank_low"),
        (machine, "seven_card_category"),
    ):
        monkeypatch.setattr(module, name, refused)
    _, deal_positions = recorder.step_projection(dealt, PilesDealt(piles=piles, unused=unused))
    assert deal_positions[5]["seven_card_category"] == "flush"
    assert deal_positions[3]["cards"] == "As Ah Kd Kh 9c 8c 2c"
    _, player = recorder.step_projection(after_player, aces)
    assert player[3] == {
        "high": "As Ah 9c 8c 2c",
        "low": "Kd Kh",
        "high_category": "one-pair",
        "low_category": "pair",
    }
    _, banker = recorder.step_projection(state, dealer)
    # Ace-high behind (no pair, no straight, no flush), queen-seven in front.
    assert banker[1] == {
        "high": "Ac 9h 5c 3d 2h",
        "low": "Qd 7s",
        "high_category": "high-card",
        "low_category": "high-card",
        "override": False,
    }


@pytest.mark.parametrize("module", [recorder])
def test_the_recorder_imports_no_ranking(module):
    for name in ("rank_high", "rank_low", "seven_card_category", "parse_cards"):
        assert not hasattr(module, name), f"{module.__name__} should take {name}'s answer from the round"
