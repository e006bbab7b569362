"""The record as evidence through the API: a round's rules version in its detail, the signed
checkpoints, and the pit's override of a broken record (docs/api.md, docs/audit-chain.md)."""

from __future__ import annotations

import csv
import hashlib
import io
from pathlib import Path

from sqlalchemy import text

from table_controller.settings import AuditSettings, TableSettings
from table_controller.shipped import CONFIG_DIR
from table_controller.storage.checkpoints import Checkpoint, generate_key_file, verifies

from ..storage.helpers import tamper
from .conftest import WAGERS, make_api, play_round


def test_round_detail_names_the_rules_version_it_was_decided_under(api):
    round_id = play_round(api)
    detail = api.get(f"/api/rounds/{round_id}").json()
    way = (CONFIG_DIR / "house_ways" / "house-way-002.toml").read_bytes()
    assert detail["rules_version"]["house_way"] == hashlib.sha256(way).hexdigest()
    assert set(detail["rules_version"]) == {"house_way", "table_rules"}  # the standard game: no pay tables
    assert detail["house_way"]["rule_id"] == "high-card.second-and-fourth"
    # the stored way edited behind the store's back: the detail says the rules are not trusted
    with api.engine.begin() as connection:
        connection.execute(
            text("UPDATE evidence SET content = :c WHERE sha256 = :s"),
            {"c": b"name = 'house-way-002'", "s": detail["rules_version"]["house_way"]},
        )
    refused = api.get(f"/api/rounds/{round_id}")
    assert refused.status_code == 409 and refused.json()["error"] == "rules-not-trusted"
    assert api.get(f"/api/rounds/{round_id}/replay").status_code == 409


def test_the_checkpoints_are_served_with_their_signatures_checked(engine, tmp_path: Path):
    key_file = tmp_path / "checkpoint.key"
    public = generate_key_file(key_file)
    settings = TableSettings(
        table_id="t1", data_dir=tmp_path, audit=AuditSettings(key_file=key_file, public_key=public)
    )
    for api in make_api(engine, settings):
        play_round(api)
        signed = api.service.checkpoint("shift-end")
        assert signed is not None
        answer = api.get("/api/audit/checkpoints", role="surveillance").json()
        assert answer["checkpoint_file"] == str(tmp_path / "checkpoints.jsonl")
        [served] = answer["checkpoints"]
        assert (served["seq"], served["hash"], served["reason"], served["verified"]) == (
            signed.seq,
            signed.hash,
            "shift-end",
            True,
        )
        # the shift report carries the checkpoints written in the shift, for surveillance's copy
        shift = {"start": "2000-01-01T00:00:00Z", "end": "2100-01-01T00:00:00Z"}
        report = api.get("/api/reports/shift", role="surveillance", params=shift).json()
        assert report["checkpoints"] == [
            {
                "seq": signed.seq,
                "hash": signed.hash,
                "at": signed.at,
                "reason": "shift-end",
                "signature": signed.signature,
                "in_period": True,
            }
        ]
        # and so does its CSV: one line of scope "checkpoint", whose signature verifies
        rows = list(
            csv.DictReader(
                io.StringIO(api.get("/api/reports/shift.csv", role="surveillance", params=shift).text)
            )
        )
        [line] = [row for row in rows if row["scope"] == "checkpoint"]
        carried = Checkpoint(
            table_id="t1",
            seq=int(line["checkpoint_seq"]),
            hash=line["checkpoint_hash"],
            at=line["checkpoint_at"],
            reason=line["checkpoint_reason"],
            signature=line["checkpoint_signature"],
            public_key=public,
        )
        assert carried == signed and verifies(carried, public)
        assert line["house_result_cents"] == ""  # no money on a checkpoint's line
        earlier = {"start": "2000-01-01T00:00:00Z", "end": "2000-01-02T00:00:00Z"}
        # a period before it: no checkpoint written in it; the first one after signs its rows
        [after] = api.get("/api/reports/shift", role="surveillance", params=earlier).json()["checkpoints"]
        assert (after["seq"], after["hash"], after["in_period"]) == (signed.seq, signed.hash, False)


def test_the_pit_runs_on_a_broken_record_with_a_chained_override(api):
    play_round(api)
    assert api.post("/api/audit/override", json={"reason": "nothing wrong"}).status_code == 409
    tamper(api.engine, "UPDATE events SET actor = 'dealer-eve' WHERE table_id = 't1' AND seq = 2")
    api.service.resume()  # a start on this store: it does not deal
    refused = api.post("/api/round", role="dealer", json=WAGERS)
    assert refused.status_code == 409 and "the record is broken" in refused.json()["detail"]
    answer = api.post("/api/audit/override", json={"reason": "seq 2 under investigation"})
    assert answer.status_code == 200
    assert answer.json()["findings"][0].startswith("table t1, seq 2 (event id ")
    assert api.post("/api/round", role="dealer", json=WAGERS).status_code == 201
