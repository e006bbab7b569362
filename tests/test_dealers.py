"""The dealers on the box (docs/dealers.md): sign-in relieving the dealer on it, sign-out, the
round recording the dealer on the box, the day's hands per hour from the record, and every
refusal leaving nothing written."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from structlog.testing import capture_logs

from table_controller.accounting.errors import DealerError
from table_controller.record.check import check_record
from table_controller.round.events import DiceRolled, PilesDealt, Wager
from table_controller.settings import TableSettings
from table_controller.storage import add_user, get_round, list_events, unit_of_work, verify_chain
from table_controller.storage import dealers as store
from table_controller.storage.errors import InvalidFieldError
from table_controller.storage.session import read_snapshot
from table_controller.storage.users import disable_user
from table_controller.table import dealers
from table_controller.table.service import TableService

from .round.tables import BANKER, POSITION_3, deal

SETTINGS = TableSettings(table_id="t1")
DESK = dealers.DealerDesk.of(SETTINGS)


@pytest.fixture
def people(engine):
    with unit_of_work(engine) as session:
        for name, role in (("ann", "dealer"), ("bob", "dealer"), ("pat", "pit"), ("gone", "dealer")):
            add_user(session, name=name, role=role)
        disable_user(session, name="gone")
    return engine


def events(engine, table_id="t1"):
    with read_snapshot(engine) as session:
        return [e for e in list_events(session, table_id=table_id) if e.kind.startswith("dealer.")]


def play(service: TableService, actor: str = "ann") -> str:
    """One round settled with the hands of tests/round/tables.py: its id."""
    state = service.open_round({3: Wager(main=2500)}, actor=actor)
    service.record_dice(DiceRolled(faces=(1, 1, 1), source="rng"))
    piles, unused = deal({1: BANKER, 3: POSITION_3}, start=3)
    service.record_deal(PilesDealt(piles=piles, unused=unused))
    service.set_player(3, ["As", "Ah", "9c", "8c", "2c"], ["Kd", "Kh"], actor=actor)
    service.set_dealer(["Ac", "9h", "5c", "3d", "2h"], ["Qd", "7s"], actor=actor)
    service.settle()
    return state.round_id


def test_a_sign_in_relieves_the_dealer_on_the_box_and_both_are_chained(people):
    engine = people
    first, relieved = dealers.sign_in(engine, DESK, dealer="ann", by="ann")
    assert (first.dealer, first.stint.end, first.signed_in_by, relieved) == ("ann", None, "ann", None)
    second, relieved = dealers.sign_in(engine, DESK, dealer="bob", by="pat")
    assert relieved is not None and relieved.dealer == "ann" and relieved.end_reason == store.RELIEVED
    assert relieved.stint.end == second.stint.start and relieved.ended_by == "pat"
    out = dealers.sign_out(engine, DESK, by="bob")
    assert (out.dealer, out.end_reason, out.ended_by) == ("bob", store.SIGNED_OUT, "bob")
    chained = events(engine)
    assert [(e.kind, e.actor, e.payload_data()) for e in chained] == [
        ("dealer.signed-in", "ann", {"dealer": "ann", "relieves": None}),
        ("dealer.signed-in", "pat", {"dealer": "bob", "relieves": "ann"}),
        ("dealer.signed-out", "bob", {"dealer": "bob"}),
    ]
    with read_snapshot(engine) as session:
        assert store.on_box(session, table_id="t1") is None
        assert verify_chain(session, table_id="t1").ok


def test_every_round_records_the_dealer_on_the_box(people):
    engine = people
    service = TableService(SETTINGS, engine)
    before = play(service, actor="ann")  # nobody signed in: the round records who opened it
    dealers.sign_in(engine, DESK, dealer="bob", by="pat")
    boxed = play(service, actor="device:auto-dealer")
    with read_snapshot(engine) as session:
        assert get_round(session, round_id=before).dealer == "ann"
        assert get_round(session, round_id=boxed).dealer == "bob"
        stored = list_events(session, table_id="t1")
        opened = {e.round_id: e.payload_data() for e in stored if e.kind == "round.opened"}
        assert "dealer" not in opened[before]  # a table without sign-ins writes what it always did
        assert opened[boxed]["dealer"] == "bob" and opened[boxed]["actor"] == "device:auto-dealer"
        assert verify_chain(session, table_id="t1").ok
        report = check_record(session, table_id="t1")  # the projection re-derived: bob dealt it
        assert report.ok, report.findings


def test_the_days_hands_per_hour_come_from_the_record(people):
    """ann on the box 14:00-14:40 with 2 settled rounds and a voided one, bob from 14:40, now
    15:00: ann 2 hands in 40 minutes = 3.0 an hour; bob none in 20 minutes = 0.0; the table 2
    hands in an hour = 2.0. Times are set on the rows (the clock is the test's)."""
    engine = people
    service = TableService(SETTINGS, engine)
    dealers.sign_in(engine, DESK, dealer="ann", by="ann")
    settled = [play(service), play(service)]
    voided = service.open_round({3: Wager(main=2500)}, actor="ann").round_id
    service.void("pat", "wagers placed late")
    dealers.sign_in(engine, DESK, dealer="bob", by="bob")
    day = datetime(2026, 12, 3, tzinfo=UTC)
    with unit_of_work(engine) as session:
        ann, bob = session.exec(store.select(store.DealerStintRow).order_by(store.DealerStintRow.id)).all()
        ann.started_at, ann.ended_at = day.replace(hour=14), day.replace(hour=14, minute=40)
        bob.started_at = day.replace(hour=14, minute=40)
        from table_controller.storage.models import Round

        for minute, round_id in zip((5, 20, 30), [*settled, voided], strict=True):
            row = session.get(Round, round_id)
            row.opened_at = day.replace(hour=14, minute=minute)
            session.add(row)
        session.add_all([ann, bob])
    with read_snapshot(engine) as session:
        found = dealers.day_pace(session, DESK, day=day.date(), now=day.replace(hour=15))
    assert found.on_box is not None and found.on_box.dealer == "bob"
    assert [(p.dealer, p.hands, p.seconds_on_box, p.hands_per_hour) for p in found.pace.dealers] == [
        ("ann", 2, 2400, Decimal("3.0")),
        ("bob", 0, 1200, Decimal("0.0")),
    ]
    assert (found.pace.table.hands, found.pace.table.hands_per_hour) == (2, Decimal("2.0"))
    assert [s.dealer for s in found.stints] == ["ann", "bob"]


@pytest.mark.parametrize(
    ("dealer", "error", "match"),
    [
        ("zed", store.DealerNotFoundError, "no enabled person named 'zed'"),
        ("gone", store.DealerNotFoundError, "no enabled person named 'gone'"),
        (" ann", InvalidFieldError, "dealer ' ann' is not valid"),
        ("", InvalidFieldError, "dealer '' is not valid"),
    ],
)
def test_a_sign_in_of_no_one_is_refused_and_nothing_is_written(people, dealer, error, match):
    with capture_logs() as logs, pytest.raises(error, match=match):
        dealers.sign_in(people, DESK, dealer=dealer, by="pat")
    assert events(people) == []
    assert [line["event"] for line in logs] == ["dealer.refused"]


def test_a_dealer_on_the_box_already_is_refused_and_nothing_is_written(people):
    engine = people
    dealers.sign_in(engine, DESK, dealer="ann", by="ann")
    with pytest.raises(store.DealerConflictError, match="ann is on this table's box since"):
        dealers.sign_in(engine, DESK, dealer="ann", by="ann")
    other = dealers.DealerDesk.of(TableSettings(table_id="t2"))
    with pytest.raises(store.DealerConflictError, match=r"ann is on the box of table t1 .* sign out there"):
        dealers.sign_in(engine, other, dealer="ann", by="pat")
    assert len(events(engine)) == 1 and events(engine, "t2") == []
    with read_snapshot(engine) as session:
        assert store.on_box(session, table_id="t2") is None


def test_a_sign_out_with_nobody_on_the_box_is_refused(people):
    with capture_logs() as logs, pytest.raises(store.DealerConflictError, match="no dealer is on the box"):
        dealers.sign_out(people, DESK, by="pat")
    assert events(people) == []
    assert logs[0]["event"] == "dealer.refused" and logs[0]["error"] == "DealerConflictError"


def test_a_stored_stint_that_ends_before_it_starts_is_refused_on_read(people):
    """A row edited to end before it starts is refused by the core when read (DealerError)."""
    engine = people
    dealers.sign_in(engine, DESK, dealer="ann", by="ann")
    with unit_of_work(engine) as session:
        row = session.exec(store.select(store.DealerStintRow)).one()
        row.ended_at = row.started_at - timedelta(minutes=1)
        session.add(row)
    with read_snapshot(engine) as session, pytest.raises(DealerError, match="before it starts"):
        start = row.started_at - timedelta(hours=1)
        store.stints_between(session, table_id="t1", start=start, end=datetime.now(UTC))


def test_the_live_tables_reader_reads_again_only_when_the_chain_moved(people):
    """DayPaceReader: between two events of the table's chain the day's stints and hands are
    kept and the pace computed for now; a settled round or a sign-in is read at once."""
    engine = people
    service = TableService(SETTINGS, engine)
    reader = dealers.DayPaceReader(DESK)
    dealers.sign_in(engine, DESK, dealer="ann", by="ann")
    now = datetime.now(UTC)
    with read_snapshot(engine) as session:
        first = reader.read(session, now=now)
        later = reader.read(session, now=now + timedelta(minutes=30))
    assert first.on_box is not None and first.on_box.dealer == "ann" and first.pace.table.hands == 0
    ann = later.pace.of("ann")
    assert later.stints == first.stints and ann is not None and ann.on_box >= timedelta(minutes=30)
    play(service)
    with read_snapshot(engine) as session:
        moved = reader.read(session)
        assert moved.pace.table.hands == 1 and moved == dealers.day_pace(session, DESK, now=moved.now)
    dealers.sign_in(engine, DESK, dealer="bob", by="pat")
    with read_snapshot(engine) as session:
        pushed = reader.read(session)
    assert pushed.on_box is not None and pushed.on_box.dealer == "bob" and len(pushed.stints) == 2
