"""Big Hand Bonus and Joker Bonus pay tables of 003 as data files (003_4dcc2fceebc6e4af.txt)."""

from pathlib import Path

import pytest

from table_controller.game.cards import parse_cards
from table_controller.game.paytables import (
    BadOddsError,
    Bonus,
    JokerBonusLine,
    MissingPayLineError,
    PayLine,
    PayTable,
    PayTableError,
    PayTableFileError,
    UnknownPayLineError,
    WrongBonusError,
    big_hand_line,
    joker_bonus_line,
    joker_bonus_line_name,
    load_paytable,
    paytable_from_mapping,
    paytables_dir,
)

BIG_HAND_003 = {
    "seven-card-natural-straight-flush": 8888,
    "six-aces": 5888,
    "seven-card-straight-flush": 888,
    "five-aces": 500,
    "royal-flush": 150,
    "straight-flush": 60,
    "four-of-a-kind": 40,
    "full-house": 6,
    "flush": 4,
    "straight-or-worse": None,
}
JOKER_BONUS_003 = {
    "two-jokers-player": 15,
    "two-jokers-dealer": 10,
    "one-joker-player-and-dealer": 3,
    "one-joker-player": 1,
    "one-joker-dealer": None,
    "no-jokers": None,
}


def test_config_files_are_in_the_top_level_config_folder():
    assert paytables_dir() == Path(__file__).resolve().parents[2] / "config" / "paytables"
    assert (paytables_dir() / "big-hand-003.toml").is_file()
    assert (paytables_dir() / "joker-bonus-003.toml").is_file()


def test_default_big_hand_table_is_the_003_table():
    table = load_paytable(Bonus.BIG_HAND)
    assert table.bonus is Bonus.BIG_HAND
    assert table.odds() == BIG_HAND_003
    assert table.source == "003_4dcc2fceebc6e4af.txt"


def test_default_joker_bonus_table_is_the_003_table():
    table = load_paytable(Bonus.JOKER)
    assert table.bonus is Bonus.JOKER
    assert table.odds() == JOKER_BONUS_003


# --- Big Hand Bonus: every line, all seven cards count (003) ----------------------------


@pytest.mark.parametrize(
    ("cards", "line", "result_on_100"),
    [
        ("3h 4h 5h 6h 7h 8h 9h", "seven-card-natural-straight-flush", 888_800),
        ("As Ah Ad Ac JK JK 2c", "six-aces", 588_800),
        ("3h 4h 5h JK 7h 8h 9h", "seven-card-straight-flush", 88_800),
        ("As Ah Ad Ac JK 9d 2c", "five-aces", 50_000),
        ("As Ks Qs Js Ts 4d 2c", "royal-flush", 15_000),
        ("9s 8s 7s 6s 5s Kd 2c", "straight-flush", 6_000),
        ("9s 9h 9d 9c Kd 5h 2c", "four-of-a-kind", 4_000),
        ("9s 9h 9d Kc Kd 5h 2c", "full-house", 600),
        ("As 9s 7s 5s 3s Kd 2c", "flush", 400),
        ("9s 8h 7d 6c 5s Kd 2c", "straight-or-worse", -100),  # a straight loses
        ("Ks Qh 9d 7c 5s 3d 2c", "straight-or-worse", -100),
    ],
)
def test_every_big_hand_line_pays_its_003_odds(cards, line, result_on_100):
    paid = big_hand_line(load_paytable(Bonus.BIG_HAND), parse_cards(cards))
    assert paid.name == line
    assert paid.settle(100) == result_on_100


def test_big_hand_uses_the_seven_cards_not_a_setting():
    # 003: "They do not have to set their HIGH hand a certain way to qualify".
    # Four nines with two of them in front still count.
    paid = big_hand_line(load_paytable(Bonus.BIG_HAND), parse_cards("Kd 5h 2c 9s 9h 9d 9c"))
    assert (paid.name, paid.odds) == ("four-of-a-kind", 40)


# --- Joker Bonus: every line, where the two jokers are (003) ----------------------------


@pytest.mark.parametrize(
    ("player", "dealer", "line", "result_on_500"),
    [
        ("JK JK As 9d 7c 4h 2s", "Kh Kd 9s 7d 5h 3d 2c", "two-jokers-player", 7_500),
        ("Ah Ad 9c 8c 7h 4d 2h", "JK JK Ks 9h 5c 3c 2d", "two-jokers-dealer", 5_000),
        ("JK As 9d 7c 4h 3s 2s", "JK Kh 9s 7d 5h 3d 2c", "one-joker-player-and-dealer", 1_500),
        ("JK As 9d 7c 4h 3s 2s", "Kh Kd 9s 7d 5h 3d 2c", "one-joker-player", 500),
        ("As 9d 7c 4h 3s 2s Ts", "JK Kh 9s 7d 5h 3d 2c", "one-joker-dealer", -500),
        ("As 9d 7c 4h 3s 2s Ts", "Kh Kd 9s 7d 5h 3d 2c", "no-jokers", -500),
    ],
)
def test_every_joker_bonus_line_pays_its_003_odds(player, dealer, line, result_on_500):
    paid = joker_bonus_line(load_paytable(Bonus.JOKER), parse_cards(player), parse_cards(dealer))
    assert paid.name == line
    assert paid.settle(500) == result_on_500


@pytest.mark.parametrize(("player", "dealer"), [(2, 1), (1, 2), (3, 0), (-1, 0)])
def test_more_jokers_than_the_deck_holds_is_an_error(player, dealer):
    with pytest.raises(PayTableError, match="holds two"):
        joker_bonus_line_name(player, dealer)


def test_joker_lines_cover_every_placement_of_two_jokers():
    names = {joker_bonus_line_name(p, d) for p in range(3) for d in range(3) if p + d <= 2}
    assert names == set(JokerBonusLine)


# --- files the casino can change, checked ---------------------------------------------


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "table.toml"
    path.write_text(text, encoding="utf-8")
    return path


JOKER_TOML = """
bonus = "joker-bonus"
source = "casino memo 12"
[odds]
two-jokers-player = 20
two-jokers-dealer = 10
one-joker-player-and-dealer = 3
one-joker-player = 1
one-joker-dealer = "loss"
no-jokers = "loss"
"""


def test_a_changed_table_is_read_from_an_explicit_path(tmp_path):
    table = load_paytable(Bonus.JOKER, _write(tmp_path, JOKER_TOML))
    assert table.line("two-jokers-player").odds == 20
    assert table.source == "casino memo 12"
    paid = joker_bonus_line(table, parse_cards("JK JK As 9d 7c 4h 2s"), parse_cards("Kh Kd 9s 7d 5h 3d 2c"))
    assert paid.settle(100) == 2_000


@pytest.mark.parametrize(
    ("old", "new", "error", "message"),
    [
        ("two-jokers-player = 20", "three-jokers = 20", UnknownPayLineError, "no line 'three-jokers'"),
        ('no-jokers = "loss"', "", MissingPayLineError, "no-jokers"),
        ("one-joker-player = 1", "one-joker-player = -1", BadOddsError, "got -1"),
        ("one-joker-player = 1", "one-joker-player = 0", BadOddsError, "got 0"),
        ("one-joker-player = 1", "one-joker-player = 1.5", BadOddsError, "got 1.5"),
        ("one-joker-player = 1", "one-joker-player = true", BadOddsError, "got True"),
        ("one-joker-player = 1", 'one-joker-player = "Loss"', BadOddsError, "'Loss'"),
        ('bonus = "joker-bonus"', 'bonus = "big-hand"', WrongBonusError, "expected 'joker-bonus'"),
        ('source = "casino memo 12"', 'house = "x"', PayTableFileError, "unknown key"),
        ("[odds]", "[payouts]", PayTableFileError, "unknown key"),
        ("two-jokers-player = 20", "two-jokers-player = ", PayTableFileError, "not valid TOML"),
    ],
)
def test_bad_files_are_refused_with_a_typed_error(tmp_path, old, new, error, message):
    assert old in JOKER_TOML
    with pytest.raises(error, match=message):
        load_paytable(Bonus.JOKER, _write(tmp_path, JOKER_TOML.replace(old, new)))


def test_missing_file_is_a_file_error(tmp_path):
    with pytest.raises(PayTableFileError, match="cannot read"):
        load_paytable(Bonus.BIG_HAND, tmp_path / "absent.toml")


def test_the_big_hand_file_cannot_be_read_as_the_joker_bonus():
    with pytest.raises(WrongBonusError):
        load_paytable(Bonus.JOKER, paytables_dir() / "big-hand-003.toml")


def test_a_table_built_in_code_is_checked_too():
    lines = tuple(PayLine(name, odds) for name, odds in JOKER_BONUS_003.items())
    assert PayTable(Bonus.JOKER, lines).odds() == JOKER_BONUS_003
    with pytest.raises(UnknownPayLineError, match="more than once"):
        PayTable(Bonus.JOKER, (*lines, PayLine("no-jokers", None)))
    with pytest.raises(MissingPayLineError):
        PayTable(Bonus.JOKER, lines[:-1])
    with pytest.raises(UnknownPayLineError):
        PayTable(Bonus.BIG_HAND, lines)
    with pytest.raises(WrongBonusError):
        PayTable("joker", lines)  # type: ignore[arg-type]


def test_mapping_without_odds_is_refused():
    with pytest.raises(PayTableFileError, match=r"\[odds\]"):
        paytable_from_mapping({"bonus": "big-hand"}, Bonus.BIG_HAND)


def test_a_table_of_one_bonus_is_not_used_for_the_other():
    with pytest.raises(WrongBonusError):
        big_hand_line(load_paytable(Bonus.JOKER), parse_cards("3h 4h 5h 6h 7h 8h 9h"))
    with pytest.raises(WrongBonusError):
        joker_bonus_line(load_paytable(Bonus.BIG_HAND), parse_cards("JK"), parse_cards("JK"))


def test_unknown_line_lookup_is_an_error():
    with pytest.raises(UnknownPayLineError):
        load_paytable(Bonus.BIG_HAND).line("pair")


def test_a_bonus_wager_must_be_positive_cents():
    with pytest.raises(ValueError):
        PayLine("flush", 4).settle(0)
