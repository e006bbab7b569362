"""No request breaks the API: random sequences of commands over HTTP to a real server (uvicorn
on a loopback port, SQLite), from every role, with bodies good and malformed.

The devices' part of a round (dice, deal, settlement) goes through the service object, as
the conductor would; everything a person does goes over HTTP with that person's token:
opening a round, the players' and the dealer's settings, the pit's override and void,
opening and closing the table, asking for a deck check and clearing a hold. Each example
gets a table of its own (its own service and app, served on a fresh port).

After every step: every answer is 2xx, 401, 403, 409, 422 or 503 (never a 500); a role
without the permission gets 403 whatever the body; a malformed body from an allowed role
gets 422; the server keeps answering; the chain verifies.
"""

from __future__ import annotations

import random
import uuid
from contextlib import ExitStack, suppress
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test
from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError
from structlog.testing import capture_logs

from table_controller.api import create_app
from table_controller.api.server import serving
from table_controller.game.cards import codes, parse_cards
from table_controller.game.deal import BANKER_POSITION
from table_controller.game.setting import all_settings, is_legal
from table_controller.round.events import DiceRolled, PilesDealt
from table_controller.round.machine import TransitionRefused
from table_controller.round.phases import Phase as RoundPhase
from table_controller.settings import TableSettings
from table_controller.storage import make_engine, sqlite_url, upgrade_to_head, verify_chain
from table_controller.storage.session import read_snapshot
from table_controller.table.service import StoreOutage, TableRefused, TableService
from table_controller.table.state import DeckCheck

from ..live_client import live_client
from .conftest import ROLES, add_people

ANSWERS = {200, 201, 401, 403, 409, 422, 503}
PLAY, PIT = {"dealer", "pit"}, {"pit"}  # the roles holding each permission (roles.GRANTS)
REFUSALS = (TableRefused, TransitionRefused, StoreOutage)
MALFORMED = [
    {"high": "As Ks Qs Js Ts", "low": ["2c", "3c"]},
    {"high": ["Zz", "Ks", "Qs", "Js", "Ts"], "low": ["2c", "3c"]},
    {"high": ["As"], "low": ["2c", "3c"], "tip": 5},
    {"low": ["2c", "3c"]},
    {},
]


def _outage(*args: Any, **kwargs: Any) -> Any:
    raise OperationalError("INSERT", {}, Exception("connection refused (injected by the state machine)"))


class ApiMachine(RuleBasedStateMachine):
    """One table behind a real server; commands over HTTP by role, devices through the service."""

    def __init__(self, engine: Engine, tokens: dict[str, str]) -> None:
        super().__init__()
        self.engine = engine
        self.tokens = tokens
        self.stack = ExitStack()
        self.answers: list[int] = []

    @initialize()
    def serve(self) -> None:
        self.table_id = f"api-{uuid.uuid4().hex[:10]}"
        self.settings = TableSettings(table_id=self.table_id, misdeal_hold_after=2)
        self.service = TableService(self.settings, self.engine)
        app = create_app(self.settings, self.service, self.engine, poll_interval=0.05)
        base = self.stack.enter_context(serving(app))
        self.client = self.stack.enter_context(live_client(base_url=base, timeout=10))

    def teardown(self) -> None:
        try:
            if hasattr(self, "service"):
                self.store(away=False)
        finally:
            self.stack.close()

    # -- helpers --------------------------------------------------------------------------------

    def post(
        self, path: str, role: str | None, allowed: set[str], body: Any = None, malformed: bool = False
    ) -> int:
        headers = {} if role is None else {"Authorization": f"Bearer {self.tokens.get(role, 'not-a-token')}"}
        answer = self.client.post(path, headers=headers, json=body)
        status = answer.status_code
        self.answers.append(status)
        assert status in ANSWERS, f"POST {path} as {role}: {status} {answer.text[:300]}"
        if role is None or role == "stranger":
            assert status == 401, f"POST {path} without a valid token: {status}"
        elif role not in allowed:
            assert status == 403, f"POST {path} as {role} (not allowed): {status} {answer.text[:200]}"
        elif malformed:
            assert status == 422, f"POST {path} as {role} with a malformed body: {status} {answer.text[:200]}"
        return status

    def device(self, call: Any, *args: Any) -> None:
        with suppress(REFUSALS):
            call(*args)

    def hand(self, position: int) -> list[str]:
        state = self.service.round
        if state is not None and position in state.hands:
            return codes(state.hands[position])
        return ["As", "Ks", "Qs", "Js", "Ts", "9s", "8s"]

    def a_setting(self, position: int, pick: int, legal: bool = True) -> dict[str, list[str]]:
        every = all_settings(parse_cards(self.hand(position)))
        chosen = [s for s in every if is_legal(s) == legal] or every
        setting = chosen[pick % len(chosen)]
        return {"high": codes(setting.high), "low": codes(setting.low)}

    # -- people, over HTTP ----------------------------------------------------------------------

    people = st.sampled_from(["dealer", "dealer", "dealer", "pit", "pit", "pit", *ROLES, "stranger", None])

    @rule(
        role=people,
        main=st.sampled_from([500, 2500, 499, 100_001, "2500", 2500.5]),
        positions=st.sets(st.integers(1, 8), max_size=3),
    )
    def open_round(self, role: str | None, main: Any, positions: set[int]) -> None:
        wagers = {str(p): {"main": main} for p in positions}
        malformed = (
            not positions
            or not isinstance(main, int)
            or not 500 <= main <= 100_000
            or bool(positions - set(range(2, 8)))
        )
        self.post("/api/round", role, PLAY, {"wagers": wagers}, malformed)

    @rule(seed=st.integers(0, 2**32 - 1), misdeal=st.booleans())
    def devices_play(self, seed: int, misdeal: bool) -> None:
        """The conductor: dice in the open phase, the piles in the dealing phase, settlement."""
        s = self.service
        phase = None if s.round is None else s.round.phase
        if phase is RoundPhase.OPEN:
            self.device(
                s.record_dice,
                DiceRolled(
                    faces=(1 + seed % 6, 1 + seed // 6 % 6, 1 + seed // 36 % 6),
                    source="shaker",
                    actor="device:dice-shaker",
                ),
            )
        elif phase is RoundPhase.DEALING:
            deck = codes(self.settings.game.deck())
            random.Random(seed).shuffle(deck)
            piles, unused = [deck[7 * k : 7 * k + 7] for k in range(7)], deck[49:]
            if misdeal:
                unused[0] = next(c for c in piles[0] if c != "JK")
            self.device(s.record_deal, PilesDealt(piles=piles, unused=unused, actor="device:shuffler"))
        elif phase is RoundPhase.SETTLING:
            self.device(s.settle)
        elif s.hold is not None:
            self.device(s.record_deck_check, DeckCheck(complete=bool(seed % 2), scanned=53))

    @rule(role=people, position=st.integers(0, 9), pick=st.integers(0, 100), body=st.integers(0, 8))
    def player_setting(self, role: str | None, position: int, pick: int, body: int) -> None:
        if body < len(MALFORMED):
            payload, malformed = MALFORMED[body], True
        else:
            payload, malformed = self.a_setting(position, pick, legal=body != 5), False
        malformed = malformed or not 2 <= position <= 7
        self.post(f"/api/round/players/{position}/setting", role, PLAY, payload, malformed)

    @rule(
        role=people, pick=st.integers(0, 100), kind=st.sampled_from(["required", "required", "other", "bad"])
    )
    def dealer_setting(self, role: str | None, pick: int, kind: str) -> None:
        state = self.service.round
        if kind == "required" and state is not None and state.required is not None:
            setting = state.required.setting
            payload = {"high": codes(setting.high), "low": codes(setting.low)}
        elif kind == "bad":
            payload = MALFORMED[pick % len(MALFORMED)]
        else:
            payload = self.a_setting(BANKER_POSITION, pick)
        self.post("/api/round/dealer/setting", role, PLAY, payload, kind == "bad")

    @rule(
        role=people,
        pick=st.integers(0, 100),
        reason=st.sampled_from(["approved misread", "  ", "ok\u0002", ""]),
    )
    def override(self, role: str | None, pick: int, reason: str) -> None:
        payload = {**self.a_setting(BANKER_POSITION, pick, legal=pick % 4 != 0), "reason": reason}
        self.post("/api/round/dealer/override", role, PIT, payload, reason != "approved misread")

    @rule(role=people, reason=st.sampled_from(["wagers placed late", "  ", "x"]))
    def void(self, role: str | None, reason: str) -> None:
        self.post("/api/round/void", role, PIT, {"reason": reason}, reason != "wagers placed late")

    @rule(role=people, what=st.sampled_from(["open", "close", "open", "deck-check", "hold/clear"]))
    def table(self, role: str | None, what: str) -> None:
        self.post(f"/api/table/{what}", role, PIT)

    @rule(device=st.sampled_from(["shuffler", "dice-shaker"]), clear=st.booleans())
    def device_fault(self, device: str, clear: bool) -> None:
        if clear:
            self.service.fault_cleared(device, "jam")
        else:
            self.service.device_fault(device, "jam", "the reader jammed")

    # -- a diligent table: the next step of the round, by the right person ----------------------

    @rule(pick=st.integers(0, 10_000), steps=st.integers(1, 8))
    def play_on(self, pick: int, steps: int) -> None:
        for step in range(steps):
            self.next_step(pick + step)

    def next_step(self, pick: int) -> None:
        s = self.service
        state = s.round
        if not s.table_open:
            self.post("/api/table/open", "pit", PIT)
        elif s.hold is not None:
            if s.hold.deck_check is None or s.hold.deck_check_wanted or not s.hold.deck_check.complete:
                s.record_deck_check(DeckCheck(complete=True, scanned=53))
            else:
                self.post("/api/table/hold/clear", "pit", PIT)
        elif s.held is not None:
            self.post("/api/round/void", "pit", PIT, {"reason": "the round was held"})
        elif s.faults:
            device, kind = min(s.faults)
            s.fault_cleared(device, kind, "fixed")
        elif state is None or state.phase.is_final:
            positions = random.Random(pick).sample(range(2, 8), 1 + pick % 6)
            self.post("/api/round", "dealer", PLAY, {"wagers": {str(p): {"main": 2500} for p in positions}})
        elif state.phase in (RoundPhase.OPEN, RoundPhase.DEALING, RoundPhase.SETTLING):
            self.devices_play(pick, pick % 7 == 0)
        elif state.phase is RoundPhase.PLAYERS_SETTING:
            position = min(set(state.wagers) - set(state.player_settings))
            self.post(
                f"/api/round/players/{position}/setting",
                ("dealer", "pit")[pick % 2],
                PLAY,
                self.a_setting(position, pick, legal=pick % 5 != 0),
            )
        elif state.phase is RoundPhase.DEALER_SETTING:
            if pick % 4:
                self.dealer_setting("dealer", pick, "required")
            else:
                self.override("pit", pick, "approved misread")

    @rule(pick=st.integers(0, 10_000), steps=st.integers(1, 8))
    def keep_playing(self, pick: int, steps: int) -> None:
        self.play_on(pick, steps)

    @rule(away=st.booleans())
    def store(self, away: bool) -> None:
        """The store stops taking writes (OperationalError) and comes back: 503, never a 500."""
        recorder = self.service.recorder
        if away:
            for name in ("notes", "record", "open"):
                setattr(recorder, name, _outage)
        else:
            for name in ("notes", "record", "open"):
                recorder.__dict__.pop(name, None)
            assert self.service.retry_store()

    # -- after every step -----------------------------------------------------------------------

    @invariant()
    def the_server_answers_and_the_chain_verifies(self) -> None:
        answer = self.client.get(
            "/api/table", headers={"Authorization": f"Bearer {self.tokens['surveillance']}"}
        )
        assert answer.status_code == 200, answer.text[:300]
        with read_snapshot(self.engine) as session:
            report = verify_chain(session, table_id=self.table_id)
        assert report.ok, f"the chain is broken: {report}"


BUDGET = settings(
    max_examples=12,
    stateful_step_count=25,
    deadline=None,
    derandomize=True,
    database=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def test_no_request_sequence_breaks_the_api(tmp_path: Path) -> None:
    engine = make_engine(sqlite_url(tmp_path))
    try:
        upgrade_to_head(engine)
        tokens = add_people(engine)
        answers: list[int] = []

        def machine() -> ApiMachine:
            m = ApiMachine(engine, tokens)
            m.answers = answers
            return m

        with capture_logs():
            run_state_machine_as_test(machine, settings=BUDGET)
        assert {200, 201, 401, 403, 409, 422, 503} <= set(answers), sorted(set(answers))
    finally:
        engine.dispose()
