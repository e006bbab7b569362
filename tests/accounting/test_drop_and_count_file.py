"""The drop and the count room's file (docs/accounting.md, "Drop", "The count room's file"):
every bad line refused by its number, nothing imported from a file with a bad line."""

from datetime import date

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table_controller.accounting.count_file import parse_count_file
from table_controller.accounting.drop import (
    DropEntry,
    DropKind,
    DropSource,
    drop_of,
    marker_differences,
)
from table_controller.accounting.errors import (
    AmountError,
    CountFileError,
    CountLineProblem,
    DuplicateError,
    MismatchError,
)

GOOD = """\ufeffgaming_day,table_id,shift,kind,amount,reference
2026-12-03,PG-1,,cash,1250.00,box 14
2026-12-03,PG-1,,marker,500.00,M-10231

2026-12-03,PG-2,swing,cash,0.05,
"""


def test_a_good_file_gives_its_lines_in_cents():
    entries = parse_count_file(GOOD, shifts={"day", "swing", "grave"})
    assert entries == (
        DropEntry("PG-1", date(2026, 12, 3), None, DropKind.CASH, 125_000, DropSource.COUNT_FILE, "box 14"),
        DropEntry("PG-1", date(2026, 12, 3), None, DropKind.MARKER, 50_000, DropSource.COUNT_FILE, "M-10231"),
        DropEntry("PG-2", date(2026, 12, 3), "swing", DropKind.CASH, 5, DropSource.COUNT_FILE, None),
    )
    pg1 = drop_of([e for e in entries if e.table_id == "PG-1"], table_id="PG-1")
    assert (pg1.cash, pg1.markers, pg1.total) == (125_000, 50_000, 175_000)


def test_the_columns_may_come_in_any_order():
    text = "amount,kind,reference,shift,table_id,gaming_day\n10.00,cash,,,PG-1,2026-12-03\n"
    assert parse_count_file(text)[0].amount == 1_000


def test_every_bad_line_is_named_and_nothing_is_taken():
    text = "\n".join(
        [
            "gaming_day,table_id,shift,kind,amount,reference",
            "2026-12-03,PG-1,,cash,1250.00,",  # 2: good
            "2026-13-03,PG-1,,cash,1.00,",  # 3: no 13th month
            "2026-12-03,PG-1,,chips,1.00,",  # 4: kind
            "2026-12-03,PG-1,,cash,1250.5,",  # 5: one decimal
            "2026-12-03,PG-1,,cash,-5.00,",  # 6: a sign
            "2026-12-03,PG-1,,cash,1e3,",  # 7: a float's spelling
            "2026-12-03,PG-1,,marker,100.00,",  # 8: a marker without its number
            "2026-12-03,PG-1,,marker,100.00,M-1",  # 9: good
            "2026-12-03,PG-1,,marker,200.00,M-1",  # 10: the same marker again
            "2026-12-03,PG-1,brunch,cash,1.00,",  # 11: no such shift
            "2026-12-03,PG-1,,cash",  # 12: four fields
            "20261203,,,cash,1.00,",  # 13: a date without dashes, no table
            "2026-12-03,PG-1,,marker,0.00,M-2",  # 14: a marker of nothing
            "2026-12-03,PG-1,,cash,1,000.00,",  # 15: a thousands separator splits the field
        ]
    )
    with pytest.raises(CountFileError) as caught:
        parse_count_file(text, shifts=("day", "swing", "grave"))
    found = {(p.line, p.column) for p in caught.value.problems}
    assert found == {
        (3, "gaming_day"),
        (4, "kind"),
        (5, "amount"),
        (6, "amount"),
        (7, "amount"),
        (8, "reference"),
        (10, "reference"),
        (11, "shift"),
        (12, None),
        (13, "gaming_day"),
        (13, "table_id"),
        (14, "amount"),
        (15, None),
    }
    shown = [str(problem) for problem in caught.value.problems]
    assert "line 10, column 'reference': marker 'M-1' is also on line 9" in shown
    assert str(caught.value).startswith("the count-room file has 13 problem(s) on 12 line(s): line 3,")


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("", 1),
        ("gaming_day,table_id,kind,amount,reference\n", 1),
        ("gaming_day,table_id,shift,kind,amount,reference,extra\n", 1),
        ('gaming_day,table_id,shift,kind,amount,reference\n2026-12-03,"PG-1,,cash,1.00,\n', 2),
    ],
)
def test_a_file_without_its_header_or_not_csv_is_refused(text, line):
    with pytest.raises(CountFileError) as caught:
        parse_count_file(text)
    assert caught.value.problems[0].line >= line


def test_a_file_that_is_not_text_is_refused():
    with pytest.raises(CountFileError):
        parse_count_file(b"gaming_day")  # type: ignore[arg-type]


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # a loaded machine is not a failure
@given(st.integers(min_value=0, max_value=10**12 - 1))
def test_an_amount_reads_as_exactly_its_cents(cents):
    dollars = f"{cents // 100}.{cents % 100:02d}"
    text = f"gaming_day,table_id,shift,kind,amount,reference\n2026-12-03,PG-1,,cash,{dollars},\n"
    assert parse_count_file(text)[0].amount == cents


def test_a_marker_is_in_the_drop_once_and_of_its_table():
    marker = DropEntry("PG-1", date(2026, 12, 3), None, DropKind.MARKER, 100, DropSource.TABLE, "M-1")
    with pytest.raises(DuplicateError):
        drop_of([marker, marker])
    with pytest.raises(MismatchError):
        drop_of([marker], table_id="PG-2")
    with pytest.raises(AmountError):
        DropEntry("PG-1", date(2026, 12, 3), None, DropKind.MARKER, 100, DropSource.TABLE, None)
    with pytest.raises(AmountError):
        DropEntry("PG-1", date(2026, 12, 3), None, DropKind.CASH, 1.5, DropSource.SOFT_COUNT)


def test_markers_issued_at_the_table_against_those_counted():
    def marker(number, amount, source):
        return DropEntry("PG-1", date(2026, 12, 3), None, DropKind.MARKER, amount, source, number)

    issued = [marker("M-1", 100_000, DropSource.TABLE), marker("M-2", 50_000, DropSource.TABLE)]
    counted = [marker("M-2", 5_000, DropSource.COUNT_FILE), marker("M-3", 20_000, DropSource.COUNT_FILE)]
    differences = marker_differences(issued, counted)
    assert (differences.not_counted, differences.not_issued, differences.amounts) == (
        ("M-1",),
        ("M-3",),
        ("M-2",),
    )
    assert not differences.clean
    assert marker_differences(issued, issued).clean


def test_a_problem_reads_as_its_line_and_column():
    assert str(CountLineProblem(4, "kind", "bad")) == "line 4, column 'kind': bad"
    assert str(CountLineProblem(1, None, "empty")) == "line 1: empty"
