"""Two people for what a casino splits (docs/api.md, "Two people"): nobody acknowledges the alert
of their own void or override, nor overrides their own refused setting; a void or override of a
round above ``second_pit_above`` waits for a second pit user; a key an admin made for someone
else changes nothing until a second admin confirms it. Every refusal is a 403 naming its rule,
and a ``two-person.refused`` event in the chain naming the person."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from sqlalchemy.engine import Engine
from structlog.testing import capture_logs
from typer.testing import CliRunner

from table_controller.cli.main import app as cli_app
from table_controller.round.events import Wager
from table_controller.settings import TableSettings
from table_controller.storage import add_user, list_events, unit_of_work, verify_chain
from table_controller.storage.session import read_snapshot
from table_controller.table.service import TableService

from ..live_client import live_client
from .conftest import HOUSE_WAY, MIS_SET, WAGERS, Api, deal_round, make_api, play_round

TOTAL = 3500  # WAGERS: 2500 + 1000 cents


def _second_pit(api: Api, name: str = "pia") -> str:
    """Another enabled pit user (keyed at the console: confirmed); their role's headers."""
    with unit_of_work(api.engine) as session:
        api.tokens[name] = add_user(session, name=name, role="pit")
    return name


def _events(api: Api, kind: str) -> list[tuple[str, dict]]:
    with read_snapshot(api.engine) as session:
        return [
            (e.actor, json.loads(e.payload)) for e in list_events(session, table_id="t1") if e.kind == kind
        ]


def _alerts(api: Api, kind: str) -> list[dict]:
    return [a for a in api.get("/api/alerts").json() if a["alert"] == kind]


def _refused(answer, rule: str) -> None:
    assert answer.status_code == 403, answer.text
    assert (answer.json()["error"], answer.json()["rule"]) == ("two-person-rule", rule)


@pytest.fixture
def large(engine: Engine) -> Iterator[Api]:
    """The API of a table where a round above 3000 cents needs a second pit user (WAGERS: 3500)."""
    yield from make_api(engine, TableSettings(table_id="t1", second_pit_above=3000))


def _to_dealer_setting(api: Api) -> None:
    assert api.post("/api/round", "dealer", json=WAGERS).status_code == 201
    deal_round(api)
    for position, setting in (
        (3, {"high": ["As", "Ah", "9c", "8c", "2c"], "low": ["Kd", "Kh"]}),
        (5, {"high": ["Kc", "8d", "6s", "4h", "3c"], "low": ["Qh", "Jd"]}),
    ):
        assert api.post(f"/api/round/players/{position}/setting", "dealer", json=setting).status_code == 200
    assert api.post("/api/round/dealer/setting", "dealer", json=MIS_SET).status_code == 409  # a deviation


# -- the alert of one's own act -------------------------------------------------------------------


def test_the_pit_who_overrode_acknowledges_neither_the_override_nor_the_rounds_deviation(api):
    play_round(api, how="override")  # ann's setting refused, bob lets it stand
    [deviation] = _alerts(api, "house-way-deviation")
    [override] = _alerts(api, "override")
    with capture_logs() as logs:
        for alert in (override, deviation):
            _refused(
                api.post(f"/api/alerts/{alert['seq']}/acknowledge", json={"note": "all fine"}), "own-act"
            )
    assert [(a, p["rule"], p["alert_seq"]) for a, p in _events(api, "two-person.refused")] == [
        ("bob", "own-act", override["seq"]),
        ("bob", "own-act", deviation["seq"]),
    ]
    assert [e["rule"] for e in logs if e["event"] == "two_person.refused"] == ["own-act", "own-act"]
    assert _events(api, "alert.acknowledged") == []
    _second_pit(api)
    for alert in (override, deviation):
        acked = api.post(f"/api/alerts/{alert['seq']}/acknowledge", "pia", json={"note": "reviewed"})
        assert acked.status_code == 200 and acked.json()["acknowledged_by"] == "pia"
    with read_snapshot(api.engine) as session:
        assert verify_chain(session).ok


def test_the_pit_whose_own_setting_was_refused_does_not_acknowledge_its_deviation(api):
    assert api.post("/api/round", "dealer", json=WAGERS).status_code == 201
    deal_round(api)
    for position, setting in (
        (3, {"high": ["As", "Ah", "9c", "8c", "2c"], "low": ["Kd", "Kh"]}),
        (5, {"high": ["Kc", "8d", "6s", "4h", "3c"], "low": ["Qh", "Jd"]}),
    ):
        assert api.post(f"/api/round/players/{position}/setting", "dealer", json=setting).status_code == 200
    # bob, a pit user, sets the dealer's hand himself, off the house way: refused, an alert
    assert api.post("/api/round/dealer/setting", "pit", json=MIS_SET).status_code == 409
    [deviation] = _alerts(api, "house-way-deviation")
    assert deviation["actor"] == "bob"
    _refused(api.post(f"/api/alerts/{deviation['seq']}/acknowledge", "pit", json={"note": "mine"}), "own-act")
    assert _events(api, "alert.acknowledged") == []
    _second_pit(api)
    acked = api.post(f"/api/alerts/{deviation['seq']}/acknowledge", "pia", json={"note": "reviewed"})
    assert acked.status_code == 200 and acked.json()["acknowledged_by"] == "pia"


def test_the_pit_who_voided_does_not_acknowledge_the_void(api):
    play_round(api, "pit", how="void")
    [void] = _alerts(api, "void")
    _refused(api.post(f"/api/alerts/{void['seq']}/acknowledge", json={"note": "mine"}), "own-act")
    _second_pit(api)
    assert api.post(f"/api/alerts/{void['seq']}/acknowledge", "pia", json={"note": "ok"}).status_code == 200


def test_other_alerts_are_acknowledged_by_the_pit_as_before(api):
    play_round(api, how="misdeal")
    [misdeal] = _alerts(api, "misdeal")
    assert api.post(f"/api/alerts/{misdeal['seq']}/acknowledge", json={"note": "seen"}).status_code == 200


def test_the_person_whose_setting_the_house_way_refused_does_not_override_it(api):
    assert api.post("/api/round", "pit", json=WAGERS).status_code == 201
    deal_round(api)
    for position, setting in (
        (3, {"high": ["As", "Ah", "9c", "8c", "2c"], "low": ["Kd", "Kh"]}),
        (5, {"high": ["Kc", "8d", "6s", "4h", "3c"], "low": ["Qh", "Jd"]}),
    ):
        api.post(f"/api/round/players/{position}/setting", "pit", json=setting)
    assert api.post("/api/round/dealer/setting", "pit", json=MIS_SET).status_code == 409  # bob set it
    own = api.post("/api/round/dealer/override", json={**MIS_SET, "reason": "my own call"})
    _refused(own, "own-setting")
    assert api.get("/api/table").json()["round"]["phase"] == "dealer-setting"
    _second_pit(api)
    assert (
        api.post("/api/round/dealer/override", "pia", json={**MIS_SET, "reason": "seen it"}).status_code
        == 200
    )
    assert [a for a, p in _events(api, "two-person.refused") if p["rule"] == "own-setting"] == ["bob"]


# -- a second pit user for large rounds -----------------------------------------------------------


def test_a_void_above_the_amount_waits_for_a_second_pit_user_and_names_both(large):
    api = large
    _second_pit(api)
    assert api.post("/api/round", "dealer", json=WAGERS).status_code == 201
    asked = api.post("/api/round/void", json={"reason": "wrong wagers"})
    assert asked.status_code == 202, asked.text
    request = asked.json()
    assert {k: request[k] for k in ("round_id", "action", "requested_by", "wagered_cents", "state")} == {
        "round_id": "t1-1",
        "action": "void",
        "requested_by": "bob",
        "wagered_cents": TOTAL,
        "state": "waiting",
    }
    assert api.get("/api/table").json()["round"]["phase"] == "open"  # nothing voided yet
    assert [a["seq"] for a in api.get("/api/approvals", params={"open": "true"}).json()] == [request["seq"]]
    again = api.post("/api/round/void", json={"reason": "wrong wagers"})
    assert again.status_code == 202 and again.json()["seq"] == request["seq"]  # asked twice: one request

    _refused(api.post(f"/api/approvals/{request['seq']}/confirm"), "same-person")
    assert api.get("/api/table").json()["round"]["phase"] == "open"
    done = api.post(f"/api/approvals/{request['seq']}/confirm", "pia")
    assert done.status_code == 200, done.text
    assert done.json()["round"]["phase"] == "void"

    [void] = _alerts(api, "void")
    assert (void["actor"], void["data"]["confirmed_by"]) == ("bob", "pia")
    assert "confirmed by pia" in void["detail"]
    [(actor, confirmed)] = _events(api, "approval.confirmed")
    assert (actor, confirmed["approval_seq"]) == ("pia", request["seq"])
    [(refused_actor, refusal)] = _events(api, "two-person.refused")
    assert (refused_actor, refusal["rule"], refusal["approval"]) == ("bob", "same-person", request["seq"])
    closed = api.post(f"/api/approvals/{request['seq']}/confirm", "pia")
    assert closed.status_code == 409 and closed.json()["error"] == "request-closed"
    for person in ("bob", "pia"):  # both took part: a third pit user reviews the void
        who = "pit" if person == "bob" else person
        _refused(api.post(f"/api/alerts/{void['seq']}/acknowledge", who, json={"note": "x"}), "own-act")
    _second_pit(api, "quinn")
    assert api.post(f"/api/alerts/{void['seq']}/acknowledge", "quinn", json={"note": "ok"}).status_code == 200


def test_an_override_above_the_amount_waits_and_the_confirmation_lets_the_asked_setting_stand(large):
    api = large
    _second_pit(api)
    _to_dealer_setting(api)
    asked = api.post("/api/round/dealer/override", json={**MIS_SET, "reason": "approved misread"})
    assert asked.status_code == 202, asked.text
    assert asked.json()["setting"] == MIS_SET
    assert api.get("/api/table").json()["round"]["phase"] == "dealer-setting"
    [deviation] = _alerts(api, "house-way-deviation")  # asking to override is overriding: not bob's to review
    _refused(api.post(f"/api/alerts/{deviation['seq']}/acknowledge", json={"note": "fine"}), "own-act")
    done = api.post(f"/api/approvals/{asked.json()['seq']}/confirm", "pia")
    assert done.status_code == 200, done.text
    assert done.json()["round"]["phase"] == "settling"
    [override] = _alerts(api, "override")
    assert (override["actor"], override["data"]["confirmed_by"], override["data"]["setting"]) == (
        "bob",
        "pia",
        MIS_SET,
    )
    with read_snapshot(api.engine) as session:
        [event] = [e for e in list_events(session, table_id="t1") if e.kind == "dealer.override"]
    assert event.actor == "bob" and json.loads(event.payload)["high"] == MIS_SET["high"]


def test_a_request_that_the_round_would_refuse_is_refused_at_once(large):
    api = large
    assert api.post("/api/round", "dealer", json=WAGERS).status_code == 201
    early = api.post("/api/round/dealer/override", json={**HOUSE_WAY, "reason": "too early"})
    assert early.status_code == 409 and early.json()["error"] == "round-refused"
    assert api.get("/api/approvals").json() == []


def test_at_the_amount_one_pit_user_voids_alone(engine):
    for api in make_api(engine, TableSettings(table_id="t1", second_pit_above=TOTAL)):
        assert api.post("/api/round", "dealer", json=WAGERS).status_code == 201
        voided = api.post("/api/round/void", json={"reason": "wrong wagers"})
        assert voided.status_code == 200 and voided.json()["round"]["phase"] == "void"


def test_a_request_is_cancelled_or_lapses_with_its_round_and_one_waits_at_a_time(large):
    api = large
    _second_pit(api)
    assert api.post("/api/round", "dealer", json=WAGERS).status_code == 201
    first = api.post("/api/round/void", json={"reason": "wrong wagers"}).json()
    other = api.post("/api/round/void", "pia", json={"reason": "another reason"})
    assert other.status_code == 409 and f"request {first['seq']} by bob" in other.json()["detail"]
    cancelled = api.post(f"/api/approvals/{first['seq']}/cancel", "pia", json={"note": "wagers are right"})
    assert cancelled.status_code == 200 and (cancelled.json()["state"], cancelled.json()["closed_by"]) == (
        "cancelled",
        "pia",
    )
    assert api.post(f"/api/approvals/{first['seq']}/confirm", "pia").status_code == 409

    second = api.post("/api/round/void", json={"reason": "still wrong"}).json()
    api.service.void("pia", "voided at the table")  # the round ends another way meanwhile
    [waits] = api.get("/api/approvals", params={"open": "true"}).json()
    assert (waits["seq"], waits["state"]) == (second["seq"], "lapsed")
    lapsed = api.post(f"/api/approvals/{second['seq']}/confirm", "pia")
    assert lapsed.status_code == 409 and "no longer open" in lapsed.json()["detail"]
    [gone] = [a for a in api.get("/api/approvals").json() if a["seq"] == second["seq"]]
    assert (gone["state"], gone["closed_by"]) == ("cancelled", "system")
    assert api.post("/api/approvals/99999/confirm", "pia").status_code == 404
    assert api.post(f"/api/approvals/{second['seq']}/confirm", "dealer").status_code == 403


def test_the_command_line_void_of_a_large_round_waits_for_round_confirm(engine, tmp_path):
    """The console proves the person (``--as`` with their own token) and the two-person rules
    apply to it as to the API, on SQLite and PostgreSQL: ``round confirm SEQ --as pia`` run by
    bob, who asked, is refused and chained (``not-that-person``); pia's own token confirms."""
    with unit_of_work(engine) as session:
        tokens = {name: add_user(session, name=name, role="pit") for name in ("bob", "pia")}
        add_user(session, name="ann", role="dealer")
    settings = TableSettings(table_id="t1", data_dir=tmp_path, second_pit_above=3000)
    TableService(settings, engine).open_round({3: Wager(main=2500), 5: Wager(main=1000)}, actor="ann")
    config = tmp_path / "table.toml"
    config.write_text('table_id = "t1"\nsecond_pit_above = 3000\n')
    url = engine.url.render_as_string(hide_password=False)
    where = ["--data-dir", str(tmp_path)] if engine.dialect.name == "sqlite" else ["--db-url", url]
    common = [*where, "--config", str(config)]
    runner = CliRunner()
    as_bob, as_pia = ({"TABLE_API_TOKEN": tokens[name]} for name in ("bob", "pia"))
    asked = runner.invoke(
        cli_app, ["round", "void", "--reason", "wrong wagers", "--as", "bob", *common], env=as_bob
    )
    assert asked.exit_code == 3, asked.output
    with read_snapshot(engine) as session:
        [request] = [e for e in list_events(session, table_id="t1") if e.kind == "approval.requested"]
    assert f"round confirm {request.seq}" in asked.output
    same = runner.invoke(cli_app, ["round", "confirm", str(request.seq), "--as", "bob", *common], env=as_bob)
    assert same.exit_code == 1 and "second pit user" in same.output
    # the person who asked, claiming to be the second pit user with their own token: refused
    posing = runner.invoke(
        cli_app, ["round", "confirm", str(request.seq), "--as", "pia", *common], env=as_bob
    )
    assert posing.exit_code == 1 and "the token given is not pia's" in posing.output
    done = runner.invoke(cli_app, ["round", "confirm", str(request.seq), "--as", "pia", *common], env=as_pia)
    assert done.exit_code == 0, done.output
    with read_snapshot(engine) as session:
        kinds = [(e.kind, e.actor) for e in list_events(session, table_id="t1")]
        assert verify_chain(session).ok
    assert kinds.count(("two-person.refused", "bob")) == 2  # confirming their own, posing as pia
    assert ("round.voided", "bob") in kinds and ("approval.confirmed", "pia") in kinds
    with read_snapshot(engine) as session:
        refused = [
            e.payload_data()["rule"]
            for e in list_events(session, table_id="t1")
            if e.kind == "two-person.refused"
        ]
    assert refused == ["same-person", "not-that-person"]


# -- a second admin for a key ---------------------------------------------------------------------


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_a_person_an_admin_keyed_changes_nothing_until_a_second_admin_confirms(api):
    created = api.post("/api/users", "admin", json={"name": "gus", "role": "pit"})
    assert created.status_code == 201
    assert (created.json()["user"]["confirmed"], created.json()["user"]["keyed_by"]) == (False, "dee")
    gus = _bearer(created.json()["token"])
    assert api.client.get("/api/table", headers=gus).status_code == 200  # reading is allowed
    assert api.post("/api/round", "dealer", json=WAGERS).status_code == 201
    _refused(
        api.client.post("/api/round/void", headers=gus, json={"reason": "by the admin"}), "unconfirmed-key"
    )
    assert api.get("/api/table").json()["round"]["phase"] == "open"
    _refused(api.post("/api/users/gus/confirm", "admin"), "same-admin")
    with unit_of_work(api.engine) as session:
        eli = _bearer(add_user(session, name="eli", role="admin"))
    confirmed = api.client.post("/api/users/gus/confirm", headers=eli)
    assert confirmed.status_code == 200 and confirmed.json()["confirmed_by"] == "eli"
    again = api.client.post("/api/users/gus/confirm", headers=eli)
    assert again.status_code == 409 and again.json()["error"] == "already-confirmed"
    voided = api.client.post("/api/round/void", headers=gus, json={"reason": "now confirmed"})
    assert voided.status_code == 200, voided.text
    refusals = [(a, p["rule"]) for a, p in _events(api, "two-person.refused")]
    assert refusals == [("gus", "unconfirmed-key"), ("dee", "same-admin")]
    assert [(a, p["name"]) for a, p in _events(api, "user.confirmed")] == [("eli", "gus")]


def test_a_new_key_made_for_someone_else_waits_but_ones_own_does_not(api):
    rotated = api.post("/api/users/bob/token", "admin")
    assert rotated.json()["user"]["confirmed"] is False
    bob = _bearer(rotated.json()["token"])
    _refused(api.client.post("/api/table/close", headers=bob), "unconfirmed-key")
    own = api.post("/api/users/dee/token", "admin")
    assert own.json()["user"]["confirmed"] is True
    dee = _bearer(own.json()["token"])
    assert api.client.get("/api/users", headers=dee).status_code == 200
    _refused(api.client.post("/api/users/bob/confirm", headers=dee), "same-admin")


def test_an_unconfirmed_admin_confirms_nobody_and_nobody_confirms_their_own_key(api):
    made = api.post("/api/users", "admin", json={"name": "fay", "role": "admin"}).json()
    fay = _bearer(made["token"])
    api.post("/api/users", "admin", json={"name": "gus", "role": "pit"})
    _refused(api.client.post("/api/users/gus/confirm", headers=fay), "unconfirmed-key")
    with unit_of_work(api.engine) as session:
        add_user(session, name="eli", role="admin")
    eli_token = api.post("/api/users/eli/token", "admin").json()["token"]  # dee re-keys eli: unconfirmed
    _refused(api.client.post("/api/users/eli/confirm", headers=_bearer(eli_token)), "unconfirmed-key")
    assert api.post("/api/users/nobody/confirm", "admin").status_code == 404


def test_the_console_makes_confirmed_keys_and_the_people_chain_names_each_admin(api, tmp_path):
    from table_controller.storage import open_store, sqlite_url
    from table_controller.storage.people import chained_people

    engine = open_store(sqlite_url(tmp_path))
    try:
        added = CliRunner().invoke(
            cli_app, ["users", "add", "hal", "--role", "pit", "--data-dir", str(tmp_path)]
        )
        assert added.exit_code == 0, added.output
        with read_snapshot(engine) as session:
            hal = chained_people(session)["hal"].fields
        assert (hal["keyed_by"], hal["confirmed"]) == ("admin-cli", True)
    finally:
        engine.dispose()
    api.post("/api/users", "admin", json={"name": "gus", "role": "pit"})
    api.post("/api/users/gus/disable", "admin")
    with read_snapshot(api.engine) as session:
        gus = chained_people(session)["gus"]
        [disabled] = [e for e in list_events(session, table_id="people") if e.seq == gus.seq]
    assert (disabled.kind, disabled.actor, gus.fields["confirmed"]) == ("user.disabled", "dee", False)


def test_the_command_line_refuses_a_pit_user_whose_key_waits_for_a_second_admin(tmp_path):
    from table_controller.storage import open_store, sqlite_url

    engine = open_store(sqlite_url(tmp_path))
    try:
        with unit_of_work(engine) as session:
            token = add_user(session, name="gus", role="pit", keyed_by="dee", confirmed=False)
            add_user(session, name="ann", role="dealer")
        settings = TableSettings(table_id="t1", data_dir=tmp_path)
        TableService(settings, engine).open_round({3: Wager(main=2500)}, actor="ann")
        config = tmp_path / "table.toml"
        config.write_text('table_id = "t1"\n')
        refused = CliRunner().invoke(
            cli_app,
            [
                "round",
                "void",
                "--reason",
                "by the admin",
                "--as",
                "gus",
                "--data-dir",
                str(tmp_path),
                "--config",
                str(config),
            ],
            env={"TABLE_API_TOKEN": token},
        )
        assert refused.exit_code == 1 and "key not confirmed" in refused.output
        with read_snapshot(engine) as session:
            assert "round.voided" not in [e.kind for e in list_events(session, table_id="t1")]
    finally:
        engine.dispose()


def test_second_pit_users_confirming_at_once_do_it_once(engine):
    """Three pit users press Confirm on one request together: one void, one confirmation, the
    others refused; the chain stays whole."""
    from concurrent.futures import ThreadPoolExecutor

    import httpx

    from table_controller.api import create_app
    from table_controller.api.server import serving

    from .conftest import add_people

    settings = TableSettings(table_id="t1", second_pit_above=0)
    service = TableService(settings, engine)
    tokens = add_people(engine)
    with unit_of_work(engine) as session:
        for name in ("pia", "quinn", "rex"):
            tokens[name] = add_user(session, name=name, role="pit")
    with (
        serving(create_app(settings, service, engine)) as base,
        live_client(base_url=base, timeout=30) as client,
    ):

        def call(path: str, who: str, body: dict | None = None) -> httpx.Response:
            return client.post(path, json=body, headers={"Authorization": f"Bearer {tokens[who]}"})

        assert call("/api/round", "dealer", WAGERS).status_code == 201
        asked = call("/api/round/void", "pit", {"reason": "wrong wagers"})
        assert asked.status_code == 202
        seq = asked.json()["seq"]
        with ThreadPoolExecutor(4) as pool:
            answers = list(
                pool.map(
                    lambda who: call(f"/api/approvals/{seq}/confirm", who).status_code,
                    ["pia", "quinn", "rex", "pit"],
                )
            )
    assert sorted(answers[:3]) == [200, 409, 409] and answers[3] in (403, 409)
    with read_snapshot(engine) as session:
        kinds = [e.kind for e in list_events(session, table_id="t1")]
        assert verify_chain(session).ok
    assert kinds.count("round.voided") == 1 and kinds.count("approval.confirmed") == 1


def test_a_confirmed_void_whose_confirmation_the_store_cannot_take_is_not_half_done(engine, monkeypatch):
    """The store fails as the request's ``approval.confirmed`` is written: the void is not chained
    either (one transaction), the request stays open, and once the store is back the same
    confirmation does both (docs/api.md, "Two people")."""
    from table_controller.storage import approvals as stored_approvals
    from table_controller.storage.errors import StoreUnavailableError
    from table_controller.table import approvals
    from table_controller.table.service import StoreOutage

    service = TableService(TableSettings(table_id="t1", second_pit_above=3000), engine)
    service.resume()
    state = service.open_round({3: Wager(main=2500), 5: Wager(main=1000)}, actor="ann")
    request = approvals.void(service, actor="bob", reason="wrong wagers")
    assert not hasattr(request, "phase")  # a request, nothing voided yet

    def store_gone(*args, **kwargs):
        raise StoreUnavailableError("the database went away")

    monkeypatch.setattr(stored_approvals, "close_approval", store_gone)
    with pytest.raises(StoreOutage):
        approvals.confirm(service, seq=request.seq, actor="pia")

    def kinds() -> list[str]:
        with read_snapshot(engine) as session:
            return [e.kind for e in list_events(session, table_id="t1", round_id=state.round_id)]

    assert "round.voided" not in kinds() and "approval.confirmed" not in kinds()
    monkeypatch.undo()
    assert service.retry_store()
    assert service.in_progress  # the round is still open, the request still waits
    done = approvals.confirm(service, seq=request.seq, actor="pia")
    assert done.phase.value == "void"
    assert kinds().count("round.voided") == 1 and kinds().count("approval.confirmed") == 1
    with read_snapshot(engine) as session:
        assert verify_chain(session).ok
