"""Commands through the API: a whole round, every step naming its actor in the audit chain
(docs/api.md, Commands); refusals are 409/422 with the reason and change nothing."""

from __future__ import annotations

import json

import pytest

from table_controller.storage import list_events, verify_chain
from table_controller.storage.session import read_snapshot

from .conftest import deal_round

HOUSE_WAY_HIGH = ["Ac", "9h", "5c", "3d", "2h"]  # 002 High Card: 2nd and 4th highest in front
HOUSE_WAY_LOW = ["Qd", "7s"]


def chain(api):
    with read_snapshot(api.engine) as session:
        return list_events(session, table_id="t1")


def open_round(api, role="dealer"):
    return api.post("/api/round", role, json={"wagers": {"3": {"main": 2500}, "5": {"main": 1000}}})


def test_a_whole_round_through_the_api_names_each_actor(api):
    opened = open_round(api)
    assert opened.status_code == 201, opened.text
    assert opened.json()["round"]["phase"] == "open"
    assert [w["position"] for w in opened.json()["round"]["wagers"]] == [3, 5]
    deal_round(api)
    # the banker's cards are face down on the dealer's terminal while the players set; the pit sees them
    assert api.get("/api/table", "dealer").json()["round"]["face_down"] == [1]
    state = api.get("/api/table", "pit").json()["round"]
    assert state["phase"] == "players-setting"
    assert state["dice"] == {"faces": [1, 1, 1], "source": "shaker", "roll_id": None}
    assert state["start_position"] == 3
    # pile 1 goes to position 3, then counter-clockwise: 4, 5, 6, 7, 1, 2 (000, 004)
    assert [p["position"] for p in state["piles"]] == [3, 4, 5, 6, 7, 1, 2]
    assert state["piles"][0]["cards"] == ["As", "Ah", "Kd", "Kh", "9c", "8c", "2c"]
    assert len(state["unused"]) == 4
    assert state["house_way"]["rule_id"] == "high-card.second-and-fourth"
    assert state["house_way"]["setting"] == {
        "high": HOUSE_WAY_HIGH,
        "low": HOUSE_WAY_LOW,
        "high_sorted": HOUSE_WAY_HIGH,  # A-9-5-3-2 is already in reading order
        "high_name": "ace high",
        "low_sorted": HOUSE_WAY_LOW,
        "low_name": "queen-seven",
    }

    assert (
        api.post(
            "/api/round/players/3/setting",
            "dealer",
            json={"high": ["As", "Ah", "9c", "8c", "2c"], "low": ["Kd", "Kh"]},
        ).status_code
        == 200
    )
    assert (
        api.post(
            "/api/round/players/5/setting",
            "pit",
            json={"high": ["Kc", "8d", "6s", "4h", "3c"], "low": ["Qh", "Jd"]},
        ).status_code
        == 200
    )
    done = api.post(
        "/api/round/dealer/setting", "dealer", json={"high": HOUSE_WAY_HIGH, "low": HOUSE_WAY_LOW}
    )
    assert done.status_code == 200, done.text
    assert done.json()["round"]["phase"] == "settling"
    api.service.settle()
    result = api.get("/api/table", "surveillance").json()["round"]["settlement"]
    # position 3: aces beat ace-high, K-K beats Q-7: wins $25 less 5% ($1.25, 002) = +$23.75
    # position 5: K-high loses to ace-high, Q-J beats Q-7: one each, a push (000)
    assert [(p["position"], p["outcome"], p["net"]) for p in result["positions"]] == [
        (3, "win", 2375),
        (5, "push", 0),
    ]
    assert result["totals"]["commission"] == 125 and result["totals"]["house_result"] == -2375

    actors = [(e.kind, e.actor) for e in chain(api)]
    assert actors == [
        ("round.opened", "ann"),
        ("dice.rolled", "device:dice-shaker"),
        ("piles.dealt", "device:shuffler"),
        ("player.set", "ann"),
        ("player.set", "bob"),
        ("dealer.set", "ann"),
        ("round.settled", "system"),
    ]


def test_a_deviation_answers_409_with_the_required_setting_and_rule(api):
    open_round(api)
    deal_round(api)
    api.post(
        "/api/round/players/3/setting", json={"high": ["As", "Ah", "9c", "8c", "2c"], "low": ["Kd", "Kh"]}
    )
    api.post(
        "/api/round/players/5/setting", json={"high": ["Kc", "8d", "6s", "4h", "3c"], "low": ["Qh", "Jd"]}
    )
    mis_set = {"high": ["Ac", "7s", "5c", "3d", "2h"], "low": ["Qd", "9h"]}
    refused = api.post("/api/round/dealer/setting", "dealer", json=mis_set)
    assert refused.status_code == 409
    body = refused.json()
    assert body["error"] == "house-way-deviation"
    assert body["rule_id"] == "high-card.second-and-fourth"
    assert body["required"] == {"high": HOUSE_WAY_HIGH, "low": HOUSE_WAY_LOW}
    assert body["phase"] == "dealer-setting"
    # the row as recorded keeps its empty third cell; the wording people read drops it
    assert " |  | " in body["rule_words"]
    assert body["rule_wording"] == body["rule_words"].replace(" |  | ", " | ")
    # a dealer can never override; the pit can, with a reason
    assert (
        api.post("/api/round/dealer/override", "dealer", json={**mis_set, "reason": "misread"}).status_code
        == 403
    )
    assert api.post("/api/round/dealer/override", "pit", json={**mis_set, "reason": "   "}).status_code == 422
    assert (
        api.post("/api/round/dealer/override", "pit", json={**mis_set, "reason": "ok\u0002"}).status_code
        == 422
    )
    allowed = api.post("/api/round/dealer/override", "pit", json={**mis_set, "reason": "approved misread"})
    assert allowed.status_code == 200 and allowed.json()["round"]["override"]["actor"] == "bob"
    kinds = [(e.kind, e.actor) for e in chain(api)][-4:]
    assert kinds == [
        ("round.refused", "ann"),
        ("alert.raised", "ann"),
        ("dealer.override", "bob"),
        ("alert.raised", "bob"),
    ]


def test_void_is_for_the_pit_with_a_reason(api):
    open_round(api)
    assert api.post("/api/round/void", "dealer", json={"reason": "wrong wagers"}).status_code == 403
    assert api.post("/api/round/void", "surveillance", json={"reason": "wrong wagers"}).status_code == 403
    voided = api.post("/api/round/void", "pit", json={"reason": "wrong wagers"})
    assert voided.status_code == 200
    assert (
        voided.json()["round"]["phase"] == "void" and voided.json()["round"]["void_reason"] == "wrong wagers"
    )
    again = api.post("/api/round/void", "pit", json={"reason": "wrong wagers"})
    assert again.status_code == 409
    assert again.json()["error"] == "round-refused"
    assert "A void refused (void, wagers returned): not allowed in this phase" in again.json()["detail"]


def test_refusals_name_the_reason_and_store_nothing(api):
    cases = [
        # the table limits (500..100000 cents by default) are in the body's schema
        (
            {"wagers": {"3": {"main": 499}}},
            422,
            "body.wagers.3.main: Input should be greater than or equal to 500",
        ),
        (
            {"wagers": {"3": {"main": 100_001}}},
            422,
            "body.wagers.3.main: Input should be less than or equal to 100000",
        ),
        ({"wagers": {"1": {"main": 500}}}, 422, "body.wagers.1.[key]"),  # the banker does not wager
        ({"wagers": {"3": {"main": 2500.5}}}, 422, "body.wagers.3.main: Input should be a valid integer"),
        ({"wagers": {"3": {"main": "2500"}}}, 422, "body.wagers.3.main: Input should be a valid integer"),
        ({"wagers": {}}, 422, "body.wagers"),
        ({"wagers": {"3": {"main": 600, "tip": 5}}}, 422, "body.wagers.3.tip"),
        # the standard game has no bonus wagers (003 offers them in Double Joker only)
        (
            {"wagers": {"3": {"main": 600, "big_hand": 100}}},
            422,
            "body.wagers.3.big_hand: Input should be less than or equal to 0",
        ),
    ]
    for body, status, reason in cases:
        answer = api.post("/api/round", "dealer", json=body)
        assert answer.status_code == status, (body, answer.text)
        assert reason in answer.json()["detail"], (reason, answer.json())
    assert chain(api) == []


def test_commands_the_round_cannot_take_now_are_409(api):
    no_round = api.post("/api/round/dealer/setting", json={"high": HOUSE_WAY_HIGH, "low": HOUSE_WAY_LOW})
    assert no_round.status_code == 409 and no_round.json()["detail"] == "dealer.set refused: no round is open"
    open_round(api)
    busy = open_round(api)
    assert busy.status_code == 409 and "round t1-1 is still in progress" in busy.json()["detail"]
    early = api.post(
        "/api/round/players/3/setting", json={"high": ["As", "Ah", "9c", "8c", "2c"], "low": ["Kd", "Kh"]}
    )
    assert early.status_code == 409 and early.json()["phase"] == "open"
    bad_card = api.post(
        "/api/round/players/3/setting", json={"high": ["Zz", "Ah", "9c", "8c", "2c"], "low": ["Kd", "Kh"]}
    )
    assert bad_card.status_code == 422
    assert bad_card.json()["detail"] == (
        "body.high.0: 'Zz' is not a card code: rank then suit (ranks 2-9 T J Q K A,"
        " 10 for T; suits s h d c; any case), or JK for the joker; e.g. As, Td, 10h"
    )
    deal_round(api)
    not_its_cards = api.post(
        "/api/round/players/3/setting", json={"high": ["Qs", "Ah", "9c", "8c", "2c"], "low": ["Kd", "Kh"]}
    )
    assert not_its_cards.status_code == 409
    assert "setting is not position 3's seven cards" in not_its_cards.json()["detail"]
    no_wager = api.post(
        "/api/round/players/4/setting", json={"high": ["As", "Ah", "9c", "8c", "2c"], "low": ["Kd", "Kh"]}
    )
    assert no_wager.status_code == 409 and "position 4 has no wager" in no_wager.json()["detail"]
    refused = [json.loads(e.payload)["reason"] for e in chain(api) if e.kind == "round.refused"]
    assert refused == [
        "not allowed in this phase",
        "setting is not position 3's seven cards",
        "position 4 has no wager",
    ]


def test_closing_the_table_is_the_pits_and_stops_new_rounds(api):
    assert api.post("/api/table/close", "dealer").status_code == 403
    closed = api.post("/api/table/close", "pit")
    assert closed.status_code == 200 and closed.json()["table_open"] is False
    refused = open_round(api)
    assert (
        refused.status_code == 409 and refused.json()["detail"] == "round.open refused: the table is closed"
    )
    assert api.post("/api/table/open", "pit").json()["table_open"] is True
    assert open_round(api).status_code == 201
    # each change of the table is chained with the table's whole state after it (restored at start)
    assert [(e.kind, e.actor) for e in chain(api)] == [
        ("table.closed", "bob"),
        ("table.state", "system"),
        ("table.opened", "bob"),
        ("table.state", "system"),
        ("round.opened", "ann"),
    ]
    with read_snapshot(api.engine) as session:
        assert verify_chain(session).ok


def test_the_body_schema_carries_the_tables_limits_and_double_joker_takes_bonuses(engine):
    from table_controller.settings import Limits, TableSettings

    from .conftest import make_api

    settings = TableSettings(
        table_id="t1", game="double-joker", limits=Limits(min_main=1000, max_main=50_000, max_bonus=2000)
    )
    for api in make_api(engine, settings):
        schema = api.client.get("/openapi.json").json()["components"]["schemas"]["WagerCreate"]["properties"]
        assert (schema["main"]["minimum"], schema["main"]["maximum"]) == (1000, 50_000)
        assert (schema["big_hand"]["maximum"], schema["joker_bonus"]["maximum"]) == (2000, 2000)
        too_much = api.post(
            "/api/round", "dealer", json={"wagers": {"4": {"main": 1000, "joker_bonus": 2001}}}
        )
        assert too_much.status_code == 422 and "body.wagers.4.joker_bonus" in too_much.json()["detail"]
        opened = api.post(
            "/api/round",
            "dealer",
            json={"wagers": {"4": {"main": 1000, "big_hand": 500, "joker_bonus": 2000}}},
        )
        assert opened.status_code == 201, opened.text
        assert opened.json()["round"]["wagers"] == [
            {"position": 4, "main": 1000, "big_hand": 500, "joker_bonus": 2000}
        ]


@pytest.mark.parametrize(
    ("method", "path", "body", "reason"),
    [
        (
            "post",
            "/api/round/void",
            {"reason": "\t\t\t"},
            "body.reason: '\\t\\t\\t' is not plain text: at least one letter or digit, no control characters",
        ),
        (
            "get",
            "/api/rounds/t1_x",
            None,
            "path.round_id: 't1_x' is not a round id: the table id, a dash and the round's number; "
            "e.g. PG-3-1042",
        ),
        (
            "get",
            "/api/devices/events?device=Shuffler",
            None,
            "query.device: 'Shuffler' is not a device name: lowercase letters, digits and dashes; "
            "e.g. shuffler",
        ),
        (
            "post",
            "/api/round/players/3/setting",
            {"high": ["As", "Ah", "9c", "8c", "2c"], "low": ["Kd", "1" * 3]},
            "body.low.1: '111' is not a card code: rank then suit",
        ),
    ],
)
def test_a_value_of_the_wrong_form_is_refused_in_words_not_with_its_pattern(api, method, path, body, reason):
    """Bad input (docs/api.md): the 422 says what was given and what was expected, in words."""
    role = "surveillance" if method == "get" else "pit"  # surveillance reads everything, pit plays
    answer = getattr(api, method)(path, role, **({"json": body} if body is not None else {}))
    assert answer.status_code == 422
    assert answer.json()["detail"].startswith(reason)
    assert "^" not in answer.json()["detail"]  # no regular expression in the answer
