"""Every report form carries the signed checkpoints it was made under (docs/floor-reports.md,
"Signed checkpoints"; docs/audit-chain.md, "Anchoring"): the floor's JSON, CSV, printable page
and PDF, as the table's JSON and CSV do; each checkpoint written in the period, and the first
written after it (the first to sign every row of the period). SQLite and PostgreSQL."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pypdf

from table_controller.api.reports import report, report_csv
from table_controller.settings import AuditSettings, TableSettings
from table_controller.storage import read_snapshot
from table_controller.storage.checkpoints import Checkpoint, generate_key_file, load_public_key
from table_controller.table.service import TableService

from .conftest import Floor, play

TODAY = datetime.now(UTC).date()
YESTERDAY = TODAY - timedelta(days=1)


def _keyed_t1(floor: Floor, tmp_path: Path) -> tuple[TableService, str]:
    key = tmp_path / "keys" / "checkpoint.key"
    public = generate_key_file(key)
    settings = TableSettings(
        table_id="t1", pit="pit-a", data_dir=tmp_path, audit=AuditSettings(key_file=key, public_key=public)
    )
    return TableService(settings, floor.engine), public


def _signed(item: dict, public: str, table_id: str = "t1") -> bool:
    checkpoint = Checkpoint(
        table_id, item["seq"], item["hash"], item["at"], item["reason"], item["signature"], public
    )
    load_public_key(public).verify(bytes.fromhex(item["signature"]), checkpoint.signed_bytes())
    return True


def test_every_floor_report_form_carries_its_checkpoints(floor: Floor, tmp_path: Path):
    service, public = _keyed_t1(floor, tmp_path)
    play(service)
    written = service.checkpoint("shift-end")
    assert written is not None
    query = {"day": TODAY.isoformat(), "tz": "UTC", "pit": "pit-a"}

    found = floor.get("/api/floor/reports/day", "pia", params=query).json()
    assert found["checkpoints"] == [
        {
            "table_id": "t1",
            "seq": written.seq,
            "hash": written.hash,
            "at": written.at,
            "reason": "shift-end",
            "signature": written.signature,
            "in_period": True,
        }
    ]
    assert _signed(found["checkpoints"][0], public)  # what surveillance checks with the public key

    rows = list(
        csv.DictReader(io.StringIO(floor.get("/api/floor/reports/day.csv", "pia", params=query).text))
    )
    [line] = [row for row in rows if row["scope"] == "checkpoint"]
    assert (line["table_id"], line["checkpoint_seq"], line["checkpoint_hash"]) == (
        "t1",
        str(written.seq),
        written.hash,
    )
    assert (line["checkpoint_signature"], line["checkpoint_in_period"]) == (written.signature, "yes")
    assert line["rounds"] == "" and line["wagered_cents"] == ""  # not a line of money
    assert all(row["checkpoint_seq"] == "" for row in rows if row["scope"] != "checkpoint")

    page = floor.get("/api/floor/reports/day.html", "pia", params=query).text
    assert "Signed checkpoints" in page and written.hash in page and written.signature in page

    pdf = floor.get("/api/floor/reports/day.pdf", "pia", params=query)
    text = "".join(page.extract_text() for page in pypdf.PdfReader(io.BytesIO(pdf.content)).pages)
    squeezed = "".join(text.split())
    assert "Signedcheckpoints" in squeezed and written.hash in squeezed and written.signature in squeezed


def test_a_period_before_the_checkpoint_carries_the_first_one_after_it(floor: Floor, tmp_path: Path):
    """Yesterday's report made today: no checkpoint was written in it, the first one written after
    it signs every row it sums, and both the floor's and the table's reports carry it."""
    service, public = _keyed_t1(floor, tmp_path)
    play(service)
    first = service.checkpoint("every-rounds")
    second = service.checkpoint("shift-end")
    assert first is not None and second is not None and second.seq > first.seq
    query = {"day": YESTERDAY.isoformat(), "tz": "UTC", "table": "t1"}
    found = floor.get("/api/floor/reports/day", "cy", params=query).json()
    assert [(c["seq"], c["in_period"]) for c in found["checkpoints"]] == [(first.seq, False)]
    assert _signed(found["checkpoints"][0], public)

    start = datetime(YESTERDAY.year, YESTERDAY.month, YESTERDAY.day, tzinfo=UTC)
    with read_snapshot(floor.engine) as session:
        table = report(
            session, table_id="t1", kind="day", start=start, end=start + timedelta(days=1), time_zone="UTC"
        )
    assert [(c.seq, c.hash, c.in_period) for c in table.checkpoints] == [(first.seq, first.hash, False)]
    [line] = [row for row in csv.DictReader(io.StringIO(report_csv(table))) if row["scope"] == "checkpoint"]
    assert (line["checkpoint_seq"], line["checkpoint_in_period"]) == (str(first.seq), "no")


def test_a_report_no_checkpoint_covers_says_so(floor: Floor):
    play(floor.services["t1"])  # no key: nothing is signed
    query = {"day": TODAY.isoformat(), "tz": "UTC"}
    assert floor.get("/api/floor/reports/day", "cy", params=query).json()["checkpoints"] == []
    page = floor.get("/api/floor/reports/day.html", "cy", params=query).text
    assert "nothing outside the database anchors these figures" in page
