"""Round history with filters, one round in full, its replay (docs/api.md, "What they see").

The four rounds of the ``four_rounds`` fixture: t1-1 settled by the house way (position 3
wins, 5 pushes), t1-2 voided by the pit, t1-3 a misdeal, t1-4 a deviation the pit let stand
(position 3 still wins, 5 pushes: K-high loses to A-high, Q-J beats Q-9).
"""

from __future__ import annotations

import itertools

import pytest

from table_controller.round.events import DiceRolled, PilesDealt

from ..round.tables import BANKER, POSITION_3, POSITION_5, deal
from .conftest import MIS_SET, WAGERS, play_round


def numbers(api, **params):
    answer = api.get("/api/rounds", "surveillance", params=params)
    assert answer.status_code == 200, answer.text
    return [r["number"] for r in answer.json()["rounds"]]


FILTERS = [
    ({}, [4, 3, 2, 1]),
    ({"order": "oldest"}, [1, 2, 3, 4]),
    ({"dealer": "bob"}, [2]),
    ({"dealer": "ann"}, [4, 3, 1]),
    ({"voided": "true"}, [3, 2]),  # a misdeal voids the round
    ({"voided": "false"}, [4, 1]),
    ({"misdeal": "true"}, [3]),
    ({"override": "true"}, [4]),
    ({"outcome": "win"}, [4, 1]),
    ({"outcome": "lose"}, []),
    ({"position": 5, "outcome": "push"}, [4, 1]),
    ({"position": 5, "outcome": "win"}, []),
    ({"position": 4}, []),  # position 4 had no wager in any round
    ({"position": 3}, [4, 3, 2, 1]),
    ({"card": "As"}, [4, 1]),  # dealt to position 3 (no hands on a void or a misdeal)
    ({"card": "Kc", "position": 5}, [4, 1]),
    ({"card": "As", "position": 5}, []),
    ({"card": "as"}, [4, 1]),  # codes are case-insensitive in, canonical out
    ({"high_category": "one-pair"}, [4, 1]),  # position 3's high hand As Ah 9c 8c 2c
    ({"high_category": "one-pair", "position": 1}, []),  # the banker's: ace high
    ({"low_category": "pair", "position": 3}, [4, 1]),  # K-K in front
    ({"seven_card_category": "flush"}, []),
    ({"game": "double-joker"}, []),
    ({"game": "standard", "voided": "false", "override": "false"}, [1]),
]


def test_history_filters(four_rounds):
    """One played table, every filter of the table above (one fixture: the rounds take a second)."""
    found = [(params, numbers(four_rounds, **params)) for params, _ in FILTERS]
    assert found == FILTERS


def test_a_hand_category_pages_the_same_whether_rare_or_common(four_rounds, monkeypatch):
    from table_controller.storage import history

    for sparse in (history.SPARSE, 0):  # looked up by its index (rare), or walked by number (common)
        monkeypatch.setattr(history, "SPARSE", sparse)
        first = four_rounds.get("/api/rounds", params={"high_category": "one-pair", "limit": 1}).json()
        assert ([r["number"] for r in first["rounds"]], first["next_cursor"]) == ([4], 4)
        rest = four_rounds.get(
            "/api/rounds", params={"high_category": "one-pair", "limit": 1, "cursor": 4}
        ).json()
        assert ([r["number"] for r in rest["rounds"]], rest["next_cursor"]) == ([1], None)
        oldest = four_rounds.get(
            "/api/rounds", params={"high_category": "one-pair", "order": "oldest"}
        ).json()
        assert [r["number"] for r in oldest["rounds"]] == [1, 4]
        assert numbers(four_rounds, high_category="four-of-a-kind") == []


def test_history_pages_with_a_cursor_and_a_time_range(four_rounds):
    api = four_rounds
    first = api.get("/api/rounds", params={"limit": 3}).json()
    assert [r["number"] for r in first["rounds"]] == [4, 3, 2] and first["next_cursor"] == 2
    second = api.get("/api/rounds", params={"limit": 3, "cursor": 2}).json()
    assert [r["number"] for r in second["rounds"]] == [1] and second["next_cursor"] is None
    opened = {r["number"]: r["opened_at"] for r in first["rounds"]}
    assert numbers(api, opened_from=opened[2], opened_to=opened[4]) == [3, 2]
    assert numbers(api, opened_from=opened[4]) == [4]
    assert numbers(api, opened_to=opened[2]) == [1]
    assert numbers(api, opened_from="2000-01-01T00:00:00Z", opened_to="2000-01-02T00:00:00Z") == []


@pytest.mark.parametrize(
    ("params", "reason"),
    [
        ({"limit": 201}, "query.limit"),
        ({"limit": 0}, "query.limit"),
        ({"card": "Zz"}, "query.card: 'Zz' is not a card code: rank then suit"),
        ({"position": 8}, "query.position"),
        ({"outcome": "foul"}, "query.outcome"),
        ({"high_category": "two-pairs"}, "query.high_category"),
        ({"opened_from": "2024-05-01T20:00:00"}, "opened_from needs a time zone"),
        (
            {"opened_from": "2024-05-02T00:00:00Z", "opened_to": "2024-05-01T00:00:00Z"},
            "opened_from must be before",
        ),
        ({"cursor": -1}, "query.cursor"),
        ({"order": "random"}, "query.order"),
    ],
)
def test_bad_history_queries_are_422_with_the_reason(api, params, reason):
    answer = api.get("/api/rounds", params=params)
    assert answer.status_code == 422
    assert reason in answer.json()["detail"]


def test_one_round_in_full(four_rounds):
    detail = four_rounds.get("/api/rounds/t1-1", "surveillance").json()
    assert detail["dice"] == [1, 1, 1] and detail["start_position"] == 3
    assert detail["dice_rolled"] == {"faces": [1, 1, 1], "source": "shaker", "roll_id": None}
    assert [p["position"] for p in detail["piles"]] == [3, 4, 5, 6, 7, 1, 2]
    assert detail["piles"][5]["cards"] == ["Ac", "Qd", "9h", "7s", "5c", "3d", "2h"]  # the banker's pile
    assert len(detail["unused"]) == 4
    assert detail["house_way"]["rule_id"] == "high-card.second-and-fourth"
    assert detail["house_way"]["setting"] == {
        "high": ["Ac", "9h", "5c", "3d", "2h"],
        "low": ["Qd", "7s"],
        "high_sorted": ["Ac", "9h", "5c", "3d", "2h"],
        "high_name": "ace high",
        "low_sorted": ["Qd", "7s"],
        "low_name": "queen-seven",
    }
    assert detail["house_way_rule_id"] == "high-card.second-and-fourth"
    positions = {p["position"]: p for p in detail["positions"]}
    assert sorted(positions) == [1, 3, 5]
    assert (positions[1]["high"], positions[1]["low"]) == (["Ac", "9h", "5c", "3d", "2h"], ["Qd", "7s"])
    assert {
        k: positions[3][k]
        for k in (
            "outcome",
            "wager_cents",
            "win_cents",
            "commission_cents",
            "net_cents",
            "bonus_paid_cents",
            "high_category",
            "low_category",
        )
    } == {
        "outcome": "win",
        "wager_cents": 2500,
        "win_cents": 2500,
        "commission_cents": 125,
        "net_cents": 2375,
        "bonus_paid_cents": 0,
        "high_category": "one-pair",
        "low_category": "pair",
    }
    assert (positions[5]["outcome"], positions[5]["net_cents"]) == ("push", 0)
    assert (detail["commission_cents"], detail["house_result_cents"], detail["wagered_cents"]) == (
        125,
        -2375,
        3500,
    )
    events = detail["events"]
    assert [e["kind"] for e in events] == [
        "round.opened",
        "dice.rolled",
        "piles.dealt",
        "player.set",
        "player.set",
        "dealer.set",
        "round.settled",
    ]
    assert [e["seq"] for e in events] == [1, 2, 3, 4, 5, 6, 7]
    assert all(b["prev_hash"] == a["hash"] for a, b in itertools.pairwise(events))
    assert events[0]["actor"] == "ann" and events[0]["payload"]["wagers"]["3"]["main"] == 2500


def test_the_table_and_a_round_say_which_position_banks_and_which_play(api):
    """The pages read the positions from the API (game/deal.py), never from a literal of their own."""
    before = api.get("/api/table", "dealer").json()
    assert (before["banker_position"], before["player_positions"]) == (1, [2, 3, 4, 5, 6, 7])
    round_id = play_round(api)
    live = api.get("/api/table", "surveillance").json()
    assert (live["banker_position"], live["player_positions"]) == (1, [2, 3, 4, 5, 6, 7])
    detail = api.get(f"/api/rounds/{round_id}", "surveillance").json()
    assert (detail["banker_position"], detail["player_positions"]) == (1, [2, 3, 4, 5, 6, 7])
    assert detail["positions"][0]["position"] == detail["banker_position"]  # the banker's row first


def test_a_misdeal_in_full_has_its_piles_and_no_house_way(four_rounds):
    detail = four_rounds.get("/api/rounds/t1-3").json()
    assert detail["misdeal"] and detail["voided"] and detail["void_reason"].startswith("misdeal: ")
    assert detail["house_way"] is None and [p["position"] for p in detail["piles"]] == [None] * 7
    assert [e["kind"] for e in detail["events"]] == [
        "round.opened",
        "dice.rolled",
        "piles.dealt",
        "alert.raised",
    ]


def test_replay_gives_the_state_after_each_event(four_rounds):
    replay = four_rounds.get("/api/rounds/t1-4/replay").json()
    steps = replay["steps"]
    assert [(s["kind"], s["state"]["phase"]) for s in steps] == [
        ("round.opened", "open"),
        ("dice.rolled", "dealing"),
        ("piles.dealt", "players-setting"),
        ("player.set", "players-setting"),
        ("player.set", "dealer-setting"),
        ("dealer.override", "settling"),
        ("round.settled", "closed"),
    ]
    assert steps[5]["actor"] == "bob" and steps[5]["state"]["override"]["reason"] == "approved misread"
    last = steps[-1]["state"]["settlement"]
    assert [(p["position"], p["outcome"], p["net"]) for p in last["positions"]] == [
        (3, "win", 2375),
        (5, "push", 0),
    ]
    # the refused dealer setting and the alerts are in the round's events, not replay steps
    assert "round.refused" in [e["kind"] for e in four_rounds.get("/api/rounds/t1-4").json()["events"]]


def test_unknown_rounds_are_404_and_bad_ids_422(api):
    assert api.get("/api/rounds/t1-99").status_code == 404
    assert api.get("/api/rounds/t1-99").json()["detail"] == "no round 't1-99'"
    assert api.get("/api/rounds/other-1").status_code == 404
    assert api.get("/api/rounds/t1-99/replay").status_code == 404
    assert api.get("/api/rounds/no%20such").status_code == 422


def test_each_step_that_sets_hands_says_them_as_a_dealer_reads_them(api):
    """A hand set out of order (a pair of aces typed 2c 8c Ah 9c As) is read made part first,
    then the kickers high to low, and named (game/hand_words.py); a refused dealer setting and
    the override that let it stand are read too; events that set no hand carry none."""
    opened = api.post("/api/round", "dealer", json=WAGERS)
    round_id = opened.json()["round"]["round_id"]
    api.service.record_dice(DiceRolled(faces=(1, 1, 1), source="shaker", actor="device:dice-shaker"))
    piles, unused = deal({1: BANKER, 3: POSITION_3, 5: POSITION_5}, start=3)
    api.service.record_deal(PilesDealt(piles=piles, unused=unused, actor="device:shuffler"))
    scrambled = {"high": ["2c", "8c", "Ah", "9c", "As"], "low": ["Kh", "Kd"]}
    assert api.post("/api/round/players/3/setting", "dealer", json=scrambled).status_code == 200
    five = {"high": ["Kc", "8d", "6s", "4h", "3c"], "low": ["Qh", "Jd"]}
    assert api.post("/api/round/players/5/setting", "dealer", json=five).status_code == 200
    assert api.post("/api/round/dealer/setting", "dealer", json=MIS_SET).status_code == 409
    override = {**MIS_SET, "reason": "approved misread"}
    assert api.post("/api/round/dealer/override", "pit", json=override).status_code == 200
    api.service.settle()

    events = api.get(f"/api/rounds/{round_id}", "surveillance").json()["events"]
    read = {(e["kind"], e["payload"].get("position")): e["setting"] for e in events}
    assert read[("player.set", 3)] == {
        **scrambled,
        "high_sorted": ["Ah", "As", "9c", "8c", "2c"],  # the pair first, as typed; then 9, 8, 2
        "high_name": "pair of aces",
        "low_sorted": ["Kh", "Kd"],
        "low_name": "pair of kings",
    }
    mis_set = {**MIS_SET, "high_sorted": MIS_SET["high"], "high_name": "ace high"}
    mis_set |= {"low_sorted": ["Qd", "9h"], "low_name": "queen-nine"}
    assert read[("round.refused", None)] == mis_set  # the deviation the dealer tried
    assert read[("dealer.override", None)] == mis_set
    assert read[("round.opened", None)] is None and read[("round.settled", None)] is None
