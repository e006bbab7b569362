"""The round state machine: one table of ``(phase, event) -> (next phase, guard, effect)``.

Pure: no I/O, no clock. ``apply(state, event)`` returns the next state or raises
``TransitionRefused`` (anything not in the table, or a failed guard). The controller stores
each accepted event (one transaction per step) and, after a restart, rebuilds the round by
replaying its stored events through ``apply``: the same events give the same state.

Order of a round (docs/round-lifecycle.md; 000, 003, 004): open with wagers -> three dice pick the start
position -> seven piles dealt and checked as one complete deck (else misdeal: void) ->
settings (standard: players first, then the dealer; Double Joker: the dealer first, exposed,
then the players, 003) -> settle -> closed. The pit may void any round before settlement.

A player may bank (``RoundOpened.bank``; game/banking.py): positions are then numbered from
that player's seat (004), the dealer's seven cards are kept at the house's position when the
house wagers against the bank, and the banker's setting (``dealer.set``) is free, a foul
included (001, 004: settled by the table's ``banker_foul_rule``), except when co-banking: then
it must follow the house way exactly as the dealer's does (004: "if this option is chosen then
the player's hand must also be set in the house way"), and no pit override lets it stand.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Protocol

from pydantic import BaseModel

from ..game.cards import Card, Game, codes, parse_cards
from ..game.deal import BANKER_POSITION, PLAYER_POSITIONS, Discrepancy, check_deal, start_position
from ..game.dealer import RequiredSetting
from ..game.evaluator import DEFAULT_RULES, RankingRules
from ..game.hand_words import read_high, read_low
from ..game.setting import Setting, check_setting, is_legal
from ..game.settlement import RoundSettlement
from .events import (
    DealerOverride,
    DealerSet,
    DiceRolled,
    PilesDealt,
    PlayerSet,
    RoundOpened,
    RoundSettled,
    RoundVoided,
    SideWagerPlaced,
    Wager,
)
from .phase_words import EVENT_WORDS, phase_words
from .phases import Phase


class TransitionRefused(ValueError):
    """An event the round cannot take now; the round is unchanged."""

    def __init__(self, phase: Phase, kind: str, reason: str) -> None:
        # in people's words (the pages show it as it is): what was refused, where the round is
        what = EVENT_WORDS.get(kind, kind)
        super().__init__(f"{what[0].upper()}{what[1:]} refused ({phase_words(phase)}): {reason}")
        self.phase = phase
        self.kind = kind
        self.reason = reason


class WagersLocked(TransitionRefused):
    """A side wager once the deal has started: the wagers are locked (PRG-16, PRG-17)."""


class HouseWayDeviation(TransitionRefused):
    """The dealer's setting deviates from the house way (only a pit override lets it stand)."""

    def __init__(
        self,
        phase: Phase,
        proposed: Setting,
        required: RequiredSetting,
        ranking: RankingRules = DEFAULT_RULES,
    ) -> None:
        # the required hands as a dealer reads them aloud (game/hand_words.py), named
        high = read_high(required.setting.high, ranking)
        low = read_low(required.setting.low, ranking)
        super().__init__(
            phase,
            "dealer.set",
            f"setting deviates from the house way: rule {required.rule_id} requires "
            f"high {' '.join(codes(high.cards))} ({high.name}) "
            f"and low {' '.join(codes(low.cards))} ({low.name})",
        )
        self.proposed = proposed
        self.required = required


class RoundRules(Protocol):
    """What the machine asks of the game core; built from the rules stored in RoundOpened."""

    @property
    def ranking(self) -> RankingRules: ...

    def required_setting(self, cards: tuple[Card, ...]) -> RequiredSetting: ...

    def matches(self, proposed: Setting, required: RequiredSetting) -> bool: ...

    def house_way_setting(self, cards: tuple[Card, ...]) -> Setting:
        """How the house way sets any seven cards (a player's too: the auto-dealer, a foul's re-set)."""
        ...

    def settle(self, state: RoundState) -> RoundSettlement: ...

    def check_side_wager(self, position: int, fortune: int, progressive: int) -> None:
        """Refuse (ValueError) a side wager the table does not offer or take (game/side_wagers.py)."""
        ...


@dataclass(frozen=True)
class RoundState:
    """Everything known about one round; replaced, never mutated, by each event."""

    opened: RoundOpened
    phase: Phase = Phase.OPEN
    dice: DiceRolled | None = None
    start: int | None = None
    piles: tuple[tuple[str, ...], ...] = ()
    unused: tuple[str, ...] = ()
    hands: Mapping[int, tuple[Card, ...]] = field(default_factory=lambda: MappingProxyType({}))
    misdeal: tuple[Discrepancy, ...] = ()
    required: RequiredSetting | None = None
    dealer_setting: Setting | None = None
    override: DealerOverride | None = None
    player_settings: Mapping[int, PlayerSet] = field(default_factory=lambda: MappingProxyType({}))
    result: RoundSettlement | None = None  # the game core's settlement, typed (``as_dict`` for the record)
    side_placed: Mapping[int, SideWagerPlaced] = field(default_factory=lambda: MappingProxyType({}))
    void_reason: str | None = None
    events: int = 1

    @property
    def round_id(self) -> str:
        return self.opened.round_id

    @property
    def game(self) -> Game:
        return self.opened.game

    @property
    def wagers(self) -> Mapping[int, Wager]:
        """Each position's wagers: as opened, with the side wagers placed before the lock."""
        if not self.side_placed:
            return self.opened.wagers
        wagers = dict(self.opened.wagers)
        for position, placed in self.side_placed.items():
            wagers[position] = wagers[position].model_copy(
                update={"fortune": placed.fortune, "progressive": placed.progressive}
            )
        return MappingProxyType(wagers)

    @property
    def playing_positions(self) -> tuple[int, ...]:
        return tuple(sorted(self.wagers))

    @property
    def house_position(self) -> int | None:
        """Where the dealer's seven cards play for the house against a player's bank, or None
        (the house banks, or wagers nothing against the bank)."""
        bank = self.opened.bank
        return bank.house_position if bank is not None and bank.house_wager else None

    @property
    def banker_follows_house_way(self) -> bool:
        """The house banks, or a player co-banks with it (004): the house way is enforced."""
        bank = self.opened.bank
        return bank is None or bank.co_banked

    @property
    def discarded_positions(self) -> tuple[int, ...]:
        """Positions without a wager: their piles are discarded (004, 003)."""
        return tuple(p for p in PLAYER_POSITIONS if p not in self.wagers and p != self.house_position)


Guard = Callable[[RoundState, Any, RoundRules], None]
Effect = Callable[[RoundState, Any, RoundRules], RoundState]


@dataclass(frozen=True)
class Transition:
    """Where an event takes a round: a fixed phase, or one the new state decides."""

    next: Phase | Callable[[RoundState], Phase]
    effect: Effect
    guard: Guard | None = None
    reaches: tuple[Phase, ...] = ()  # the phases a callable ``next`` may give (for the diagram)

    @property
    def targets(self) -> tuple[Phase, ...]:
        return (self.next,) if isinstance(self.next, Phase) else self.reaches


def _settings_order(game: Game) -> tuple[Phase, Phase]:
    """Standard: players set first; Double Joker: the dealer first, exposed (003)."""
    if game is Game.DOUBLE_JOKER:
        return (Phase.DEALER_SETTING, Phase.PLAYERS_SETTING)
    return (Phase.PLAYERS_SETTING, Phase.DEALER_SETTING)


def _after(phase: Phase, game: Game) -> Phase:
    first, second = _settings_order(game)
    return {first: second, second: Phase.SETTLING}[phase]


# --- effects and guards -------------------------------------------------------------------


def _side_guard(state: RoundState, event: SideWagerPlaced, rules: RoundRules) -> None:
    if event.position not in state.opened.wagers:
        raise TransitionRefused(
            state.phase,
            event.kind,
            f"position {event.position} has no main wager: a side wager rides with one",
        )
    try:
        rules.check_side_wager(event.position, event.fortune, event.progressive)
    except ValueError as error:
        raise TransitionRefused(state.phase, event.kind, str(error)) from error


def _side_placed(state: RoundState, event: SideWagerPlaced, rules: RoundRules) -> RoundState:
    return replace(state, side_placed=MappingProxyType({**state.side_placed, event.position: event}))


def _roll(state: RoundState, event: DiceRolled, rules: RoundRules) -> RoundState:
    return replace(state, dice=event, start=start_position(event.faces, state.opened.dice_direction))


def _deal(state: RoundState, event: PilesDealt, rules: RoundRules) -> RoundState:
    assert state.start is not None
    check = check_deal(state.game, event.piles, event.unused, state.start, event.interrupted)
    piles = tuple(tuple(pile) for pile in event.piles)
    if check.is_misdeal:
        return replace(state, piles=piles, unused=tuple(event.unused), misdeal=check.discrepancies)
    house = () if state.house_position is None else (state.house_position,)
    keep = (BANKER_POSITION, *state.playing_positions, *house)
    hands = MappingProxyType({p: cards for p, cards in check.hands.items() if p in keep})
    required = rules.required_setting(hands[BANKER_POSITION])
    return replace(state, piles=piles, unused=tuple(event.unused), hands=hands, required=required)


def _after_deal(state: RoundState) -> Phase:
    if state.misdeal:
        return Phase.VOID
    return _settings_order(state.game)[0]


def _player_guard(state: RoundState, event: PlayerSet, rules: RoundRules) -> None:
    if event.position not in state.wagers:
        raise TransitionRefused(state.phase, event.kind, f"position {event.position} has no wager")
    if event.position in state.player_settings:
        raise TransitionRefused(
            state.phase, event.kind, f"position {event.position} has already set its hand"
        )
    cards = state.hands[event.position]
    high, low = parse_cards(event.high), parse_cards(event.low)
    if sorted(high + low) != sorted(cards):
        # A setting must be made of the position's own seven cards; a wrong 5/2 split of
        # them is a foul (004) and is settled by the foul rule, but other cards are refused.
        raise TransitionRefused(
            state.phase, event.kind, f"setting is not position {event.position}'s seven cards"
        )


def _player_set(state: RoundState, event: PlayerSet, rules: RoundRules) -> RoundState:
    settings = dict(state.player_settings)
    settings[event.position] = event
    return replace(state, player_settings=MappingProxyType(settings))


def _after_player(state: RoundState) -> Phase:
    if len(state.player_settings) < len(state.wagers):
        return Phase.PLAYERS_SETTING
    return _after(Phase.PLAYERS_SETTING, state.game)


def _after_dealer(state: RoundState) -> Phase:
    return _after(Phase.DEALER_SETTING, state.game)


def _dealer_setting(state: RoundState, event: DealerSet, rules: RoundRules) -> Setting:
    """The banker's seven cards as the event sets them, five behind and two in front.

    The house way sets the dealer's hand (and a co-banker's): it is never a foul, so a fouled
    setting is refused in every path, the dealer's setting and the pit's override alike. A
    player-banker sets freely (004) and may foul like any player: "If anybody does present a
    2-card hand higher than their 5-card hand, it is a foul" (001); the foul is recorded and
    settled by the table's banker foul rule (game/settlement.py)."""
    try:
        setting = check_setting(state.hands[BANKER_POSITION], parse_cards(event.high), parse_cards(event.low))
    except ValueError as error:
        raise TransitionRefused(state.phase, event.kind, str(error)) from error
    if state.banker_follows_house_way and not is_legal(setting, rules.ranking):
        raise TransitionRefused(
            state.phase,
            event.kind,
            f"the banker's hand may never be a foul: low {' '.join(event.low)} outranks "
            f"high {' '.join(event.high)} (the five-card hand must outrank the two-card hand)",
        )
    return setting


def _dealer_guard(state: RoundState, event: DealerSet, rules: RoundRules) -> None:
    proposed = _dealer_setting(state, event, rules)
    assert state.required is not None
    if not state.banker_follows_house_way:
        return  # "When a player is banking, he is free to set the hand however he chooses" (004)
    if not rules.matches(proposed, state.required):
        raise HouseWayDeviation(state.phase, proposed, state.required, rules.ranking)


def _override_guard(state: RoundState, event: DealerOverride, rules: RoundRules) -> None:
    """The pit lets the dealer's deviation stand; never a co-banker's (004: the co-banker's
    hand "must also be set in the house way"): refused like a foul, whoever asks."""
    proposed = _dealer_setting(state, event, rules)
    assert state.required is not None
    if (
        state.opened.bank is not None
        and state.opened.bank.co_banked
        and not rules.matches(proposed, state.required)
    ):
        req = state.required.setting
        raise TransitionRefused(
            state.phase,
            event.kind,
            "a co-banker's hand must be set in the house way (004), no override lets it stand: "
            f"rule {state.required.rule_id} requires low {' '.join(c.code for c in req.low)} / "
            f"high {' '.join(c.code for c in req.high)}",
        )


def _dealer_set(state: RoundState, event: DealerSet, rules: RoundRules) -> RoundState:
    override = event if isinstance(event, DealerOverride) else None
    return replace(state, dealer_setting=_dealer_setting(state, event, rules), override=override)


def _settle(state: RoundState, event: RoundSettled, rules: RoundRules) -> RoundState:
    result = rules.settle(state)
    if event.result is not None and event.result != result.as_dict():
        raise TransitionRefused(
            state.phase,
            event.kind,
            "stored settlement differs from the game core's: the record is not trusted",
        )
    return replace(state, result=result)


def _void(state: RoundState, event: RoundVoided, rules: RoundRules) -> RoundState:
    return replace(state, void_reason=event.reason)


TRANSITIONS: dict[tuple[Phase, type[BaseModel]], Transition] = {
    (Phase.OPEN, SideWagerPlaced): Transition(Phase.OPEN, _side_placed, _side_guard),
    (Phase.OPEN, DiceRolled): Transition(Phase.DEALING, _roll),
    (Phase.DEALING, PilesDealt): Transition(
        _after_deal, _deal, reaches=(Phase.PLAYERS_SETTING, Phase.DEALER_SETTING, Phase.VOID)
    ),
    (Phase.PLAYERS_SETTING, PlayerSet): Transition(
        _after_player,
        _player_set,
        _player_guard,
        (Phase.PLAYERS_SETTING, Phase.DEALER_SETTING, Phase.SETTLING),
    ),
    (Phase.DEALER_SETTING, DealerSet): Transition(
        _after_dealer, _dealer_set, _dealer_guard, (Phase.PLAYERS_SETTING, Phase.SETTLING)
    ),
    (Phase.DEALER_SETTING, DealerOverride): Transition(
        _after_dealer, _dealer_set, _override_guard, (Phase.PLAYERS_SETTING, Phase.SETTLING)
    ),
    (Phase.SETTLING, RoundSettled): Transition(Phase.CLOSED, _settle),
    **{(phase, RoundVoided): Transition(Phase.VOID, _void) for phase in Phase if not phase.is_final},
}
"""The whole round: anything not here is refused."""


def open_round(event: RoundOpened) -> RoundState:
    """The first state of a round (its wagers were checked against the table limits)."""
    return RoundState(opened=event)


def apply(state: RoundState, event: Any, rules: RoundRules) -> RoundState:
    """Take one event: the table's transition, its guard, its effect, its next phase."""
    transition = TRANSITIONS.get((state.phase, type(event)))
    kind = getattr(event, "kind", type(event).__name__)
    if transition is None and isinstance(event, SideWagerPlaced):
        raise WagersLocked(state.phase, kind, "the wagers locked when the deal started (no more bets)")
    if transition is None:
        raise TransitionRefused(state.phase, kind, "not allowed in this phase")
    if transition.guard is not None:
        transition.guard(state, event, rules)
    new = transition.effect(state, event, rules)
    phase = transition.next if isinstance(transition.next, Phase) else transition.next(new)
    return replace(new, phase=phase, events=state.events + 1)


def replay(events: list[Any], rules_for: Callable[[RoundOpened], RoundRules]) -> RoundState:
    """Rebuild a round from its stored events (crash recovery, audit replay)."""
    if not events or not isinstance(events[0], RoundOpened):
        raise ValueError("a round's events begin with round.opened")
    state = open_round(events[0])
    rules = rules_for(events[0])
    for event in events[1:]:
        state = apply(state, event, rules)
    return state
