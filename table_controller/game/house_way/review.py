"""A house way in plain words, for game-protection staff: the review sheet.

Every section, combination and row of a way file in table order, each row's conditions in
words (the entries' own ``words()``, registry.py), its split as the table writes it, what
the engine puts in front, and its rule id. The sheets are committed under
``docs/house-ways/<name>.md``; a test regenerates them and compares.

    python -m table_controller.game.house_way.review              # every way, written
    python -m table_controller.game.house_way.review strong-004   # one way
    python -m table_controller.game.house_way.review --stdout house-way-002
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from .engine import Condition, HouseWay, Rule
from .loader import available_house_ways, load_house_way

SHEETS_DIRECTORY = Path(__file__).resolve().parents[3] / "docs" / "house-ways"


def _conditions(condition: Condition) -> str:
    words = condition.words()
    if not words:
        return "always"
    return "; and ".join(words)


def _action(way: HouseWay, rule: Rule) -> str:
    target = rule.action.follows
    if target is not None:
        combination = way.combinations[target]
        section = next(s for s in way.sections if s.id == combination.section)
        title = f"{section.words}: {combination.words}" if combination.words else section.words
        return f'follow the rows of "{title}" (`{target}`), with their own conditions only'
    entry = rule.action.entry
    return entry.words() if entry is not None else rule.action.name


def _cell(text: str) -> str:
    return text.strip() or "(none)"


def _row(way: HouseWay, number: int, rule: Rule) -> list[str]:
    lines = [
        f"{number}. **{_cell(rule.more_hand_details) if rule.more_hand_details else '(no more details)'}** "
        f"— `{rule.id}`",
        f"   - when: {_conditions(rule.condition)}",
        f"   - split, as the table writes it: {rule.split}",
        f"   - in words: {_action(way, rule)}",
    ]
    if not rule.reachable:
        lines.append(f"   - **never applies**: {rule.reason}")
    if rule.added_by:
        lines.append(f"   - not a row of the source table: added by {rule.added_by}")
    return lines


def render(way: HouseWay) -> str:
    """The review sheet of a way, as Markdown (module docstring)."""
    order = {section.id: number for number, section in enumerate(way.sections, start=1)}
    by_id = {section.id: section for section in way.sections}
    table_order = list(dict.fromkeys(rule.section for rule in way.rules))
    lines = [
        f"# Review sheet: {way.name}",
        "",
        f"{way.title}. Source: {way.source}.",
        "",
        f"Generated from `config/house_ways/{way.name}.toml` by "
        f"`python -m table_controller.game.house_way.review {way.name}`; do not edit by hand "
        "(a test regenerates it and compares). How to read it: docs/house-way.md.",
        "",
        "How a hand is set: the first section (in the order tried) whose condition holds is the",
        "hand's section; its rows are read top to bottom and the first row whose conditions hold",
        "(the combination's and its own) sets the hand, unless every choice it leaves fouls: then",
        "the next row is tried (docs/house-way.md, Readings G1, G3, G4). Where a row leaves the",
        "exact cards open, the strongest high hand, then low hand, then the Joker behind (G5).",
        "",
        "Sections are tried in this order: "
        + ", ".join(
            f"{number}. {section.words} (`{section.id}`)" for number, section in enumerate(way.sections, 1)
        )
        + ".",
        "",
    ]
    for section_id in table_order:
        section = by_id[section_id]
        lines += [f"## {section.words} (`{section.id}`, tried {order[section.id]})", ""]
        lines += [f"The section applies when: {_conditions(section.condition)}.", ""]
        if section.run != "straight":
            lines += ['Here "the straight" is the straight flush\'s run.', ""]
        rules = [rule for rule in way.rules if rule.section == section_id]
        number = 0
        for combination_id in dict.fromkeys(rule.combination for rule in rules):
            combination = way.combinations[combination_id]
            title = combination.words or "(no combination of its own)"
            lines += [f"### {title} (`{combination.id}`)", ""]
            lines += [f"Its rows apply when: {_conditions(combination.condition)}.", ""]
            for rule in rules:
                if rule.combination == combination_id:
                    number += 1
                    lines += _row(way, number, rule)
            lines.append("")
    if way.last_resort is not None:
        rule = way.last_resort
        lines += [
            f"## Last resort (`{rule.id}`)",
            "",
            "Not a row of the table: used only when no row of the hand's section gives a legal setting.",
            "",
            f"- when: {rule.more_hand_details}",
            f"- split: {rule.split}",
            f"- in words: {_action(way, rule)}",
            f"- why: {rule.reason}",
            "",
        ]
    return "\n".join(lines).rstrip("\n") + "\n"


def sheet_path(name: str, directory: Path = SHEETS_DIRECTORY) -> Path:
    return directory / f"{name}.md"


def write(name: str, directory: Path = SHEETS_DIRECTORY) -> Path:
    """Write the review sheet of the shipped way ``name``."""
    directory.mkdir(parents=True, exist_ok=True)
    path = sheet_path(name, directory)
    path.write_text(render(load_house_way(name)), encoding="utf-8")
    return path


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="way names (default: every shipped way)")
    parser.add_argument("--stdout", action="store_true", help="print instead of writing docs/house-ways/")
    args = parser.parse_args(argv)
    for name in args.names or available_house_ways():
        if args.stdout:
            sys.stdout.write(render(load_house_way(name)))
        else:
            print(write(name))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
