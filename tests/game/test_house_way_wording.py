"""A house-way row shown without empty cells (game/house_way/wording.py); the recorded words of
the row are unchanged (engine.Rule.words: what a round's record keeps)."""

import pytest

from table_controller.game.house_way.loader import load_house_way
from table_controller.game.house_way.wording import rule_wording


@pytest.mark.parametrize(
    ("recorded", "shown"),
    [
        (
            "Pairs | One pair |  | Always play pair in five card side, with next two strongest cards up",
            "Pairs | One pair | Always play pair in five card side, with next two strongest cards up",
        ),
        (
            "Royal Flush |  | 5-card Royal Flush | The two cards will be the two non-flush",
            "Royal Flush | 5-card Royal Flush | The two cards will be the two non-flush",
        ),
        (  # a cell repeating the one before it is said once
            "Pai Gow hand (high cards) | Pai Gow hand (high cards) |  | Highest card in five card hand",
            "Pai Gow hand (high cards) | Highest card in five card hand",
        ),
        (  # a bare | inside a cell is not a separator
            "High Card | No pair | 1st highest [Joker|A]; 2nd highest [K|Q] | The two cards will be",
            "High Card | No pair | 1st highest [Joker|A]; 2nd highest [K|Q] | The two cards will be",
        ),
        ("Straights | Otherwise |  | ", "Straights | Otherwise"),
        ("", ""),
    ],
)
def test_empty_cells_disappear_from_the_wording(recorded: str, shown: str) -> None:
    assert rule_wording(recorded) == shown


@pytest.mark.parametrize("way", ["house-way-002", "strong-004"])
def test_no_row_of_a_shipped_way_is_shown_with_an_empty_cell(way: str) -> None:
    rules = list(load_house_way(way).rules)
    assert any(" |  | " in rule.words for rule in rules)  # the recorded rows do have empty cells
    for rule in rules:
        shown = rule_wording(rule.words)
        assert " |  |" not in shown and not shown.endswith(" |") and not shown.startswith("|")
        assert shown.split(" | ")[-1] == rule.split.strip()  # the split is always said, last
