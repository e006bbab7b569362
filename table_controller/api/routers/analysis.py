"""The table's own math for the pit and surveillance (docs/math.md): the par sheet, the house
edge, and today's actual against theoretical win.

Par sheet and house edge are the CLI's JSON (``analyze ... --json``) for the table as
configured, computed once per configuration (content hashes of the rules files) and budget.
They are heavy, so they never run in the thread pool that answers the table
(``analysis_jobs.py``): a kept answer is served at once, otherwise a job is queued on the
analysis worker and the request waits for it about a second, then answers 202 with the job's
status URL (``GET /api/analysis/jobs/{job}``). A person may have ``PER_CALLER`` jobs waiting.
The house-way lookup is cached on disk under the user's cache folder (``default_cache_dir``:
derived data keyed by content hashes, shared by every table on the machine).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Annotated, Any
from zoneinfo import ZoneInfo

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from sqlmodel import Session

from ...analysis.lookup import default_cache_dir, get_lookup
from ...analysis.par_sheet import build_par_sheet
from ...analysis.simulate import sim_params, simulate
from ...analysis.theoretical import table_provenance
from ...game.house_way import load_house_way
from ...settings import TableSettings
from ...storage.reports import band_check, today_bounds
from ..analysis_jobs import AnalysisJobs, Cancelled, Job, JobState, Progress, TooManyJobs
from ..deps import AuditDep, ServiceDep, SettingsDep, StoreDep
from ..errors import ApiError, responses
from ..reports import percent, report
from ..times import UTC_ZONE, ZoneQuery, zone_of

router = APIRouter(prefix="/api/analysis", tags=["analysis"])

DEFAULT_ROUNDS = 4_000_000
MAX_ROUNDS = 10_000_000  # the most one request may ask for: about 10 s of the analysis worker
SEED = 1
WAGER = 2500
RETRY_AFTER = 5  # seconds: a caller with too many jobs waiting asks again after this
RoundsQuery = Annotated[int, Query(ge=10_000, le=MAX_ROUNDS, description="simulated rounds (the budget)")]


class JobBody(BaseModel):
    """A job that is not done yet (202), or any job's status: poll ``status_url``."""

    job: str
    what: str
    state: str
    status_url: str
    rounds_done: int
    rounds: int
    result: dict[str, Any] | None = None
    error: str | None = None


ACCEPTED: dict[int | str, dict[str, Any]] = {
    202: {"model": JobBody, "description": "Not computed yet: queued as a job; poll `status_url`."}
}


def analysis_jobs(request: Request) -> AnalysisJobs:
    """The app's analysis jobs, started on first use (closed with the app: app.py)."""
    state = request.app.state
    if getattr(state, "analysis_jobs", None) is None:
        state.analysis_jobs = AnalysisJobs()
    jobs: AnalysisJobs = state.analysis_jobs
    return jobs


def _config_key(settings: TableSettings) -> tuple[str, Any, Any]:
    rules = settings.table_rules()
    prov = table_provenance(settings, rules)
    money = rules.model_dump(mode="json")
    return json.dumps([prov.as_dict(), money], sort_keys=True, default=str), rules, prov


async def _answer(request: Request, caller: str, key: str, what: str, work: Any, total: int = 0) -> Any:
    """The kept answer (200), the job's answer if it ends within a second (200), else 202."""
    jobs = analysis_jobs(request)
    try:
        found = jobs.ask(key, caller, what, work, total)
    except TooManyJobs as error:
        raise ApiError(429, str(error), "analysis-busy", headers={"Retry-After": str(RETRY_AFTER)}) from None
    except Cancelled as error:
        raise ApiError(503, str(error), "stopping") from None
    if not isinstance(found, Job):
        return found
    if await jobs.wait(found) and found.state is JobState.DONE:
        return found.future.result()
    status = found.status()
    return JSONResponse(status, status_code=202, headers={"Location": status["status_url"]})


@router.get("/par-sheet", responses={**responses(), **ACCEPTED})
async def par_sheet(principal: AuditDep, request: Request, settings: SettingsDep) -> Any:
    """The exact par sheet of the table as configured (``analyze par-sheet --json``); 202 with
    a status URL while it is first computed."""
    key, rules, prov = _config_key(settings)

    def work(_: Progress) -> dict[str, Any]:
        return build_par_sheet(settings.game, prov, rules.big_hand, rules.joker_bonus).as_dict()

    return await _answer(request, principal.name, "par-sheet|" + key, "par-sheet", work)


@router.get("/house-edge", responses={**responses(), **ACCEPTED})
async def house_edge(
    principal: AuditDep,
    request: Request,
    settings: SettingsDep,
    rounds: RoundsQuery = DEFAULT_ROUNDS,
) -> Any:
    """The main game's house edge by simulation, dealer and player by the house way, $25 wager
    (``analyze house-edge --strategy house-way --seed 1 --json``). A budget not computed yet
    is a job on the analysis worker (about a million rounds a second; the house-way lookup
    about 20 s to build once): answered 200 if it ends within a second, else 202 with the
    job's status URL. At most ``MAX_ROUNDS`` rounds."""
    key, rules, prov = _config_key(settings)

    def work(progress: Progress) -> dict[str, Any]:
        way = load_house_way(settings.house_way)
        loaded = get_lookup(way, prov.house_way.sha256, rules.ranking, default_cache_dir())
        result = simulate(
            loaded.path, sim_params(rules, WAGER, "house-way"), rounds, SEED, workers=1, progress=progress
        )
        result.provenance = prov.as_dict()
        result.lookup = {"built": loaded.built, **loaded.lookup.meta}
        return result.as_dict()

    what = f"house-edge {rounds}"
    return await _answer(request, principal.name, f"house-edge|{rounds}|{key}", what, work, rounds)


@router.get("/jobs/{job_id}", responses=responses(404))
async def analysis_job(_: AuditDep, request: Request, job_id: str) -> JobBody:
    """A job's state (``queued``, ``running``, ``done`` with its ``result``, ``failed`` or
    ``cancelled`` with its ``error``) and rounds done. Asking keeps it alive: a job nobody asks
    about for 30 s is cancelled (its caller went away)."""
    job = analysis_jobs(request).job(job_id)
    if job is None:
        raise ApiError(404, f"no analysis job {job_id} (finished jobs are forgotten after 10 minutes)")
    return JobBody(**job.status())


def _count_today(session: Session, table_id: str, zone: ZoneInfo, now: datetime) -> dict[str, int]:
    """Every round of the day, not only those with a theoretical win: opened, settled, and the
    settled ones that carry no theoretical win yet (its computation comes after settlement)."""
    start, end = today_bounds(zone, now)
    total = report(session, table_id=table_id, kind="day", start=start, end=end, time_zone=str(zone)).total
    return {
        "rounds_opened": total.rounds,
        "rounds_settled": total.settled,
        "rounds_without_theoretical": total.settled - (total.theoretical_rounds or 0),
    }


def _today(session: Session, table_id: str, zone: ZoneInfo) -> dict[str, Any]:
    now = datetime.now(UTC)  # one "today" for the band and the counts
    found = band_check(session, table_id=table_id, zone=zone, now=now)
    counts = _count_today(session, table_id, zone, now)
    if found is None:
        return {
            **counts,
            "rounds": 0,
            "actual_cents": None,
            "theoretical_cents": None,
            "band_low_cents": None,
            "band_high_cents": None,
            "outside_band": None,
            "theoretical_variance": None,
        }
    return {
        **counts,
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
    sits in the band, 0 = its low end, 100 = its high end. ``rounds`` counts the rounds with a
    theoretical win; ``rounds_opened`` and ``rounds_settled`` every round of the day, and
    ``rounds_without_theoretical`` the settled ones that carry none yet."""
    answer: dict[str, Any] = await store.read(_today, service.table_id, zone_of(tz))
    return {"time_zone": str(tz), **answer}
