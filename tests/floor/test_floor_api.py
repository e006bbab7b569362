"""The floor's API (docs/floor.md): who sees which tables, the tables overview worked out by
hand, the alerts of every table and their acknowledgement, a table's history through the
floor, and the command's refusal of a bad configuration. In-process, SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from fastapi.testclient import TestClient
from sqlmodel import select
from typer.testing import CliRunner

from table_controller.api import create_app
from table_controller.cli.main import app as cli
from table_controller.settings import TableSettings
from table_controller.storage import add_user, list_events, read_snapshot, unit_of_work
from table_controller.storage.alerts import list_alerts
from table_controller.storage.floor_tables import register_table
from table_controller.storage.users import User

from ..api.conftest import LOOPBACK
from .conftest import WAGERS, Floor, play


def ids(answer) -> list[str]:
    assert answer.status_code == 200, answer.text
    return [table["table_id"] for table in answer.json()]


# -- who sees what -------------------------------------------------------------------------------


def test_each_person_sees_the_tables_of_their_scope(floor: Floor):
    assert ids(floor.get("/api/floor/tables", "cy")) == ["t1", "t2", "t3"]  # surveillance: all
    assert ids(floor.get("/api/floor/tables", "pia")) == ["t1", "t2"]  # pit-a
    assert ids(floor.get("/api/floor/tables", "pete")) == ["t3"]  # pit-b
    assert ids(floor.get("/api/floor/tables", "dan")) == ["t1"]  # the dealer's own table
    assert ids(floor.get("/api/floor/tables?pit=pit-a", "cy")) == ["t1", "t2"]
    assert ids(floor.get("/api/floor/tables?pit=pit-b", "pia")) == []  # another pit: nothing of it


def test_no_scope_is_refused_and_a_table_outside_the_scope_is_not_found(floor: Floor):
    refused = floor.get("/api/floor/tables", "nopit")
    assert refused.status_code == 403
    assert refused.json()["error"] == "no-scope"
    assert "users scope nopit --pit" in refused.json()["detail"]

    outside = floor.get("/api/floor/tables/t1/rounds", "pete")  # t1 is in pit-a
    unknown = floor.get("/api/floor/tables/t9/rounds", "pete")
    assert outside.status_code == unknown.status_code == 404
    assert outside.json()["detail"].replace("t1", "T") == unknown.json()["detail"].replace("t9", "T")
    for path in ("/api/floor/tables/t1/rounds/t1-1", "/api/floor/tables/t1/rounds/t1-1/replay"):
        assert floor.get(path, "pete").json() == outside.json()
    ack = floor.post("/api/floor/tables/t1/alerts/1/acknowledge", "pete", json={"note": "seen"})
    assert ack.status_code == 404
    assert ack.json() == outside.json()
    assert floor.get("/api/floor/stream?table=t1&follow=false", "pete").status_code == 404


def test_roles_hold_on_the_floor_as_at_a_table(floor: Floor):
    assert floor.get("/api/floor/alerts", "dan").status_code == 403  # a dealer does not audit
    assert floor.get("/api/floor/tables", "dee").status_code == 403  # the admin keeps keys, not tables
    me = floor.get("/api/me", "pia")
    assert me.status_code == 200
    assert (me.json()["name"], me.json()["role"]) == ("pia", "pit")
    assert floor.client.get("/api/floor/tables").status_code == 401


# -- the tables at a glance ----------------------------------------------------------------------


def test_the_overview_of_a_small_floor_worked_out_by_hand(floor: Floor):
    # t1: one settled round, one voided; t2: one settled with an override, then a shuffler jam;
    # t3: one round opened (waiting for the dice), its daemon last heard an hour ago.
    assert play(floor.services["t1"]) == "t1-1"
    assert play(floor.services["t1"], how="void") == "t1-2"
    assert play(floor.services["t2"], how="override") == "t2-1"
    floor.services["t2"].device_fault("shuffler", "jam", "card jam in the elevator")
    floor.services["t3"].open_round(WAGERS, "pete")
    with unit_of_work(floor.engine) as session:
        register_table(
            session,
            table_id="t3",
            pit="pit-b",
            game="standard",
            house_way="house-way-002",
            api_url=None,
            now=datetime.now(UTC) - timedelta(hours=1),
        )

    answer = floor.get("/api/floor/tables")
    assert answer.status_code == 200
    t1, t2, t3 = answer.json()

    # Each settled round: position 3 (A-A behind K-K) beats the banker's A-high / Q-7 on both
    # hands and wins 2500 less 5% commission, 125 (docs/settlement.md); position 5 (K-high / Q-J)
    # loses the high hand and wins the low one: a push. The house: -2500 + 125 = -2375.
    # Wagered 2500 + 1000 = 3500 per settled round; a voided round returns its wagers.
    # Hold: -2375 / 3500 = -0.678571... = -6785.71 bp, half-even to -6786.
    assert t1["today"] == {
        "rounds": 2,
        "settled": 1,
        "wagered_cents": 3500,
        "house_result_cents": -2375,
        "theoretical_win_cents": None,  # these tables have no table math: no round carries one
        "hold_bp": -6786,
    }
    assert (t1["phase"], t1["phase_words"], t1["round_id"], t1["round_number"]) == (
        "void",
        "void, wagers returned",
        "t1-2",
        2,
    )
    assert (t1["dealer"], t1["banker"], t1["alive"]) == ("dan", "house", True)
    assert t1["open_alerts"] == {"critical": 0, "warning": 0, "info": 1}  # pia's void
    assert t1["devices"]["status"] == "unknown"  # t1 has chained no table.state yet
    assert t1["live_url"] == "http://t1.pit.example:8080/ui/table.html"
    assert (t1["pit"], t1["game"], t1["house_way"]) == ("pit-a", "standard", "house-way-002")

    assert t2["today"]["rounds"] == 1
    assert t2["today"]["house_result_cents"] == -2375  # the overridden setting loses the same way
    assert t2["phase_words"] == "settled"
    assert t2["open_alerts"] == {"critical": 1, "warning": 0, "info": 1}  # the jam, the override
    assert t2["devices"]["status"] == "fault"
    assert t2["devices"]["faults"] == [{"kind": "shuffler jam", "detail": "card jam in the elevator"}]
    assert t2["devices"]["table_open"] is True

    assert (t3["phase"], t3["phase_words"], t3["round_id"], t3["dealer"]) == (
        "open",
        "wagers in, waiting for the dice",
        "t3-1",
        "pete",
    )
    assert t3["alive"] is False  # not heard from for an hour (stale_after 30 s)
    assert t3["api_url"] is None and t3["live_url"] is None
    assert t3["today"] == {
        "rounds": 1,
        "settled": 0,
        "wagered_cents": 0,
        "house_result_cents": 0,
        "theoretical_win_cents": None,
        "hold_bp": None,
    }


# -- alerts --------------------------------------------------------------------------------------


def test_alerts_of_every_table_newest_first_and_acknowledged_by_a_second_pit_user(floor: Floor):
    play(floor.services["t1"], how="void")  # alert: pia voided (t1)
    play(floor.services["t2"], how="override")  # alert: pia overrode (t2)
    floor.services["t2"].device_fault("shuffler", "jam")  # alert: device fault (t2)

    alerts = floor.get("/api/floor/alerts").json()
    assert [(a["table_id"], a["alert"], a["severity"]) for a in alerts] == [
        ("t2", "device-fault", "critical"),
        ("t2", "override", "info"),
        ("t1", "void", "info"),
    ]
    void = alerts[2]
    assert [a["alert"] for a in floor.get("/api/floor/alerts?open=true").json()] == [
        "device-fault",
        "override",
        "void",
    ]
    before = floor.get("/api/floor/tables").json()[0]  # the open alerts read once, then kept up
    assert before["open_alerts"] == {"critical": 0, "warning": 0, "info": 1}
    assert floor.get("/api/floor/alerts?pit=pit-b").json() == []
    assert [a["alert"] for a in floor.get("/api/floor/alerts", "pete").json()] == []

    path = f"/api/floor/tables/t1/alerts/{void['seq']}/acknowledge"
    own = floor.post(path, "pia", json={"note": "my own void"})
    assert own.status_code == 403
    assert own.json()["error"] == "two-person-rule"
    with read_snapshot(floor.engine) as session:
        kinds = [e.kind for e in list_events(session, table_id="t1")]
    assert kinds[-1] == "two-person.refused"  # the refusal is chained on t1, as at the table

    assert floor.post(path, "cy", json={"note": "seen"}).status_code == 403  # surveillance changes nothing
    done = floor.post(path, "paul", json={"note": "checked the late wagers"})
    assert done.status_code == 200, done.text
    body = done.json()
    assert (body["table_id"], body["seq"], body["acknowledged_by"], body["note"]) == (
        "t1",
        void["seq"],
        "paul",
        "checked the late wagers",
    )
    again = floor.post(path, "paul", json={"note": "twice"})
    assert again.status_code == 409
    assert again.json()["error"] == "already-acknowledged"
    missing = floor.post("/api/floor/tables/t1/alerts/999/acknowledge", "paul", json={"note": "x"})
    assert missing.status_code == 404

    with read_snapshot(floor.engine) as session:  # the table's own list has it acknowledged
        [alert] = list_alerts(session, table_id="t1")
    assert alert.acknowledged is not None and alert.acknowledged.actor == "paul"
    all_alerts = floor.get("/api/floor/alerts").json()
    assert [(a["alert"], a["acknowledged_by"]) for a in all_alerts] == [
        ("device-fault", None),
        ("override", None),
        ("void", "paul"),
    ]
    still_open = floor.get("/api/floor/alerts?open=true").json()
    assert [(a["table_id"], a["alert"]) for a in still_open] == [("t2", "device-fault"), ("t2", "override")]
    t1 = floor.get("/api/floor/tables").json()[0]
    assert t1["open_alerts"] == {"critical": 0, "warning": 0, "info": 0}


def test_a_key_waiting_for_a_second_admin_acknowledges_nothing(floor: Floor):
    play(floor.services["t1"], how="void")
    with unit_of_work(floor.engine) as session:
        token = add_user(session, name="newbie", role="pit", keyed_by="dee", confirmed=False)
        session.exec(select(User).where(User.name == "newbie")).one().pit = "pit-a"
    refused = floor.client.post(
        "/api/floor/tables/t1/alerts/2/acknowledge",
        headers={"Authorization": f"Bearer {token}"},
        json={"note": "seen"},
    )
    assert refused.status_code == 403
    assert refused.json()["error"] == "two-person-rule"
    assert "second admin" in refused.json()["detail"]
    with read_snapshot(floor.engine) as session:
        last = list_events(session, table_id="t1")[-1]
    assert (last.kind, last.actor) == ("two-person.refused", "newbie")  # chained on t1, as at the table


# -- a table's history through the floor ---------------------------------------------------------


def test_a_tables_history_round_and_replay_answer_as_the_table_itself(floor: Floor):
    service = floor.services["t1"]
    play(service)
    play(service, how="void")
    table_app = create_app(TableSettings(table_id="t1"), service, floor.engine, poll_interval=0.05)
    with TestClient(table_app, client=LOOPBACK) as table:
        headers = floor.headers("cy")
        for own, on_floor in (
            ("/api/rounds", "/api/floor/tables/t1/rounds"),
            ("/api/rounds?order=oldest&limit=1", "/api/floor/tables/t1/rounds?order=oldest&limit=1"),
            ("/api/rounds?voided=true", "/api/floor/tables/t1/rounds?voided=true"),
            ("/api/rounds/t1-1", "/api/floor/tables/t1/rounds/t1-1"),
            ("/api/rounds/t1-1/replay", "/api/floor/tables/t1/rounds/t1-1/replay"),
            ("/api/rounds/t1-9", "/api/floor/tables/t1/rounds/t1-9"),
        ):
            expected = table.get(own, headers=headers)
            got = floor.get(on_floor, "cy")
            assert got.status_code == expected.status_code, on_floor
            assert got.json() == expected.json(), on_floor
    assert floor.get("/api/floor/tables/t1/rounds?limit=0").status_code == 422


# -- the command ---------------------------------------------------------------------------------


def test_the_floor_command_refuses_a_bad_config_naming_every_error(tmp_path):
    config = tmp_path / "floor.toml"
    config.write_text(
        'db_url = "mysql://floor@localhost/tables"\n'
        'time_zone = "Mars/Olympus"\nport = 70000\ncolour = "red"\n'
    )
    result = CliRunner().invoke(cli, ["floor", "--config", str(config)])
    assert result.exit_code == 2
    for field in ("db_url", "time_zone", "port", "colour"):
        assert f"  {field}:" in result.stderr, result.stderr
    missing = CliRunner().invoke(cli, ["floor", "--config", str(tmp_path / "none.toml")])
    assert missing.exit_code == 2
    assert "no config file" in missing.stderr


# -- the app's conventions -----------------------------------------------------------------------


def test_the_floor_serves_its_pages_the_tables_pages_and_its_documented_api(floor: Floor):
    page = floor.client.get("/ui/")
    assert page.status_code == 200 and "floor-signin.js" in page.text  # the floor's own sign-in
    assert "Content-Security-Policy" in page.headers
    assert 'src="floor.js"' in floor.client.get("/ui/floor.html").text
    assert 'src="history.js"' in floor.client.get("/ui/history.html").text  # the table's page
    assert floor.client.get("/ui/app.js").status_code == 200
    assert floor.client.get("/docs").status_code == 200
    schema = floor.client.get("/openapi.json").json()
    tables = schema["paths"]["/api/floor/tables"]["get"]
    assert tables["x-roles"] == ["dealer", "pit", "surveillance"]
    acknowledge = schema["paths"]["/api/floor/tables/{table_id}/alerts/{seq}/acknowledge"]["post"]
    assert acknowledge["x-roles"] == ["pit"]
    assert floor.get("/api/floor/tables").headers["Cache-Control"] == "no-store"
