"""The floor stream's position kept as its SSE id while it moves (floor/routers/stream.py,
``Position``): always the id of the vector it holds, which parses back to that vector."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from table_controller.floor.hub import Vector
from table_controller.floor.routers.stream import Position, parse_position

TABLES = st.sampled_from(["t1", "t2", "t10", "bacc-3", "pg.7", "A_1"])
SEQS = st.integers(min_value=0, max_value=10**15 - 1)
STEPS = st.lists(st.tuples(st.sampled_from(["join", "advance"]), TABLES, SEQS), max_size=40)


def encode_position(vector: Vector) -> str:
    """The id of a whole vector, formatted from scratch: the reference the kept id must equal."""
    return ",".join(f"{table_id}:{seq}" for table_id, seq in sorted(vector.items()))


@given(start=st.dictionaries(TABLES, SEQS), steps=STEPS)
def test_the_kept_id_is_always_the_id_of_the_vector(start, steps):
    position = Position(start)
    expected = dict(start)
    assert position.encode() == encode_position(expected)
    for step, table_id, seq in steps:
        if step == "join":
            position.join(table_id, seq)
            expected.setdefault(table_id, seq)  # a table already followed keeps its own seq
        else:
            position.advance(table_id, seq)
            expected[table_id] = seq
        assert position.last == expected
        assert position.encode() == encode_position(expected)
        assert parse_position(position.encode(), "id") == (expected or None)


def test_the_id_is_sorted_by_table_not_by_when_a_table_joined():
    position = Position({"t2": 5})
    position.join("t10", 1)
    position.advance("t1", 9)
    assert position.encode() == "t1:9,t10:1,t2:5"
