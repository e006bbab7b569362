"""The evidence pieces of the store: people who existed before migration 0005 enrolled in the
people chain, rules contents by hash, checkpoint files and keys, the window check, and the
``audit`` commands (docs/audit-chain.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import text
from sqlalchemy.engine import Engine
from typer.testing import CliRunner

from table_controller.cli.main import app
from table_controller.record.check import check_people
from table_controller.storage import append_event, list_events, read_snapshot, unit_of_work, upgrade_to_head
from table_controller.storage.audit import BreakKind, verify_range
from table_controller.storage.checkpoints import (
    Checkpoint,
    CheckpointKeyError,
    generate_key_file,
    load_private_key,
    read_checkpoint_file,
    verifies,
    write_checkpoint,
)
from table_controller.storage.migrate import alembic_config
from table_controller.storage.people import PEOPLE_CHAIN, chained_people
from table_controller.storage.rules_store import (
    EvidenceMismatchError,
    EvidenceMissingError,
    check_evidence,
    keep_evidence,
    load_evidence,
    sha256_hex,
)

from .helpers import at, tamper


def test_people_who_exist_at_the_upgrade_are_enrolled_once_in_the_people_chain(empty_engine: Engine) -> None:
    with empty_engine.begin() as connection:
        command.upgrade(alembic_config(connection), "0004")
    stamp = (
        "2024-05-01 20:15:00.000000" if empty_engine.dialect.name == "sqlite" else "2024-05-01T20:15:00+00:00"
    )
    with empty_engine.begin() as connection:
        for name, role in (("ann", "dealer"), ("bob", "pit")):
            connection.execute(
                text(
                    "INSERT INTO users (name, role, token_hash, created_at, disabled)"
                    " VALUES (:n, :r, :h, :t, false)"
                ),
                {"n": name, "r": role, "h": sha256_hex(name.encode()), "t": stamp},
            )
    upgrade_to_head(empty_engine)
    with read_snapshot(empty_engine) as session:
        people = chained_people(session)
        checked, findings = check_people(session)
    assert {name: record.fields["role"] for name, record in people.items()} == {"ann": "dealer", "bob": "pit"}
    assert (
        people["ann"].fields["token_hash"] == sha256_hex(b"ann") and people["ann"].fields["confirmed"] is True
    )
    assert (checked, findings) == (2, [])
    upgrade_to_head(empty_engine)  # idempotent: nobody enrolled twice
    with empty_engine.connect() as connection:
        kinds = connection.execute(
            text("SELECT kind, actor FROM events WHERE table_id = :t ORDER BY seq"), {"t": PEOPLE_CHAIN}
        ).all()
    assert kinds == [("user.enrolled", "migration-0005"), ("user.enrolled", "migration-0005")]


def test_rules_contents_are_kept_once_by_hash_and_refused_when_changed(engine: Engine) -> None:
    with unit_of_work(engine) as session:
        digest = keep_evidence(session, table_id="t1", kind="house-way", name="w", content=b"name = 'w'\n")
        assert (
            keep_evidence(session, table_id="t1", kind="house-way", name="w", content=b"name = 'w'\n")
            == digest
        )
    assert digest == sha256_hex(b"name = 'w'\n")
    with read_snapshot(engine) as session:
        assert load_evidence(session, sha256=digest).content == b"name = 'w'\n"
        with pytest.raises(EvidenceMissingError):
            load_evidence(session, sha256="ab" * 32)
        chained = [(e.kind, e.payload_data()["sha256"]) for e in list_events(session, table_id="evidence")]
    assert chained == [("evidence.stored", digest)]  # chained once, the first time only
    with engine.begin() as connection:
        connection.execute(text("UPDATE evidence SET content = :c"), {"c": b"name = 'v'\n"})
    with read_snapshot(engine) as session, pytest.raises(EvidenceMismatchError, match="now hashes to"):
        load_evidence(session, sha256=digest)


def test_a_content_found_unedited_on_a_connection_is_refused_there_once_edited_or_gone(
    engine: Engine,
) -> None:
    """A check remembers what it found unedited on the database connection (rules_store): the
    next check on that same connection must still see an edit, a restore and a deletion."""
    from sqlmodel import Session

    with unit_of_work(engine) as session:
        digest = keep_evidence(session, table_id="t1", kind="house-way", name="w", content=b"name = 'w'\n")
    with engine.connect() as connection:

        def check() -> None:
            with Session(bind=connection) as session:
                try:
                    check_evidence(session, [digest])
                finally:
                    connection.rollback()  # no snapshot held open while another connection writes

        check()  # found unedited: remembered on this connection
        check()
        with engine.begin() as writer:
            writer.execute(text("UPDATE evidence SET content = :c"), {"c": b"name = 'v'\n"})
        with pytest.raises(EvidenceMismatchError, match="now hashes to"):
            check()
        with engine.begin() as writer:
            writer.execute(text("UPDATE evidence SET content = :c"), {"c": b"name = 'w'\n"})
        check()  # restored byte for byte: it hashes to its key again
        with engine.begin() as writer:
            writer.execute(text("DELETE FROM evidence WHERE sha256 = :s"), {"s": digest})
        with pytest.raises(EvidenceMissingError, match=digest):
            check()


def test_a_checkpoint_signs_the_head_and_a_changed_field_no_longer_verifies(
    engine: Engine, tmp_path: Path
) -> None:
    public = generate_key_file(tmp_path / "k.pem")
    key = load_private_key(tmp_path / "k.pem")
    with unit_of_work(engine) as session:
        for i in range(3):
            append_event(
                session, table_id="t1", round_id=None, kind="x", actor="system", payload={"i": i}, now=at(i)
            )
        signed = write_checkpoint(session, key=key, table_id="t1", reason="test")
    assert (signed.seq, verifies(signed, public)) == (3, True)
    forged = Checkpoint(**{**signed.as_payload(), "seq": 2})
    assert not verifies(forged, public)
    with pytest.raises(FileExistsError):
        generate_key_file(tmp_path / "k.pem")  # a key is never overwritten
    (tmp_path / "not-a-key.pem").write_text("hello")
    with pytest.raises(CheckpointKeyError, match=r"not-a-key\.pem"):
        load_private_key(tmp_path / "not-a-key.pem")


def test_a_checkpoint_file_with_a_bad_line_is_refused_naming_the_line(tmp_path: Path) -> None:
    file = tmp_path / "checkpoints.jsonl"
    file.write_text(
        '{"table_id": "t1", "seq": 1, "hash": "' + "a" * 64 + '", "at": "x", "signature": "00"}\n{oops\n'
    )
    with pytest.raises(ValueError, match="line 2"):
        read_checkpoint_file(file)


def test_the_window_check_names_an_edit_inside_its_window_only(engine: Engine) -> None:
    with unit_of_work(engine) as session:
        for i in range(10):
            append_event(
                session, table_id="t1", round_id=None, kind="x", actor="system", payload={"i": i}, now=at(i)
            )
    tamper(engine, "UPDATE events SET actor = 'eve' WHERE table_id = 't1' AND seq = 7")
    with read_snapshot(engine) as session:
        before = verify_range(session, table_id="t1", first=1, last=5)
        holding = verify_range(session, table_id="t1", first=6, last=8)
        to_end = verify_range(session, table_id="t1", first=9)
    assert before.ok and to_end.ok and to_end.events_checked == 2
    assert [(b.seq, b.kind) for b in holding.breaks] == [(7, BreakKind.HASH_MISMATCH)]


def test_audit_keygen_and_verify_with_a_checkpoint_file(tmp_path: Path) -> None:
    runner = CliRunner()
    made = runner.invoke(app, ["audit", "keygen", "--key-file", str(tmp_path / "cp.key")])
    assert made.exit_code == 0, made.output
    public = made.output.split('public_key = "')[1].split('"')[0]
    again = runner.invoke(app, ["audit", "keygen", "--key-file", str(tmp_path / "cp.key")])
    assert again.exit_code == 2 and "never overwritten" in again.output
    from table_controller.storage import make_engine, sqlite_url

    engine = make_engine(sqlite_url(tmp_path))
    try:
        upgrade_to_head(engine)
        with unit_of_work(engine) as session:
            append_event(session, table_id="t1", round_id=None, kind="x", actor="system", payload={})
            signed = write_checkpoint(
                session, key=load_private_key(tmp_path / "cp.key"), table_id="t1", reason="t"
            )
        (tmp_path / "copy.jsonl").write_text(signed.as_line() + "\n")
        whole = runner.invoke(
            app,
            [
                "audit",
                "verify",
                "--data-dir",
                str(tmp_path),
                "--checkpoints",
                str(tmp_path / "copy.jsonl"),
                "--public-key",
                public,
            ],
        )
        assert whole.exit_code == 0, whole.output
        assert "1 signed checkpoints checked" in whole.output
        tamper(engine, "DELETE FROM events WHERE table_id = 't1'")
        with engine.begin() as connection:
            connection.execute(text("DELETE FROM chain_heads WHERE table_id = 't1'"))
        wiped = runner.invoke(
            app,
            [
                "audit",
                "verify",
                "--data-dir",
                str(tmp_path),
                "--checkpoints",
                str(tmp_path / "copy.jsonl"),
                "--public-key",
                public,
            ],
        )
        assert wiped.exit_code == 1
        assert (
            f"checkpoint of table t1 at seq 1 ({signed.at}): the chain no longer reaches this seq"
            in wiped.output
        )
        missing = runner.invoke(
            app, ["audit", "verify", "--data-dir", str(tmp_path), "--checkpoints", "/nonexistent"]
        )
        assert missing.exit_code == 2 and "NOT CHECKED" in missing.output
    finally:
        engine.dispose()
    assert json.loads(signed.as_line())["seq"] == 1
