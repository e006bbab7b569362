"""The house way engine: an ordered list of rules, each a condition and a setting action.

How a hand is set (docs/house-way.md, Readings):

1. G1: the sections are tried in the way's order; the first whose condition holds is the
   hand's section.
2. G3: its rows are tried top to bottom; a row applies when its combination's condition and
   its own condition hold.
3. The row's action names the cards for the front: ``take`` (card selectors), ``follow``
   (the rows of another combination, read with their own conditions only: "Follow the steps
   described for ..."), or a search action.
4. G5: where the row leaves the exact cards open, the legal choice with the strongest high
   hand, then the strongest low hand, then the joker behind; still equal, the first in the
   hand's order (the choices then differ only in suits).
5. G4: a row whose every choice fouls is skipped, and the next row is tried.

The result names the row that set the cards (``rule_id``), the rows followed on the way
there (``via``) and the rows skipped as fouls (``skipped``): surveillance reads them.

Compiled at load for speed (docs/house-way.md, "Speed"): the rows left for each hand
*signature* (signature.py); reference.py is the same steps read plainly, and a property
test holds this engine to it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

from ..cards import Card, codes
from ..evaluator import DEFAULT_RULES, RankingRules, rank_low
from ..ranking_tables import MAX_JOKERS
from ..setting import Setting
from .actions import ActionEntry, Candidates, Follow
from .errors import NoLegalSettingError
from .facts import (
    FLUSH,
    KINDS,
    ROYAL_FLUSH,
    STRAIGHT,
    STRAIGHT_FLUSH,
    HandFacts,
    group_kinds,
    histogram,
    partitions,
    signature,
)
from .predicates import PredicateEntry
from .selectors import Alternatives
from .signature import Predicate, Signature, always_legal, static_value


@dataclass(frozen=True, slots=True)
class Condition:
    """Predicates that must all hold; ``specs`` keeps the way file's words for docs and audits."""

    specs: tuple[Any, ...]
    tests: tuple[Predicate, ...] = field(repr=False, compare=False)
    entries: tuple[PredicateEntry, ...] = field(default=(), repr=False, compare=False)  # typed, with words

    def words(self) -> list[str]:
        """Each predicate in words (review.py)."""
        return [entry.words() for entry in self.entries]


@dataclass(frozen=True, slots=True)
class Action:
    """A named setting action with its parameters (``take``, ``follow``, ...)."""

    name: str
    params: dict[str, Any] = field(hash=False)
    run: Candidates | Follow = field(repr=False, compare=False)
    entry: ActionEntry | None = field(default=None, repr=False, compare=False)  # typed, with words

    @property
    def follows(self) -> str | None:
        return self.run.combination if isinstance(self.run, Follow) else None


@dataclass(frozen=True, slots=True)
class Section:
    """A "Hand Ranks" block of the table (G1)."""

    id: str
    words: str
    condition: Condition
    run: str = "straight"  # which straight the rows speak of: "straight" or "straight-flush"


@dataclass(frozen=True, slots=True)
class Combination:
    """A "Hand Combinations" cell: its words, its condition, the rows under it."""

    id: str
    section: str
    words: str
    condition: Condition


@dataclass(frozen=True, slots=True)
class Rule:
    """One row of the table: a stable id, the row's own words, a condition, an action."""

    id: str
    section: str
    combination: str
    hand_ranks: str
    hand_combinations: str
    more_hand_details: str
    split: str
    condition: Condition
    action: Action
    reachable: bool = True
    reason: str = ""  # why the row never applies (readings section 4), when reachable is false
    added_by: str = ""  # set when the row is not in the source table (e.g. readings T1)
    words: str = field(init=False, compare=False)

    def __post_init__(self) -> None:
        # The row as the table writes it: Hand Ranks | Hand Combinations | More Hand Details | Split.
        words = " | ".join((self.hand_ranks, self.hand_combinations, self.more_hand_details, self.split))
        object.__setattr__(self, "words", words)


@dataclass(frozen=True, slots=True)
class HouseWayResult:
    """The setting the house way gives, and the row that set it (with how it got there)."""

    setting: Setting
    rule_id: str
    rule_words: str
    way: str
    section: str = ""
    via: tuple[str, ...] = ()  # rows whose "Follow the steps ..." led to ``rule_id``
    skipped: tuple[str, ...] = ()  # rows that matched but were skipped: every choice fouls (G4)


# The result is built by plain stores into slotted twins of Setting and HouseWayResult, then
# given the frozen class (docs/house-way.md, "Speed"); a test checks both make equal objects.


class _SettingDraft:
    __slots__ = ("high", "low")
    high: tuple[Card, ...]
    low: tuple[Card, ...]


class _ResultDraft:
    __slots__ = ("setting", "rule_id", "rule_words", "way", "section", "via", "skipped")  # noqa: RUF023 - the fields in order
    setting: Setting
    rule_id: str
    rule_words: str
    way: str
    section: str
    via: tuple[str, ...]
    skipped: tuple[str, ...]


for _draft, _frozen in ((_SettingDraft, Setting), (_ResultDraft, HouseWayResult)):
    if _draft.__slots__ != tuple(_frozen.__dataclass_fields__) or _frozen.__slots__ != _draft.__slots__:
        raise AssertionError(f"{_frozen.__name__} changed: update {_draft.__name__}")

_new = object.__new__


def _result(
    high: tuple[Card, ...],
    low: tuple[Card, ...],
    rule_id: str,
    rule_words: str,
    way: str,
    section: str,
    via: tuple[str, ...],
    skipped: tuple[str, ...],
) -> HouseWayResult:
    """HouseWayResult(Setting(high, low), rule_id, ...), through the drafts (above)."""
    setting = _new(_SettingDraft)
    setting.high = high
    setting.low = low
    setting.__class__ = Setting  # type: ignore[assignment]  # the draft becomes the frozen class (above)
    result = _new(_ResultDraft)
    result.setting = setting  # type: ignore[assignment]  # a Setting now (its class set above)
    result.rule_id = rule_id
    result.rule_words = rule_words
    result.way = way
    result.section = section
    result.via = via
    result.skipped = skipped
    result.__class__ = HouseWayResult  # type: ignore[assignment]  # the draft becomes the frozen class
    return result  # type: ignore[return-value]  # a HouseWayResult now (its class set above)


# (front positions) -> (getter of the five behind, getter of the two in front), hand order.
_SPLITS = {
    (a, b): (itemgetter(*(i for i in range(7) if i not in (a, b))), itemgetter(*sorted((a, b))))
    for a in range(7)
    for b in range(7)
    if a != b
}

_Test = Callable[[HandFacts], bool] | None
# (rule, condition, followed blocks, candidates, the split never fouls: signature.always_legal)
_Entry = tuple[Rule, _Test, Any, Any, bool]
_Block = tuple[_Test, tuple[_Entry, ...]]  # a combination's condition and its rows


def _kind_of(condition: Condition) -> int | None:
    """The kind bit of a section condition that is one ``can_make`` (0: no condition)."""
    if not condition.specs:
        return 0
    if len(condition.specs) == 1:
        spec = condition.specs[0]
        if isinstance(spec, dict) and spec.get("name") == "can_make" and set(spec) == {"name", "hand"}:
            return KINDS.get(spec["hand"])
    return None


def _reduce(tests: Sequence[Predicate], sig: Signature) -> tuple[bool | None, _Test]:
    """A conjunction for the hands of one signature: (False, None) when it never holds,
    else (None or True, the predicates still to ask, in order; None when none are left)."""
    left = []
    for test in tests:
        value = static_value(test, sig)
        if value is False:
            return False, None
        if value is None:
            left.append(test)
    return (None if left else True), _all(left)


def _signatures() -> list[tuple[int, Signature]]:
    """Every signature a hand can have (facts.signature), with what it tells the predicates;
    some cannot occur (a few more plans than needed, no harm)."""
    found = []
    for sizes in partitions():
        hist, kinds_of_groups = histogram(sizes), group_kinds(sizes)
        for jokers in range(MAX_JOKERS + 1):
            for flush in (0, FLUSH, FLUSH | STRAIGHT_FLUSH, FLUSH | STRAIGHT_FLUSH | ROYAL_FLUSH):
                for straight in (0, STRAIGHT):
                    for wild in (False, True) if jokers else (False,):
                        kinds = kinds_of_groups | flush | straight
                        sig = Signature(sizes=sizes, jokers=jokers, kinds=kinds, wild=wild)
                        found.append((signature(hist, kinds, jokers, wild), sig))
    return found


_SIGNATURES = _signatures()


def _all(tests: Sequence[Predicate]) -> _Test:
    """One callable for a conjunction (None: always true); short-circuits like ``and``."""
    tests = tuple(tests)
    if not tests:
        return None
    if len(tests) == 1:
        return tests[0]
    if len(tests) == 2:
        first, second = tests
        return lambda f: first(f) and second(f)
    if len(tests) == 3:
        first, second, third = tests
        return lambda f: first(f) and second(f) and third(f)

    def every(f: HandFacts) -> bool:
        for test in tests:  # noqa: SIM110 - a plain loop: all() over a generator is slower, on every hand's path
            if not test(f):
                return False
        return True

    return every


class HouseWay:
    """A loaded way: sections in order, combinations, rules in table order (see module doc)."""

    def __init__(
        self,
        name: str,
        title: str,
        source: str,
        sections: Sequence[Section],
        combinations: Sequence[Combination],
        rules: Sequence[Rule],
        last_resort: Rule | None = None,
    ) -> None:
        self.name = name
        self.title = title
        self.source = source
        self.sections = tuple(sections)
        self.combinations = {combination.id: combination for combination in combinations}
        self.rules: tuple[Rule, ...] = tuple(rules)
        self.last_resort = last_resort
        self._by_id = {rule.id: rule for rule in self.rules}
        if last_resort is not None:
            self._by_id[last_resort.id] = last_resort
        # Compiled form. A row is (rule, condition, followed blocks or None, candidates); rows
        # are grouped in blocks of one combination, whose condition is tested once per block.
        targets = {target for rule in self.rules if (target := rule.action.follows) is not None}
        steps = {
            combination: ((None, self._rows(rule for rule in self.rules if rule.combination == combination)),)
            for combination in targets
        }
        self._blocks: dict[str, tuple[_Block, ...]] = {}
        for section in self.sections:
            blocks: list[tuple[str, list[Rule]]] = []
            for rule in self.rules:
                if rule.section == section.id:
                    if not blocks or blocks[-1][0] != rule.combination:
                        blocks.append((rule.combination, []))
                    blocks[-1][1].append(rule)
            self._blocks[section.id] = tuple(
                (_all(self.combinations[combination].condition.tests), self._rows(rules, steps))
                for combination, rules in blocks
            )
        self._dispatch = tuple(
            (section, _all(section.condition.tests), self._blocks[section.id]) for section in self.sections
        )
        # Fast dispatch when every section is "can make X" (or always): one kinds() per hand.
        kinds = [_kind_of(section.condition) for section in self.sections]
        known = [kind for kind in kinds if kind is not None]
        self._kind_dispatch = (
            tuple(
                (section, kind, self._blocks[section.id])
                for section, kind in zip(self.sections, known, strict=True)
            )
            if len(known) == len(kinds)
            else None
        )
        # signature -> (section, the rows left for it, the first row when it always applies),
        # compiled once here (module doc); a signature missing (a section the signature does
        # not decide) is read as written
        self._plans: dict[int, tuple[Section, tuple[_Block, ...], Any]] = {}
        for key, sig in _SIGNATURES:
            plan = self._plan(sig)
            if plan is not None:
                self._plans[key] = plan

    def _plan(self, sig: Signature) -> tuple[Section, tuple[_Block, ...], Any] | None:
        """The section and the rows left for the hands of one signature (module doc)."""
        for section in self.sections:
            value, _ = _reduce(section.condition.tests, sig)
            if value is None:
                return None  # the cards decide: read the sections as written
            if value:
                break
        else:
            return None  # no section applies: the general path says so
        sig = Signature(
            sizes=sig.sizes, jokers=sig.jokers, kinds=sig.kinds, wild=sig.wild, run_kind=section.run
        )
        blocks = []
        for combination, rules in self._section_rules(section.id):
            value, block_test = _reduce(self.combinations[combination].condition.tests, sig)
            if value is False:
                continue
            rows = self._reduced_rows(rules, sig)
            if rows:
                blocks.append((block_test, rows))
        first = None
        if blocks and blocks[0][0] is None:
            rule, test, follow, candidates, known_legal = blocks[0][1][0]
            if test is None and follow is None:
                first = (rule, candidates, known_legal)
        return section, tuple(blocks), first

    def _reduced_rows(
        self, rules: Sequence[Rule], sig: Signature, follows: bool = True
    ) -> tuple[_Entry, ...]:
        rows: list[_Entry] = []
        for rule in rules:
            value, test = _reduce(rule.condition.tests, sig)
            if value is False:
                continue
            target = rule.action.follows
            if target is None:
                run = rule.action.run
                rows.append((rule, test, None, run, always_legal(getattr(run, "shape", ""), sig)))
                continue
            if not follows:
                raise ValueError(f"rule {rule.id!r}: the rows it follows follow again")
            steps = self._reduced_rows(
                [step for step in self.rules if step.combination == target], sig, False
            )
            rows.append((rule, test, ((None, steps),) if steps else (), None, False))
        return tuple(rows)

    def _section_rules(self, section: str) -> list[tuple[str, list[Rule]]]:
        """The section's rows in blocks of one combination, table order."""
        blocks: list[tuple[str, list[Rule]]] = []
        for rule in self.rules:
            if rule.section == section:
                if not blocks or blocks[-1][0] != rule.combination:
                    blocks.append((rule.combination, []))
                blocks[-1][1].append(rule)
        return blocks

    @staticmethod
    def _rows(
        rules: Iterable[Rule], steps: Mapping[str, tuple[_Block, ...]] | None = None
    ) -> tuple[_Entry, ...]:
        rows: list[_Entry] = []
        for rule in rules:
            target = rule.action.follows
            if target is not None and steps is None:
                raise ValueError(f"rule {rule.id!r}: the rows it follows follow again")
            follow = None if target is None else steps[target]  # type: ignore[index]  # not None: checked above
            rows.append(
                (rule, _all(rule.condition.tests), follow, None if follow else rule.action.run, False)
            )
        return tuple(rows)

    def __repr__(self) -> str:
        return f"HouseWay({self.name!r}, {len(self.rules)} rules)"

    def rule(self, rule_id: str) -> Rule:
        """The rule with this id (KeyError if none)."""
        return self._by_id[rule_id]

    def set(
        self, cards: Sequence[Card], ranking: RankingRules = DEFAULT_RULES, *, max_jokers: int = MAX_JOKERS
    ) -> HouseWayResult:
        """Set seven cards by this way. Raises a CardError for a bad hand (size, duplicates,
        more than ``max_jokers`` jokers) and NoLegalSettingError if the way has a gap."""
        facts = HandFacts(cards, ranking, max_jokers)
        result = self._set(facts)
        if facts.jokers and facts.run_asked():
            return self._best_run(cards, ranking, max_jokers, facts, result)
        return result

    def _best_run(
        self,
        cards: Sequence[Card],
        ranking: RankingRules,
        max_jokers: int,
        facts: HandFacts,
        result: HouseWayResult,
    ) -> HouseWayResult:
        """Readings G7: when the joker can fill different gaps, giving more than one run of the
        longest length, the run that leaves the highest two-card hand in front under the row
        that applies; equal, the higher run (the one already used)."""
        windows = facts.run_windows()
        best, best_low = result, rank_low(result.setting.low, ranking)
        for window in windows[1:]:
            other = HandFacts(cards, ranking, max_jokers)
            other.run_kind = facts.run_kind
            other.force_run(window)
            candidate = self._set(other)
            low = rank_low(candidate.setting.low, ranking)
            if low > best_low:
                best, best_low = candidate, low
        return best

    def _set(self, facts: HandFacts) -> HouseWayResult:
        plan = self._plans.get(facts.signature)
        if plan is None:
            section, blocks = self._section_of(facts)
        else:
            section, blocks, first = plan
            facts.run_kind = section.run
            if first is not None:
                # the signature's first row always applies: try it before walking the rows
                rule, candidates, known_legal = first
                picks = candidates(facts)
                if len(picks) == 1:
                    low = picks[0]
                    if known_legal or facts.legal(low[0], low[1]):
                        hand = facts.cards
                        high_of, low_of = _SPLITS[low]
                        return _result(
                            high_of(hand), low_of(hand), rule.id, rule.words, self.name, section.id, (), ()
                        )
        facts.run_kind = section.run
        skipped: list[str] = []
        found = _first(blocks, facts, skipped, ())
        if found is None:
            found = self._last_resort(facts, section)
        rule, low, via = found
        hand = facts.cards
        high_of, low_of = _SPLITS[low]
        # the fast constructors: every hand comes here
        return _result(
            high_of(hand),
            low_of(hand),
            rule.id,
            rule.words,
            self.name,
            section.id,
            via,
            tuple(skipped) if skipped else (),
        )

    def _last_resort(
        self, facts: HandFacts, section: Section
    ) -> tuple[Rule, tuple[int, int], tuple[str, ...]]:
        """No row of the section gives a legal setting: the way's declared last resort, if it
        has one (recorded as the rule that set the hand), else NoLegalSettingError."""
        rule = self.last_resort
        if rule is not None:
            picks = rule.action.run(facts)  # type: ignore[operator]
            low = choose(picks, facts) if picks else None
            if low is not None:
                return rule, low, ()
        raise NoLegalSettingError(self.name, " ".join(codes(facts.cards)), section.id)

    def section_of(self, cards: Sequence[Card], ranking: RankingRules = DEFAULT_RULES) -> str:
        """The id of the section the hand belongs to (G1)."""
        return self._section_of(HandFacts(cards, ranking))[0].id

    def matching_rules(self, cards: Sequence[Card], ranking: RankingRules = DEFAULT_RULES) -> list[str]:
        """Ids of the rows of the hand's section whose conditions hold, in order, whether or
        not an earlier row decides first (for audits and for the never-apply claims)."""
        facts = HandFacts(cards, ranking)
        _, blocks = self._section_of(facts)
        return [
            rule.id
            for block_test, rows in blocks
            if block_test is None or block_test(facts)
            for rule, test, *_ in rows
            if test is None or test(facts)
        ]

    def _section_of(self, facts: HandFacts) -> tuple[Section, tuple[_Block, ...]]:
        if self._kind_dispatch is not None:
            kinds = facts.kinds()
            for section, bit, blocks in self._kind_dispatch:
                if bit == 0 or kinds & bit:
                    facts.run_kind = section.run
                    return section, blocks
        else:
            for section, test, blocks in self._dispatch:
                if test is None or test(facts):
                    facts.run_kind = section.run
                    return section, blocks
        raise NoLegalSettingError(self.name, " ".join(codes(facts.cards)), "(no section applies)")


def _first(
    blocks: tuple[_Block, ...], facts: HandFacts, skipped: list[str], via: tuple[str, ...]
) -> tuple[Rule, tuple[int, int], tuple[str, ...]] | None:
    """G3 and G4: the first row whose condition holds and whose split is legal (module doc)."""
    for block_test, rows in blocks:
        if block_test is not None and not block_test(facts):
            continue
        for rule, test, follow, candidates, known_legal in rows:
            if test is not None and not test(facts):
                continue
            if follow is not None:
                found = _first(follow, facts, skipped, (*via, rule.id))
                if found is not None:
                    return found
            else:
                picks = candidates(facts)
                if len(picks) == 1:
                    low = picks[0]
                    if known_legal or facts.legal(low[0], low[1]):
                        return rule, low, via
                else:
                    low = choose(picks, facts)
                    if low is not None:
                        return rule, low, via
            skipped.append(rule.id)
    return None


def choose(candidates: Alternatives, facts: HandFacts) -> tuple[int, int] | None:
    """G5 among a row's choices (module doc, step 4); None when every choice fouls (G4)."""
    if len(candidates) == 1:
        low = candidates[0]
        return low if facts.legal(low[0], low[1]) else None  # type: ignore[return-value]
    legal = [low for low in candidates if facts.legal(low[0], low[1])]
    if len(legal) <= 1:
        return legal[0] if legal else None  # type: ignore[return-value]
    if facts.plain:
        # No straight or flush: copies of a rank are worth the same; keep the jokers behind.
        return min(legal, key=facts.jokers_in)  # type: ignore[return-value]
    best = None
    best_key = None
    for low in legal:
        key = (*facts.value(low), -facts.jokers_in(low))  # type: ignore[arg-type]
        if best_key is None or key > best_key:
            best, best_key = low, key
    return best  # type: ignore[return-value]
