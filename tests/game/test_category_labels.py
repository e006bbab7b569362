"""A hand category's label, the word the record, the API and the pages use, has one definition:
``LabelledCategory.label`` in game/evaluator.py (docs/design.md, "Naming")."""

from __future__ import annotations

from pathlib import Path

import pytest

from table_controller.api.routers.rounds import HighCategoryFilter, LowCategoryFilter, SevenCardCategoryFilter
from table_controller.game.evaluator import HighCategory, LowCategory, SevenCardCategory

PACKAGE = Path(__file__).resolve().parents[2] / "table_controller"


def test_a_label_is_the_name_in_lowercase_words_joined_by_a_hyphen():
    assert HighCategory.THREE_OF_A_KIND.label == "three-of-a-kind"
    assert LowCategory.HIGH_CARD.label == "high-card"
    assert SevenCardCategory.SEVEN_CARD_NATURAL_STRAIGHT_FLUSH.label == "seven-card-natural-straight-flush"


@pytest.mark.parametrize("category", [HighCategory, LowCategory, SevenCardCategory])
def test_by_label_finds_every_member_in_the_categorys_order(category):
    found = category.by_label()
    assert list(found.values()) == list(category)
    assert all(found[member.label] is member for member in category)


@pytest.mark.parametrize(
    ("choices", "category"),
    [
        (HighCategoryFilter, HighCategory),
        (LowCategoryFilter, LowCategory),
        (SevenCardCategoryFilter, SevenCardCategory),
    ],
)
def test_the_historys_filters_offer_exactly_the_labels(choices, category):
    assert [choice.value for choice in choices] == list(category.by_label())


def test_no_module_derives_a_label_of_its_own():
    written = [
        str(path.relative_to(PACKAGE))
        for path in sorted(PACKAGE.rglob("*.py"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if '.lower().replace("_", "-")' in line
    ]
    assert written == ["game/evaluator.py"]
