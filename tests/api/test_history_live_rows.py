"""What the history page reads again to keep a row true while its round is played.

The page (history.js) follows the live stream and, for an event of a round it shows, reads
``GET /api/rounds/{id}`` and redraws the row from it: the detail must carry every column of
the history's summary, with the round's phase now, not the one the page first read.
"""

from __future__ import annotations

from table_controller.api.models.rounds import RoundSummaryPublic

from .conftest import HOUSE_WAY, WAGERS, deal_round, set_player_hands


def test_a_round_read_mid_play_reads_closed_once_settled_and_the_detail_has_every_summary_column(api):
    assert api.post("/api/round", "dealer", json=WAGERS).status_code == 201
    deal_round(api)
    [row] = api.get("/api/rounds").json()["rounds"]
    assert (row["round_id"], row["phase"]) == ("t1-1", "players-setting")

    set_player_hands(api)
    assert api.post("/api/round/dealer/setting", "dealer", json=HOUSE_WAY).status_code == 200
    api.service.settle()

    detail = api.get("/api/rounds/t1-1", "surveillance").json()
    [now] = api.get("/api/rounds", "surveillance").json()["rounds"]
    assert now["phase"] == detail["phase"] == "closed"
    assert set(RoundSummaryPublic.model_fields) <= set(detail)
    assert {name: detail[name] for name in now} == now  # the row redrawn from the detail is the row
