"""The round's side wagers settled from the card read (game/side_wagers.py): the hands the
round tests use, the rules kept in a snapshot, the progressive's fixed and meter lines."""

from __future__ import annotations

import pytest

from table_controller.game.cards import parse_cards
from table_controller.game.fortune import fortune_hand
from table_controller.game.side_wagers import MeterClaim, SideRules, SideWagerError, settle_side
from table_controller.record.pinned_rules import side_files
from table_controller.settings import FortuneSettings, ProgressiveSettings

from ..test_side_wagers_round import HANDS


def _rules() -> SideRules:
    files = side_files(
        fortune=FortuneSettings(enabled=True).file,
        progressive=ProgressiveSettings(enabled=True).file,
        pool_id="t1",
    )
    assert files is not None
    return files.rules


def test_the_round_tests_hands_make_the_lines_they_say():
    lines = {p: fortune_hand(parse_cards(h.split())).label for p, h in HANDS.items()}
    assert lines == {
        1: "four-of-a-kind",
        3: "four-of-a-kind",
        4: "straight-flush",
        5: "nothing",
        6: "nothing",
        7: "four-of-a-kind",
    }


def test_the_rules_come_back_from_their_snapshot():
    rules = _rules()
    again = SideRules.from_snapshot(rules.snapshot())
    assert again == rules and again is not None and again.fortune == rules.fortune
    assert SideRules.from_snapshot(None) is None


def test_the_progressive_pays_fixed_lines_at_the_table_and_claims_meter_lines_on_the_pool():
    rules = _rules()
    hands = {p: parse_cards(h.split()) for p, h in HANDS.items()}
    hands[6] = parse_cards(
        ["As", "Ah", "Ad", "Ac", "JK", "2c", "3d"]
    )  # five aces: 10% of the jackpot's meter
    hands[1] = parse_cards(["9c", "9d", "9h", "Qs", "Kh", "5c", "4d"])
    result = settle_side(rules, hands, {3: (0, 100), 5: (0, 100), 6: (500, 100)}, dealer_position=1)
    by = {p.position: p for p in result.positions}
    # four of a kind: $75 for 1, the $1 wager kept: the player is $74 up
    assert (by[3].progressive_net, by[3].progressive_award, by[3].meter_claim) == (
        7_400,
        "$75.00 for 1",
        None,
    )
    assert (by[5].progressive_net, by[5].progressive_award) == (-100, None)  # nothing: the $1 is lost
    # five aces: 400 to 1 on the $5 Fortune; the progressive claims 10% of the meter, its $1 collected
    assert by[6].fortune_net == 200_000 and by[6].progressive_net == -100
    assert by[6].meter_claim == MeterClaim("jackpot", 1_000)
    # 6's $5 Fortune wager is envy-eligible: 3 and 7 ($5 each) and 4 ($20); its own five aces never
    assert [(e.from_position, e.amount) for e in by[6].envy] == [(3, 500), (4, 2_000), (7, 500)]
    assert result.wagered == 800 and result.paid == 7_400 + 200_000 + 3_000
    assert result.collected == 100 + 100 and result.house_result == -(7_400 - 100 + 200_000 + 3_000 - 100)


def test_a_side_wager_the_rules_do_not_take_is_refused():
    rules = _rules()
    with pytest.raises(SideWagerError, match="the progressive wager is 100 cents, got 500"):
        rules.check_wager(3, 0, 500)
    fortune_only = SideRules(fortune_data=rules.fortune_data)
    with pytest.raises(SideWagerError, match="offers no progressive wager"):
        fortune_only.check_wager(3, 500, 100)
    with pytest.raises(SideWagerError, match="whole cents"):
        fortune_only.check_wager(3, -1, 0)
