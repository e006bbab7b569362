"""``table-controller round void`` (the pit's void when the API is down) and ``run --help``."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from table_controller.cli.main import app
from table_controller.round.events import Wager
from table_controller.settings import TableSettings
from table_controller.storage import add_user, list_events, open_store, sqlite_url, unit_of_work, verify_chain
from table_controller.storage.session import read_snapshot
from table_controller.storage.users import disable_user
from table_controller.table.service import TableService

runner = CliRunner()


TOKENS: dict[str, str] = {}


def _table(tmp_path):
    engine = open_store(sqlite_url(tmp_path))
    with unit_of_work(engine) as session:
        for name, role in (("bob", "pit"), ("ann", "dealer"), ("pat", "pit")):
            TOKENS[name] = add_user(session, name=name, role=role)
        disable_user(session, name="pat")
    return engine


def _void(tmp_path, *args, token: str | None = None):
    """``round void`` proving the person named by ``--as`` with their own token (by default)."""
    name = args[args.index("--as") + 1]
    proof = token if token is not None else TOKENS.get(name, "no-such-token")
    return runner.invoke(
        app, ["round", "void", "--data-dir", str(tmp_path), *args], env={"TABLE_API_TOKEN": proof}
    )


def test_the_pit_voids_a_held_round_from_the_command_line(tmp_path):
    engine = _table(tmp_path)
    service = TableService(TableSettings(data_dir=tmp_path), engine)
    service.open_round({3: Wager(main=2500)}, actor="ann")
    service.hold_round("the conductor failed: RuntimeError: boom")
    result = _void(tmp_path, "--reason", "held round, API down", "--as", "bob")
    assert result.exit_code == 0, result.output
    assert "voided table-1-1" in result.stdout
    with read_snapshot(engine) as session:
        events = list_events(session, table_id="table-1")
        assert verify_chain(session).ok
    voided = [e for e in events if e.kind == "round.voided"]
    assert [(e.actor, json.loads(e.payload)["reason"]) for e in voided] == [("bob", "held round, API down")]
    assert json.loads(events[-1].payload)["alert"] == "void"
    engine.dispose()


def test_only_an_enabled_pit_user_may_void_and_only_an_open_round(tmp_path):
    engine = _table(tmp_path)
    assert _void(tmp_path, "--reason", "no round", "--as", "bob").exit_code == 1  # nothing open
    TableService(TableSettings(data_dir=tmp_path), engine).open_round({3: Wager(main=2500)}, actor="ann")
    for name, words in (
        ("ann", "not an enabled pit user (role dealer)"),
        ("pat", "disabled"),
        ("zed", "no user"),
    ):
        result = _void(tmp_path, "--reason", "trying", "--as", name)
        assert result.exit_code == 1 and words in result.output, (name, result.output)
    assert _void(tmp_path, "--reason", "x", "--as", "bob").exit_code == 1  # a reason too short
    with read_snapshot(engine) as session:
        assert not [e for e in list_events(session, table_id="table-1") if e.kind == "round.voided"]
    engine.dispose()


def test_the_console_proves_the_person_with_their_own_token(tmp_path):
    """``--as`` alone proves nothing: the token must be the named person's (docs/api.md, "Two people")."""
    engine = _table(tmp_path)
    TableService(TableSettings(data_dir=tmp_path), engine).open_round({3: Wager(main=2500)}, actor="ann")
    posing = _void(tmp_path, "--reason", "posing as bob", "--as", "bob", token=TOKENS["ann"])
    assert posing.exit_code == 1 and "the token given is not bob's" in posing.output
    unknown = _void(tmp_path, "--reason", "a guessed token", "--as", "bob", token="guess")
    assert unknown.exit_code == 1 and "the token given is not bob's" in unknown.output
    with read_snapshot(engine) as session:
        events = list_events(session, table_id="table-1")
    refused = [(e.actor, json.loads(e.payload)["rule"]) for e in events if e.kind == "two-person.refused"]
    assert refused == [("ann", "not-that-person"), ("unknown-token", "not-that-person")]
    assert "round.voided" not in [e.kind for e in events]
    # a token file others may read is refused before anything is read from the store
    loose = tmp_path / "bob.token"
    loose.write_text(TOKENS["bob"])
    loose.chmod(0o644)
    args = ["round", "void", "--data-dir", str(tmp_path), "--reason", "from a file", "--as", "bob"]
    result = runner.invoke(app, [*args, "--token-file", str(loose)], env={"TABLE_API_TOKEN": ""})
    assert result.exit_code == 2 and "token-file" in result.output
    loose.chmod(0o600)
    result = runner.invoke(app, [*args, "--token-file", str(loose)], env={"TABLE_API_TOKEN": ""})
    assert result.exit_code == 0, result.output
    engine.dispose()


def test_run_help_lists_every_exit_status():
    text = runner.invoke(app, ["run", "--help"], terminal_width=200).stdout
    for code, words in (
        ("0:", "settled rounds"),
        ("1:", "the store could not be opened"),
        ("2:", "a bad configuration"),
    ):
        assert code in text and words in text
