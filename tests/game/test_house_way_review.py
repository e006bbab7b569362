"""The review sheets (docs/house-ways/<name>.md) are the way files in words, and current.

Regenerate after changing a way file or an entry's words:
``python -m table_controller.game.house_way.review``.
"""

from __future__ import annotations

import pytest

from table_controller.game.house_way import available_house_ways, load_house_way
from table_controller.game.house_way.registry import ACTIONS, PREDICATES, SELECTORS
from table_controller.game.house_way.review import SHEETS_DIRECTORY, render, sheet_path


@pytest.mark.parametrize("name", available_house_ways())
def test_the_committed_review_sheet_is_current(name):
    path = sheet_path(name)
    assert path.is_file(), (
        f"no review sheet {path}: run python -m table_controller.game.house_way.review {name}"
    )
    assert path.read_text(encoding="utf-8") == render(load_house_way(name)), (
        f"{path} is stale: run python -m table_controller.game.house_way.review {name}"
    )


def test_every_committed_review_sheet_is_of_a_way_that_exists():
    """A sheet left behind by a way file deleted or renamed would tell a reviewer of a way the
    table can no longer deal by."""
    sheets = sorted(SHEETS_DIRECTORY.glob("*.md"))
    assert [path.stem for path in sheets] == sorted(available_house_ways())


@pytest.mark.parametrize("name", available_house_ways())
def test_the_sheet_holds_every_row_in_table_order_with_its_split(name):
    way = load_house_way(name)
    sheet = render(way)
    places = [sheet.index(f"— `{rule.id}`") for rule in way.rules]
    assert places == sorted(places)
    for rule in way.rules:
        assert rule.split in sheet
    for combination in way.combinations.values():
        assert f"(`{combination.id}`)" in sheet


def test_the_sheet_reads_a_row_in_words():
    sheet = render(load_house_way("house-way-002"))
    assert (
        "**3 Tens or better in the Full House** — `flush.full-house.three-tens-or-better`\n"
        "   - when: the 3-of-a-kind is of Kings, Queens, Jacks or Tens\n"
    ) in sheet
    assert "Its rows apply when: the hand holds exactly two pairs." in sheet


def test_every_entry_of_the_vocabulary_describes_itself():
    for registry in (PREDICATES, SELECTORS, ACTIONS):
        for name, entry in registry.items():
            assert entry.model_fields["name"].annotation.__args__ == (name,)
            assert "words" in vars(entry) or "holds_words" in vars(entry), name  # each has its own words
    two_pairs = PREDICATES["groups"].model_validate({"name": "groups", "size": 2, "count": 2})
    assert two_pairs.words() == "the hand holds exactly two pairs"
    jacks_up = PREDICATES["group_rank"].model_validate(
        {"name": "group_rank", "size": 2, "which": "highest", "ranks": ["A", "K", "Q", "J"]}
    )
    assert jacks_up.words() == "the highest pair is of Aces, Kings, Queens or Jacks"
