"""A progressive wager's pay table as data: which Fortune line pays what, from which meter
(progressive-research.md §1.6-§1.8; docs/progressive.md).

A file (``config/progressive/*.toml``) names the fixed ``wager`` (cents, $1 by default,
§1.6), the pool's ``[[levels]]`` (``progressive.LevelParams``: base, reset, rates, limit,
overflow, the unreasonable-contribution threshold), the answers to §1.8's questions 4 and 5
(``simultaneous``, ``percent_base``), whether dealer toke wagers are taken (PRG-21, off), the
amount from which a meter hit is held for pit verification (``hold_from``, PRG-28), and per
Fortune line one award:

- ``{ meter = "jackpot", share_bp = 10_000 }``: a share of a level's meter (10_000 basis
  points: the whole meter, which then reseeds; 1_000: 10% of it);
- ``{ amount = 50_000 }``: a fixed amount in cents, the wager kept ("for 1", §1.8 question 6);
- ``{ odds = 20 }``: "N to 1", the wager returned.

A line left out loses. Unknown keys, lines or levels, and amounts that are not whole cents
are refused with a ProgressivePayTableError.
"""

from __future__ import annotations

import enum
import tomllib
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from ..shipped import CONFIG_DIR
from .fortune import FortuneHand
from .money import BASIS_POINTS, Cents, format_cents
from .progressive import (
    WHOLE_METER,
    HitClaim,
    LevelParams,
    OverflowPolicy,
    PercentBase,
    ProgressiveError,
    SimultaneousRule,
)

DEFAULT_PROGRESSIVE_WAGER: Final[Cents] = 100  # §1.6: "exactly $1" at most card rooms
DEFAULT_PROGRESSIVE_FILE: Final = "fortune-progressive.toml"


class ProgressivePayTableError(ProgressiveError):
    """A progressive pay table or file that cannot be used."""


class AwardKind(enum.StrEnum):
    METER = "meter"  # a share of a level's meter
    FIXED = "fixed"  # a fixed amount, the wager kept ("for 1")
    ODDS = "odds"  # N to 1, the wager returned


@dataclass(frozen=True, slots=True)
class Award:
    kind: AwardKind
    level: str = ""
    share_bp: int = 0
    amount: Cents = 0
    odds: int = 0

    def gross(self, wager: Cents, meter: Cents) -> Cents:
        """What the player is handed for a hit at ``meter``, the cents rounded down."""
        if self.kind is AwardKind.METER:
            return meter * self.share_bp // BASIS_POINTS
        if self.kind is AwardKind.FIXED:
            return self.amount
        return (self.odds + 1) * wager

    def describe(self) -> str:
        if self.kind is AwardKind.METER:
            share = (
                "the whole meter"
                if self.share_bp == WHOLE_METER
                else f"{self.share_bp / 100:g}% of the meter"
            )
            return f"{share} of {self.level}"
        if self.kind is AwardKind.FIXED:
            return f"{format_cents(self.amount)} for 1"
        return f"{self.odds} to 1"


@dataclass(frozen=True, slots=True)
class ProgressivePayTable:
    name: str
    wager: Cents
    levels: tuple[LevelParams, ...]
    awards: Mapping[FortuneHand, Award]
    simultaneous: SimultaneousRule = SimultaneousRule.IN_ORDER
    percent_base: PercentBase = PercentBase.AT_PAYMENT
    toke_wagers: bool = False
    hold_from: Cents | None = None  # a meter hit of this many cents or more is held (PRG-28)
    source: str = ""

    def __post_init__(self) -> None:
        if isinstance(self.wager, bool) or not isinstance(self.wager, int) or self.wager <= 0:
            raise ProgressivePayTableError(
                f"the progressive wager must be whole cents > 0, got {self.wager!r}"
            )
        if self.hold_from is not None and (
            isinstance(self.hold_from, bool) or not isinstance(self.hold_from, int) or self.hold_from <= 0
        ):
            raise ProgressivePayTableError(f"hold_from must be whole cents > 0, got {self.hold_from!r}")
        names = [level.name for level in self.levels]
        if not names or len(set(names)) != len(names):
            raise ProgressivePayTableError(f"a progressive needs levels with distinct names, got {names}")
        used = {award.level for award in self.awards.values() if award.kind is AwardKind.METER}
        for hand, award in self.awards.items():
            if award.kind is AwardKind.METER:
                if award.level not in names:
                    raise ProgressivePayTableError(
                        f"line {hand.label!r} pays from an unknown level {award.level!r}"
                    )
                if not 0 < award.share_bp <= WHOLE_METER:
                    raise ProgressivePayTableError(
                        f"line {hand.label!r}: share_bp must be 1..{WHOLE_METER}, got {award.share_bp}"
                    )
            elif award.kind is AwardKind.FIXED and award.amount <= 0:
                raise ProgressivePayTableError(f"line {hand.label!r}: a fixed amount must be > 0 cents")
            elif award.kind is AwardKind.ODDS and award.odds < 1:
                raise ProgressivePayTableError(f"line {hand.label!r}: odds must be N >= 1")
        unused = [name for name in names if name not in used]
        if unused:
            raise ProgressivePayTableError(f"level(s) {unused} are paid by no line: they would never be won")

    def award(self, hand: FortuneHand) -> Award | None:
        """The award of ``hand``, or None when it loses."""
        return self.awards.get(hand)


class WagerRefusedError(ProgressivePayTableError):
    """A progressive wager the table does not take: not the fixed amount, or a dealer toke."""


def check_progressive_wager(table: ProgressivePayTable, amount: Cents, *, toke: bool = False) -> Cents:
    """A progressive wager is the table's fixed amount (§1.6: "$1 fixed"); a toke wager for
    the dealer is refused unless the table takes them (Seatac's house rule, PRG-21)."""
    if toke and not table.toke_wagers:
        raise WagerRefusedError("toke wagers are not taken on the progressive (PRG-21)")
    if isinstance(amount, bool) or amount != table.wager:
        raise WagerRefusedError(f"the progressive wager is {table.wager} cents, got {amount!r}")
    return amount


def progressive_hits(
    table: ProgressivePayTable,
    hands: Mapping[int, FortuneHand],
    wagers: Collection[int],
    *,
    table_id: str,
    first_sequence: int,
) -> tuple[list[HitClaim], dict[int, Award]]:
    """The round's progressive results from the card read: a HitClaim per meter award, in
    position order from ``first_sequence``, and the fixed or odds awards per position. Only
    positions with an accepted progressive wager (``wagers``) can win (PRG-20)."""
    claims: list[HitClaim] = []
    fixed: dict[int, Award] = {}
    sequence = first_sequence
    for position in sorted(wagers):
        if position not in hands:
            raise ProgressivePayTableError(f"position {position} has a progressive wager but no hand")
        award = table.award(hands[position])
        if award is None:
            continue
        if award.kind is AwardKind.METER:
            claims.append(
                HitClaim(sequence, table_id, position, award.level, award.share_bp, hands[position].label)
            )
            sequence += 1
        else:
            fixed[position] = award
    return claims, fixed


def _int(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ProgressivePayTableError(f"{what} must be a whole number, got {value!r}")
    return value


def _award(label: str, data: object) -> Award:
    if not isinstance(data, Mapping):
        raise ProgressivePayTableError(f"line {label!r}: an award is a table, e.g. {{ amount = 50_000 }}")
    keys = set(data)
    if keys == {"meter", "share_bp"}:
        return Award(
            AwardKind.METER, level=str(data["meter"]), share_bp=_int(data["share_bp"], f"{label} share_bp")
        )
    if keys == {"amount"}:
        return Award(AwardKind.FIXED, amount=_int(data["amount"], f"{label} amount"))
    if keys == {"odds"}:
        return Award(AwardKind.ODDS, odds=_int(data["odds"], f"{label} odds"))
    raise ProgressivePayTableError(
        f"line {label!r}: give {{ meter, share_bp }}, {{ amount }} or {{ odds }}, got {sorted(keys)}"
    )


def _level(data: object) -> LevelParams:
    if not isinstance(data, Mapping):
        raise ProgressivePayTableError("each [[levels]] entry is a table")
    known = {
        "name",
        "base",
        "reset",
        "increment_bp",
        "reserve_bp",
        "limit",
        "overflow",
        "unreasonable_contribution",
    }
    unknown = sorted(set(data) - known)
    if unknown:
        raise ProgressivePayTableError(f"level {data.get('name')!r}: unknown key(s) {unknown}")
    values: dict[str, Any] = dict(data)
    try:
        if "overflow" in values:
            values["overflow"] = OverflowPolicy(values["overflow"])
        return LevelParams(**values)
    except (TypeError, ValueError) as error:
        raise ProgressivePayTableError(f"level {data.get('name')!r}: {error}") from error


def progressive_paytable_from_mapping(data: Mapping[str, object], source: str = "") -> ProgressivePayTable:
    """A ProgressivePayTable from parsed TOML (module docstring)."""
    known = {
        "name",
        "source",
        "wager",
        "simultaneous",
        "percent_base",
        "toke_wagers",
        "hold_from",
        "levels",
        "awards",
    }
    unknown = sorted(set(data) - known)
    if unknown:
        raise ProgressivePayTableError(f"{source or 'progressive pay table'}: unknown key(s) {unknown}")
    levels = data.get("levels")
    awards = data.get("awards")
    if not isinstance(levels, list) or not isinstance(awards, Mapping):
        raise ProgressivePayTableError(f"{source or 'progressive pay table'}: needs [[levels]] and [awards]")
    labels = FortuneHand.by_label()
    parsed: dict[FortuneHand, Award] = {}
    for label, award in awards.items():
        if label not in labels:
            raise ProgressivePayTableError(f"no Fortune line {label!r}; the lines are {list(labels)}")
        parsed[FortuneHand(labels[label])] = _award(label, award)
    try:
        simultaneous = SimultaneousRule(str(data.get("simultaneous", SimultaneousRule.IN_ORDER)))
        percent_base = PercentBase(str(data.get("percent_base", PercentBase.AT_PAYMENT)))
    except ValueError as error:
        raise ProgressivePayTableError(str(error)) from error
    toke = data.get("toke_wagers", False)
    if not isinstance(toke, bool):
        raise ProgressivePayTableError(f"toke_wagers must be true or false, got {toke!r}")
    return ProgressivePayTable(
        name=str(data.get("name", Path(source).stem if source else "progressive")),
        wager=_int(data.get("wager", DEFAULT_PROGRESSIVE_WAGER), "wager"),
        levels=tuple(_level(level) for level in levels),
        awards=parsed,
        simultaneous=simultaneous,
        percent_base=percent_base,
        toke_wagers=toke,
        hold_from=_int(data["hold_from"], "hold_from") if "hold_from" in data else None,
        source=str(data.get("source", source)),
    )


def progressive_dir() -> Path:
    """The progressive pay tables shipped with the controller (``config/progressive``)."""
    return CONFIG_DIR / "progressive"


def load_progressive_paytable(path: Path | str | None = None) -> ProgressivePayTable:
    """Read and check a progressive pay table file (default: the shipped example)."""
    file = Path(path) if path is not None else progressive_dir() / DEFAULT_PROGRESSIVE_FILE
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except OSError as error:
        raise ProgressivePayTableError(f"cannot read progressive pay table {file}: {error}") from error
    except tomllib.TOMLDecodeError as error:
        raise ProgressivePayTableError(f"progressive pay table {file} is not valid TOML: {error}") from error
    return progressive_paytable_from_mapping(data, source=str(file))


__all__ = [
    "DEFAULT_PROGRESSIVE_FILE",
    "DEFAULT_PROGRESSIVE_WAGER",
    "Award",
    "AwardKind",
    "ProgressivePayTable",
    "ProgressivePayTableError",
    "WagerRefusedError",
    "check_progressive_wager",
    "load_progressive_paytable",
    "progressive_dir",
    "progressive_hits",
    "progressive_paytable_from_mapping",
]
