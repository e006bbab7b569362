"""The table's own math for the pit and surveillance (docs/math.md): the par sheet, the house
edge, and today's actual against theoretical win.

Par sheet and house edge are the CLI's JSON (``analyze ... --json``) for the table as
configured, computed once per configuration (content hashes of the rules files) and budget,
and kept in memory on the app (``app.state``); the work runs in the thread pool
(``Store.run``), never on the event loop; one computation at a time per answer (a lock).
The house-way lookup is cached on disk under the user's cache folder (``default_cache_dir``:
derived data keyed by content hashes, shared by every table on the machine).
"""

from __future__ import annotations

import json
import threading
from typing import Annotated, Any
from zoneinfo import ZoneInfo

from fastapi import APIRouter, Query, Request
from sqlmodel import Session

from ...analysis.lookup import default_cache_dir, get_lookup
from ...analysis.par_sheet import build_par_sheet
from ...analysis.simulate import sim_params, simulate
from ...analysis.theoretical import table_provenance
from ...game.house_way import load_house_way
from ...settings import TableSettings
from ...storage.reports import band_check
from ..deps import AuditDep, ServiceDep, SettingsDep, StoreDep
from ..errors import responses
from ..reports import percent
from ..times import UTC_ZONE, ZoneQuery, zone_of

router = APIRouter(prefix="/api/analysis", tags=["analysis"])

DEFAULT_ROUNDS = 4_000_000
MAX_ROUNDS = 50_000_000
SEED = 1
WAGER = 2500
RoundsQuery = Annotated[int, Query(ge=10_000, le=MAX_ROUNDS, description="simulated rounds (the budget)")]


class _Answers:
    """Computed answers by key, each computed once (the lock keeps two requests from racing)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.found: dict[str, Any] = {}

    def get(self, key: str, compute: Any) -> Any:
        with self.lock:
            if key not in self.found:
                self.found[key] = compute()
            return self.found[key]


def _answers(request: Request) -> _Answers:
    state = request.app.state
    if not hasattr(state, "analysis_answers"):
        state.analysis_answers = _Answers()
    answers: _Answers = state.analysis_answers
    return answers


def _config_key(settings: TableSettings) -> tuple[str, Any, Any]:
    rules = settings.table_rules()
    prov = table_provenance(settings, rules)
    money = rules.model_dump(mode="json")
    return json.dumps([prov.as_dict(), money], sort_keys=True, default=str), rules, prov


def _par_sheet(settings: TableSettings, answers: _Answers) -> dict[str, Any]:
    key, rules, prov = _config_key(settings)
    return answers.get(
        "par-sheet|" + key,
        lambda: build_par_sheet(settings.game, prov, rules.big_hand, rules.joker_bonus).as_dict(),
    )


def _house_edge(settings: TableSettings, answers: _Answers, rounds: int) -> dict[str, Any]:
    key, rules, prov = _config_key(settings)

    def compute() -> dict[str, Any]:
        way = load_house_way(settings.house_way)
        loaded = get_lookup(way, prov.house_way.sha256, rules.ranking, default_cache_dir())
        result = simulate(loaded.path, sim_params(rules, WAGER, "house-way"), rounds, SEED, workers=1)
        result.provenance = prov.as_dict()
        result.lookup = {"built": loaded.built, **loaded.lookup.meta}
        return result.as_dict()

    return answers.get(f"house-edge|{rounds}|{key}", compute)


@router.get("/par-sheet", responses=responses())
async def par_sheet(_: AuditDep, request: Request, store: StoreDep, settings: SettingsDep) -> dict[str, Any]:
    """The exact par sheet of the table as configured (``analyze par-sheet --json``)."""
    return await store.run(_par_sheet, settings, _answers(request))


@router.get("/house-edge", responses=responses())
async def house_edge(
    _: AuditDep,
    request: Request,
    store: StoreDep,
    settings: SettingsDep,
    rounds: RoundsQuery = DEFAULT_ROUNDS,
) -> dict[str, Any]:
    """The main game's house edge by simulation, dealer and player by the house way, $25 wager
    (``analyze house-edge --strategy house-way --seed 1 --json``). The first answer for a
    configuration and budget takes seconds (and the house-way lookup about 20 s to build once)."""
    return await store.run(_house_edge, settings, _answers(request), rounds)


def _today(session: Session, table_id: str, zone: ZoneInfo) -> dict[str, Any]:
    found = band_check(session, table_id=table_id, zone=zone)
    if found is None:
        return {
            "rounds": 0,
            "actual_cents": None,
            "theoretical_cents": None,
            "band_low_cents": None,
            "band_high_cents": None,
            "outside_band": None,
            "theoretical_variance": None,
        }
    return {
        "rounds": found.rounds,
        "actual_cents": found.actual_cents,
        "theoretical_cents": found.theoretical_cents,
        "band_low_cents": found.low_cents,
        "band_high_cents": found.high_cents,
        "outside_band": found.outside,
        "theoretical_variance": found.variance,
        "position_percent": percent(found.actual_cents - found.low_cents, found.high_cents - found.low_cents),
    }


@router.get("/today", responses=responses())
async def today(
    _: AuditDep, service: ServiceDep, store: StoreDep, tz: ZoneQuery = UTC_ZONE
) -> dict[str, Any]:
    """Today so far (in ``tz``), over the settled rounds that carry a theoretical win: the actual
    result, the theoretical win, its 95% band and whether the actual lies outside it; nulls
    when no round carries one yet (missing, never 0). ``position_percent``: where the actual
    sits in the band, 0 = its low end, 100 = its high end."""
    answer: dict[str, Any] = await store.read(_today, service.table_id, zone_of(tz))
    return {"time_zone": str(tz), **answer}
