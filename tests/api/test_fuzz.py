"""Fuzz the whole OpenAPI document with schemathesis (docs/api.md, Bad input): no request may give
a 500, every answer must match its documented schema and status, and bad data is refused.

Each operation is called with the token of a role allowed to call it (from its ``x-roles``),
so the fuzzing reaches the validation behind the role check. The requests go over HTTP to a
real uvicorn server on a loopback port. SQLite only, bounded examples.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from table_controller.settings import HttpSettings, TableSettings

from .conftest import play_round, served_api

MAX_EXAMPLES = 25
# Operations whose parameters have a rule JSON Schema cannot state (a range's start before its
# end, a scope that is a pit or a table but not both, chips only of the casino's denominations
# in its configuration, a marker's number required for a marker, a count room's CSV file, a
# rating's figure that may be negative only when it is a win, a table's limits whose least is not
# above their most and are not those in force already: 422 with the reason, said in the
# description), and every operation taking a time zone (``tz``: the machine's tz database, not
# a list of ~600 names in the document; api/times.py). Every other check still runs.
CROSS_FIELD = {
    "/api/rounds",
    "/api/reports/shift",
    "/api/reports/shift.csv",
    "/api/users/{name}/scope",
    "/api/accounting/counts",
    "/api/accounting/slips",
    "/api/accounting/drop",
    "/api/accounting/drop/count-file",
    "/api/ratings/adjust",
    "/api/table/limits",
}


def _takes_a_zone(operation: dict) -> bool:
    return any(parameter.get("name") == "tz" for parameter in operation.get("parameters", []))


# Operations not fuzzed: the house-edge simulation answers in seconds only once the house-way
# lookup is built (about 20 s, once per machine) and a generated budget may be 50M rounds, past
# any request timeout. Its parameters are tested in tests/api/test_analysis.py.
NOT_FUZZED = {("GET", "/api/analysis/house-edge")}


@pytest.fixture
def fuzzed(tmp_path) -> Iterator[tuple[object, dict[tuple[str, str], str]]]:
    # the fuzzer sends many malformed tokens from one address: let it, so the slow-down of bad
    # tokens (tested in test_http_edges.py) does not answer 429 to the requests that follow
    table = TableSettings(table_id="t1", http=HttpSettings(bad_tokens_free=1_000_000))
    with served_api(tmp_path, settings=table) as (app, base, api):
        play_round(api)  # a stored round: t1-1
        headers: dict[tuple[str, str], str] = {}
        for path, item in app.openapi()["paths"].items():
            for method, operation in item.items():
                headers[(method.upper(), path)] = f"Bearer {api.tokens[operation['x-roles'][0]]}"
        yield app, base, headers


def test_no_request_gives_a_500_or_breaks_its_schema(fuzzed):
    """Every operation of the document, ``MAX_EXAMPLES`` generated requests each (schemathesis'
    pytest plugin does not run under this pytest, so the operations are walked here)."""
    app, base, headers = fuzzed
    schema = schemathesis.openapi.from_dict(app.openapi())
    failures: list[str] = []
    zoned = {path for path, item in app.openapi()["paths"].items() if any(map(_takes_a_zone, item.values()))}
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) == len(headers)
    operations = [op for op in operations if (op.method.upper(), op.path) not in NOT_FUZZED]
    assert len(operations) == len(headers) - len(NOT_FUZZED)
    for operation in operations:
        auth = {"Authorization": headers[(operation.method.upper(), operation.path)]}

        @given(case=operation.as_strategy())
        @settings(
            max_examples=MAX_EXAMPLES,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            phases=[Phase.explicit, Phase.generate],
            database=None,
        )
        def check(case) -> None:
            if case.path in ("/api/stream", "/api/progressive/{pool_id}/stream"):
                case.query = {**(case.query or {}), "follow": "false"}  # a live stream never ends by itself
            excluded = [positive_data_acceptance] if case.path in CROSS_FIELD | zoned else []
            # ``check`` runs at once, in this iteration: ``auth`` is this operation's
            case.call_and_validate(base_url=base, headers=auth, timeout=10, excluded_checks=excluded)  # noqa: B023

        try:
            check()
        except Exception as error:  # collect every operation's failure, then report them all
            failures.append(f"{operation.method.upper()} {operation.path}: {error}")
    assert not failures, "\n\n".join(failures)
