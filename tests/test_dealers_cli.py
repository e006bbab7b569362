"""``table-controller dealers sign-in / sign-out / today`` (docs/dealers.md): the person proves it
is them with their own token; a dealer signs in themselves, the pit names a dealer; each refusal
exits 1 with nothing written."""

from __future__ import annotations

from typer.testing import CliRunner

from table_controller.cli.main import app
from table_controller.storage import add_user, list_events, open_store, sqlite_url, unit_of_work
from table_controller.storage.session import read_snapshot
from table_controller.storage.users import disable_user

runner = CliRunner()


def _store(tmp_path) -> dict[str, str]:
    engine = open_store(sqlite_url(tmp_path))
    with unit_of_work(engine) as session:
        tokens = {
            name: add_user(session, name=name, role=role)
            for name, role in (("ann", "dealer"), ("bob", "pit"), ("cy", "surveillance"), ("dan", "dealer"))
        }
        disable_user(session, name="dan")
    engine.dispose()
    return tokens


def _run(tmp_path, token: str, *args: str):
    return runner.invoke(app, ["dealers", *args, "--data-dir", str(tmp_path)], env={"TABLE_API_TOKEN": token})


def _kinds(tmp_path) -> list[str]:
    engine = open_store(sqlite_url(tmp_path))
    try:
        with read_snapshot(engine) as session:
            return [
                e.kind for e in list_events(session, table_id="table-1") if e.kind.startswith("dealer.signed")
            ]
    finally:
        engine.dispose()


def test_a_dealer_signs_in_the_pit_pushes_another_and_signs_out(tmp_path):
    tokens = _store(tmp_path)
    first = _run(tmp_path, tokens["ann"], "sign-in", "--as", "ann")
    assert first.exit_code == 0, first.output
    assert "ann is on the box of table-1" in first.stdout
    engine = open_store(sqlite_url(tmp_path))
    with unit_of_work(engine) as session:
        add_user(session, name="eve", role="dealer")
    engine.dispose()
    pushed = _run(tmp_path, tokens["bob"], "sign-in", "--as", "bob", "--dealer", "eve")
    assert (
        pushed.exit_code == 0
        and "eve is on the box of table-1" in pushed.stdout
        and "relieving ann" in pushed.stdout
    )
    today = _run(tmp_path, "", "today")
    assert today.exit_code == 0 and "ann: from" in today.stdout and "eve: from" in today.stdout
    assert "the table: 0 hands" in today.stdout
    out = _run(tmp_path, tokens["ann"], "sign-out", "--as", "ann")
    assert out.exit_code == 0 and "eve left the box of table-1" in out.stdout
    assert _kinds(tmp_path) == ["dealer.signed-in", "dealer.signed-in", "dealer.signed-out"]


def test_the_refusals_exit_1_and_write_nothing(tmp_path):
    tokens = _store(tmp_path)
    cases = [
        (tokens["bob"], ["sign-in", "--as", "ann"], "the token given is not ann's"),
        (tokens["cy"], ["sign-in", "--as", "cy"], "not an enabled dealer or pit user (role surveillance)"),
        (
            tokens["dan"],
            ["sign-in", "--as", "dan"],
            "not an enabled dealer or pit user (role dealer, disabled)",
        ),
        (tokens["ann"], ["sign-in", "--as", "ann", "--dealer", "bob"], "ann signs in only themselves"),
        (tokens["bob"], ["sign-in", "--as", "bob", "--dealer", "zed"], "no enabled person named 'zed'"),
        (tokens["ann"], ["sign-out", "--as", "ann"], "no dealer is on the box"),
    ]
    for token, args, words in cases:
        result = _run(tmp_path, token, *args)
        assert result.exit_code == 1 and words in result.output, (args, result.output)
    assert _kinds(tmp_path) == []
    assert _run(tmp_path, tokens["ann"], "sign-in", "--as", "ann").exit_code == 0
    twice = _run(tmp_path, tokens["ann"], "sign-in", "--as", "ann")
    assert twice.exit_code == 1 and "ann is on this table's box" in twice.output
    assert _kinds(tmp_path) == ["dealer.signed-in"]
