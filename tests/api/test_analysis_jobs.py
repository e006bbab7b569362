"""Heavy analysis never shares the pool that answers the table (docs/api.md, "The table's math";
analysis_jobs.py): answers kept, one job per question, a bound per person and in all, the job of
a caller who went away cancelled, and every job cancelled when the API stops."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from table_controller.api.analysis_jobs import AnalysisJobs, Cancelled, Job, JobState, TooManyJobs

from .conftest import served_api


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def gated(gate: threading.Event, answer: dict, chunks: int = 1000):
    """A job that reports a chunk every 10 ms until ``gate`` opens (then answers ``answer``)."""

    def work(progress):
        for _ in range(chunks):
            if gate.is_set():
                return answer
            progress(1)
            time.sleep(0.01)
        return answer

    return work


def finished(job: Job, timeout: float = 5.0) -> JobState:
    job.future.result(timeout)
    return job.state


def test_an_answer_is_computed_once_and_then_served_at_once():
    jobs = AnalysisJobs()
    calls = []
    try:
        job = jobs.ask("k", "eve", "par-sheet", lambda progress: calls.append(1) or {"edge": 1})
        assert isinstance(job, Job) and finished(job) is JobState.DONE
        assert job.status()["result"] == {"edge": 1}
        assert jobs.ask("k", "bob", "par-sheet", lambda progress: calls.append(1) or {}) == {"edge": 1}
        assert calls == [1]
    finally:
        jobs.close()


def test_the_same_question_joins_the_job_already_queued_and_a_person_may_have_two():
    gate = threading.Event()
    jobs = AnalysisJobs(per_caller=2, limit=8)
    try:
        first = jobs.ask("a", "eve", "house-edge 1", gated(gate, {"n": 1}))
        assert jobs.ask("a", "eve", "house-edge 1", gated(gate, {"n": 9})) is first  # not a new job
        second = jobs.ask("b", "eve", "house-edge 2", gated(gate, {"n": 2}))
        with pytest.raises(TooManyJobs, match="eve has 2 analysis jobs"):
            jobs.ask("c", "eve", "house-edge 3", gated(gate, {"n": 3}))
        other = jobs.ask("c", "bob", "house-edge 3", gated(gate, {"n": 3}))  # another person may
        gate.set()
        assert [finished(j) for j in (first, second, other)] == [JobState.DONE] * 3
        assert first.status()["result"] == {"n": 1}
    finally:
        jobs.close()


def test_no_more_than_the_limit_wait_in_all():
    gate = threading.Event()
    jobs = AnalysisJobs(per_caller=1, limit=2)
    try:
        jobs.ask("a", "p1", "a", gated(gate, {}))
        jobs.ask("b", "p2", "b", gated(gate, {}))
        with pytest.raises(TooManyJobs, match="2 analysis jobs are waiting or running"):
            jobs.ask("c", "p3", "c", gated(gate, {}))
    finally:
        gate.set()
        jobs.close()


def test_a_job_nobody_asks_about_is_cancelled_between_two_chunks():
    clock = Clock()
    gate = threading.Event()
    jobs = AnalysisJobs(abandon_after=30.0, clock=clock)
    try:
        job = jobs.ask("a", "eve", "house-edge", gated(gate, {}))
        assert isinstance(job, Job)
        deadline = time.monotonic() + 5
        while job.state is not JobState.RUNNING and time.monotonic() < deadline:
            time.sleep(0.01)
        clock.now += 20
        assert jobs.job(job.id) is job  # asked about: kept alive
        clock.now += 20
        assert job.state is JobState.RUNNING
        clock.now += 11  # 31 s since the last question: its caller went away
        assert finished(job) is JobState.CANCELLED and "went away" in (job.error or "")
        assert "a" not in jobs.answers
    finally:
        jobs.close()


def test_a_stop_cancels_the_running_job_and_the_queued_ones_and_refuses_new_ones():
    gate = threading.Event()
    jobs = AnalysisJobs()
    running = jobs.ask("a", "eve", "a", gated(gate, {}))
    queued = jobs.ask("b", "bob", "b", gated(gate, {}))
    assert isinstance(running, Job) and isinstance(queued, Job)
    jobs.close()
    assert finished(running) is JobState.CANCELLED and finished(queued) is JobState.CANCELLED
    with pytest.raises(Cancelled):
        jobs.ask("c", "eve", "c", gated(gate, {}))
    jobs._worker.join(5)
    assert not jobs._worker.is_alive()


def test_a_burst_of_house_edge_requests_from_one_token_never_stalls_the_table(tmp_path):
    """The burst a surveillance token sent (45 concurrent house-edge requests, each another
    budget) while the pit reads the table: every ``GET /api/table`` answers, the burst is
    answered at once (two jobs for the person, 429 with Retry-After for the rest), and the
    jobs go when the API stops. Before, the burst queued on one lock in the shared thread pool
    and the table went unanswered for minutes."""
    burst = 45
    with served_api(tmp_path, timeout=20.0) as served:
        api = served.api

        def edge(i: int):
            return api.get(
                "/api/analysis/house-edge", "surveillance", params={"rounds": 1_000_000 + 10_000 * i}
            )

        def table(_: int):
            answer = api.get("/api/table", "pit")
            return answer.status_code

        with ThreadPoolExecutor(burst + 4) as pool:
            edges = [pool.submit(edge, i) for i in range(burst)]
            time.sleep(0.2)  # the burst has arrived
            tables = [pool.submit(table, i) for i in range(20)]
            table_codes = [t.result() for t in tables]  # each within the client's timeout
            answers = [e.result() for e in edges]
        assert table_codes == [200] * 20
        codes = sorted(a.status_code for a in answers)
        computed = [a for a in answers if a.status_code in (200, 202)]
        refused = [a for a in answers if a.status_code == 429]
        assert len(computed) == 2 and len(refused) == burst - 2, codes
        assert all(a.headers["Retry-After"] == "5" and a.json()["error"] == "analysis-busy" for a in refused)
        for accepted in [a for a in computed if a.status_code == 202]:
            status = api.get(accepted.headers["Location"], "surveillance")
            assert status.status_code == 200 and status.json()["state"] in ("queued", "running", "done")
        jobs = served.app.state.analysis_jobs
    # the API stopped: its jobs were cancelled or done, the worker gone
    jobs._worker.join(5)
    assert not jobs._worker.is_alive()
