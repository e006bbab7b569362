"""The round projections: numbering, step updates, closed rounds final, positions and hands."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime

import pytest
from pydantic import ValidationError
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlmodel import Session

from table_controller.game.cards import Game
from table_controller.game.evaluator import HighCategory, LowCategory, SevenCardCategory
from table_controller.storage import (
    DiceSource,
    InvalidRoundError,
    PositionExistsError,
    PositionOutcome,
    RoundClosedError,
    RoundCreate,
    RoundNotFoundError,
    RoundPositionCreate,
    RoundPositionUpdate,
    RoundUpdate,
    add_position,
    add_positions,
    append_event,
    create_round,
    find_open_round,
    get_positions,
    get_round,
    list_events,
    read_snapshot,
    round_id_for,
    unit_of_work,
    update_position,
    update_positions,
    update_round,
)

from .helpers import T0, at


def _new_round(engine: Engine, table_id: str = "PG-3", game: Game = Game.STANDARD) -> str:
    with unit_of_work(engine) as session:
        round_ = create_round(
            session,
            data=RoundCreate(table_id=table_id, game=game, dealer="ann", phase="betting", opened_at=T0),
        )
        append_event(
            session,
            table_id=table_id,
            round_id=round_.round_id,
            kind="round.opened",
            actor="ann",
            payload={"game": str(game)},
            now=T0,
        )
    return round_.round_id


def test_round_ids_are_table_and_number() -> None:
    assert round_id_for("PG-3", 1042) == "PG-3-1042"
    with pytest.raises(InvalidRoundError):
        round_id_for("PG-3", 0)


def test_rounds_are_numbered_per_table(engine: Engine) -> None:
    ids = [_new_round(engine, "PG-3"), _new_round(engine, "PG-3"), _new_round(engine, "PG-4")]
    assert ids == ["PG-3-1", "PG-3-2", "PG-4-1"]
    with read_snapshot(engine) as session:
        round_ = get_round(session, round_id="PG-3-2")
    assert (round_.table_id, round_.number, round_.game, round_.dealer, round_.phase) == (
        "PG-3",
        2,
        "standard",
        "ann",
        "betting",
    )
    assert round_.opened_at == T0 and round_.closed_at is None
    assert (round_.wagered_cents, round_.house_result_cents, round_.voided, round_.override) == (
        0,
        0,
        False,
        False,
    )


@pytest.mark.parametrize(
    "fields",
    [
        {"opened_at": datetime(2024, 5, 1, 20, 15)},  # naive
        {"game": "texas"},
        {"dealer": " ann"},
        {"table_id": "PG 3"},
        {"phase": "Betting"},
    ],
)
def test_bad_round_creation_is_refused(fields: dict) -> None:
    values = dict(table_id="PG-3", game="standard", dealer="ann", phase="betting", opened_at=T0) | fields
    with pytest.raises(ValidationError):
        RoundCreate(**values)


def test_step_updates_read_back_exactly(engine: Engine) -> None:
    round_id = _new_round(engine)
    with unit_of_work(engine) as session:
        append_event(
            session,
            table_id="PG-3",
            round_id=round_id,
            kind="dice.rolled",
            actor="device:shaker",
            payload={"dice": [3, 5, 6]},
            now=at(7),
        )
        update_round(
            session,
            round_id=round_id,
            changes=RoundUpdate(
                phase="dealing",
                die_1=3,
                die_2=5,
                die_3=6,
                dice_source=DiceSource.SHAKER,
                start_position=7,
                wagered_cents=1_000_000_000_000,
                commission_cents=125,
                house_result_cents=-2_500,
                house_way_rule_id="hw-002-07",
            ),
        )
    with read_snapshot(engine) as session:
        round_ = get_round(session, round_id=round_id)
        events = list_events(session, round_id=round_id)
    assert round_.dice == (3, 5, 6) and round_.dice_source == "shaker" and round_.start_position == 7
    assert round_.wagered_cents == 1_000_000_000_000 and type(round_.wagered_cents) is int
    assert (round_.commission_cents, round_.house_result_cents) == (125, -2_500)
    assert round_.house_way_rule_id == "hw-002-07" and round_.phase == "dealing"
    assert [e.kind for e in events] == ["round.opened", "dice.rolled"]


@pytest.mark.parametrize(
    "fields",
    [
        {"wagered_cents": 10.0},
        {"wagered_cents": "1000"},
        {"wagered_cents": True},
        {"commission_cents": -1},
        {"house_result_cents": 1.5},
        {"die_1": 7},
        {"die_1": 0},
        {"start_position": 8},
        {"dice_source": "coin"},
        {"phase": "Dealing!"},
        {"unknown_field": 1},
    ],
)
def test_bad_updates_are_refused_before_the_store(fields: dict) -> None:
    with pytest.raises(ValidationError):
        RoundUpdate(**fields)


def test_dice_come_three_or_none(engine: Engine) -> None:
    round_id = _new_round(engine)
    with pytest.raises(InvalidRoundError, match="three dice or none"), unit_of_work(engine) as session:
        update_round(session, round_id=round_id, changes=RoundUpdate(die_1=3, die_2=4))
    with read_snapshot(engine) as session:
        assert get_round(session, round_id=round_id).dice is None


def test_a_void_needs_a_reason(engine: Engine) -> None:
    round_id = _new_round(engine)
    with pytest.raises(InvalidRoundError, match="needs a reason"), unit_of_work(engine) as session:
        update_round(session, round_id=round_id, changes=RoundUpdate(misdeal=True))
    with unit_of_work(engine) as session:
        round_ = update_round(
            session,
            round_id=round_id,
            changes=RoundUpdate(misdeal=True, void_reason="pile count wrong: 6 cards"),
        )
    assert round_.misdeal and round_.void_reason == "pile count wrong: 6 cards"


def test_a_flag_cannot_be_emptied(engine: Engine) -> None:
    round_id = _new_round(engine)
    with (
        pytest.raises(InvalidRoundError, match="voided cannot be empty"),
        unit_of_work(engine) as session,
    ):
        update_round(session, round_id=round_id, changes=RoundUpdate(voided=None))


def test_a_closed_round_is_final(engine: Engine) -> None:
    round_id = _new_round(engine)
    with unit_of_work(engine) as session:
        add_position(session, round_id=round_id, data=RoundPositionCreate(position=1))
        update_round(session, round_id=round_id, changes=RoundUpdate(phase="settled", closed_at=at(60)))
    with pytest.raises(RoundClosedError), unit_of_work(engine) as session:
        append_event(
            session,
            table_id="PG-3",
            round_id=round_id,
            kind="settled",
            actor="system",
            payload={},
            now=at(61),
        )
        update_round(session, round_id=round_id, changes=RoundUpdate(house_result_cents=100))
    with pytest.raises(RoundClosedError), unit_of_work(engine) as session:
        update_position(session, round_id=round_id, position=1, changes=RoundPositionUpdate(net_cents=5))
    with pytest.raises(RoundClosedError), unit_of_work(engine) as session:
        add_position(session, round_id=round_id, data=RoundPositionCreate(position=2))
    with read_snapshot(engine) as session:
        assert [e.kind for e in list_events(session, round_id=round_id)] == ["round.opened"]  # settle undone
        assert get_round(session, round_id=round_id).house_result_cents == 0


def test_closing_before_opening_is_refused(engine: Engine) -> None:
    round_id = _new_round(engine)
    with (
        pytest.raises(InvalidRoundError, match="closed before it opened"),
        unit_of_work(engine) as session,
    ):
        update_round(session, round_id=round_id, changes=RoundUpdate(closed_at=at(-1)))


def test_a_restart_finds_the_open_round(engine: Engine) -> None:
    with read_snapshot(engine) as session:
        assert find_open_round(session, table_id="PG-3") is None
    first = _new_round(engine)
    with unit_of_work(engine) as session:
        update_round(session, round_id=first, changes=RoundUpdate(closed_at=at(60)))
    second = _new_round(engine)
    with read_snapshot(engine) as session:
        found = find_open_round(session, table_id="PG-3")
        assert found is not None and found.round_id == second == "PG-3-2"
        assert find_open_round(session, table_id="PG-4") is None


def test_unknown_round_is_named(engine: Engine) -> None:
    with read_snapshot(engine) as session, pytest.raises(RoundNotFoundError, match="PG-3-7"):
        get_round(session, round_id="PG-3-7")


# --------------------------------------------------------------------------- positions


def test_positions_are_seated_once_each(engine: Engine) -> None:
    round_id = _new_round(engine)
    with unit_of_work(engine) as session:
        add_position(
            session,
            round_id=round_id,
            data=RoundPositionCreate(position=3, wager_cents=2500, joker_bonus_cents=500),
        )
        add_position(session, round_id=round_id, data=RoundPositionCreate(position=1))
    with pytest.raises(PositionExistsError), unit_of_work(engine) as session:
        add_position(session, round_id=round_id, data=RoundPositionCreate(position=3))
    with read_snapshot(engine) as session:
        positions = get_positions(session, round_id=round_id)
    assert [(p.position, p.wager_cents, p.joker_bonus_cents, p.big_hand_bonus_cents) for p in positions] == [
        (1, 0, 0, 0),
        (3, 2500, 500, 0),
    ]


@pytest.mark.parametrize("fields", [{"position": 0}, {"position": 8}, {"position": 2, "wager_cents": 25.0}])
def test_bad_positions_are_refused(fields: dict) -> None:
    with pytest.raises(ValidationError):
        RoundPositionCreate(**fields)


def test_a_hand_is_stored_as_canonical_codes_with_its_categories(engine: Engine) -> None:
    round_id = _new_round(engine)
    with unit_of_work(engine) as session:
        add_position(session, round_id=round_id, data=RoundPositionCreate(position=2, wager_cents=2500))
        position = update_position(
            session,
            round_id=round_id,
            position=2,
            changes=RoundPositionUpdate(
                cards="as ks 9h 9d 4c 3c jk",
                high=["9h", "9d", "AS", "4c", "3c"],
                low="ks jk",
                high_category=HighCategory.ONE_PAIR,
                low_category="high-card",
                seven_card_category=SevenCardCategory.NOTHING,
                house_way_rule_id="hw-002-03",
                outcome=PositionOutcome.WIN,
                win_cents=2500,
                commission_cents=125,
                net_cents=2375,
            ),
        )
    assert (position.cards, position.high, position.low) == (
        "As Ks 9h 9d 4c 3c JK",
        "9h 9d As 4c 3c",
        "Ks JK",
    )
    assert (position.high_category, position.low_category, position.seven_card_category) == (
        "one-pair",
        "high-card",
        "nothing",
    )
    assert (position.outcome, position.win_cents, position.commission_cents, position.net_cents) == (
        "win",
        2500,
        125,
        2375,
    )
    with read_snapshot(engine) as session:
        assert get_positions(session, round_id=round_id)[0] == position


def test_high_and_low_must_split_the_seven_cards(engine: Engine) -> None:
    round_id = _new_round(engine)
    with unit_of_work(engine) as session:
        add_position(session, round_id=round_id, data=RoundPositionCreate(position=2, wager_cents=100))
        update_position(
            session, round_id=round_id, position=2, changes=RoundPositionUpdate(cards="As Ks 9h 9d 4c 3c JK")
        )
    with pytest.raises(InvalidRoundError, match="not a split"), unit_of_work(engine) as session:
        update_position(
            session,
            round_id=round_id,
            position=2,
            changes=RoundPositionUpdate(high="9h 9d As 4c 2c", low="Ks JK"),
        )
    with read_snapshot(engine) as session:
        assert get_positions(session, round_id=round_id)[0].high is None


def test_a_fouled_split_of_the_seven_cards_is_stored_as_made(engine: Engine) -> None:
    """Four behind and three in front is a foul (004), settled by the foul rule: the round
    records it as made (a low hand used to be refused past two cards, which held the round)."""
    round_id = _new_round(engine)
    with unit_of_work(engine) as session:
        add_position(session, round_id=round_id, data=RoundPositionCreate(position=2, wager_cents=100))
        update_position(
            session, round_id=round_id, position=2, changes=RoundPositionUpdate(cards="As Ks 9h 9d 4c 3c JK")
        )
        update_position(
            session,
            round_id=round_id,
            position=2,
            changes=RoundPositionUpdate(high="As Ks 9h 9d", low="4c 3c JK"),
        )
    with read_snapshot(engine) as session:
        stored = get_positions(session, round_id=round_id)[0]
    assert (stored.high, stored.low) == ("As Ks 9h 9d", "4c 3c JK")


def test_two_jokers_fit_double_joker_but_not_the_standard_deck(engine: Engine) -> None:
    standard = _new_round(engine, "PG-3", Game.STANDARD)
    double = _new_round(engine, "PG-5", Game.DOUBLE_JOKER)
    hand = RoundPositionUpdate(cards="JK JK As Ks 9h 9d 4c")
    with unit_of_work(engine) as session:
        add_position(session, round_id=double, data=RoundPositionCreate(position=1))
        assert (
            update_position(session, round_id=double, position=1, changes=hand).cards
            == "JK JK As Ks 9h 9d 4c"
        )
    with pytest.raises(InvalidRoundError, match="jokers"), unit_of_work(engine) as session:
        add_position(session, round_id=standard, data=RoundPositionCreate(position=1))
        update_position(session, round_id=standard, position=1, changes=hand)


@pytest.mark.parametrize(
    "fields",
    [
        {"cards": "As Ks 9h"},  # not seven
        {"high": "As Ks 9h 9d 8d 7d 6d 5d"},  # more cards than a hand has
        {"low": "As Ks 9h 9d 8d 7d 6d 5d"},
        {"cards": "As Ks 9h 9d 4c 3c 1x"},  # no such card
        {"high_category": "two-pairs"},
        {"low_category": HighCategory.ONE_PAIR},
        {"seven_card_category": "royal"},
        {"outcome": "copy"},  # a copy is a tied hand, not a result of the wager
        {"win_cents": -1},
        {"net_cents": 1.0},
    ],
)
def test_bad_hand_fields_are_refused(fields: dict) -> None:
    with pytest.raises(ValidationError):
        RoundPositionUpdate(**fields)


def test_category_labels_are_the_evaluator_labels() -> None:
    assert RoundPositionUpdate(high_category=HighCategory.FIVE_ACES).high_category == "five-aces"
    assert RoundPositionUpdate(low_category=LowCategory.PAIR).low_category == "pair"
    assert (
        RoundPositionUpdate(seven_card_category="seven-card-natural-straight-flush").seven_card_category
        == "seven-card-natural-straight-flush"
    )


def test_unknown_position_is_named(engine: Engine) -> None:
    round_id = _new_round(engine)
    with pytest.raises(RoundNotFoundError, match="no position 4"), unit_of_work(engine) as session:
        update_position(session, round_id=round_id, position=4, changes=RoundPositionUpdate(net_cents=0))


# ------------------------------------------------------------------ several positions at once


def _seated(engine: Engine) -> list[tuple[int, int, str | None, int]]:
    with read_snapshot(engine) as session:
        return [
            (p.position, p.wager_cents, p.cards, p.net_cents)
            for p in get_positions(session, round_id="PG-3-1")
        ]


def test_positions_seated_together_read_back_as_seated_one_by_one(engine: Engine) -> None:
    round_id = _new_round(engine)
    seats = [RoundPositionCreate(position=1), RoundPositionCreate(position=4, wager_cents=1000)]
    with unit_of_work(engine) as session:
        added = add_positions(session, round_id=round_id, seats=seats)
    assert [(p.position, p.wager_cents) for p in added] == [(1, 0), (4, 1000)]
    assert _seated(engine) == [(1, 0, None, 0), (4, 1000, None, 0)]


@pytest.mark.parametrize(
    ("seats", "words"),
    [
        ([2, 4, 2], "name one twice"),
        ([2, 4], "position 4 already has a row"),  # 4 is taken: 2 is not seated either
    ],
)
def test_seating_several_refuses_them_all_for_one_taken_or_repeated(engine: Engine, seats, words) -> None:
    round_id = _new_round(engine)
    with unit_of_work(engine) as session:
        add_positions(session, round_id=round_id, seats=[RoundPositionCreate(position=4, wager_cents=500)])
    with pytest.raises(PositionExistsError, match=words), unit_of_work(engine) as session:
        add_positions(session, round_id=round_id, seats=[RoundPositionCreate(position=p) for p in seats])
    assert _seated(engine) == [(4, 500, None, 0)]


def test_positions_written_together_read_back_as_written_one_by_one(engine: Engine) -> None:
    round_id = _new_round(engine)
    seven = {1: "As Ks Qs Js Ts 9s 8s", 3: "2h 3h 4h 5h 6h 7h 8h"}
    with unit_of_work(engine) as session:
        add_positions(session, round_id=round_id, seats=[RoundPositionCreate(position=p) for p in (1, 3)])
        written = update_positions(
            session,
            round_id=round_id,
            changes={p: RoundPositionUpdate(cards=cards, net_cents=10 * p) for p, cards in seven.items()},
        )
    assert [(p.position, p.cards, p.net_cents) for p in written] == [(1, seven[1], 10), (3, seven[3], 30)]
    assert _seated(engine) == [(1, 0, seven[1], 10), (3, 0, seven[3], 30)]


@pytest.mark.parametrize(
    ("changes", "error", "words"),
    [
        ({1: {"net_cents": 5}, 6: {"net_cents": 5}}, RoundNotFoundError, "no position 6"),
        ({1: {"net_cents": 5}, 3: {"cards": "As As Ks Qs Js Ts 9s"}}, InvalidRoundError, "position 3: cards"),
    ],
)
def test_one_bad_position_writes_none_of_them(engine: Engine, changes, error, words) -> None:
    round_id = _new_round(engine)
    with unit_of_work(engine) as session:
        add_positions(session, round_id=round_id, seats=[RoundPositionCreate(position=p) for p in (1, 3)])
    with unit_of_work(engine) as session:
        with pytest.raises(error, match=words):
            update_positions(
                session, round_id=round_id, changes={p: RoundPositionUpdate(**c) for p, c in changes.items()}
            )
        # checked before anything was set: the session holds nothing to write
        assert not session.dirty
    assert _seated(engine) == [(1, 0, None, 0), (3, 0, None, 0)]


@contextmanager
def _round_reads(engine: Engine) -> Iterator[list[str]]:
    """The SELECTs of the ``rounds`` table the engine runs within the block."""
    reads: list[str] = []

    def count(conn, cursor, statement, parameters, context, executemany) -> None:
        if statement.lstrip().upper().startswith("SELECT") and "FROM rounds" in statement:
            reads.append(statement)

    event.listen(engine, "before_cursor_execute", count)
    try:
        yield reads
    finally:
        event.remove(engine, "before_cursor_execute", count)


def test_a_round_is_read_and_locked_once_per_transaction(engine: Engine) -> None:
    """A step writes the round and its positions: the round row is read (and locked, FOR UPDATE
    on PostgreSQL) once in the step's transaction, and read again by the next one."""
    round_id = _new_round(engine)
    for step in range(2):
        with _round_reads(engine) as reads, unit_of_work(engine) as session:
            if step == 0:
                add_positions(session, round_id=round_id, seats=[RoundPositionCreate(position=1)])
            update_positions(session, round_id=round_id, changes={1: RoundPositionUpdate(net_cents=step)})
            update_round(session, round_id=round_id, changes=RoundUpdate(phase=f"step-{step}"))
        assert len(reads) == 1
        if engine.dialect.name == "postgresql":
            assert "FOR UPDATE" in reads[0]


def test_a_session_whose_transaction_the_lock_begins_reads_the_round_once(engine: Engine) -> None:
    """Outside ``unit_of_work`` the first read begins the transaction; the lock is still kept."""
    round_id = _new_round(engine)
    with unit_of_work(engine) as session:
        add_positions(session, round_id=round_id, seats=[RoundPositionCreate(position=1)])
    with _round_reads(engine) as reads, Session(engine) as session:
        assert session.get_transaction() is None
        update_positions(session, round_id=round_id, changes={1: RoundPositionUpdate(net_cents=1)})
        update_round(session, round_id=round_id, changes=RoundUpdate(phase="again"))
        session.commit()
    assert len(reads) == 1
    assert _seated(engine) == [(1, 0, None, 1)]


def test_a_round_closed_earlier_in_the_same_transaction_refuses_further_writes(engine: Engine) -> None:
    round_id = _new_round(engine)
    with pytest.raises(RoundClosedError), unit_of_work(engine) as session:
        add_positions(session, round_id=round_id, seats=[RoundPositionCreate(position=1)])
        update_round(session, round_id=round_id, changes=RoundUpdate(closed_at=at(60)))
        update_positions(session, round_id=round_id, changes={1: RoundPositionUpdate(net_cents=5)})
    with read_snapshot(engine) as session:
        assert get_round(session, round_id=round_id).closed_at is None  # all undone
