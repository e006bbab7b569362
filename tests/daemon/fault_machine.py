"""Faults across processes: a state machine whose steps are what goes wrong at a casino table, and
whose invariants are what the pit must be able to count on whatever went wrong
(docs/round-lifecycle.md, "When things go wrong"; docs/development.md, "The fault machine").

The table is ``table-controller run`` as a process with the auto-dealer, the simulators as
processes, its store PostgreSQL through a proxy or SQLite in a folder (fault_rig.py). A
supervisor starts the daemon again whenever it exits, as systemd would. The steps:

- SIGKILL and SIGTERM of the daemon at a point of its life (its start-up, a phase of a round,
  mid-deal, between rounds), and its start again; SIGKILL mid-deal together with the shuffler
  (``run --simulate``'s simulators die with the daemon);
- the store going away and coming back (PostgreSQL: every connection cut; SQLite: another process
  holds the write lock), at any moment, during the start-up record check, before a periodic one;
- the console while the daemon runs: ``round void`` (and ``round confirm`` for a void that needs
  a second pit user), ``users disable``;
- the machines: the shuffler jammed, its door opened, its deck removed, its cable pulled, power
  cycled, each put right again; the dice shaker stopped dead and woken;
- the pit putting everything right with the documented actions (the store back, the machines
  fixed, a held round voided, a deck check asked for and the hold cleared, the table opened).

After every step, waiting a bounded time: the table deals, or ``GET /api/table`` says why not in
a field whose clearing is documented (``TABLE_STOPS``); no round settles twice; every settled
round's money is the game core's settlement of its stored inputs; a console void reaches the
running daemon; a disabled person's token is refused; a misdeal hold rests on a deal that
completed with a wrong card set. At the end of each sequence the pit puts everything right and a
round must settle, SIGTERM must end the daemon with status 0, and ``audit verify`` must pass.

A failed invariant is a ``Wedge``: its name, what was seen, and the steps that led there.

``KNOWN_WEDGES`` lists the wedges found and not yet fixed on this branch: each switches off the
steps or the check that meets it (named where it is used). Remove an entry when its fix lands,
and the machine then proves the fix against every other fault.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, reject, seed, settings
from hypothesis import Phase as Stage
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    get_state_machine_test,
    initialize,
    invariant,
    precondition,
    rule,
)

from table_controller.record.recorder import json_payload
from table_controller.round.events import ROUND_EVENT_KINDS, event_from_payload
from table_controller.round.machine import replay
from table_controller.round.phases import Phase
from table_controller.storage import get_positions, get_round, list_events
from table_controller.storage.session import read_snapshot
from table_controller.table.service import rules_for

from .fault_rig import EYE, PIT, Rig, Store, event_is

# The wedges this machine found that are not fixed on this branch, by name: what each one is.
# Each entry switches off what meets it (see ``known``); the merger removes the entry with the fix.
KNOWN_WEDGES: dict[str, str] = {}


def known(name: str) -> bool:
    """Whether the wedge ``name`` is a known one, not yet fixed (its steps or check are off)."""
    return name in KNOWN_WEDGES


STEP_DELAY = "0.2"  # seconds between a round's steps (tests/daemon/processes.py): kills land in a phase
# seconds in which the table deals or says why not: a lost link 3 s; a deaf shaker's no-answer fault
# device_timeout (10 s) x dice.no_answer_tries (2), after a start of a few seconds
LIVE_WITHIN = 35.0
CLEAR_WITHIN = 75.0  # seconds in which, everything put right, a round settles
STOP_WITHIN = 20.0  # seconds in which SIGTERM ends the daemon ("after the step in progress")
RESTART_AFTER = 1.0  # seconds the supervisor waits before starting a daemon that exited again
MISDEAL_HOLD_AFTER = 2
RECORD_CHECK_FLAP = 8.0  # seconds PostgreSQL drops every connection every 50 ms before it goes away

# Where the daemon can be caught: the log line that marks the point.
POINTS = {
    "start-up": event_is("daemon.starting"),
    "open": event_is("round.phase", phase="open"),
    "dealing": event_is("round.phase", phase="dealing"),
    "mid-deal": event_is("deal.pile", pile=3),
    "players-setting": event_is("round.phase", phase="players-setting"),
    "dealer-setting": event_is("round.phase", phase="dealer-setting"),
    "settling": event_is("round.phase", phase="settling"),
    "between-rounds": event_is("round.summary"),
}

# Why a table is not dealing, as GET /api/table says it, and what the documentation says clears it
# (docs/round-lifecycle.md, "When things go wrong"; docs/api.md). A stop shown nowhere here is a wedge.
TABLE_STOPS = {
    "table-closed": "the pit opens the table: POST /api/table/open",
    "hold": "a clean deck check, then the pit clears the hold: POST /api/table/deck-check, "
    "/api/table/hold/clear",
    "round-held": "the pit voids the round: POST /api/round/void (a second pit user confirms above "
    "the limit)",
    "store-outage": "the store answers again: play resumes by itself",
    "device": "the device is put right (door closed, jam cleared, deck loaded, link back, the shaker "
    "answering again): play resumes",
    "daemon-down": "the daemon exited (status 1: the store could not be opened); the supervisor starts it",
}

SHUFFLER_FAULTS = {  # a hand on the shuffler, and what puts it right
    "jam": "clear-jam",
    "open-door": "close-door",
    "remove-deck": "load-deck",
}


class Wedge(AssertionError):
    """An invariant that failed: the table stopped, or lied, where the pit must be able to count on it."""

    def __init__(self, invariant: str, seen: str, steps: list[str]) -> None:
        self.invariant, self.seen, self.steps = invariant, seen, list(steps)
        numbered = "\n".join(f"  {i + 1}. {step}" for i, step in enumerate(self.steps))
        super().__init__(f"WEDGE [{invariant}]: {seen}\nafter the steps:\n{numbered}")


@dataclass
class Stats:
    """What a run did: sequences, steps, faults injected by kind, wedges found."""

    sequences: int = 0
    steps: int = 0
    faults: Counter[str] = field(default_factory=Counter)
    settled: int = 0
    starts: int = 0
    daemon_cpu: float = 0.0  # CPU seconds the daemons used
    wedges: list[Wedge] = field(default_factory=list)


@dataclass
class Verdict:
    dealing: bool
    reasons: list[str]
    view: dict[str, Any] | None


def reasons_shown(view: dict[str, Any]) -> list[str]:
    """Every reason ``GET /api/table`` gives for not dealing, each as ``kind: words``."""
    reasons = []
    if not view.get("table_open", True):
        reasons.append("table-closed: the table is closed")
    if view.get("hold"):
        reasons.append(f"hold: {view['hold']['reason']}")
    if view.get("round_held"):
        reasons.append(f"round-held: {view['round_held']}")
    if view.get("store_outage"):
        reasons.append(f"store-outage: {view['store_outage']['error']}")
    for device in view.get("devices", []):
        if device.get("status") != "ok" or device.get("faults") or device.get("link") == "down":
            faults = ", ".join(f["kind"] for f in device.get("faults", []))
            reasons.append(f"device: {device['device']} {device.get('status')} {faults}".rstrip())
    return reasons


class FaultMachine(RuleBasedStateMachine):
    """One table under faults; ``folder`` holds its logs, ``postgres_url`` chooses PostgreSQL."""

    def __init__(self, folder: Path, kind: str, postgres_url: str | None, stats: Stats) -> None:
        super().__init__()
        self.folder, self.kind, self.postgres_url, self.stats = folder, kind, postgres_url, stats
        self.rig: Rig | None = None
        self.steps: list[str] = []
        self.standing: set[str] = set()  # shuffler faults not yet put right
        self.disabled: set[str] = set()
        self.voided_by_console: list[str] = []  # rounds the console voided: the daemon must follow
        self.checked: set[str] = set()  # settled rounds whose money was checked
        self.store_moved = 0.0  # when the store last went away or came back (monotonic)

    # -- the table ----------------------------------------------------------------------------

    @initialize(two_person=st.booleans(), label=st.integers(0, 999))
    def start_the_table(self, two_person: bool, label: int) -> None:
        # the first example Hypothesis tries is its simplest, the last rule over and over: not a
        # sequence worth starting processes for (``run_machine``'s seed chooses the others)
        if label == 0:
            reject()
        self.stats.sequences += 1
        kind = self.kind
        folder = self.folder / f"sequence-{self.stats.sequences}"
        folder.mkdir(parents=True)
        if kind == "postgresql":
            assert self.postgres_url is not None
            store = Store.postgresql(self.postgres_url)
        else:
            store = Store.sqlite(folder)
        env = {
            "TABLE_PORT": "0",  # any free loopback port: its address is read from the log
            "TABLE_STEP_DELAY": STEP_DELAY,
            "TABLE_MISDEAL_HOLD_AFTER": str(MISDEAL_HOLD_AFTER),
            # every round opened checks the record, unless that wedge is known (item 1)
            "TABLE_AUDIT__CHECK_EVERY_ROUNDS": "0" if known("record-check-outage") else "1",
            # 0: every void needs a second pit user (the console's `round confirm`, the API's confirm)
            "TABLE_SECOND_PIT_ABOVE": "0" if two_person else "100000000",
        }
        self.rig = Rig(store, folder, env)
        self.note(f"a table on {kind}, {'two people for a void' if two_person else 'one pit user voids'}")
        self.rig.begin()

    @property
    def table(self) -> Rig:
        assert self.rig is not None
        return self.rig

    def note(self, step: str) -> None:
        self.steps.append(step)

    def wedge(self, invariant: str, seen: str) -> Wedge:
        return Wedge(invariant, seen, self.steps)

    def step(self, words: str, fault: str | None = None) -> None:
        self.stats.steps += 1
        if fault is not None:
            self.stats.faults[fault] += 1
        self.note(words)
        self.supervise()

    def supervise(self) -> None:
        """Start the daemon again if it exited by itself; an exit is a wedge unless it is the
        documented status 1 of a start that could not open the store while it was away."""
        if self.judge_exit():
            self.note("(the supervisor starts the daemon again after its exit 1: the store is away)")
            time.sleep(RESTART_AFTER)
            self.table.start()

    def judge_exit(self) -> bool:
        """Whether the daemon exited by itself (then forgotten); a wedge unless with status 1
        while the store was away."""
        table = self.table
        code = table.exited()
        if code is None:
            return False
        store_lately = table.store.away or time.monotonic() - self.store_moved < 15
        if code != 1 or not store_lately:
            log = table.folder / f"daemon-{table.starts}.log"
            raise self.wedge("daemon-lives", f"the daemon exited by itself with status {code} (see {log})")
        return True

    def kill(self) -> None:
        """SIGKILL the daemon, unless it has just exited by itself (judged as such)."""
        if not self.judge_exit() and self.table.daemon is not None:
            self.table.kill()

    def restart(self) -> None:
        self.table.start()

    def enabled_pit(self) -> list[str]:
        return [name for name in PIT if name not in self.disabled]

    def view(self, person: str = EYE) -> tuple[dict[str, Any] | None, str]:
        """The table as ``GET /api/table`` shows it, or (None, why there is no view)."""
        answer = self.table.call("GET", "/api/table", person)
        if answer is None:
            return None, "the API did not answer"
        if answer.status_code == 503:
            return None, f"503 {answer.text[:200]}"
        if answer.status_code != 200:
            raise self.wedge(
                "api-answers", f"GET /api/table answered {answer.status_code}: {answer.text[:300]}"
            )
        return answer.json(), ""

    def verdict(self, within: float = LIVE_WITHIN) -> Verdict:
        """Deals (the round moves) or says why not, within ``within`` s; else a wedge."""
        deadline = time.monotonic() + within
        first: tuple[Any, Any] | None = None
        last: dict[str, Any] | None = None
        why = ""
        starts = self.table.starts
        while time.monotonic() < deadline:
            self.supervise()
            if self.table.api_url(0) is None:
                if self.table.starts > starts and self.table.store.away:
                    return Verdict(
                        False, ["daemon-down: it exits 1 at start, the store cannot be opened"], None
                    )
                time.sleep(0.2)  # starting: its API serves soon
                continue
            view, why = self.view()
            if view is None:
                if why.startswith("503") and "store" in why:
                    return Verdict(False, [f"store-outage: {why}"], None)
                time.sleep(0.2)
                continue
            last = view
            now = (
                (None, None) if view["round"] is None else (view["round"]["round_id"], view["round"]["phase"])
            )
            if first is None:
                first = now
            elif now != first:
                return Verdict(True, [], view)
            reasons = reasons_shown(view)
            if reasons:
                return Verdict(False, reasons, view)
            time.sleep(0.25)
        seen = "no view" if last is None else json.dumps(_short(last))
        raise self.wedge(
            "deals-or-says-why",
            f"the table did not deal for {within:.0f} s and GET /api/table gave no reason ({why or seen})",
        )

    # -- the steps: the daemon ----------------------------------------------------------------

    def _catch(self, point: str) -> bool:
        """Wait until the daemon reaches ``point`` (False: not within 15 s)."""
        if point == "start-up":
            return True
        return self.table.wait_line(POINTS[point], 15) is not None

    @rule(point=st.sampled_from(sorted(POINTS)))
    def sigkill(self, point: str) -> None:
        self.step(f"SIGKILL the daemon at {point}, start it again", "sigkill")
        if self.table.daemon is None:
            self.restart()
        caught = self._catch(point)
        if self.table.daemon is not None:
            self.kill()
        if not caught:
            self.note(f"  ({point} not reached within 15 s: killed where it stood)")
        self.restart()
        if point == "start-up":
            self.table.wait_line(POINTS["start-up"], 15)
            self.kill()
            self.restart()

    @rule(point=st.sampled_from(sorted(POINTS)))
    def sigterm(self, point: str) -> None:
        self.step(f"SIGTERM the daemon at {point}, start it again", "sigterm")
        if self.table.daemon is None:
            self.restart()
        if point == "start-up":
            self.table.wait_line(POINTS["start-up"], 15)
        else:
            self._catch(point)
        if self.table.daemon is None:  # it exited by itself meanwhile: supervise() judges that
            self.supervise()
            return
        code = self.table.terminate(STOP_WITHIN)
        if code is None:
            raise self.wedge(
                "stops-when-asked", f"SIGTERM at {point}: still running after {STOP_WITHIN:.0f} s"
            )
        if code != 0 and not self.table.store.away:
            raise self.wedge("stops-when-asked", f"SIGTERM at {point}: exit status {code}, not 0")
        self.restart()

    @rule(point=st.sampled_from(["mid-deal", "dealing"]))
    def sigkill_with_the_devices(self, point: str) -> None:
        """``run --simulate`` loses its simulators with it: the shuffler restarts too."""
        self.step(f"SIGKILL the daemon at {point} and power-cycle the shuffler", "sigkill+shuffler-restart")
        if self.table.daemon is None:
            self.restart()
        self._catch(point)
        if self.table.daemon is not None:
            self.kill()
        self.table.shuffler("restart")
        self.restart()

    # -- the steps: the store -----------------------------------------------------------------

    @precondition(lambda self: self.rig is not None and not self.table.store.away)
    @rule(
        when=st.sampled_from(["now", "start-up", "record-check"]),
        lag=st.sampled_from([0.0, 0.2, 0.3, 0.4]),
        away_for=st.floats(0.5, 8.0),
    )
    def store_goes_away(self, when: str, lag: float, away_for: float) -> None:
        """``start-up``: the daemon killed and started again, the store taken away ``lag`` s after
        it restored the table, as its whole-record check begins; ``record-check``: ``lag`` s after
        a round settled, as the next round's opening checks the record (about 0.3 s after: a step
        delay and a read); PostgreSQL flaps first for ``RECORD_CHECK_FLAP`` s, so that the check's
        queries meet a cut whatever the machine's load."""
        if when in ("start-up", "record-check") and known("record-check-outage"):
            when = "now"
        self.step(f"the store goes away ({when}, {lag} s after)", f"store-away-{when}")
        table = self.table
        if when == "start-up":
            if table.daemon is not None:
                self.kill()
            self.restart()
            table.wait_line(event_is("table.restored"), 30)
        elif when == "record-check":
            table.wait_line(POINTS["between-rounds"], 15)
        if when != "now":
            time.sleep(lag)
        if when != "now" and table.store.proxy is not None:
            table.store.flap(RECORD_CHECK_FLAP)  # the check meets a cut, the reads around it may not
        table.store.go_away()
        self.store_moved = time.monotonic()
        time.sleep(away_for)

    @precondition(lambda self: self.rig is not None and self.table.store.away)
    @rule()
    def store_comes_back(self) -> None:
        self.step("the store comes back")
        self.table.store.come_back()
        self.store_moved = time.monotonic()

    # -- the steps: the console ---------------------------------------------------------------

    @precondition(lambda self: not known("console-void"))
    @rule(
        point=st.sampled_from(["now", "open", "players-setting", "dealer-setting"]),
        confirm=st.sampled_from(["console", "api"]),
    )
    def console_void(self, point: str, confirm: str) -> None:
        """``round void`` while the daemon runs, at ``point`` of a round (and the second pit user's
        confirmation, when the void needs one, from the console or the API)."""
        self.step(
            f"`round void` from the console while the daemon runs, at {point} (confirmed by {confirm})",
            "console-void",
        )
        if point != "now" and self.table.daemon is not None:
            self._catch(point)
        people = self.enabled_pit()
        asked = self.table.console("round", "void", "--reason", "voided from the console", person=people[0])
        self.note(f"  {asked}")
        if asked.code == 3:
            seq = re.search(r"requested as (\d+)", asked.out)
            assert seq is not None, str(asked)
            if confirm == "console":
                done = self.table.console("round", "confirm", seq.group(1), person=people[1])
                self.note(f"  {done}")
                if done.code == 0:
                    self.voided_by_console.append(asked.out.split()[2])
            else:
                answer = self.table.call("POST", f"/api/approvals/{seq.group(1)}/confirm", people[1])
                self.note(f"  POST /api/approvals/{seq.group(1)}/confirm -> {_status(answer)}")
        elif asked.code == 0:
            self.voided_by_console.append(asked.out.split()[1])

    @precondition(lambda self: len([p for p in PIT if p not in self.disabled]) > 2)
    @rule(person=st.sampled_from(PIT))
    def users_disable(self, person: str) -> None:
        self.step(f"`users disable {person}` from the console while the daemon runs", "users-disable")
        done = self.table.console("users", "disable", person)
        self.note(f"  {done}")
        if done.code == 0:
            self.disabled.add(person)

    # -- the steps: the machines --------------------------------------------------------------

    @rule(fault=st.sampled_from(sorted(SHUFFLER_FAULTS)), point=st.sampled_from(["now", "mid-deal"]))
    def shuffler_fault(self, fault: str, point: str) -> None:
        self.step(f"the shuffler: {fault} ({point})", f"shuffler-{fault}")
        if point == "mid-deal" and self.table.daemon is not None:
            self._catch(point)
        self.table.shuffler(fault)
        self.standing.add(fault)

    @rule(seconds=st.sampled_from([1, 4]), point=st.sampled_from(["now", "mid-deal"]))
    def shuffler_cable_pulled(self, seconds: int, point: str) -> None:
        self.step(f"the shuffler's cable pulled for {seconds} s ({point})", "shuffler-link-cut")
        if point == "mid-deal" and self.table.daemon is not None:
            self._catch(point)
        self.table.shuffler(f"cut {seconds}")

    @rule(point=st.sampled_from(["now", "mid-deal"]))
    def shuffler_power_cycled(self, point: str) -> None:
        self.step(f"the shuffler power-cycled ({point})", "shuffler-restart")
        if point == "mid-deal" and self.table.daemon is not None:
            self._catch(point)
        self.table.shuffler("restart")

    @precondition(lambda self: bool(self.standing))
    @rule()
    def shuffler_put_right(self) -> None:
        self.step(f"the shuffler put right ({', '.join(SHUFFLER_FAULTS[f] for f in sorted(self.standing))})")
        self._shuffler_put_right()

    def _shuffler_put_right(self) -> None:
        for fault in sorted(self.standing):
            self.table.shuffler(SHUFFLER_FAULTS[fault])
        self.standing.clear()

    @precondition(lambda self: self.rig is not None and not self.table.shaker_silent)
    @rule(how=st.sampled_from(["dead", "deaf"]))
    def the_shaker_goes_silent(self, how: str) -> None:
        """``dead``: the shaker's process stopped (no answer, no heartbeat: the link is lost);
        ``deaf``: its link answers and its SHAKEs are taken, and it never rolls nor refuses."""
        self.step(f"the dice shaker goes silent ({how})", f"shaker-{how}")
        if how == "dead":
            self.table.stop_shaker()
        else:
            self.table.deafen_shaker()

    @precondition(lambda self: self.rig is not None and self.table.shaker_silent)
    @rule()
    def the_shaker_answers_again(self) -> None:
        self.step("the dice shaker answers again")
        self.table.wake_shaker()

    # -- the step that proves a stop can be cleared -------------------------------------------

    @rule()
    def the_pit_puts_everything_right(self) -> None:
        self.step("the pit puts everything right with the documented actions")
        self.clear_everything()

    def clear_everything(self) -> None:
        """The store back, the machines right, then each stop the table shows cleared by its
        documented action until a round settles; a wedge if none settles in ``CLEAR_WITHIN`` s."""
        table = self.table
        if table.store.away:
            table.store.come_back()
            self.store_moved = time.monotonic()
        table.wake_shaker()
        self._shuffler_put_right()
        people = self.enabled_pit()
        settled = self.settled_count()
        done: list[str] = []
        reasons: list[str] = []
        deadline = time.monotonic() + CLEAR_WITHIN
        while time.monotonic() < deadline:
            self.supervise()
            if self.settled_count() > settled:
                self.stats.settled += 1
                return
            view, _ = self.view(people[0]) if table.api_url(0) else (None, "")
            if view is None:
                time.sleep(0.3)
                continue
            reasons = reasons_shown(view)
            if not view["table_open"]:
                done.append(self._act("POST", "/api/table/open", people[0]))
            hold = view.get("hold")
            if hold:
                self.a_hold_rests_on_evidence()
                check = hold.get("deck_check")
                if check is not None and check["complete"]:
                    done.append(self._act("POST", "/api/table/hold/clear", people[0]))
                elif not hold.get("deck_check_pending"):
                    done.append(self._act("POST", "/api/table/deck-check", people[0]))
            if view.get("round_held"):
                answer = table.call(
                    "POST", "/api/round/void", people[0], {"reason": "held: voided by the pit"}
                )
                done.append(f"POST /api/round/void -> {_status(answer)}")
                if answer is not None and answer.status_code == 202:
                    seq = answer.json()["seq"]
                    done.append(self._act("POST", f"/api/approvals/{seq}/confirm", people[1]))
            time.sleep(0.5)
        tried = "; ".join(dict.fromkeys(done)) or "nothing to do"
        raise self.wedge(
            "a-stop-clears",
            f"everything put right and the documented actions taken ({tried}), no round settled within "
            f"{CLEAR_WITHIN:.0f} s; the table shows: {reasons or 'no reason'}",
        )

    def _act(self, method: str, path: str, person: str) -> str:
        return f"{method} {path} -> {_status(self.table.call(method, path, person))}"

    # -- after every step ---------------------------------------------------------------------

    @invariant()
    def the_table_deals_or_says_why(self) -> None:
        if self.rig is None:
            return
        verdict = self.verdict()
        for reason in verdict.reasons:
            kind = reason.split(":")[0]
            if kind not in TABLE_STOPS:
                raise self.wedge("deals-or-says-why", f"a stop no documented action clears: {reason}")

    @invariant()
    def a_hold_rests_on_evidence(self) -> None:
        """The machine never loads a bad deck, so no misdeal hold is deserved: one here was raised
        on deals that were interrupted (a restart, a lost link, a door opened), not on a deal that
        completed with a wrong card set."""
        if self.rig is None or known("restart-misdeal"):
            return
        held = self.table.store.rows(
            "SELECT payload FROM events WHERE kind = 'alert.raised' AND payload LIKE '%table-held%'"
        )
        holds = [json.loads(p)["detail"] for (p,) in held if json.loads(p).get("alert") == "table-held"]
        if holds:
            raise self.wedge(
                "a-hold-rests-on-evidence",
                f"the table was held with a clean deck: {holds[0][:300]} "
                f"(misdeals: {self.misdeal_details()})",
            )

    @invariant()
    def no_round_settles_twice_and_money_is_the_game_cores(self) -> None:
        if self.rig is None:
            return
        store = self.table.store
        twice = store.rows(
            "SELECT round_id, count(*) FROM events WHERE kind IN ('round.settled', 'round.voided') "
            "GROUP BY round_id HAVING count(*) > 1"
        )
        if twice:
            raise self.wedge("settles-once", f"rounds ended more than once: {twice}")
        settled = [r for (r,) in store.rows("SELECT round_id FROM events WHERE kind = 'round.settled'")]
        for round_id in settled:
            if round_id not in self.checked:
                problem = money_problem(store, round_id)
                if problem is not None:
                    raise self.wedge("money-is-the-game-cores", problem)
                self.checked.add(round_id)

    @invariant()
    def the_console_and_the_api_reach_the_same_state(self) -> None:
        """A round the console voided is, for the running daemon too, voided: not held, not open."""
        if self.rig is None:
            return
        while self.voided_by_console:
            round_id = self.voided_by_console[0]
            deadline = time.monotonic() + 10
            seen = "no view"
            while True:
                view, _ = self.view()
                if view is not None:
                    shown = view["round"] or {}
                    if shown.get("round_id") != round_id or (
                        shown.get("phase") == "void" and not view.get("round_held")
                    ):
                        break
                    seen = f"phase {shown.get('phase')}, held: {view.get('round_held')}"
                if time.monotonic() > deadline:
                    if view is None:
                        break  # no daemon to ask: the next start reads the void from the store
                    raise self.wedge(
                        "console-and-api-agree",
                        f"the console voided {round_id}; 10 s later the daemon still shows it: {seen}",
                    )
                time.sleep(0.25)
            self.voided_by_console.pop(0)

    @invariant()
    def a_disabled_person_is_refused(self) -> None:
        if self.rig is None:
            return
        for person in self.disabled:
            answer = self.table.call("GET", "/api/table", person)
            if answer is not None and answer.status_code == 200:
                raise self.wedge(
                    "disabled-is-refused", f"{person} was disabled and the API still answers them"
                )

    # -- helpers --------------------------------------------------------------------------------

    def settled_count(self) -> int:
        [(count,)] = self.table.store.rows("SELECT count(*) FROM events WHERE kind = 'round.settled'")
        return int(count)

    def misdeal_details(self) -> list[str]:
        rows = self.table.store.rows(
            "SELECT payload FROM events WHERE kind = 'alert.raised' ORDER BY seq DESC LIMIT 200"
        )
        found = [json.loads(p) for (p,) in rows]
        return [a.get("detail", "")[:160] for a in found if a.get("alert") == "misdeal"][:MISDEAL_HOLD_AFTER]

    def teardown(self) -> None:
        if self.rig is None:
            return
        try:
            self.note("(end) the pit puts everything right; SIGTERM; audit verify")
            self.clear_everything()
            if self.table.daemon is not None:
                code = self.table.terminate(STOP_WITHIN)
                if code != 0:
                    raise self.wedge("stops-when-asked", f"SIGTERM at the end: exit status {code}")
            verify = self.table.console("audit", "verify")
            if verify.code != 0:
                raise self.wedge("audit-verify", str(verify))
            self.no_round_settles_twice_and_money_is_the_game_cores()
        finally:
            self.stats.starts += self.table.starts
            self.stats.daemon_cpu += self.table.cpu
            self.table.close()


def budget(sequences: int, steps: int) -> settings:
    """Hypothesis settings for ``sequences`` sequences of ``steps`` steps: no shrinking (each step
    runs processes; a wedge prints the steps that led to it), no database, no deadline."""
    return settings(
        max_examples=sequences,
        stateful_step_count=steps,
        deadline=None,
        database=None,
        phases=[Stage.generate],
        suppress_health_check=list(HealthCheck),
    )


def run_machine(
    folder: Path,
    kind: str,
    *,
    postgres_url: str | None = None,
    sequences: int = 1,
    steps: int = 6,
    seed_: int = 0,
    stats: Stats | None = None,
) -> Stats:
    """Run the machine for ``sequences`` sequences of ``steps`` steps, chosen by ``seed_``; a
    wedge is raised (and kept in ``stats.wedges``)."""
    stats = stats if stats is not None else Stats()

    def machine() -> FaultMachine:
        return FaultMachine(folder, kind, postgres_url, stats)

    test = get_state_machine_test(machine, settings=budget(sequences, steps))
    seed(seed_)(test)
    try:
        test()
    except Wedge as wedge:
        stats.wedges.append(wedge)
        raise
    return stats


# Each known wedge's shortest sequence: the steps (a rule's name and its arguments), each followed
# by every invariant, as Hypothesis would run them.
REPRODUCTIONS: dict[str, list[tuple[str, dict[str, Any]]]] = {  # on SQLite, or as STORE_OF says
    "record-check-outage": [
        ("store_goes_away", {"when": "record-check", "lag": 0.0, "away_for": 2.0}),
        ("store_comes_back", {}),
        ("the_pit_puts_everything_right", {}),
    ],
    "restart-misdeal": [
        ("sigkill_with_the_devices", {"point": "mid-deal"}),
        ("sigkill_with_the_devices", {"point": "mid-deal"}),
        ("the_pit_puts_everything_right", {}),
    ],
    "console-void": [("console_void", {"point": "players-setting", "confirm": "console"})],
    "silent-shaker": [("the_shaker_goes_silent", {"how": "deaf"}), ("sigterm", {"point": "open"})],
}
# A locked SQLite file can still be read (WAL): the record check meets the outage on PostgreSQL only.
STORE_OF = {"record-check-outage": "postgresql"}
# Sequences that find their wedge only when a cut lands inside a check of a few milliseconds on a
# small store (found in some runs, not all: the reads before and after the check must get through
# while the check does not); the others find theirs every time.
FOUND_BY_TIMING = frozenset({"record-check-outage"})
INVARIANTS = (
    "the_table_deals_or_says_why",
    "a_hold_rests_on_evidence",
    "no_round_settles_twice_and_money_is_the_game_cores",
    "the_console_and_the_api_reach_the_same_state",
    "a_disabled_person_is_refused",
)


def reproduce(name: str, folder: Path, postgres_url: str) -> Wedge | None:
    """Run the known wedge ``name``'s sequence with its switch off, on its store; the wedge found
    (None: none, the fix has landed). A known wedge goes back on the known list after; a fixed
    one (no longer listed) is run the same way, as its fix's regression test."""
    stats = Stats()
    kind = STORE_OF.get(name, "sqlite")
    saved = KNOWN_WEDGES.pop(name, None)
    machine = FaultMachine(folder, kind, postgres_url, stats)
    try:
        machine.start_the_table(two_person=False, label=1)
        for rule_name, arguments in REPRODUCTIONS[name]:
            getattr(machine, rule_name)(**arguments)
            for check in INVARIANTS:
                getattr(machine, check)()
        machine.teardown()
        return None
    except Wedge as wedge:
        if machine.rig is not None:
            machine.table.close()
        return wedge
    finally:
        if saved is not None:
            KNOWN_WEDGES[name] = saved


def money_problem(store: Store, round_id: str) -> str | None:
    """What is wrong with a settled round's money (None: its projections are the game core's
    settlement replayed from its stored inputs)."""
    with read_snapshot(store.engine) as session:
        stored = [e for e in list_events(session, round_id=round_id) if e.kind in ROUND_EVENT_KINDS]
        state = replay([event_from_payload(json_payload(e.payload)) for e in stored], rules_for)
        if state.phase is not Phase.CLOSED or state.result is None:
            return f"round {round_id} is settled in the chain but replays to {state.phase.value}"
        result = state.result.as_dict()
        totals = result["totals"]
        row = get_round(session, round_id=round_id)
        if (row.commission_cents, row.bonuses_paid_cents, row.house_result_cents) != (
            totals["commission"],
            totals["bonuses_paid"],
            totals["house_result"],
        ):
            return f"round {round_id}: the round's totals differ from the game core's settlement"
        positions = {p.position: p for p in get_positions(session, round_id=round_id)}
        for record in result["positions"]:
            if record["position"] not in positions:
                return f"round {round_id}: position {record['position']} settled but not stored"
            stored_net = positions[record["position"]].net_cents
            if stored_net != record["net"]:
                return (
                    f"round {round_id} position {record['position']}: stored {stored_net}, "
                    f"settles {record['net']}"
                )
    return None


def _status(answer: Any) -> str:
    if answer is None:
        return "no answer"
    return f"{answer.status_code} {answer.text[:120]}"


def _short(view: dict[str, Any]) -> dict[str, Any]:
    state = view.get("round") or {}
    return {
        "round": state.get("round_id"),
        "phase": state.get("phase"),
        "table_open": view.get("table_open"),
        "hold": view.get("hold"),
        "round_held": view.get("round_held"),
        "store_outage": view.get("store_outage"),
        "devices": [(d["device"], d["status"], d.get("link")) for d in view.get("devices", [])],
        "open_alerts": [a["alert"] for a in view.get("open_alerts", [])][-5:],
    }


__all__ = [
    "FOUND_BY_TIMING",
    "KNOWN_WEDGES",
    "TABLE_STOPS",
    "FaultMachine",
    "Stats",
    "Wedge",
    "budget",
    "known",
    "money_problem",
    "reproduce",
    "run_machine",
]
