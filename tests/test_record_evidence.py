"""The record as evidence: every tampering an insider with write access to the database could
try is caught by the record check behind ``audit verify`` (named by row, round, person or
checkpoint), and the table service refuses to deal on it (docs/audit-chain.md).

Runs on SQLite and PostgreSQL (the ``engine`` fixture). Rounds are played through the table
service itself; the tampering is raw SQL behind the store's back."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine

from table_controller.record.check import RecordReport, check_record
from table_controller.record.pinned_rules import PinnedRules, current_rules, rules_from_snapshot
from table_controller.record.watch import RecordWatch
from table_controller.round.events import DiceRolled, PilesDealt, Wager
from table_controller.settings import AuditSettings, TableSettings
from table_controller.storage import list_events, read_snapshot, unit_of_work
from table_controller.storage.chain import ChainLink
from table_controller.storage.checkpoints import CheckpointKeyError, generate_key_file, read_checkpoint_file
from table_controller.storage.people import people_from_events
from table_controller.storage.users import Role, add_user, change_role, set_scope
from table_controller.table.service import TableRefused, TableService

from .round.tables import BANKER, POSITION_3, deal
from .storage.helpers import tamper

# Position 3 (A-A K-K) against the banker set by the house way (high Ac 9h 5c 3d 2h, low Qd 7s):
# both hands win, 2500 cents won, 5% commission 125 cents (002: rounded up to 25 cents, already
# a multiple), net 2375 (tests/round/tables.py explains the hands).
WIN, COMMISSION, NET = 2500, 125, 2375


@pytest.fixture
def key(tmp_path: Path) -> tuple[Path, str]:
    path = tmp_path / "keys" / "checkpoint.key"
    return path, generate_key_file(path)


def _settings(tmp_path: Path, key: tuple[Path, str] | None = None, **audit: object) -> TableSettings:
    signing = {} if key is None else {"key_file": key[0], "public_key": key[1]}
    return TableSettings(table_id="t1", data_dir=tmp_path, audit=AuditSettings(**signing, **audit))


def _play(service: TableService) -> str:
    state = service.open_round({3: Wager(main=2500)}, actor="dealer-ann")
    service.record_dice(DiceRolled(faces=(1, 1, 1), source="rng"))
    piles, unused = deal({1: BANKER, 3: POSITION_3}, start=3)
    service.record_deal(PilesDealt(piles=piles, unused=unused))
    service.set_player(3, ["As", "Ah", "9c", "8c", "2c"], ["Kd", "Kh"], actor="dealer-ann")
    service.set_dealer(["Ac", "9h", "5c", "3d", "2h"], ["Qd", "7s"], actor="dealer-ann")
    service.settle()
    return state.round_id


def _table(
    engine: Engine, tmp_path: Path, rounds: int = 2, key: tuple[Path, str] | None = None
) -> TableService:
    service = TableService(_settings(tmp_path, key), engine)
    service.resume()
    for _ in range(rounds):
        _play(service)
    return service


def _check(engine: Engine, **options: object) -> RecordReport:
    with read_snapshot(engine) as session:
        return check_record(session, rules=PinnedRules(), **options)  # type: ignore[arg-type]


def _lines(report: RecordReport) -> list[str]:
    return [b.describe() for b in report.chain.breaks] + [f.describe() for f in report.findings]


def _refuses_to_deal(engine: Engine, tmp_path: Path, key: tuple[Path, str] | None = None) -> TableService:
    """A fresh start of the table on this store: it does not deal, and says why."""
    service = TableService(_settings(tmp_path, key), engine)
    service.resume()
    assert service.record_broken is not None
    with pytest.raises(TableRefused, match="the record is broken"):
        service.open_round({3: Wager(main=2500)}, actor="dealer-ann")
    return service


def _sql(engine: Engine, statement: str, **params: object) -> None:
    with engine.begin() as connection:
        connection.execute(text(statement), params)


def _rehash_from(engine: Engine, table_id: str, seq: int) -> None:
    """What an insider who knows the layout does after an edit: re-hash every row from ``seq``
    on (and the head), so that every link holds again."""
    with engine.connect() as connection:
        rows = connection.execute(
            text("SELECT seq, round_id, kind, actor, payload FROM events WHERE table_id = :t ORDER BY seq"),
            {"t": table_id},
        ).all()
    with read_snapshot(engine) as session:
        times = {e.seq: e.created_at for e in list_events(session, table_id=table_id)}
    from table_controller.storage.chain import GENESIS_HASH, format_timestamp

    previous = GENESIS_HASH
    updates = []
    for row_seq, round_id, kind, actor, payload in rows:
        if row_seq >= seq:
            digest = ChainLink(
                table_id, row_seq, round_id, kind, actor, format_timestamp(times[row_seq]), previous, payload
            ).digest()
            updates.append((row_seq, previous, digest))
            previous = digest
        else:
            with engine.connect() as connection:
                previous = connection.execute(
                    text("SELECT hash FROM events WHERE table_id = :t AND seq = :s"),
                    {"t": table_id, "s": row_seq},
                ).scalar_one()
    for row_seq, prev, digest in updates:
        tamper(
            engine,
            "UPDATE events SET prev_hash = :p, hash = :h WHERE table_id = :t AND seq = :s",
            p=prev,
            h=digest,
            t=table_id,
            s=row_seq,
        )
    last = rows[-1][0]
    _sql(
        engine,
        "UPDATE chain_heads SET last_seq = :s, last_hash = :h WHERE table_id = :t",
        s=last,
        h=previous,
        t=table_id,
    )


# --------------------------------------------------------------------------- the money is chained


def test_a_settled_round_chains_its_whole_settlement_and_the_record_is_consistent(engine, tmp_path):
    _table(engine, tmp_path, rounds=1)
    with read_snapshot(engine) as session:
        settled = [e for e in list_events(session, table_id="t1") if e.kind == "round.settled"]
    result = json.loads(settled[0].payload)["result"]
    (position,) = [p for p in result["positions"] if p["position"] == 3]
    assert (position["outcome"], position["win"], position["commission"], position["net"]) == (
        "win",
        WIN,
        COMMISSION,
        NET,
    )
    report = _check(engine)
    assert report.ok, report.describe()
    assert report.rounds_checked == 1 and report.rounds_unchained_settlement == 0


def test_a_projections_money_edited_is_named_and_the_table_does_not_deal(engine, tmp_path):
    _table(engine, tmp_path)
    _sql(
        engine,
        "UPDATE round_positions SET net_cents = net_cents + 100000, outcome = 'win'"
        " WHERE round_id = 't1-1' AND position = 3",
    )
    _sql(engine, "UPDATE rounds SET house_result_cents = house_result_cents - 100000 WHERE round_id = 't1-1'")
    report = _check(engine)
    assert report.chain.ok  # the links hold: only the re-derivation sees it
    assert "round t1-1 position 3: net_cents: chained 2375, stored 102375" in _lines(report)
    assert f"round t1-1: house_result_cents: chained {-NET}, stored {-NET - 100000}" in _lines(report)
    service = _refuses_to_deal(engine, tmp_path)
    # the pit runs on for investigation: a chained override naming the findings
    named = service.override_record("pit-bob", "projection under investigation")
    assert "round t1-1 position 3: net_cents: chained 2375, stored 102375" in named
    assert _play(service) == "t1-3"
    with read_snapshot(engine) as session:
        overrides = [e for e in list_events(session, table_id="t1") if e.kind == "audit.override"]
    assert overrides[0].actor == "pit-bob"
    # a restart keeps the override for the same findings, and deals
    again = TableService(_settings(tmp_path), engine)
    again.resume()
    assert again.record_broken is None


def test_a_chained_settlement_that_differs_from_the_game_core_is_named(engine, tmp_path):
    _table(engine, tmp_path, rounds=1)
    with read_snapshot(engine) as session:
        (settled,) = [e for e in list_events(session, table_id="t1") if e.kind == "round.settled"]
    payload = json.loads(settled.payload)
    for position in payload["result"]["positions"]:
        if position["position"] == 3:
            position["net"] = 999_999
    tamper(
        engine,
        "UPDATE events SET payload = :p WHERE id = :i",
        p=json.dumps(payload, sort_keys=True, separators=(",", ":")),
        i=settled.id,
    )
    _rehash_from(engine, "t1", settled.seq)
    lines = _lines(_check(engine))
    assert "round t1-1: settlement positions[position 3].net: chained 999999, re-derived 2375" in lines


# --------------------------------------------------------------------------- people


def test_a_users_role_edited_and_a_user_inserted_are_named(engine, tmp_path):
    _table(engine, tmp_path, rounds=1)
    with unit_of_work(engine) as session:
        add_user(session, name="ann", role=Role.DEALER, keyed_by="admin-joe")
        add_user(session, name="bob", role=Role.PIT)
        change_role(session, name="bob", role=Role.SURVEILLANCE, actor="admin-joe")
    assert _check(engine).ok
    _sql(engine, "UPDATE users SET role = 'admin' WHERE name = 'ann'")
    _sql(
        engine,
        "INSERT INTO users (name, role, token_hash, created_at, disabled, confirmed)"
        " VALUES ('eve', 'admin', :h, :t, false, true)",
        h="ab" * 32,
        t="2026-01-01 00:00:00.000000" if engine.dialect.name == "sqlite" else "2026-01-01T00:00:00+00:00",
    )
    lines = _lines(_check(engine))
    assert "user ann: role: chained 'dealer', stored 'admin'" in lines
    assert (
        "user eve: in the users table but never in the people chain (inserted behind the store's back)"
        in lines
    )
    assert not any(line.startswith("user bob") for line in lines)  # a chained role change is not a finding
    _refuses_to_deal(engine, tmp_path)


def test_a_scope_edited_behind_the_stores_back_is_named(engine, tmp_path):
    _table(engine, tmp_path, rounds=1)
    with unit_of_work(engine) as session:
        add_user(session, name="ann", role=Role.DEALER, table_id="t1")
        add_user(session, name="bob", role=Role.PIT)
        set_scope(session, name="bob", pit="pit-a", table_id=None, actor="admin-joe")
    assert _check(engine).ok
    _sql(engine, "UPDATE users SET table_id = 't2' WHERE name = 'ann'")  # a dealer moved to another table
    _sql(engine, "UPDATE users SET pit = NULL WHERE name = 'bob'")  # a pit user let loose on every table
    lines = _lines(_check(engine))
    assert "user ann: table_id: chained 't1', stored 't2'" in lines
    assert "user bob: pit: chained 'pit-a', stored None" in lines
    _refuses_to_deal(engine, tmp_path)
    # a person last chained before scopes existed (migration 0007) had none: a scope set now is named
    old = json.dumps({"name": "cy", "role": "pit", "disabled": False, "token_hash": "ab" * 32})
    assert people_from_events([(1, "user.added", old)])["cy"].fields["pit"] is None


# --------------------------------------------------------------------------- rewrites: checkpoints


def test_a_row_edited_and_the_rest_re_hashed_is_caught_by_the_signed_checkpoints(engine, tmp_path, key):
    service = _table(engine, tmp_path, rounds=2, key=key)
    signed = service.checkpoint("shift-end")
    assert signed is not None
    file = tmp_path / "checkpoints.jsonl"
    assert [c for c in read_checkpoint_file(file) if c.table_id == "t1"] == [signed]
    tamper(engine, "UPDATE events SET actor = 'dealer-eve' WHERE table_id = 't1' AND seq = 2")
    _rehash_from(engine, "t1", 2)
    without = _check(engine)
    assert without.chain.ok  # every link holds again: only a signature outside the database tells
    report = _check(engine, checkpoints=read_checkpoint_file(file), public_key=key[1])
    lines = _lines(report)
    where = f"checkpoint of table t1 at seq {signed.seq} ({signed.at})"
    assert any(
        line.startswith(f"{where}: the row at this seq") and "(the chain was rewritten)" in line
        for line in lines
    )
    _refuses_to_deal(engine, tmp_path, key)  # the chained checkpoint alone names it at start


def test_two_rows_swapped_are_named(engine, tmp_path):
    _table(engine, tmp_path, rounds=1)
    tamper(engine, "UPDATE events SET seq = 1000 WHERE table_id = 't1' AND seq = 3")
    tamper(engine, "UPDATE events SET seq = 3 WHERE table_id = 't1' AND seq = 4")
    tamper(engine, "UPDATE events SET seq = 4 WHERE table_id = 't1' AND seq = 1000")
    report = _check(engine)
    # the row now at seq 3 links to the old seq 3, not to seq 2: named at seq 3
    assert [(b.seq, b.kind.value) for b in report.chain.breaks][:1] == [(3, "prev-hash-mismatch")]
    _refuses_to_deal(engine, tmp_path)


def test_a_truncated_chain_with_its_head_fixed_is_caught(engine, tmp_path, key):
    service = _table(engine, tmp_path, rounds=2, key=key)
    signed = service.checkpoint("shutdown")
    assert signed is not None
    with engine.connect() as connection:
        opened_2 = connection.execute(
            text(
                "SELECT seq FROM events WHERE table_id = 't1' AND round_id = 't1-2' AND kind = 'round.opened'"
            )
        ).scalar_one()
        last = connection.execute(
            text("SELECT hash FROM events WHERE table_id = 't1' AND seq = :s"), {"s": opened_2 - 1}
        ).scalar_one()
    tamper(engine, "DELETE FROM events WHERE table_id = 't1' AND seq >= :s", s=opened_2)
    _sql(
        engine,
        "UPDATE chain_heads SET last_seq = :s, last_hash = :h WHERE table_id = 't1'",
        s=opened_2 - 1,
        h=last,
    )
    report = _check(
        engine, checkpoints=read_checkpoint_file(tmp_path / "checkpoints.jsonl"), public_key=key[1]
    )
    lines = _lines(report)
    assert report.chain.ok
    assert "round t1-2: in the rounds table with no round.opened in the chain (inserted)" in lines
    assert (
        f"checkpoint of table t1 at seq {signed.seq} ({signed.at}): the chain no longer reaches this seq"
        " (truncated, or the table wiped)"
    ) in lines
    _refuses_to_deal(engine, tmp_path, key)


def test_a_forged_row_inserted_in_the_middle_and_re_hashed_is_caught_by_the_checkpoint_file(
    engine, tmp_path, key
):
    service = _table(engine, tmp_path, rounds=1, key=key)
    signed = service.checkpoint("every-rounds")
    assert signed is not None
    tamper(engine, "UPDATE events SET seq = seq + 1000 WHERE table_id = 't1' AND seq >= 3")
    tamper(engine, "UPDATE events SET seq = seq - 999 WHERE table_id = 't1' AND seq >= 1003")
    stamp = "2026-01-01 00:00:00.000000" if engine.dialect.name == "sqlite" else "2026-01-01T00:00:00+00:00"
    tamper(
        engine,
        "INSERT INTO events (table_id, seq, round_id, kind, actor, created_at, payload, prev_hash, hash)"
        " VALUES ('t1', 3, NULL, 'table.opened', 'pit-eve', :c, '{}', :z, :z)",
        c=stamp,
        z="0" * 64,
    )
    _rehash_from(engine, "t1", 3)
    report = _check(
        engine, checkpoints=read_checkpoint_file(tmp_path / "checkpoints.jsonl"), public_key=key[1]
    )
    assert any("(the chain was rewritten)" in line for line in _lines(report))
    _refuses_to_deal(engine, tmp_path, key)  # the chained checkpoint and the daemon's own file


def test_a_wiped_table_is_caught_by_the_checkpoint_file(engine, tmp_path, key):
    service = _table(engine, tmp_path, rounds=1, key=key)
    signed = service.checkpoint("shutdown")
    assert signed is not None
    tamper(engine, "DELETE FROM events WHERE table_id = 't1'")
    _sql(engine, "DELETE FROM chain_heads WHERE table_id = 't1'")
    _sql(engine, "DELETE FROM round_positions")
    _sql(engine, "DELETE FROM rounds")
    assert _check(engine).ok  # nothing left inside the database says a table was there
    report = _check(
        engine, checkpoints=read_checkpoint_file(tmp_path / "checkpoints.jsonl"), public_key=key[1]
    )
    assert _lines(report) == [
        f"checkpoint of table t1 at seq {signed.seq} ({signed.at}): the chain no longer reaches this seq"
        " (truncated, or the table wiped)"
    ]
    _refuses_to_deal(engine, tmp_path, key)  # the daemon's own file still holds the line


def test_a_checkpoint_signed_with_another_key_is_named_forged(engine, tmp_path, key):
    service = _table(engine, tmp_path, rounds=1, key=key)
    signed = service.checkpoint("shutdown")
    assert signed is not None
    other = generate_key_file(tmp_path / "other.key")
    report = _check(engine, checkpoints=[signed], public_key=other)
    assert any(
        "its signature does not verify with the configured public key (forged)" in line
        for line in _lines(report)
    )


# --------------------------------------------------------------------------- times read strictly


@pytest.mark.parametrize("suffix", [" FORGED", "+02:00"])
def test_a_timestamps_text_forged_is_named_by_its_row_not_a_crash(engine, tmp_path, suffix):
    _table(engine, tmp_path, rounds=1)
    if engine.dialect.name == "sqlite":
        tamper(
            engine,
            "UPDATE events SET created_at = created_at || :x WHERE table_id = 't1' AND seq = 2",
            x=suffix,
        )
        expected = "unreadable-field"
    else:  # timestamptz holds no text: the nearest forgery is another moment
        tamper(
            engine,
            "UPDATE events SET created_at = created_at + interval '2 hours'"
            " WHERE table_id = 't1' AND seq = 2",
        )
        expected = "hash-mismatch"
    report = _check(engine)
    assert [(b.table_id, b.seq, b.kind.value) for b in report.chain.breaks] == [("t1", 2, expected)]
    if engine.dialect.name == "sqlite":
        assert (
            "time stored as '" in report.chain.breaks[0].detail
            and suffix.strip() in report.chain.breaks[0].detail
        )
    _refuses_to_deal(engine, tmp_path)


# --------------------------------------------------------------------------- rules pinned by content


def test_an_edited_way_file_is_a_new_version_and_old_rounds_keep_theirs(engine, tmp_path, monkeypatch):
    ways = tmp_path / "ways"
    ways.mkdir()
    shutil.copy(Path(__file__).resolve().parents[1] / "config" / "house_ways" / "house-way-002.toml", ways)
    service = TableService(_settings(tmp_path), engine)
    service._version = current_rules(service.settings.table_rules(), "house-way-002", ways)
    service.resume()
    _play(service)
    way = ways / "house-way-002.toml"
    way.write_text(way.read_text() + "\n# edited after round t1-1\n")
    _play(service)
    with read_snapshot(engine) as session:
        opened = [
            json.loads(e.payload) for e in list_events(session, table_id="t1") if e.kind == "round.opened"
        ]
    first, second = (o["evidence"]["house_way"] for o in opened)
    assert first != second  # the edit is a new version, used by the next round
    assert _check(engine).ok  # each round replays under its own version
    # the stored bytes of round t1-1's version edited behind the store's back: named
    _sql(engine, "UPDATE evidence SET content = :c WHERE sha256 = :s", c=b"name = 'x'", s=first)
    lines = _lines(_check(engine))
    assert any(
        line.startswith("round t1-1: the rules it was opened under cannot be loaded by hash")
        for line in lines
    )
    assert any(
        line.startswith(f"rules house-way 'house-way-002' sha256 {first}: its content now hashes to")
        for line in lines
    )
    assert not any(line.startswith("round t1-2") for line in lines)
    _refuses_to_deal(engine, tmp_path)


# --------------------------------------------------------------------------- the daemon while it plays


def test_a_row_edited_in_the_middle_while_the_table_plays_stops_it_within_the_check_interval(
    engine, tmp_path
):
    service = TableService(_settings(tmp_path, check_every_rounds=2), engine)
    service.resume()
    _play(service)
    tamper(engine, "UPDATE events SET actor = 'dealer-eve' WHERE table_id = 't1' AND seq = 2")
    with pytest.raises(TableRefused, match="the record is broken: 1 finding"):
        _play(service)  # the second round opened is due its check: the edit is found, no deal
    with read_snapshot(engine) as session:
        alerts = [
            json.loads(e.payload) for e in list_events(session, table_id="t1") if e.kind == "alert.raised"
        ]
    assert [a["alert"] for a in alerts if a["alert"] == "record-broken"] == ["record-broken"]


def test_an_untouched_record_checked_at_every_round_stays_whole(engine, tmp_path):
    service = TableService(_settings(tmp_path, check_every_rounds=1), engine)
    service.resume()
    for _ in range(3):
        _play(service)  # each opening checks the rows since the last check, and a window
    assert service.record_broken is None


def test_a_start_chains_the_hash_of_the_installed_code(engine, tmp_path):
    service = TableService(_settings(tmp_path), engine)
    service.resume()
    service.record_start()
    with read_snapshot(engine) as session:
        (started,) = [e for e in list_events(session, table_id="t1") if e.kind == "daemon.started"]
    payload = json.loads(started.payload)
    assert len(payload["code_sha256"]) == 64 and payload["files"] > 50


def test_checkpoints_are_written_every_n_settled_rounds(engine, tmp_path, key):
    service = TableService(_settings(tmp_path, key, checkpoint_every_rounds=2), engine)
    service.resume()
    for _ in range(4):
        _play(service)
    service.set_table_open(False, actor="pit-bob")  # a shift's end: the table closed
    written = read_checkpoint_file(tmp_path / "checkpoints.jsonl")
    assert [c.reason for c in written if c.table_id == "t1"] == [
        "every-rounds",
        "every-rounds",
        "table-closed",
    ]
    assert _check(engine, checkpoints=written, public_key=key[1]).ok


def test_a_key_file_that_is_not_the_configured_public_keys_is_refused(engine, tmp_path, key):
    other = generate_key_file(tmp_path / "other.key")
    with pytest.raises(CheckpointKeyError, match=r"is not the key of audit\.public_key"):
        RecordWatch(engine, _settings(tmp_path, (key[0], other)), PinnedRules())


# --------------------------------------------------------------------------- older records


def test_a_round_recorded_before_the_pins_and_the_chained_settlement_still_verifies(engine, tmp_path):
    """An opening without ``evidence`` (rules by the way's name) and a settlement stored as
    ``"result": null``, as rounds were recorded before: re-derived and compared with the
    projections, counted, and whole."""
    from table_controller.record.recorder import RoundRecorder, _project
    from table_controller.round.events import DealerSet, PlayerSet, RoundSettled
    from table_controller.round.machine import apply
    from table_controller.storage import append_event

    recorder = RoundRecorder(engine, "t1", lambda opened: rules_from_snapshot(opened.rules))
    version = current_rules(_settings(tmp_path).table_rules(), "house-way-002")
    state, rules = recorder.open(
        game="standard", rules=version.snapshot, wagers={3: Wager(main=2500)}, actor="ann"
    )
    piles, unused = deal({1: BANKER, 3: POSITION_3}, start=3)
    for event in (
        DiceRolled(faces=(1, 1, 1), source="rng"),
        PilesDealt(piles=piles, unused=unused),
        PlayerSet(position=3, high=["As", "Ah", "9c", "8c", "2c"], low=["Kd", "Kh"]),
        DealerSet(high=["Ac", "9h", "5c", "3d", "2h"], low=["Qd", "7s"]),
    ):
        state = recorder.record(state, event, rules)
    settled = RoundSettled()
    new = apply(state, settled, rules)
    with unit_of_work(engine) as session:  # the settlement as it was stored before: no result
        append_event(
            session,
            table_id="t1",
            round_id=state.round_id,
            kind=settled.kind,
            actor="system",
            payload=settled.model_dump(mode="json"),
        )
        _project(session, new, settled)
    report = _check(engine)
    assert report.ok, report.describe()
    assert (report.rounds_checked, report.rounds_unchained_settlement) == (1, 1)
    # and its projection's money edited is still named, from the re-derivation
    _sql(engine, "UPDATE round_positions SET net_cents = 0 WHERE round_id = 't1-1' AND position = 3")
    assert "round t1-1 position 3: net_cents: chained 2375, stored 0" in _lines(_check(engine))


def test_an_open_round_whose_pinned_way_was_edited_in_the_store_is_held_at_start_not_fatal(engine, tmp_path):
    service = TableService(_settings(tmp_path), engine)
    service.resume()
    state = service.open_round({3: Wager(main=2500)}, actor="dealer-ann")
    _sql(engine, "UPDATE evidence SET content = :c WHERE kind = 'house-way'", c=b"name = 'x'")
    again = TableService(_settings(tmp_path), engine)
    restored = again.resume()
    assert restored is not None and restored.round_id == state.round_id
    assert again.held is not None and "cannot be loaded" in again.held
    assert again.record_broken is not None


def test_the_stores_own_chain_names_are_not_table_ids():
    for name in ("people", "evidence"):
        with pytest.raises(ValueError, match="reserved for the store's own chain"):
            TableSettings(table_id=name)


def test_an_override_that_cannot_be_chained_is_refused_not_a_crash(engine, tmp_path):
    _table(engine, tmp_path, rounds=1)
    tamper(
        engine,
        "DELETE FROM events WHERE table_id = 't1'"
        " AND seq = (SELECT max(seq) FROM events WHERE table_id = 't1')",
    )
    service = _refuses_to_deal(engine, tmp_path)  # a deleted tail: the head no longer matches
    with pytest.raises(TableRefused, match="the override cannot be chained"):
        service.override_record("pit-bob", "investigating the tail")
    assert service.record_broken is not None
