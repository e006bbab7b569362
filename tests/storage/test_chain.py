"""The hashed byte layout, field checks and canonical JSON (pure, no database).

The digests below were computed outside Python, with ``printf ... | sha256sum`` over the
layout written in docs/audit-chain.md; the doc's worked example must show the same ones.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.storage.chain import (
    GENESIS_HASH,
    ChainLink,
    canonical_payload,
    check_actor,
    check_kind,
    check_round_id,
    check_table_id,
    format_timestamp,
)
from table_controller.storage.errors import InvalidEventError, InvalidFieldError, InvalidTimeError

DOC = Path(__file__).resolve().parents[2] / "docs" / "audit-chain.md"

# The worked example of docs/audit-chain.md: three links of table PG-3.
EXAMPLE = [
    dict(
        table_id="PG-3",
        seq=1,
        round_id="PG-3-1",
        kind="round.opened",
        actor="ann",
        created_at="2024-05-01T20:15:00.123456Z",
        payload='{"dealer":"ann","game":"standard"}',
    ),
    dict(
        table_id="PG-3",
        seq=2,
        round_id="PG-3-1",
        kind="dice.rolled",
        actor="device:shaker",
        created_at="2024-05-01T20:15:07.000000Z",
        payload='{"dice":[3,5,6],"source":"shaker","start_position":7}',
    ),
    dict(
        table_id="PG-3",
        seq=3,
        round_id=None,
        kind="device.fault",
        actor="device:shuffler",
        created_at="2024-05-01T20:16:00.000000Z",
        payload='{"code":"E12","message":"card jam"}',
    ),
]
EXAMPLE_DIGESTS = [
    "489117286df0a230c87799773fb8807c07d52e643385a6ad64ff541acc695bc3",
    "7cb15f759460e6387dfc9da7bb4d6d8f18280642744620a778c8bf66837fee31",
    "34dc8ce5d6942255d931466541b9c9e073474723214dc02f76dd7a6319eea5f0",
]


def test_worked_example_digests_match_sha256sum() -> None:
    prev = GENESIS_HASH
    for fields, expected in zip(EXAMPLE, EXAMPLE_DIGESTS, strict=True):
        digest = ChainLink(prev_hash=prev, **fields).digest()  # type: ignore[arg-type]
        assert digest == expected
        prev = digest


def test_preimage_is_nine_lines_without_trailing_newline() -> None:
    preimage = ChainLink(prev_hash=GENESIS_HASH, **EXAMPLE[0]).preimage()  # type: ignore[arg-type]
    assert preimage == (
        b"paigow-audit-v1\nPG-3\n1\nPG-3-1\nround.opened\nann\n2024-05-01T20:15:00.123456Z\n"
        + b"0" * 64
        + b'\n{"dealer":"ann","game":"standard"}'
    )
    assert len(preimage) == 174


def test_table_level_event_hashes_an_empty_round_line() -> None:
    preimage = ChainLink(prev_hash=EXAMPLE_DIGESTS[1], **EXAMPLE[2]).preimage()  # type: ignore[arg-type]
    assert b"\n3\n\ndevice.fault\n" in preimage


def test_doc_shows_the_worked_example_digests() -> None:
    doc = DOC.read_text(encoding="utf-8")
    for digest in EXAMPLE_DIGESTS:
        assert digest in doc
    for fields in EXAMPLE:
        assert str(fields["payload"]) in doc


def test_utf8_text_is_hashed_as_utf8() -> None:
    fields = dict(EXAMPLE[0], actor="zoë")
    expected = hashlib.sha256(
        "paigow-audit-v1\nPG-3\n1\nPG-3-1\nround.opened\nzoë\n2024-05-01T20:15:00.123456Z\n".encode()
        + b"0" * 64
        + b'\n{"dealer":"ann","game":"standard"}'
    ).hexdigest()
    assert ChainLink(prev_hash=GENESIS_HASH, **fields).digest() == expected  # type: ignore[arg-type]


# --------------------------------------------------------------------------- timestamps


def test_timestamp_is_utc_with_six_fraction_digits() -> None:
    assert format_timestamp(datetime(2024, 5, 1, 20, 15, tzinfo=UTC)) == "2024-05-01T20:15:00.000000Z"
    plus_two = timezone(timedelta(hours=2))
    assert (
        format_timestamp(datetime(2024, 5, 1, 22, 15, 0, 7, tzinfo=plus_two)) == "2024-05-01T20:15:00.000007Z"
    )


def test_naive_time_is_refused() -> None:
    with pytest.raises(InvalidTimeError, match="naive"):
        format_timestamp(datetime(2024, 5, 1, 20, 15))


# --------------------------------------------------------------------------- payloads


def test_canonical_payload_sorts_keys_and_drops_spaces() -> None:
    assert canonical_payload({"b": [1, True, None], "a": {"z": "x", "y": -5}}) == (
        '{"a":{"y":-5,"z":"x"},"b":[1,true,null]}'
    )


def test_canonical_payload_keeps_unicode_as_utf8_and_escapes_line_breaks() -> None:
    assert canonical_payload({"who": "zoë", "note": "a\nb"}) == '{"note":"a\\nb","who":"zoë"}'


@pytest.mark.parametrize(
    "payload",
    [
        {"wager": 10.5},
        {"wagers": [100, 2.0]},
        {1: "not a string key"},
        {"when": datetime(2024, 5, 1, tzinfo=UTC)},
        {"bad": "\ud800"},
    ],
)
def test_payload_that_is_not_plain_json_is_refused(payload: dict) -> None:
    with pytest.raises(InvalidEventError):
        canonical_payload(payload)


def test_payload_must_be_an_object() -> None:
    with pytest.raises(InvalidEventError, match="JSON object"):
        canonical_payload([1, 2])  # type: ignore[arg-type]


def test_float_refusal_names_the_path() -> None:
    with pytest.raises(InvalidEventError, match=r"payload\.positions\[1\]\.wager: float"):
        canonical_payload({"positions": [{"wager": 1}, {"wager": 2.5}]})


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.text(), json_values, max_size=5))
def test_canonical_payload_contains_no_raw_line_break(payload: dict) -> None:
    text = canonical_payload(payload)
    assert "\n" not in text
    assert canonical_payload(__import__("json").loads(text)) == text


# --------------------------------------------------------------------------- field checks


@pytest.mark.parametrize("value", ["PG-3", "table_7", "A", "x.y-1"])
def test_good_table_ids(value: str) -> None:
    assert check_table_id(value) == value


@pytest.mark.parametrize("value", ["", "-PG", "PG 3", "PG\n3", "x" * 65, 3])
def test_bad_table_ids(value: object) -> None:
    with pytest.raises(InvalidFieldError):
        check_table_id(value)


@pytest.mark.parametrize("value", ["round.opened", "misdeal", "dealer.setting.refused", "device.fault"])
def test_good_kinds(value: str) -> None:
    assert check_kind(value) == value


@pytest.mark.parametrize("value", ["Round.Opened", "round..opened", ".x", "round opened", ""])
def test_bad_kinds(value: str) -> None:
    with pytest.raises(InvalidFieldError):
        check_kind(value)


@pytest.mark.parametrize("value", ["system", "device:shuffler", "Zoë Martin", "pit:jane"])
def test_good_actors(value: str) -> None:
    assert check_actor(value) == value


@pytest.mark.parametrize("value", ["", " ann", "ann ", "ann\nbob", "a\x00", "x" * 129])
def test_bad_actors(value: str) -> None:
    with pytest.raises(InvalidFieldError):
        check_actor(value)


def test_round_ids() -> None:
    assert check_round_id("PG-3-1042") == "PG-3-1042"
    with pytest.raises(InvalidFieldError):
        check_round_id("PG-3\n1042")
