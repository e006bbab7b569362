"""The Fortune Bonus hand, its pay tables as data and the Envy Bonus of one round
(progressive-research.md §1.2-§1.4, §1.8; docs/progressive.md)."""

from __future__ import annotations

import pytest

from table_controller.game.cards import HandSizeError, TooManyJokersError, parse_cards
from table_controller.game.fortune import (
    DEFAULT_ENVY_MINIMUM,
    FORTUNE_LINES,
    EnvyEligibility,
    EnvyRules,
    FortuneHand,
    FortunePayTable,
    FortuneSettlementError,
    Reason,
    fortune_hand,
    fortune_paytable_from_mapping,
    load_fortune_paytable,
    settle_fortune,
)
from table_controller.game.money import InvalidAmountError
from table_controller.game.paytables import (
    BadOddsError,
    MissingPayLineError,
    PayTableFileError,
    UnknownPayLineError,
    paytables_dir,
)

F = FortuneHand

# progressive-research.md §1.2, written out from the research's table (odds "to 1", envy in $).
TABLE_A_ODDS = [8000, 2000, 1000, 400, 150, 50, 25, 5, 4, 3, 2, None]
TABLE_B_ODDS = [5000, 2000, 1000, 400, 150, 50, 25, 5, 4, 3, 2, None]
TABLE_A_ENVY_DOLLARS = [5000, 1000, 500, 250, 50, 20, 5, 0, 0, 0, 0, 0]
TABLE_B_ENVY_DOLLARS = [3000, 1000, 500, 250, 50, 20, 5, 0, 0, 0, 0, 0]


@pytest.mark.parametrize(
    ("codes", "line"),
    [
        ("8s 9s Ts Js Qs Ks As", F.SEVEN_CARD_NATURAL_STRAIGHT_FLUSH),
        ("As 2s 3s 4s 5s 6s 7s", F.SEVEN_CARD_NATURAL_STRAIGHT_FLUSH),  # the Ace low in A-7
        ("As Ks Qs Js Ts Kh Qh", F.ROYAL_FLUSH_WITH_ROYAL_MATCH),
        ("As Ks Qs JK Ts Kd Qd", F.ROYAL_FLUSH_WITH_ROYAL_MATCH),  # the joker fills the royal
        ("As Ks Qs Js Ts Kh JK", F.ROYAL_FLUSH),  # the joker never stands in the match
        ("As Ks Qs Js Ts Kh Qc", F.ROYAL_FLUSH),  # K and Q of two suits
        ("JK 9h Th Jh Qh Kh Ah", F.SEVEN_CARD_STRAIGHT_FLUSH_WITH_JOKER),
        ("2d 3d 4d JK 6d 7d 8d", F.SEVEN_CARD_STRAIGHT_FLUSH_WITH_JOKER),
        ("As Ah Ad Ac JK 2c 3d", F.FIVE_ACES),
        ("As Ks Qs Js Ts 2c 3d", F.ROYAL_FLUSH),
        ("9c Tc Jc Qc Kc 2d 2h", F.STRAIGHT_FLUSH),
        ("9c 9d 9h 9s Kc Kd Kh", F.FOUR_OF_A_KIND),
        ("9c 9d 9h Kc Kd 2s 3s", F.FULL_HOUSE),
        ("2c 3c 4c 5c 7c 9d Kd", F.FLUSH),
        ("2c 3c 4c 7c JK 9d Kd", F.FLUSH),  # the joker completes a flush
        ("7c 7d 7h 8s 9d Tc Jh", F.THREE_OF_A_KIND),  # trips and a straight: trips pays more
        ("Ah Ad 3c 4d 5h 6s JK", F.THREE_OF_A_KIND),  # the joker as an Ace, or filling a straight
        ("2c 3d 4h 5s 6c 9d Kh", F.STRAIGHT),
        ("2c 3d 4h JK 6c 9d Kh", F.STRAIGHT),
        ("2c 2d 4h 4s 6c 6d Kh", F.NOTHING),  # three pair
        ("2c 3d 4h 7s 8c 9d Kh", F.NOTHING),
    ],
)
def test_the_fortune_line_of_seven_cards(codes, line) -> None:
    assert fortune_hand(parse_cards(codes)) is line


def test_the_line_does_not_depend_on_the_order_of_the_cards() -> None:
    cards = parse_cards("Kh Qh As Ks Qs Js Ts")
    assert fortune_hand(cards) is fortune_hand(tuple(reversed(cards))) is F.ROYAL_FLUSH_WITH_ROYAL_MATCH


def test_a_second_joker_or_a_wrong_size_is_refused() -> None:
    with pytest.raises(TooManyJokersError):
        fortune_hand(parse_cards("JK JK As Ks Qs 2c 3d"))
    with pytest.raises(HandSizeError):
        fortune_hand(parse_cards("As Ks Qs Js Ts 9s"))


def _table(name: str) -> FortunePayTable:
    return load_fortune_paytable(paytables_dir() / f"{name}.toml")


@pytest.mark.parametrize(
    ("name", "odds", "envy"),
    [("fortune-a", TABLE_A_ODDS, TABLE_A_ENVY_DOLLARS), ("fortune-b", TABLE_B_ODDS, TABLE_B_ENVY_DOLLARS)],
)
def test_the_shipped_tables_are_the_researchs(name, odds, envy) -> None:
    table = _table(name)
    assert [table.odds[line] for line in FORTUNE_LINES] == odds
    assert [table.envy[line] for line in FORTUNE_LINES] == [dollars * 100 for dollars in envy]
    assert table.line(F.FULL_HOUSE).settle(500) == 2500
    assert table.line(F.NOTHING).settle(500) == -500


def test_the_default_table_is_a() -> None:
    assert load_fortune_paytable().name == "fortune-a"


def _data(**changes):
    odds = {line.label: odds for line, odds in zip(FORTUNE_LINES, TABLE_A_ODDS, strict=True)}
    odds["nothing"] = "loss"
    data = {"bonus": "fortune", "name": "t", "odds": odds, "envy": {"four-of-a-kind": 500}}
    for key, value in changes.items():
        if key in ("odds", "envy"):
            data[key] = {**data[key], **value}
        else:
            data[key] = value
    return data


def test_a_table_built_from_a_mapping() -> None:
    table = fortune_paytable_from_mapping(_data())
    assert table.envy_lines == (F.FOUR_OF_A_KIND,)


@pytest.mark.parametrize(
    ("changes", "error"),
    [
        ({"odds": {"straight": 4}}, BadOddsError),  # pays more than the line above: refused
        ({"odds": {"flush": 0}}, BadOddsError),
        ({"odds": {"flush": 4.5}}, BadOddsError),
        ({"odds": {"six-aces": 9000}}, UnknownPayLineError),
        ({"envy": {"full-house": -1}}, BadOddsError),
        ({"envy": {"full-house": 2.5}}, BadOddsError),
        ({"bonus": "big-hand"}, PayTableFileError),
        ({"extra": 1}, PayTableFileError),
    ],
)
def test_bad_tables_are_refused(changes, error) -> None:
    with pytest.raises(error):
        fortune_paytable_from_mapping(_data(**changes))


def test_a_missing_line_is_refused() -> None:
    data = _data()
    del data["odds"]["straight"]
    with pytest.raises(MissingPayLineError):
        fortune_paytable_from_mapping(data)


def test_a_paying_line_under_a_losing_line_is_refused() -> None:
    with pytest.raises(BadOddsError):
        fortune_paytable_from_mapping(_data(odds={"three-of-a-kind": "loss"}))


def test_a_missing_or_bad_file_is_refused(tmp_path) -> None:
    with pytest.raises(PayTableFileError):
        load_fortune_paytable(tmp_path / "none.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("bonus = [", encoding="utf-8")
    with pytest.raises(PayTableFileError):
        load_fortune_paytable(bad)


# --- one round's Fortune and Envy (hand-worked) -------------------------------------------------

QUADS = parse_cards("9c 9d 9h 9s 2c 3d 5h")  # envy $5
STRAIGHT_FLUSH = parse_cards("9c Tc Jc Qc Kc 2d 2h")  # envy $20
ROYAL = parse_cards("As Ks Qs Js Ts 2c 3d")  # envy $50
FULL_HOUSE = parse_cards("8c 8d 8h Kd Kh 2s 3s")  # no envy
NOTHING = parse_cards("2c 3d 4h 7s 8c Td Qh")
NOTHING_2 = parse_cards("2d 3h 4s 7c 8d Th Qs")


def test_envy_several_qualifying_hands_and_the_dealers_excluded() -> None:
    """Dealer (position 1) holds quads: it never triggers envy. Position 2 ($5, quads),
    position 3 ($5, royal), position 4 ($10, straight flush), position 5 ($4: not eligible,
    full house), position 6 (no wager, nothing). Table A: quads $5, royal $50, SF $20 envy."""
    hands = {1: QUADS, 2: QUADS, 3: ROYAL, 4: STRAIGHT_FLUSH, 5: FULL_HOUSE, 6: NOTHING}
    wagers = {2: 500, 3: 500, 4: 1000, 5: 400}
    result = settle_fortune(hands, wagers, _table("fortune-a"), dealer_position=1)
    assert result.qualifying == {2: F.FOUR_OF_A_KIND, 3: F.ROYAL_FLUSH, 4: F.STRAIGHT_FLUSH}
    two, three, four, five = (result.of(p) for p in (2, 3, 4, 5))
    assert two.total == 25 * 500 + 5000 + 2000  # 25 to 1, envy for 3's royal and 4's SF
    assert three.total == 150 * 500 + 500 + 2000  # envy for 2's quads and 4's SF
    assert four.total == 50 * 1000 + 500 + 5000  # envy is fixed, not a multiple of the wager
    assert five.total == 5 * 400 and not five.envy_eligible and five.envy == 0
    assert [a.from_position for a in two.amounts if a.reason is Reason.ENVY] == [3, 4]
    assert two.amounts[0].reason is Reason.FORTUNE_WIN  # bonus first, envy second (§1.3)
    assert 6 not in {r.position for r in result.positions}
    assert result.total == two.total + three.total + four.total + five.total


def test_envy_is_paid_once_per_qualifying_hand_and_never_for_ones_own() -> None:
    hands = {1: NOTHING, 2: QUADS, 3: NOTHING_2}
    result = settle_fortune(hands, {2: 500, 3: 500}, _table("fortune-a"), dealer_position=1)
    assert result.of(2).total == 25 * 500  # its own quads trigger no envy for itself
    assert result.of(3).total == -500 + 500  # loses the wager, $5 envy once
    assert [a.reason for a in result.of(3).amounts] == [Reason.FORTUNE_LOSS, Reason.ENVY]


def test_the_minimum_wager_is_configurable() -> None:
    hands = {1: NOTHING, 2: QUADS, 3: NOTHING_2}
    rules = EnvyRules(minimum_wager=1000)
    result = settle_fortune(hands, {2: 500, 3: 500}, _table("fortune-a"), dealer_position=1, rules=rules)
    assert result.of(3).total == -500
    assert DEFAULT_ENVY_MINIMUM == 500
    with pytest.raises(InvalidAmountError):
        EnvyRules(minimum_wager=0)


def test_a_player_bankers_hand_counts_or_not_as_configured() -> None:
    """Position 1 is a player-banker holding quads; the house's hand is at position 4."""
    hands = {1: QUADS, 2: NOTHING, 4: NOTHING_2}
    table = _table("fortune-a")
    counts = settle_fortune(hands, {2: 500}, table, dealer_position=4, player_banker_position=1)
    assert counts.of(2).envy == 500
    rules = EnvyRules(player_banker_hand_qualifies=False)
    excluded = settle_fortune(
        hands, {2: 500}, table, dealer_position=4, player_banker_position=1, rules=rules
    )
    assert excluded.of(2).envy == 0


def test_a_trigger_may_be_required_to_have_wagered() -> None:
    hands = {1: NOTHING, 2: QUADS, 3: NOTHING_2}
    table = _table("fortune-a")
    assert settle_fortune(hands, {3: 500}, table, dealer_position=1).of(3).envy == 500
    rules = EnvyRules(trigger_needs_wager=True)
    assert settle_fortune(hands, {3: 500}, table, dealer_position=1, rules=rules).of(3).envy == 0


def test_a_progressive_wager_may_make_a_position_eligible() -> None:
    hands = {1: NOTHING, 2: QUADS, 3: NOTHING_2}
    table = _table("fortune-a")
    plain = settle_fortune(hands, {}, table, dealer_position=1, progressive_wagers={3: 100})
    assert plain.positions == ()
    rules = EnvyRules(eligibility=EnvyEligibility.FORTUNE_OR_PROGRESSIVE)
    paid = settle_fortune(hands, {}, table, dealer_position=1, progressive_wagers={3: 100}, rules=rules)
    assert paid.of(3).total == 500 and paid.of(3).wager == 0


def test_bad_wagers_are_refused() -> None:
    hands = {1: NOTHING, 2: QUADS}
    table = _table("fortune-a")
    with pytest.raises(FortuneSettlementError):
        settle_fortune(hands, {1: 500}, table, dealer_position=1)
    with pytest.raises(FortuneSettlementError):
        settle_fortune(hands, {3: 500}, table, dealer_position=1)
    with pytest.raises(InvalidAmountError):
        settle_fortune(hands, {2: 0}, table, dealer_position=1)
    with pytest.raises(InvalidAmountError):  # a bad Fortune wager beside a good progressive one
        settle_fortune(hands, {2: 0}, table, dealer_position=1, progressive_wagers={2: 100})
