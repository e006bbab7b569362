"""A house-way row's words as people read them: no empty fields.

A row is recorded as the table writes it, ``Hand Ranks | Hand Combinations | More Hand Details |
Split`` (engine.Rule.words), empty cells included: those words are what a round's record keeps
and what ``audit verify`` re-derives, so they stay as they are. Shown to people, an empty cell
is noise (``Pairs | One pair |  | Always play pair ...``), and so is a cell that repeats the one
before it (``Pai Gow hand (high cards) | Pai Gow hand (high cards) | ...``, strong-004): both
are left out here. The separator is `` | `` with its spaces, because a cell may itself hold a bare
``|`` (house-way-002's ``[Joker|A]``).
"""

from __future__ import annotations

from typing import Final

FIELD_SEPARATOR: Final = " | "


def rule_wording(words: str) -> str:
    """``words`` (a row as recorded) without its empty cells and without a cell that repeats the
    one before it."""
    kept: list[str] = []
    for cell in words.split(FIELD_SEPARATOR):
        cell = cell.strip()
        if cell and (not kept or cell != kept[-1]):
            kept.append(cell)
    return FIELD_SEPARATOR.join(kept)


__all__ = ["FIELD_SEPARATOR", "rule_wording"]
