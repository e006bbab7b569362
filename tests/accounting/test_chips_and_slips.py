"""Chips by denomination, openers and closers, fills and credits (docs/accounting.md, "Chips",
"Fills and credits"): two distinct signers, a void approved by a second person."""

from datetime import UTC, date, datetime, timedelta

import pytest

from table_controller.accounting.chips import Chips, ChipSet, CountKind, InventoryCount
from table_controller.accounting.errors import ChipError, NaiveTimeError, SignatureError, SlipError
from table_controller.accounting.slips import SlipKind, SlipState, deliver, request_slip, void_slip

NOON = datetime(2026, 12, 3, 17, tzinfo=UTC)


def test_the_value_of_chips_is_denomination_times_count():
    # 20 x $1 + 40 x $25 + 3 x $100 = 20 + 1000 + 300 = $1,320.00
    chips = Chips.of({100: 20, 2500: 40, 10000: 3, 500: 0})
    assert chips.value == 132_000
    assert chips.count(500) == 0 and chips.as_dict() == {100: 20, 2500: 40, 10000: 3}
    assert chips == Chips.of({10000: 3, 2500: 40, 100: 20})


@pytest.mark.parametrize(
    "counts",
    [{100: -1}, {100: 1.5}, {100: True}, {0: 3}, {-100: 3}, {2.5: 1}],
)
def test_a_bad_count_of_chips_is_refused(counts):
    with pytest.raises(ChipError):
        Chips.of(counts)


def test_chips_are_built_in_order_and_once_per_denomination():
    with pytest.raises(ChipError, match="twice"):
        Chips(((100, 1), (100, 2)))
    with pytest.raises(ChipError, match="ascending"):
        Chips(((500, 1), (100, 2)))
    with pytest.raises(ChipError):
        Chips.of([(100, 1)])  # type: ignore[arg-type]
    with pytest.raises(ChipError, match="count"):
        Chips(((100, 0),))  # built directly, a zero count is refused (Chips.of drops it)
    with pytest.raises(ChipError, match="denomination, chips"):
        Chips((100,))  # type: ignore[arg-type]


def test_a_chip_the_casino_does_not_use_is_refused():
    with pytest.raises(ChipError, match=r"\[2000\]"):
        ChipSet().check(Chips.of({2000: 1}))
    with pytest.raises(ChipError):
        ChipSet((500, 100))
    with pytest.raises(ChipError):
        ChipSet(())


def opener(**changes):
    fields = {
        "kind": CountKind.OPENER,
        "table_id": "PG-1",
        "day": date(2026, 12, 3),
        "shift": None,
        "at": NOON,
        "chips": Chips.of({2500: 10}),
        "dealer": "Ana",
        "supervisor": "Ben",
    }
    return InventoryCount(**{**fields, **changes})


def test_an_opener_is_signed_by_two_people():
    count = opener(dealer="  Ana ")
    assert (count.dealer, count.supervisor, count.value) == ("Ana", "Ben", 25_000)
    for dealer, supervisor in (("Ana", "ana "), ("Ana", ""), (None, "Ben")):
        with pytest.raises(SignatureError):
            opener(dealer=dealer, supervisor=supervisor)


def test_an_opener_needs_a_zoned_time_known_chips_and_a_kind():
    with pytest.raises(NaiveTimeError):
        opener(at=datetime(2026, 12, 3, 12))
    with pytest.raises(ChipError):
        opener(chips=Chips.of({300: 1}))
    with pytest.raises(ChipError):
        opener(chips={2500: 1})
    with pytest.raises(ChipError):
        opener(kind="opener")


def fill(number=1, chips=None):
    return request_slip(
        SlipKind.FILL,
        number=number,
        table_id="PG-1",
        chips=chips or Chips.of({2500: 40}),
        at=NOON,
        by="Pit Cara",
    )


def test_a_fill_is_requested_then_delivered_with_two_signatures():
    slip = fill()
    assert (slip.state, slip.value, slip.counts) == (SlipState.REQUESTED, 100_000, False)
    done = deliver(slip, at=NOON + timedelta(minutes=10), runner="Dan", table_signer="Ana")
    assert (done.state, done.counts, done.runner, done.table_signer) == (
        SlipState.DELIVERED,
        True,
        "Dan",
        "Ana",
    )
    assert slip.state is SlipState.REQUESTED  # the slip is frozen: each step is a new one


def test_the_runner_cannot_sign_for_the_table_too():
    with pytest.raises(SignatureError, match="two people"):
        deliver(fill(), at=NOON, runner="Dan", table_signer="DAN")


def test_a_slip_is_delivered_once_and_not_before_its_request():
    done = deliver(fill(), at=NOON, runner="Dan", table_signer="Ana")
    with pytest.raises(SlipError, match="delivered"):
        deliver(done, at=NOON, runner="Dan", table_signer="Ana")
    with pytest.raises(SlipError, match="before its request"):
        deliver(fill(), at=NOON - timedelta(seconds=1), runner="Dan", table_signer="Ana")


def test_a_void_needs_a_second_person_and_a_reason_and_stops_the_slip_counting():
    done = deliver(fill(), at=NOON, runner="Dan", table_signer="Ana")
    with pytest.raises(SignatureError):
        void_slip(done, at=NOON, by="Cara", approved_by="cara", reason="wrong table")
    with pytest.raises(SlipError, match="reason"):
        void_slip(done, at=NOON, by="Cara", approved_by="Eve", reason=" ")
    voided = void_slip(done, at=NOON, by="Cara", approved_by="Eve", reason="wrong table")
    assert (voided.state, voided.counts, voided.void.approved_by) == (SlipState.VOIDED, False, "Eve")
    with pytest.raises(SlipError, match="already voided"):
        void_slip(voided, at=NOON, by="Cara", approved_by="Eve", reason="again")
    with pytest.raises(SlipError, match="voided"):
        deliver(
            void_slip(fill(), at=NOON, by="Cara", approved_by="Eve", reason="x"),
            at=NOON,
            runner="D",
            table_signer="A",
        )
    with pytest.raises(SlipError, match="before its request"):
        void_slip(fill(), at=NOON - timedelta(hours=1), by="Cara", approved_by="Eve", reason="x")


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"number": 0}, SlipError),
        ({"number": True}, SlipError),
        ({"number": "7"}, SlipError),
        ({"table_id": " "}, SlipError),
        ({"chips": Chips()}, ChipError),
        ({"chips": Chips.of({700: 1})}, ChipError),
        ({"by": ""}, SignatureError),
        ({"at": datetime(2026, 12, 3)}, NaiveTimeError),
    ],
)
def test_a_bad_request_is_refused(kwargs, error):
    fields = {
        "number": 1,
        "table_id": "PG-1",
        "chips": Chips.of({100: 1}),
        "at": NOON,
        "by": "Cara",
        **kwargs,
    }
    with pytest.raises(error):
        request_slip(SlipKind.CREDIT, **fields)
    with pytest.raises(SlipError):
        request_slip("fill", **{**fields, **{"number": 1, "chips": Chips.of({100: 1})}})  # type: ignore[arg-type]
