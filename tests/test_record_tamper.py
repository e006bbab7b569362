"""The record as evidence, second pass: the corners the first pass left open (docs/audit-chain.md,
"What catches what"). Each tampering is named by the whole check behind ``audit verify
--checkpoints`` and refused by a fresh start of the table, which never crashes on it: a
``record-broken`` alert is chained, no round is dealt, and the pit's override is chained.

Runs on SQLite and PostgreSQL (the ``engine`` fixture); the tampering is raw SQL behind the
store's back, as an insider with the database owner's rights would do it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DataError

from table_controller.round.events import Wager
from table_controller.settings import AuditSettings, TableSettings
from table_controller.storage import read_snapshot, unit_of_work
from table_controller.storage.checkpoints import (
    Checkpoint,
    generate_key_file,
    load_private_key,
    read_checkpoint_file,
    sign_people,
)
from table_controller.storage.users import Role, add_user, set_scope
from table_controller.table.service import TableRefused, TableService

from .storage.helpers import tamper
from .test_record_evidence import (
    _check,
    _lines,
    _play,
    _refuses_to_deal,
    _rehash_from,
    _settings,
    _sql,
    _table,
)


@pytest.fixture
def key(tmp_path: Path) -> tuple[Path, str]:
    path = tmp_path / "keys" / "checkpoint.key"
    return path, generate_key_file(path)


def _start(engine: Engine, tmp_path: Path, key: tuple[Path, str] | None = None) -> TableService:
    """A fresh daemon start on this store, in run_table's order (daemon/run.py): the service, the
    code's hash chained, the floor, the device events the conductor loads, then the resume."""
    service = TableService(_settings(tmp_path, key), engine)
    service.record_start()
    service.register_on_floor()
    service.recent_device_events()
    service.resume()
    return service


def _payloads(engine: Engine, kind: str) -> list[tuple[str, dict]]:
    """(actor, payload) of the table's events of ``kind``, read raw (a forged time stays unread)."""
    with engine.connect() as connection:
        rows = connection.execute(
            text("SELECT actor, payload FROM events WHERE table_id = 't1' AND kind = :k ORDER BY seq"),
            {"k": kind},
        ).all()
    return [(actor, json.loads(payload)) for actor, payload in rows]


def _alerts(engine: Engine, kind: str) -> list[dict]:
    return [a for _actor, a in _payloads(engine, "alert.raised") if a["alert"] == kind]


def _runs_on_after_the_pits_override(
    engine: Engine, tmp_path: Path, service: TableService, key: tuple[Path, str] | None = None
) -> TableService:
    """Refused, alerted, then the pit runs on (chained) and the table deals; a restart keeps it."""
    assert service.record_broken is not None
    assert _alerts(engine, "record-broken"), "the finding was not chained as a record-broken alert"
    named = service.override_record("pit-bob", "forged row under investigation")
    assert named
    assert [actor for actor, _ in _payloads(engine, "audit.override")] == ["pit-bob"]
    if not service.table_open:
        service.set_table_open(True, actor="pit-bob")
    _play(service)
    again = _start(engine, tmp_path, key)
    if not _regrown(again):
        assert again.record_broken is None, again.record_broken
    return again


def _verify(engine: Engine, tmp_path: Path, key: tuple[Path, str] | None = None) -> str:
    """``table-controller audit verify [--checkpoints FILE --public-key HEX]`` on this store, as
    surveillance runs it with its copy of the checkpoint file: it exits 1 (a finding); its text."""
    from table_controller.record.check import audit_verify_record

    file = None if key is None else tmp_path / "checkpoints.jsonl"
    code, said = audit_verify_record(
        db_url=engine.url.render_as_string(hide_password=False),
        checkpoints_file=file,
        public_key=None if key is None else key[1],
    )
    assert code == 1, said
    if key is not None:
        assert "signed checkpoints checked" in said  # the file's and the chains' were compared
    return said


def _signed_table(engine: Engine, tmp_path: Path, key: tuple[Path, str], rounds: int = 1) -> TableService:
    """A keyed table that played ``rounds`` rounds and wrote its shutdown checkpoint (every chain
    signed, the file written): the store surveillance copies the file of, before the forgery."""
    service = _table(engine, tmp_path, rounds=rounds, key=key)
    assert service.checkpoint("shutdown") is not None
    return service


def _regrown(service: TableService) -> bool:
    """A truncated chain grows back over the seq a checkpoint signed once the table deals again:
    that seq now holds another hash, a new fact the override did not name (docs/audit-chain.md)."""
    return service.record_broken is not None and "(the chain was rewritten)" in service.record_broken


# --------------------------------------------------------------------------- no crash on a forged value


def test_a_forged_time_on_an_event_does_not_stop_the_daemons_start(engine, tmp_path, key):
    _signed_table(engine, tmp_path, key)
    if engine.dialect.name == "sqlite":
        tamper(
            engine,
            "UPDATE events SET created_at = created_at || '+02:00' WHERE table_id = 't1' AND seq = 2",
        )
    else:  # timestamptz holds no text: the nearest forgery is another moment
        tamper(
            engine,
            "UPDATE events SET created_at = created_at + interval '2 hours'"
            " WHERE table_id = 't1' AND seq = 2",
        )
    assert any(line.startswith("table t1, seq 2 ") for line in _lines(_check(engine)))
    assert "table t1, seq 2 " in _verify(engine, tmp_path, key)
    service = _start(engine, tmp_path, key)  # the device events at start read that row: no ValueError
    _refuses_to_deal(engine, tmp_path, key)
    _runs_on_after_the_pits_override(engine, tmp_path, service, key)


def test_a_forged_payload_of_the_tables_state_does_not_stop_the_daemons_start(engine, tmp_path, key):
    service = _table(engine, tmp_path, rounds=1, key=key)
    service.set_table_open(True, actor="pit-bob")  # a table.state event, the one a start restores
    assert service.checkpoint("shutdown") is not None
    tamper(
        engine,
        "UPDATE events SET payload = 'not json' WHERE table_id = 't1' AND seq ="
        " (SELECT max(seq) FROM events WHERE table_id = 't1' AND kind = 'table.state')",
    )
    assert ": hash-mismatch" in _verify(engine, tmp_path, key)
    started = _start(engine, tmp_path, key)
    assert started.record_broken is not None and started.record_broken.startswith("2 finding(s)")
    assert (
        "at start, the table's state could not be read: not JSON (Expecting value"
        in started._start_unreadable[0]
    )
    assert not started.table_open  # not known: closed until the pit opens it
    _runs_on_after_the_pits_override(engine, tmp_path, started, key)


def test_a_forged_time_on_a_projection_row_is_named_and_the_override_works(engine, tmp_path, key):
    _signed_table(engine, tmp_path, key)
    if engine.dialect.name != "sqlite":
        with pytest.raises(DataError):  # a timestamptz holds no text: PostgreSQL refuses the forgery
            _sql(engine, "UPDATE rounds SET opened_at = 'garbage' WHERE round_id = 't1-1'")
        return
    _sql(engine, "UPDATE rounds SET opened_at = opened_at || ' FORGED' WHERE round_id = 't1-1'")
    lines = _lines(_check(engine))
    assert any(line.startswith("rounds row t1-1: opened_at stored as '") for line in lines), lines
    assert "rounds row t1-1: opened_at stored as '" in _verify(engine, tmp_path, key)
    service = _start(engine, tmp_path, key)
    _runs_on_after_the_pits_override(engine, tmp_path, service, key)


# --------------------------------------------------------------------------- every projected field


def _banked_round(engine: Engine) -> str:
    """A player-banked round (seat 3 banks, the house's own hand plays against the bank), as
    tests/test_banking_service.py plays it, then a voided round."""
    from .test_banking_service import WAGERS, play_to_settled, service_with

    service = service_with(engine)
    service.resume()
    service._bank_history = service._bank_history.after(2, {})
    state = service.open_round(WAGERS, actor="dealer-ann", banker_seat=3, bank_amount=8000)
    play_to_settled(service)
    service.open_round({3: Wager(main=2500)}, actor="dealer-ann")
    service.void("pit-bob", "dealer called it off")
    return state.round_id


def test_every_kind_of_round_projects_as_its_chain_says(engine):
    banked = _banked_round(engine)
    report = _check(engine)
    assert report.ok, report.describe()
    assert report.rounds_checked == 2
    with engine.connect() as connection:
        seats = connection.execute(
            text("SELECT count(*) FROM round_positions WHERE round_id = :r AND house_hand"), {"r": banked}
        ).scalar_one()
    assert seats == 1  # the house's own hand was compared too


@pytest.mark.parametrize(
    ("column", "forged", "position"),
    [
        ("cards", "'As Ad Ac Ah Ks Kd Kc'", 3),
        ("cards", "'Zz Ah 9c 8c 2c Kd Kh'", 3),  # a code no deck has
        ("net_cents", "'abc'", 3),  # money that is not an integer (SQLite keeps it; PostgreSQL refuses)
        ("high", "'As Ah Ad Ac Ks'", 3),
        ("low", "'Kd Kh'", 1),
        ("high_category", "'four-of-a-kind'", 3),
        ("seven_card_category", "'royal flush'", 1),
        ("outcome", "'push'", 3),
        ("fouled", "true", 3),
    ],
)
def test_a_projected_hand_or_outcome_edited_is_named(engine, tmp_path, key, column, forged, position):
    _signed_table(engine, tmp_path, key)
    with engine.connect() as connection:
        chained = connection.execute(
            text(f"SELECT {column} FROM round_positions WHERE round_id = 't1-1' AND position = :p"),
            {"p": position},
        ).scalar_one()
    chained = bool(chained) if column == "fouled" else chained  # SQLite answers 0 for false
    statement = (
        f"UPDATE round_positions SET {column} = {forged} WHERE round_id = 't1-1' AND position = {position}"
    )
    if column == "net_cents" and engine.dialect.name == "postgresql":
        with pytest.raises(DataError):  # an integer column holds integers
            _sql(engine, statement)
        return
    _sql(engine, statement)
    report = _check(engine)
    assert report.chain.ok  # the links hold: the projection alone was edited
    named = [
        line for line in _lines(report) if line.startswith(f"round t1-1 position {position}: {column}: ")
    ]
    assert named and named[0].startswith(f"round t1-1 position {position}: {column}: chained {chained!r}"), (
        _lines(report)
    )
    assert named[0] in _verify(engine, tmp_path, key)
    _refuses_to_deal(engine, tmp_path, key)
    _runs_on_after_the_pits_override(engine, tmp_path, _start(engine, tmp_path, key), key)


def test_who_banked_and_the_dice_edited_are_named(engine, tmp_path):
    banked = _banked_round(engine)
    _sql(engine, "UPDATE rounds SET banker_seat = 5, die_1 = 6 WHERE round_id = :r", r=banked)
    _sql(engine, "UPDATE round_positions SET house_hand = false WHERE round_id = :r AND house_hand", r=banked)
    lines = _lines(_check(engine))
    assert f"round {banked}: banker_seat: chained 3, stored 5" in lines
    assert f"round {banked}: die_1: chained 1, stored 6" in lines
    assert any(
        line.startswith(f"round {banked} position ") and ": house_hand: chained True" in line
        for line in lines
    )
    assert f"round {banked}: banker_seat: chained 3, stored 5" in _verify(engine, tmp_path)  # no key here
    _refuses_to_deal(engine, tmp_path)
    _runs_on_after_the_pits_override(engine, tmp_path, _start(engine, tmp_path))


# --------------------------------------------------------------------------- people, anchored


def _people_signed(engine: Engine, tmp_path: Path, key: tuple[Path, str]) -> TableService:
    """A keyed table: a round, two people added as the console adds them (signed in the change's
    transaction), then a checkpoint of every chain (a shift's end)."""
    service = _table(engine, tmp_path, rounds=1, key=key)
    signing = load_private_key(key[0])
    with unit_of_work(engine) as session:
        add_user(session, name="ann", role=Role.DEALER, keyed_by="admin-cli")
        sign_people(session, key=signing, actor="admin-cli")
        add_user(session, name="bob", role=Role.PIT, keyed_by="admin-cli")
        sign_people(session, key=signing, actor="admin-cli")
    service.checkpoint("shift-end")
    return service


def _file(tmp_path: Path) -> list[Checkpoint]:
    return read_checkpoint_file(tmp_path / "checkpoints.jsonl")


def test_a_checkpoint_signs_the_head_of_every_chain_and_a_signed_record_is_whole(engine, tmp_path, key):
    _people_signed(engine, tmp_path, key)
    chains = {c.table_id for c in _file(tmp_path)}
    assert chains == {"t1", "people", "evidence"}  # no shift was opened: the floor chain is empty
    report = _check(engine, checkpoints=_file(tmp_path), public_key=key[1])
    assert report.ok, report.describe()


def test_a_forged_user_appended_with_a_correct_hash_and_head_is_named(engine, tmp_path, key):
    _people_signed(engine, tmp_path, key)
    with unit_of_work(engine) as session:  # the project's own append: hash, prev_hash and head all right
        add_user(session, name="eve", role=Role.PIT, keyed_by="admin-cli")
    report = _check(engine, checkpoints=_file(tmp_path), public_key=key[1])
    assert report.chain.ok and not [f for f in report.findings if f.where.startswith("user ")]
    (named,) = [line for line in _lines(report) if line.startswith("people chain seq ")]
    assert "user.added of 'eve' after the people chain's newest signed checkpoint" in named
    assert named in _verify(engine, tmp_path, key)
    assert not _check(engine).findings  # without the key nothing inside the database tells
    service = _refuses_to_deal(engine, tmp_path, key)
    _runs_on_after_the_pits_override(engine, tmp_path, service, key)


def test_a_role_rewritten_with_the_people_chain_re_hashed_is_named_by_its_checkpoints(engine, tmp_path, key):
    _people_signed(engine, tmp_path, key)
    with engine.connect() as connection:
        seq, payload = connection.execute(
            text(
                "SELECT seq, payload FROM events WHERE table_id = 'people' AND kind = 'user.added'"
                " ORDER BY seq"
            )
        ).first()
    forged = json.loads(payload)
    assert forged["name"] == "ann"
    forged["role"] = "admin"
    tamper(
        engine,
        "UPDATE events SET payload = :p WHERE table_id = 'people' AND seq = :s",
        p=json.dumps(forged, sort_keys=True, separators=(",", ":")),
        s=seq,
    )
    _sql(engine, "UPDATE users SET role = 'admin' WHERE name = 'ann'")
    _rehash_from(engine, "people", seq)
    without = _check(engine)
    assert without.ok, without.describe()  # every link holds, the row agrees with the chain
    lines = _lines(_check(engine, checkpoints=_file(tmp_path), public_key=key[1]))
    assert any(
        line.startswith("checkpoint of table people at seq ") and "(the chain was rewritten)" in line
        for line in lines
    ), lines
    assert "checkpoint of table people at seq " in _verify(engine, tmp_path, key)
    service = _refuses_to_deal(engine, tmp_path, key)
    _runs_on_after_the_pits_override(engine, tmp_path, service, key)


# --------------------------------------------------------------------------- the daemon reads its own file


def test_a_consistent_rewrite_that_renames_the_chained_checkpoints_is_refused_at_start(engine, tmp_path, key):
    service = _table(engine, tmp_path, rounds=2, key=key)
    signed = service.checkpoint("shutdown")
    assert signed is not None
    tamper(engine, "UPDATE events SET actor = 'dealer-eve' WHERE table_id = 't1' AND seq = 2")
    tamper(
        engine, "UPDATE events SET kind = 'audit.note' WHERE table_id = 't1' AND kind = 'audit.checkpoint'"
    )
    _rehash_from(engine, "t1", 2)
    inside = _check(engine, public_key=key[1])
    assert inside.ok, inside.describe()  # the chain, its head and what it still calls checkpoints agree
    lines = _lines(_check(engine, checkpoints=_file(tmp_path), public_key=key[1]))
    where = f"checkpoint of table t1 at seq {signed.seq} ({signed.at})"
    assert any(line.startswith(where) and "(the chain was rewritten)" in line for line in lines), lines
    assert where in _verify(engine, tmp_path, key)
    started = _start(engine, tmp_path, key)  # the daemon compares the store with the file it wrote
    assert started.record_broken is not None
    _refuses_to_deal(engine, tmp_path, key)
    _runs_on_after_the_pits_override(engine, tmp_path, started, key)


def test_the_newest_checkpoint_event_renamed_and_the_tail_re_hashed_is_refused_at_start(
    engine, tmp_path, key
):
    """Only the checkpoint's own event is renamed: the row at the seq it signed is untouched, so
    its hash still matches; the file's line is no longer chained, and that is named."""
    service = _table(engine, tmp_path, rounds=1, key=key)
    signed = service.checkpoint("shutdown")
    assert signed is not None
    tamper(
        engine, "UPDATE events SET kind = 'audit.note' WHERE table_id = 't1' AND seq = :s", s=signed.seq + 1
    )
    _rehash_from(engine, "t1", signed.seq + 1)
    assert _check(engine, public_key=key[1]).ok
    expected = (
        f"checkpoint of table t1 at seq {signed.seq} ({signed.at}): in the checkpoint file but no longer in"
        " its chain (its audit.checkpoint event was removed or renamed)"
    )
    assert expected in _lines(_check(engine, checkpoints=_file(tmp_path), public_key=key[1]))
    assert expected in _verify(engine, tmp_path, key)
    started = _start(engine, tmp_path, key)
    assert started.record_broken is not None and expected in started.record_broken
    _runs_on_after_the_pits_override(engine, tmp_path, started, key)


def test_the_last_rounds_truncated_with_the_head_fixed_are_refused_at_start(engine, tmp_path, key):
    service = _table(engine, tmp_path, rounds=3, key=key)
    signed = service.checkpoint("shutdown")
    assert signed is not None
    with engine.connect() as connection:
        opened_3 = connection.execute(
            text(
                "SELECT seq FROM events WHERE table_id = 't1' AND round_id = 't1-3' AND kind = 'round.opened'"
            )
        ).scalar_one()
        last = connection.execute(
            text("SELECT hash FROM events WHERE table_id = 't1' AND seq = :s"), {"s": opened_3 - 1}
        ).scalar_one()
    # every trace of round 3 goes: its events, the shutdown checkpoint after it, its projections
    tamper(engine, "DELETE FROM events WHERE table_id = 't1' AND seq >= :s", s=opened_3)
    _sql(
        engine,
        "UPDATE chain_heads SET last_seq = :s, last_hash = :h WHERE table_id = 't1'",
        s=opened_3 - 1,
        h=last,
    )
    _sql(engine, "DELETE FROM round_positions WHERE round_id = 't1-3'")
    _sql(engine, "DELETE FROM rounds WHERE round_id = 't1-3'")
    inside = _check(engine, public_key=key[1])
    assert inside.ok, inside.describe()
    expected = (
        f"checkpoint of table t1 at seq {signed.seq} ({signed.at}): the chain no longer reaches this seq"
        " (truncated, or the table wiped)"
    )
    assert expected in _lines(_check(engine, checkpoints=_file(tmp_path), public_key=key[1]))
    assert expected in _verify(engine, tmp_path, key)
    started = _start(engine, tmp_path, key)
    assert started.record_broken is not None and expected in started.record_broken
    again = _runs_on_after_the_pits_override(engine, tmp_path, started, key)
    assert f"checkpoint of table t1 at seq {signed.seq} ({signed.at}): the row at this seq" in str(
        again.record_broken
    )


def test_a_checkpoint_line_signed_with_another_key_is_named_forged_and_refused_at_start(
    engine, tmp_path, key
):
    """A forged checkpoint: a line for a rewritten head, signed with a key that is not the
    table's, appended to the checkpoint file; named by the off-site verify and by the start."""
    from table_controller.storage.checkpoints import append_checkpoint_file, signed_bytes

    service = _signed_table(engine, tmp_path, key)
    signed = service.checkpoint("every-rounds")
    assert signed is not None
    other = tmp_path / "other.key"
    generate_key_file(other)
    forging = load_private_key(other)
    fake_hash = "ab" * 32
    forged = Checkpoint(
        "t1",
        signed.seq,
        fake_hash,
        signed.at,
        "shutdown",
        forging.sign(signed_bytes("t1", signed.seq, fake_hash, signed.at)).hex(),
        key[1],  # it claims the table's key: verification uses the configured one, never this
    )
    append_checkpoint_file(tmp_path / "checkpoints.jsonl", forged)
    said = _verify(engine, tmp_path, key)
    assert "its signature does not verify with the configured public key (forged)" in said
    started = _start(engine, tmp_path, key)
    assert started.record_broken is not None and "(forged)" in started.record_broken
    _runs_on_after_the_pits_override(engine, tmp_path, started, key)


def test_the_checkpoint_file_deleted_is_a_finding_at_start(engine, tmp_path, key):
    service = _table(engine, tmp_path, rounds=1, key=key)
    service.checkpoint("shutdown")
    (tmp_path / "checkpoints.jsonl").unlink()
    started = _start(engine, tmp_path, key)
    assert started.record_broken is not None
    assert "is gone or empty while the table's chain holds the checkpoints it wrote" in started.record_broken


def test_the_check_while_playing_compares_the_file_too(engine, tmp_path, key):
    service = TableService(_settings(tmp_path, key, check_every_rounds=2), engine)
    service.resume()
    _play(service)
    signed = service.checkpoint("every-rounds")
    assert signed is not None
    forged = json.loads(signed.as_line())
    forged["hash"] = "ab" * 32  # a line the key never signed, appended to the file
    with (tmp_path / "checkpoints.jsonl").open("a") as stream:
        stream.write(json.dumps(forged) + "\n")
    with pytest.raises(TableRefused, match="the record is broken"):
        _play(service)  # the second round opened is due its check


# --------------------------------------------------------------------------- the code that runs


def _release(tmp_path: Path, edit: str | None = None, signer: Path | None = None) -> tuple[Path, str]:
    """A signed release manifest of the package as installed (or with ``edit``ed, as if the installed
    file had changed since), with IT's key; returns (manifest, IT's public key)."""
    import shutil

    from table_controller.record.release import write_release
    from table_controller.record.watch import PACKAGE_DIR

    it_key = tmp_path / "it" / "release.key"
    public = generate_key_file(it_key)
    root = PACKAGE_DIR
    if edit is not None:
        root = tmp_path / "released" / "table_controller"
        shutil.copytree(PACKAGE_DIR, root, ignore=shutil.ignore_patterns("__pycache__"))
        target = root / edit
        target.write_text(target.read_text() + "\n# the released file differs from the installed one\n")
    out = tmp_path / "release.json"
    write_release(out, load_private_key(signer or it_key), root)
    return out, public


def _released_settings(tmp_path: Path, manifest: Path, public: str) -> TableSettings:
    return TableSettings(
        table_id="t1",
        data_dir=tmp_path,
        audit=AuditSettings(release_manifest=manifest, release_public_key=public),
    )


def _code_view(engine: Engine, service: TableService) -> dict:
    from table_controller.api.views import table_state
    from table_controller.storage.users import Role

    with read_snapshot(engine) as session:
        return table_state(service, session, Role.PIT).model_dump()["code"]


def test_the_installed_code_matching_its_signed_release_deals(engine, tmp_path):
    manifest, public = _release(tmp_path)
    service = TableService(_released_settings(tmp_path, manifest, public), engine)
    service.record_start()
    service.resume()
    assert service.record_broken is None
    code = _code_view(engine, service)
    assert code["matches_release"] is True and code["sha256"] == code["release_sha256"]
    _play(service)


@pytest.mark.parametrize("how", ["file-changed", "other-key"])
def test_code_that_is_not_the_signed_release_is_a_code_changed_alert_the_pit_acknowledges(
    engine, tmp_path, how
):
    if how == "file-changed":
        manifest, public = _release(tmp_path, edit="game/settlement.py")
        words = "game/settlement.py: changed since the release"
    else:
        other = tmp_path / "other.key"
        generate_key_file(other)
        manifest, public = _release(tmp_path, signer=other)
        words = "its signature does not verify with audit.release_public_key"
    service = TableService(_released_settings(tmp_path, manifest, public), engine)
    service.record_start()
    service.resume()
    assert service.record_broken is not None and "code-changed" in service.record_broken
    assert words in service.record_broken
    assert [a["alert"] for a in _alerts(engine, "code-changed")] == ["code-changed"]
    assert _code_view(engine, service)["matches_release"] is False
    with pytest.raises(TableRefused, match="code-changed"):
        service.open_round({3: Wager(main=2500)}, actor="dealer-ann")
    named = service.override_record("pit-bob", "IT is reinstalling the release")
    assert any(line.startswith("code-changed: ") for line in named)
    assert [actor for actor, _ in _payloads(engine, "audit.override")] == ["pit-bob"]
    _play(service)


def test_acknowledging_the_code_changed_alert_is_the_pits_override_of_it(engine, tmp_path):
    """Item 6: the code-changed alert is acknowledged by a pit user through the alerts API (the
    table page's alert form), with the two-person rules of every acknowledgement; that one act is
    the chained override of the finding (in the acknowledgement's transaction), so the table deals
    at once and a restart with the same code deals too. A dealer may not; the floor sends the pit
    to the table; a forged row found besides still stops the table."""
    from fastapi.testclient import TestClient

    from table_controller.api import create_app
    from table_controller.floor.app import create_floor_app
    from table_controller.floor.settings import FloorSettings

    from .api.conftest import LOOPBACK, add_people
    from .storage.helpers import tamper as forge

    manifest, public = _release(tmp_path, edit="game/settlement.py")
    settings = _released_settings(tmp_path, manifest, public)
    tokens = add_people(engine)  # ann dealer, bob pit, cy surveillance, dee admin
    settings = settings.model_copy(update={"pit": "pit-a"})
    with unit_of_work(engine) as session:
        set_scope(session, name="bob", pit="pit-a", table_id=None)  # bob sees t1 on the floor
    service = TableService(settings, engine)
    service.record_start()
    service.register_on_floor()
    service.resume()
    [alert] = _alerts(engine, "code-changed")
    with engine.connect() as connection:
        seq = connection.execute(
            text("SELECT max(seq) FROM events WHERE table_id = 't1' AND kind = 'alert.raised'")
        ).scalar_one()

    def ack(client: TestClient, path: str, role: str) -> Any:
        return client.post(
            path, headers={"Authorization": f"Bearer {tokens[role]}"}, json={"note": "IT checks"}
        )

    floor = create_floor_app(FloorSettings(db_url="sqlite://"), engine)
    with TestClient(floor, client=LOOPBACK) as client:
        refused = ack(client, f"/api/floor/tables/t1/alerts/{seq}/acknowledge", "pit")
        assert refused.status_code == 409 and refused.json()["error"] == "acknowledge-at-the-table"
    app = create_app(settings, service, engine, poll_interval=0.02)
    with TestClient(app, client=LOOPBACK) as client:
        assert ack(client, f"/api/alerts/{seq}/acknowledge", "dealer").status_code == 403
        assert _payloads(engine, "alert.acknowledged") == [] and _payloads(engine, "audit.override") == []
        assert service.record_broken is not None
        answer = ack(client, f"/api/alerts/{seq}/acknowledge", "pit")
        assert answer.status_code == 200, answer.text
        assert answer.json()["acknowledged_by"] == "bob"
        assert ack(client, f"/api/alerts/{seq}/acknowledge", "pit").status_code == 409  # once
    assert service.record_broken is None
    [(actor, override)] = _payloads(engine, "audit.override")
    assert actor == "bob" and override["alert_seq"] == seq and override["findings"] == [alert["finding"]]
    assert [a for a, _ in _payloads(engine, "alert.acknowledged")] == ["bob"]
    _play(service)
    again = TableService(settings, engine)  # a restart with the same code: acknowledged, it deals
    again.record_start()
    again.resume()
    assert again.record_broken is None
    _play(again)
    assert len(_alerts(engine, "code-changed")) == 2  # each start still says it

    # a second start's alert acknowledged while a forged row is also found: the code is run on with,
    # the forged row still stops the table
    forge(engine, "UPDATE events SET payload = 'not json' WHERE table_id = 't1' AND kind = 'dice.rolled'")
    third = TableService(settings, engine)
    third.record_start()
    third.resume()
    assert third.record_broken is not None
    with engine.connect() as connection:
        newest = connection.execute(
            text(
                "SELECT max(seq) FROM events WHERE table_id = 't1' AND kind = 'alert.raised'"
                " AND payload LIKE '%code-changed%'"
            )
        ).scalar_one()
    with TestClient(create_app(settings, third, engine, poll_interval=0.02), client=LOOPBACK) as client:
        assert ack(client, f"/api/alerts/{newest}/acknowledge", "pit").status_code == 200
    assert third.record_broken is not None and "code-changed" not in third.record_broken
    with pytest.raises(TableRefused, match="the record is broken"):
        third.open_round({3: Wager(main=2500)}, actor="dealer-ann")
