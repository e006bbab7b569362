"""The house way engine gives exactly the results frozen in the golden files.

The golden files (``golden/house_way_002.jsonl.gz``, ``golden/strong_004.jsonl.gz``) were
written by the engine as it stood before it was reworked for speed (docs/house-way.md,
"Speed"), whose results every example of house-way-readings.md checks. They hold seeded
random hands from the 53-card (001_c9adb19db438d99f.txt) and 54-card
(003_4dcc2fceebc6e4af.txt) decks, "rich" hands drawn from a few ranks and suits (so the
rare sections -- straights, flushes, straight flushes, quads, five Aces -- are well
covered), every example hand of the house way tests (house-way-readings.md, the rule cases,
the Double Joker and strong-004 examples) as written and shuffled, under each table ranking
rule (wheel, joker wild in the low hand). For each hand the file holds the low hand and the
high hand (cards in order), the rule id, the section, ``via`` and ``skipped``; the test
asks the engine again and compares all of them exactly.

A golden file is written only on purpose (a change of the house way's *results*, reviewed):
``python -m tests.game.test_house_way_equivalence --write`` regenerates both from the
engine in the tree. Each line is a JSON array:
``[hand, ranking, low, high, rule_id, section, via, skipped]``; the first line is a header.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
from pathlib import Path

import pytest

from table_controller.game.cards import (
    JOKER,
    NATURAL_CARDS,
    DuplicateCardError,
    Game,
    HandSizeError,
    TooManyJokersError,
    UnknownCardError,
    parse_cards,
)
from table_controller.game.evaluator import RankingRules, Wheel
from table_controller.game.house_way import load_house_way

GOLDEN = Path(__file__).resolve().parent / "golden"
FORMAT = "house-way-golden/1"

# Ranking rules by a short code (golden files name them so).
RANKINGS = {
    "nevada": RankingRules(),
    "california": RankingRules(wheel=Wheel.CALIFORNIA),
    "nevada-wild": RankingRules(joker_wild_in_low=True),
    "california-wild": RankingRules(wheel=Wheel.CALIFORNIA, joker_wild_in_low=True),
}

# way -> (file, [(sampler, deck, ranking, count)]): what the golden file holds, by seed.
PLANS = {
    "house-way-002": (
        "house_way_002.jsonl.gz",
        [
            ("random", Game.STANDARD, "nevada", 12_000),
            ("random", Game.DOUBLE_JOKER, "nevada", 6_000),
            ("rich", Game.STANDARD, "nevada", 3_000),
            ("rich", Game.DOUBLE_JOKER, "nevada", 3_000),
            *[
                (sampler, game, ranking, 500)
                for ranking in ("california", "nevada-wild", "california-wild")
                for sampler in ("random", "rich")
                for game in Game
            ],
        ],
    ),
    "strong-004": (
        "strong_004.jsonl.gz",
        [
            ("random", Game.STANDARD, "nevada", 4_000),
            ("random", Game.DOUBLE_JOKER, "nevada", 2_000),
            ("rich", Game.STANDARD, "nevada", 1_000),
            ("rich", Game.DOUBLE_JOKER, "nevada", 1_000),
            *[
                (sampler, game, ranking, 250)
                for ranking in ("california", "nevada-wild", "california-wild")
                for sampler in ("random", "rich")
                for game in Game
            ],
        ],
    ),
}
SEED = 20_240_601
EXAMPLE_SHUFFLES = 3

_CARD = {card.code: card for card in (*NATURAL_CARDS, JOKER)}


def _rich_hand(rng: random.Random, game: Game) -> tuple:
    """Seven cards from a few neighbouring ranks in a few suits, plus the deck's jokers."""
    while True:
        width = rng.randint(5, 9)
        low = rng.randint(1, 15 - width)  # 1: the window starts with an Ace played low
        ranks = {14 if rank == 1 else rank for rank in range(low, low + width)}
        suits = rng.sample("shdc", rng.randint(1, 4))
        deck = [card for card in NATURAL_CARDS if card.rank in ranks and card.suit in suits]
        deck += [JOKER] * game.jokers
        if len(deck) >= 9:
            return tuple(rng.sample(deck, 7))


def _example_hands() -> list[str]:
    """Every example hand of the house way tests, as written (codes joined by spaces)."""
    from tests.game import (
        test_house_way_double_joker,
        test_house_way_readings,
        test_house_way_rules,
        test_house_way_strong,
    )

    found = [case[1] for case in test_house_way_readings.EXAMPLES]
    found += [case[1] for case in test_house_way_rules.CASES]
    found += [case[1] for case in test_house_way_strong.CASES + test_house_way_strong.DOUBLE_JOKER_CASES]
    found += [case[0] for case in test_house_way_double_joker.EXAMPLES]
    return list(dict.fromkeys(" ".join(card.code for card in parse_cards(hand)) for hand in found))


def _hands(plan) -> list[tuple[str, str]]:
    """(hand codes, ranking code) for a golden file: the examples, then the seeded samples."""
    rng = random.Random(SEED)
    hands: list[tuple[str, str]] = []
    for hand in _example_hands():
        for ranking in RANKINGS:
            hands.append((hand, ranking))
        cards = hand.split()
        for _ in range(EXAMPLE_SHUFFLES):
            rng.shuffle(cards)
            hands.append((" ".join(cards), "nevada"))
    for sampler, game, ranking, count in plan:
        deck = game.deck()
        for _ in range(count):
            cards = rng.sample(deck, 7) if sampler == "random" else _rich_hand(rng, game)
            hands.append((" ".join(card.code for card in cards), ranking))
    return hands


def _record(way, hand: str, ranking: str) -> list:
    result = way.set(tuple(_CARD[code] for code in hand.split()), RANKINGS[ranking])
    return [
        hand,
        ranking,
        " ".join(card.code for card in result.setting.low),
        " ".join(card.code for card in result.setting.high),
        result.rule_id,
        result.section,
        list(result.via),
        list(result.skipped),
    ]


def write_golden(name: str) -> Path:
    """Write the golden file of a way from the engine in the tree (module docstring)."""
    file_name, plan = PLANS[name]
    way = load_house_way(name)
    GOLDEN.mkdir(exist_ok=True)
    path = GOLDEN / file_name
    with gzip.open(path, "wt", encoding="ascii", compresslevel=9) as stream:
        stream.write(json.dumps({"format": FORMAT, "way": name, "seed": SEED}) + "\n")
        for hand, ranking in _hands(plan):
            stream.write(json.dumps(_record(way, hand, ranking), separators=(",", ":")) + "\n")
    return path


def _read_golden(file_name: str) -> tuple[dict, list[list]]:
    with gzip.open(GOLDEN / file_name, "rt", encoding="ascii") as stream:
        header = json.loads(stream.readline())
        return header, [json.loads(line) for line in stream]


@pytest.mark.parametrize("name", sorted(PLANS))
def test_the_engine_gives_the_golden_results(name):
    file_name, plan = PLANS[name]
    header, records = _read_golden(file_name)
    assert header == {"format": FORMAT, "way": name, "seed": SEED}
    expected_count = len(_example_hands()) * (len(RANKINGS) + EXAMPLE_SHUFFLES) + sum(p[3] for p in plan)
    assert len(records) == expected_count
    way = load_house_way(name)
    differences = []
    for record in records:
        hand, ranking = record[0], record[1]
        got = _record(way, hand, ranking)
        if got != record:
            differences.append((record, got))
    assert not differences, f"{len(differences)} hands differ; first: {differences[:3]}"


@pytest.mark.parametrize("name", sorted(PLANS))
def test_the_golden_files_hold_the_seeded_hands_and_every_example(name):
    """The file is the hands it says it is (so a regenerated file cannot drift silently)."""
    file_name, plan = PLANS[name]
    _, records = _read_golden(file_name)
    assert [(record[0], record[1]) for record in records] == _hands(plan)


def test_the_golden_files_reach_every_section_of_the_default_way():
    _, records = _read_golden(PLANS["house-way-002"][0])
    sections = {record[5] for record in records}
    assert sections == {section.id for section in load_house_way("house-way-002").sections}


@pytest.mark.parametrize("name", sorted(PLANS))
@pytest.mark.parametrize(
    ("hand", "error"),
    [
        ("As Kd Qh Jc 9s 8d", HandSizeError),
        ("As Kd Qh Jc 9s 8d 7h 6c", HandSizeError),
        ("As Kd Qh Jc 9s 8d As", DuplicateCardError),
        ("JK Kd Qh Jc 9s JK JK", TooManyJokersError),
    ],
)
def test_bad_hands_still_raise_the_typed_errors(name, hand, error):
    with pytest.raises(error):
        load_house_way(name).set(parse_cards(hand))


@pytest.mark.parametrize("name", sorted(PLANS))
def test_a_second_joker_is_refused_where_the_table_allows_one(name):
    with pytest.raises(TooManyJokersError):
        load_house_way(name).set(parse_cards("JK JK Kd Qs 7c 3h 2d"), max_jokers=1)


@pytest.mark.parametrize("name", sorted(PLANS))
def test_a_card_that_is_not_a_card_is_refused(name):
    from table_controller.game.cards import Card

    with pytest.raises(UnknownCardError):
        load_house_way(name).set((Card(15, "s"), *parse_cards("Kd Qh Jc 9s 8d 7h")))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Write the house way golden files (module docstring).")
    parser.add_argument("--write", action="store_true", help="regenerate the golden files from the engine")
    args = parser.parse_args(argv)
    if not args.write:
        parser.error("nothing to do without --write")
    for name in sorted(PLANS):
        print(write_golden(name))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
