"""The round state machine (docs/round-lifecycle.md): every phase transition, every refused one, a full round
per game, misdeals, a dealer mis-set refused then overridden, replay."""

from __future__ import annotations

import pytest

from table_controller.game.cards import Game
from table_controller.round.events import (
    DealerOverride,
    DealerSet,
    DiceRolled,
    PilesDealt,
    PlayerSet,
    RoundSettled,
    RoundVoided,
    Wager,
)
from table_controller.round.machine import (
    TRANSITIONS,
    HouseWayDeviation,
    TransitionRefused,
    apply,
    open_round,
    replay,
)
from table_controller.round.phases import Phase

from .tables import BANKER, POSITION_3, POSITION_5, deal, game_rules, opened

RULES = game_rules()
DICE_START_3 = DiceRolled(faces=(1, 1, 1), source="shaker", roll_id="r1")  # total 3 -> position 3


def dealt_round(wagers=None, hands=None, game=Game.STANDARD, rules=RULES):
    wagers = wagers or {3: 2500, 5: 1000}
    hands = hands or {1: BANKER, 3: POSITION_3, 5: POSITION_5}
    state = open_round(opened(wagers, game, rules))
    state = apply(state, DICE_START_3, rules)
    piles, unused = deal(hands, start=3, game=game)
    return apply(state, PilesDealt(piles=piles, unused=unused), rules), (piles, unused)


def test_a_standard_round_goes_open_dealing_players_dealer_settling_closed():
    state = open_round(opened({3: 2500, 5: 1000}))
    assert state.phase is Phase.OPEN
    state = apply(state, DICE_START_3, RULES)
    assert (state.phase, state.start) == (Phase.DEALING, 3)
    piles, unused = deal({1: BANKER, 3: POSITION_3, 5: POSITION_5}, start=3)
    state = apply(state, PilesDealt(piles=piles, unused=unused), RULES)
    assert state.phase is Phase.PLAYERS_SETTING  # standard game: players set first
    assert sorted(state.hands) == [1, 3, 5]  # piles of positions 2, 4, 6, 7 are discarded
    assert state.discarded_positions == (2, 4, 6, 7)
    assert state.required.rule_id == "high-card.second-and-fourth"
    state = apply(state, PlayerSet(position=3, high=["As", "Ah", "9c", "8c", "2c"], low=["Kd", "Kh"]), RULES)
    assert state.phase is Phase.PLAYERS_SETTING
    state = apply(state, PlayerSet(position=5, high=["Kc", "8d", "6s", "4h", "3c"], low=["Qh", "Jd"]), RULES)
    assert state.phase is Phase.DEALER_SETTING
    state = apply(
        state, DealerSet(high=["Ac", "9h", "5c", "3d", "2h"], low=["Qd", "7s"], actor="dealer-ann"), RULES
    )
    assert state.phase is Phase.SETTLING and state.override is None
    state = apply(state, RoundSettled(), RULES)
    assert state.phase is Phase.CLOSED
    by_position = {p["position"]: p for p in state.result.as_dict()["positions"]}
    # Position 3 wins both hands: even money less 5% of $25 = $1.25 (002): net +$23.75.
    assert (by_position[3]["outcome"], by_position[3]["commission"], by_position[3]["net"]) == (
        "win",
        125,
        2375,
    )
    # Position 5 loses the high (K-high v A-high) and wins the low (Q-J v Q-7): a push.
    assert (by_position[5]["outcome"], by_position[5]["net"]) == ("push", 0)
    assert state.result.as_dict()["totals"]["house_result"] == -2375


def test_double_joker_dealer_sets_first_then_players():
    rules = game_rules(Game.DOUBLE_JOKER)
    state, _ = dealt_round(game=Game.DOUBLE_JOKER, rules=rules)
    assert state.phase is Phase.DEALER_SETTING
    with pytest.raises(TransitionRefused, match="not allowed"):
        apply(state, PlayerSet(position=3, high=["As", "Ah", "9c", "8c", "2c"], low=["Kd", "Kh"]), rules)
    state = apply(state, DealerSet(high=["Ac", "9h", "5c", "3d", "2h"], low=["Qd", "7s"]), rules)
    assert state.phase is Phase.PLAYERS_SETTING
    state = apply(state, PlayerSet(position=3, high=["As", "Ah", "9c", "8c", "2c"], low=["Kd", "Kh"]), rules)
    state = apply(state, PlayerSet(position=5, high=["Kc", "8d", "6s", "4h", "3c"], low=["Qh", "Jd"]), rules)
    state = apply(state, RoundSettled(), rules)
    positions = {p["position"]: p for p in state.result.as_dict()["positions"]}
    # 003: the banker's Ace-high pai gow hand does not qualify: every main wager pushes.
    assert positions[3]["outcome"] == positions[5]["outcome"] == "not-qualified"
    assert positions[3]["net"] == 0


def test_a_dealer_setting_off_the_house_way_is_refused_naming_the_rule_then_a_pit_override_stands():
    state, _ = dealt_round()
    state = apply(state, PlayerSet(position=3, high=["As", "Ah", "9c", "8c", "2c"], low=["Kd", "Kh"]), RULES)
    state = apply(state, PlayerSet(position=5, high=["Kc", "8d", "6s", "4h", "3c"], low=["Qh", "Jd"]), RULES)
    wrong = DealerSet(high=["Ac", "7s", "5c", "3d", "2h"], low=["Qd", "9h"])
    with pytest.raises(HouseWayDeviation) as refused:
        apply(state, wrong, RULES)
    assert refused.value.required.rule_id == "high-card.second-and-fourth"
    # the required hands as a dealer reads them, high first, each named (game/hand_words.py)
    assert str(refused.value).endswith(
        "rule high-card.second-and-fourth requires high Ac 9h 5c 3d 2h (ace high) and low Qd 7s (queen-seven)"
    )
    assert state.phase is Phase.DEALER_SETTING  # unchanged
    override = DealerOverride(high=wrong.high, low=wrong.low, actor="pit-bob", reason="dealer misread the 9")
    state = apply(state, override, RULES)
    assert state.phase is Phase.SETTLING and state.override.actor == "pit-bob"
    state = apply(state, RoundSettled(), RULES)
    # Against Q-9 in front, position 5's Q-J still wins the low: a push; position 3 still wins.
    assert [p["outcome"] for p in state.result.as_dict()["positions"]] == ["win", "push"]


def test_an_override_must_still_be_the_bankers_seven_cards():
    state, _ = dealt_round(wagers={3: 2500}, hands={1: BANKER, 3: POSITION_3})
    state = apply(state, PlayerSet(position=3, high=["As", "Ah", "9c", "8c", "2c"], low=["Kd", "Kh"]), RULES)
    with pytest.raises(TransitionRefused, match="extra"):
        apply(
            state, DealerOverride(high=["Ac", "9h", "5c", "3d", "2h"], low=["Qd", "Ks"], reason="typo"), RULES
        )


def test_a_duplicated_card_in_a_pile_is_a_misdeal_that_voids_the_round():
    state = apply(open_round(opened({3: 2500})), DICE_START_3, RULES)
    piles, unused = deal({1: BANKER, 3: POSITION_3}, start=3)
    piles[4][0] = piles[0][0]  # pile 5 holds pile 1's first card again
    state = apply(state, PilesDealt(piles=piles, unused=unused), RULES)
    assert state.phase is Phase.VOID
    assert [d.kind for d in state.misdeal] == ["duplicate-card", "missing-card"]
    assert state.hands == {}
    with pytest.raises(TransitionRefused):
        apply(state, RoundSettled(), RULES)


def test_a_player_setting_of_other_cards_is_refused_a_wrong_split_is_a_foul():
    state, _ = dealt_round()
    with pytest.raises(TransitionRefused, match="seven cards"):
        apply(state, PlayerSet(position=3, high=["As", "Ah", "9c", "8c", "2d"], low=["Kd", "Kh"]), RULES)
    with pytest.raises(TransitionRefused, match="no wager"):
        apply(state, PlayerSet(position=4, high=["As", "Ah", "9c", "8c", "2c"], low=["Kd", "Kh"]), RULES)
    # Four behind and three in front is a foul (004): forfeit by default.
    state = apply(state, PlayerSet(position=3, high=["As", "Ah", "9c", "8c"], low=["Kd", "Kh", "2c"]), RULES)
    with pytest.raises(TransitionRefused, match="already set"):
        apply(state, PlayerSet(position=3, high=["As", "Ah", "9c", "8c", "2c"], low=["Kd", "Kh"]), RULES)
    state = apply(state, PlayerSet(position=5, high=["Kc", "8d", "6s", "4h", "3c"], low=["Qh", "Jd"]), RULES)
    state = apply(state, DealerSet(high=["Ac", "9h", "5c", "3d", "2h"], low=["Qd", "7s"]), RULES)
    state = apply(state, RoundSettled(), RULES)
    fouled, pushed = state.result.as_dict()["positions"]
    assert (fouled["outcome"], fouled["rule"], fouled["net"]) == ("lose", "foul-forfeit", -2500)
    assert (pushed["outcome"], pushed["net"]) == ("push", 0)


@pytest.mark.parametrize("phase_events", [0, 1, 2, 3])
def test_the_pit_may_void_before_settlement(phase_events):
    events = [
        DICE_START_3,
        PilesDealt(
            piles=deal({1: BANKER, 3: POSITION_3}, start=3)[0], unused=deal({1: BANKER, 3: POSITION_3}, 3)[1]
        ),
        PlayerSet(position=3, high=["As", "Ah", "9c", "8c", "2c"], low=["Kd", "Kh"]),
    ]
    state = open_round(opened({3: 2500}))
    for event in events[:phase_events]:
        state = apply(state, event, RULES)
    state = apply(state, RoundVoided(actor="pit-bob", reason="table disturbance"), RULES)
    assert state.phase is Phase.VOID and state.void_reason == "table disturbance"
    with pytest.raises(TransitionRefused, match=r"\(void, wagers returned\)"):
        apply(state, RoundVoided(actor="pit-bob", reason="again"), RULES)


def test_nothing_happens_after_closed():
    state, _ = dealt_round(wagers={3: 2500}, hands={1: BANKER, 3: POSITION_3})
    state = apply(state, PlayerSet(position=3, high=["As", "Ah", "9c", "8c", "2c"], low=["Kd", "Kh"]), RULES)
    state = apply(state, DealerSet(high=["Ac", "9h", "5c", "3d", "2h"], low=["Qd", "7s"]), RULES)
    state = apply(state, RoundSettled(), RULES)
    for event in (RoundSettled(), RoundVoided(reason="late void"), DICE_START_3):
        with pytest.raises(TransitionRefused, match=r"\(settled\)"):
            apply(state, event, RULES)


def test_every_pair_outside_the_table_is_refused():
    samples = {
        DiceRolled: DICE_START_3,
        PilesDealt: PilesDealt(piles=[], unused=[]),
        PlayerSet: PlayerSet(position=3, high=[], low=[]),
        DealerSet: DealerSet(high=["Ac", "9h", "5c", "3d", "2h"], low=["Qd", "7s"]),
        DealerOverride: DealerOverride(
            high=["Ac", "9h", "5c", "3d", "2h"], low=["Qd", "7s"], reason="why not"
        ),
        RoundSettled: RoundSettled(),
    }
    state = open_round(opened({3: 2500}))
    for phase in Phase:
        for event_type, event in samples.items():
            if (phase, event_type) in TRANSITIONS:
                continue
            with pytest.raises(TransitionRefused, match="not allowed in this phase"):
                apply(state.__class__(opened=state.opened, phase=phase), event, RULES)


def test_a_stored_settlement_that_differs_from_the_game_core_is_not_trusted():
    state, _ = dealt_round(wagers={3: 2500}, hands={1: BANKER, 3: POSITION_3})
    state = apply(state, PlayerSet(position=3, high=["As", "Ah", "9c", "8c", "2c"], low=["Kd", "Kh"]), RULES)
    state = apply(state, DealerSet(high=["Ac", "9h", "5c", "3d", "2h"], low=["Qd", "7s"]), RULES)
    honest = apply(state, RoundSettled(), RULES).result.as_dict()
    forged = {**honest, "totals": {**honest["totals"], "house_result": 0}}
    with pytest.raises(TransitionRefused, match="not trusted"):
        apply(state, RoundSettled(result=forged), RULES)


def test_replaying_the_events_rebuilds_the_same_round():
    first = opened({3: 2500, 5: Wager(main=1000)})
    piles, unused = deal({1: BANKER, 3: POSITION_3, 5: POSITION_5}, start=3)
    events = [
        first,
        DICE_START_3,
        PilesDealt(piles=piles, unused=unused),
        PlayerSet(position=3, high=["As", "Ah", "9c", "8c", "2c"], low=["Kd", "Kh"]),
    ]
    live = open_round(first)
    for event in events[1:]:
        live = apply(live, event, RULES)
    rebuilt = replay(events, lambda opened_event: RULES)
    assert rebuilt == live
