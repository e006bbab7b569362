"""The simulated shuffler machine (simulators/shuffler/model.py) against docs/protocols/shuffler.md.

The model's output is read back with plain ``struct`` per the document, not with the driver's codec.
"""

from __future__ import annotations

import random
import secrets
import struct

import pytest

from drivers.shuffler.msgtypes import ShufflerMsg
from simulators.faults import Fault, UnknownFaultError, parse_faults
from simulators.shuffler import ShufflerSimulator
from simulators.shuffler.model import ShufflerModel, full_deck

NATURALS = [rank + suit for rank in "23456789TJQKA" for suit in "shdc"]


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Identity(random.Random):
    """A 'shuffle' that leaves the deck in its loaded order, so the deal order can be read off."""

    def shuffle(self, x) -> None:  # type: ignore[override]
        return None


def cards(data: bytes) -> list[str]:
    return [data[i : i + 2].decode() for i in range(0, len(data), 2)]


def decode(msg_type: int, body: bytes):
    """The document's layouts, read with struct."""
    if msg_type == ShufflerMsg.PILE:
        command, pile, count = struct.unpack(">IBB", body[:6])
        return ("PILE", command, pile, cards(body[6 : 6 + 2 * count]))
    if msg_type == ShufflerMsg.UNUSED_CARDS:
        command, count = struct.unpack(">IB", body[:5])
        return ("UNUSED", command, cards(body[5 : 5 + 2 * count]))
    if msg_type == ShufflerMsg.SHUFFLED:
        return ("SHUFFLED", *struct.unpack(">IB", body))
    if msg_type == ShufflerMsg.COMMAND_REJECTED:
        return ("REJECTED", *struct.unpack(">IB", body))
    if msg_type == ShufflerMsg.FAULT:
        return ("FAULT", *body)
    if msg_type == ShufflerMsg.FAULT_CLEARED:
        return ("CLEARED", body[0])
    if msg_type == ShufflerMsg.DEAL_ABORTED:
        return ("ABORTED", *struct.unpack(">IBB", body))
    if msg_type == ShufflerMsg.STATUS:
        return ("STATUS", *struct.unpack(">IBBB", body))
    if msg_type == ShufflerMsg.DECK_CHECKED:
        command, size, scanned, unreadable, n = struct.unpack(">IBBBB", body[:8])
        missing = cards(body[8 : 8 + 2 * n])
        rest = body[8 + 2 * n :]
        duplicated = [(rest[1 + 3 * i : 3 + 3 * i].decode(), rest[3 + 3 * i]) for i in range(rest[0])]
        return ("CHECKED", command, size, scanned, unreadable, missing, duplicated)
    raise AssertionError(hex(msg_type))


def machine(faults=(), rng=None, **options):
    out = []
    clock = options.pop("clock", Clock())

    def emit(msg_type, body):
        out.append(decode(msg_type, body))
        return len(out)

    model = ShufflerModel(
        emit=emit, rng=rng or Identity(), faults=parse_faults(faults), clock=clock, **options
    )
    model.power_on()
    return model, out


def shuffle_and_deal(model, size=53):
    model.on_command(ShufflerMsg.SHUFFLE, 1, bytes((size,)))
    model.on_command(ShufflerMsg.DEAL, 2, b"")


def test_deal_order_is_seven_consecutive_blocks_of_seven_then_the_rest():
    """Pile 1 = cards 1-7 ... pile 7 = cards 43-49, unused = 50-53 (shuffler.md section 4)."""
    model, out = machine()
    shuffle_and_deal(model)
    assert out[0] == ("SHUFFLED", 1, 53)
    assert out[1] == ("PILE", 2, 1, ["2s", "2h", "2d", "2c", "3s", "3h", "3d"])
    assert out[7] == ("PILE", 2, 7, ["Qd", "Qc", "Ks", "Kh", "Kd", "Kc", "As"])
    assert out[8] == ("UNUSED", 2, ["Ah", "Ad", "Ac", "JK"])
    assert len(out) == 9


def test_double_joker_deck_leaves_five_unused():
    model, out = machine(jokers=2)
    shuffle_and_deal(model, 54)
    assert out[-1] == ("UNUSED", 2, ["Ah", "Ad", "Ac", "JK", "JK"])


def test_seeded_shuffle_is_reproducible_and_seeds_differ():
    deals = []
    for seed in (7, 7, 8):
        model, out = machine(rng=random.Random(seed))
        shuffle_and_deal(model)
        deals.append([entry[-1] for entry in out[1:]])
    assert deals[0] == deals[1] != deals[2]
    order = full_deck(1)
    random.Random(7).shuffle(order)
    assert deals[0][0] == order[:7]


def test_unseeded_simulator_shuffles_with_system_random():
    sim = ShufflerSimulator()
    try:
        assert isinstance(sim.model.rng, secrets.SystemRandom)
    finally:
        sim.stop()


def test_piles_come_at_the_pile_interval():
    clock = Clock()
    model, out = machine(pile_interval=0.5, clock=clock)
    shuffle_and_deal(model)
    assert [entry[0] for entry in out] == ["SHUFFLED", "PILE"]
    clock.now = 0.49
    model.tick()
    assert len(out) == 2
    clock.now = 0.5
    model.tick()
    assert out[-1][:3] == ("PILE", 2, 2)
    model.on_command(ShufflerMsg.STATUS_REQUEST, 3, b"")
    assert out[-1] == ("STATUS", 3, 0x02, 0, 53)  # DEALING
    model.on_command(ShufflerMsg.SHUFFLE, 4, b"\x35")
    assert out[-1] == ("REJECTED", 4, 0x01)  # BUSY
    clock.now = 10.0
    model.tick()
    assert out[-1][0] == "UNUSED"


@pytest.mark.parametrize(
    ("msg_type", "body", "reason"),
    [
        (ShufflerMsg.SHUFFLE, b"\x34", 0x03),
        (ShufflerMsg.SHUFFLE, b"", 0x03),
        (ShufflerMsg.DECK_CHECK, b"\x35\x00", 0x03),
        (ShufflerMsg.DEAL, b"\x00", 0x03),
        (ShufflerMsg.DEAL, b"", 0x02),  # NOT_SHUFFLED
        (0x14, b"", 0x04),
        (0x1F, b"", 0x04),
    ],
)
def test_bad_commands_are_rejected_with_the_documented_reason(msg_type, body, reason):
    model, out = machine()
    model.on_command(msg_type, 9, body)
    assert out == [("REJECTED", 9, reason)]


def test_refusals_are_checked_in_the_documented_order():
    model, out = machine(faults=["deck-not-present"])
    assert out == [("FAULT", 0x05, 0, 0, 0, 0)]
    model.jam()
    model.open_door()
    model.on_command(ShufflerMsg.SHUFFLE, 1, b"\x35")
    assert out[-1] == ("REJECTED", 1, 0x05)  # DOOR_OPEN before JAM before DECK_NOT_PRESENT
    model.close_door()
    model.on_command(ShufflerMsg.SHUFFLE, 2, b"\x35")
    assert out[-1] == ("REJECTED", 2, 0x06)
    model.clear_jam()
    model.on_command(ShufflerMsg.SHUFFLE, 3, b"\x35")
    assert out[-1] == ("REJECTED", 3, 0x07)
    model.on_command(ShufflerMsg.STATUS_REQUEST, 4, b"")
    assert out[-1] == ("STATUS", 4, 0x03, 0x04, 0)  # FAULT state, DECK_NOT_PRESENT bit, no cards


def test_status_reports_the_standing_fault_bits():
    model, out = machine(faults=["wrong-card-count"])
    model.on_command(ShufflerMsg.SHUFFLE, 1, b"\x35")
    model.open_door()
    model.on_command(ShufflerMsg.STATUS_REQUEST, 2, b"")
    assert out[-1] == ("STATUS", 2, 0x03, 0x01 | 0x08, 52)


def test_deck_check_lists_missing_and_duplicated_per_the_document():
    model, out = machine()
    deck = list(NATURALS)
    deck.remove("2c")
    deck.remove("Ah")
    deck += ["Kd", "Kd", "JK", "JK", "JK"]
    model.load_deck(deck)
    model.on_command(ShufflerMsg.DECK_CHECK, 1, b"\x36")  # 54: two jokers allowed
    assert out[-1] == ("CHECKED", 1, 54, 55, 0, ["2c", "Ah"], [("Kd", 3), ("JK", 3)])
    model.load_deck(NATURALS)
    model.on_command(ShufflerMsg.DECK_CHECK, 2, b"\x36")
    assert out[-1] == ("CHECKED", 2, 54, 52, 0, ["JK", "JK"], [])


def test_deck_check_and_deal_require_a_new_shuffle():
    model, out = machine()
    model.on_command(ShufflerMsg.SHUFFLE, 1, b"\x35")
    model.on_command(ShufflerMsg.DECK_CHECK, 2, b"\x35")
    model.on_command(ShufflerMsg.DEAL, 3, b"")
    assert out[-1] == ("REJECTED", 3, 0x02)
    shuffle_and_deal(model)
    model.on_command(ShufflerMsg.DEAL, 4, b"")
    assert out[-1] == ("REJECTED", 4, 0x02)


def test_operator_jam_mid_deal_aborts_with_the_piles_dealt():
    clock = Clock()
    model, out = machine(pile_interval=1.0, clock=clock)
    shuffle_and_deal(model)
    clock.now = 1.0
    model.tick()
    model.jam()
    assert out[-2:] == [("FAULT", 0x02, 0, 0, 0, 0), ("ABORTED", 2, 2, 0x02)]
    model.jam()
    assert len(out) == 5  # a standing fault is reported once


def test_removing_the_deck_mid_deal_is_ignored():
    clock = Clock()
    model, out = machine(pile_interval=1.0, clock=clock)
    shuffle_and_deal(model)
    model.remove_deck()
    assert model.deck is not None and out[-1][0] == "PILE"


@pytest.mark.parametrize(
    ("fault", "check"),
    [
        ("duplicated-card", lambda piles, unused: piles[4][1] == piles[4][5] == "Kd"),
        ("missing-card", lambda piles, unused: [len(p) for p in piles] == [7, 7, 7, 6, 7, 7, 7]),
        (
            "wrong-joker-count",
            lambda piles, unused: sum(p.count("JK") for p in piles) + unused.count("JK") == 2,
        ),
        ("unreadable-card", lambda piles, unused: piles[1][3] == "??"),
    ],
)
def test_card_scenarios_strike_in_the_first_deal_only(fault, check):
    model, out = machine(faults=[fault], rng=random.Random(3))
    for _ in range(2):
        del out[:]
        shuffle_and_deal(model)
        piles = [entry[3] for entry in out if entry[0] == "PILE"]
        unused = out[-1][2]
        if _ == 0:
            assert check(piles, unused)
    assert "??" not in [c for p in piles for c in p]
    assert [len(p) for p in piles] == [7] * 7


def test_parse_faults():
    assert parse_faults("jam, door-open") == {Fault.JAM, Fault.DOOR_OPEN}
    assert parse_faults(["JAM", ""]) == {Fault.JAM}
    assert parse_faults(None) == frozenset()
    with pytest.raises(UnknownFaultError):
        parse_faults("jammed")
    with pytest.raises(UnknownFaultError):
        ShufflerSimulator(faults=["cocked-die"])


def test_model_refuses_a_deck_with_three_jokers_setting():
    with pytest.raises(ValueError):
        machine(jokers=3)


def test_the_full_refusal_order_of_the_document():
    """shuffler.md 4: UNKNOWN_COMMAND; STATUS_REQUEST (BAD_ARGUMENT only for a body); BUSY,
    DOOR_OPEN, JAM, DECK_NOT_PRESENT; BAD_ARGUMENT; NOT_SHUFFLED or WRONG_CARD_COUNT."""
    model, out = machine()
    model.open_door()
    model.on_command(0x15, 1, b"\x00")
    assert out[-1] == ("REJECTED", 1, 0x04)  # UNKNOWN_COMMAND before the door
    model.on_command(ShufflerMsg.SHUFFLE, 2, b"\x34")
    assert out[-1] == ("REJECTED", 2, 0x05)  # DOOR_OPEN before BAD_ARGUMENT
    model.on_command(ShufflerMsg.STATUS_REQUEST, 3, b"\x00")
    assert out[-1] == ("REJECTED", 3, 0x03)  # a STATUS_REQUEST with a body: BAD_ARGUMENT
    model.on_command(ShufflerMsg.STATUS_REQUEST, 4, b"")
    assert out[-1][:2] == ("STATUS", 4)  # never refused for the machine's state
    model.close_door()
    model.on_command(ShufflerMsg.DEAL, 5, b"\x00")
    assert out[-1] == ("REJECTED", 5, 0x03)  # BAD_ARGUMENT before NOT_SHUFFLED
