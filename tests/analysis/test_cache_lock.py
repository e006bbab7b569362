"""The machine's cache of table math is built once when several processes ask at the same time
(a pit's daemons started together, an analysis beside a daemon): the others wait and read it."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from table_controller.analysis import lookup as lookup_module
from table_controller.game.evaluator import DEFAULT_RULES
from table_controller.game.house_way import load_house_way


class _Built:
    def __init__(self, calls: list[int]) -> None:
        self.calls = calls

    def save(self, path: Path) -> None:
        time.sleep(0.2)  # a slow build: the other askers arrive while it runs
        path.write_text("built")


def test_askers_at_the_same_time_build_the_lookup_once(tmp_path, monkeypatch):
    calls: list[int] = []
    guard = threading.Lock()

    def build(way, rules, progress=None, meta=None):
        with guard:
            calls.append(1)
        return _Built(calls)

    monkeypatch.setattr(lookup_module, "build_lookup", build)
    monkeypatch.setattr(lookup_module.SettingLookup, "load", classmethod(lambda cls, path: path.read_text()))
    way = load_house_way("house-way-002")
    with ThreadPoolExecutor(4) as pool:
        found = list(
            pool.map(lambda _: lookup_module.get_lookup(way, "a" * 64, DEFAULT_RULES, tmp_path), range(4))
        )
    assert len(calls) == 1
    assert sorted(f.built for f in found) == [False, False, False, True]
    assert {f.lookup for f in found if not f.built} == {"built"}
