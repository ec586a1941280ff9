"""The fast column-wise reader gives exactly what the row-by-row checks give, on any table."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from studio.scoring.table import _read_checked
from studio.scoring.tablefast import clean_columns
from studio.tabular import read_columns, read_rows

HEADER = ["project", "system", "scope", "criterion", "weight", "target", "dimension", "verdict", "gate", "requires"]
COL = {name: i for i, name in enumerate(HEADER)}

cell_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=6)


@st.composite
def tables(draw):
    """Mostly valid rows with occasional damage: bad cells, duplicates, cycles, scatter."""
    rows = []
    n = draw(st.integers(1, 30))
    for _ in range(n):
        scope = draw(st.sampled_from(["T01", "T02", "final"]))
        target = "checkpoint" if scope != "final" else draw(st.sampled_from(["artifact", "cross-file", "package"]))
        gate = draw(st.booleans()) and draw(st.booleans())
        weight = 0 if gate else draw(st.sampled_from([1, 3, 10, -2, -10]))
        row = [
            draw(st.sampled_from(["P1", "P2"])), draw(st.sampled_from(["A", "B"])), scope,
            draw(st.sampled_from(["C1", "C2", "C3", "C4"])), str(weight), target,
            draw(st.sampled_from(["correctness", "usability"])),
            draw(st.sampled_from(["pass", "fail", "1", "0", "", "Yes"])), "true" if gate else "",
            draw(st.sampled_from(["", "", "", "C1", "C2;C3", "C9"])),
        ]
        if draw(st.integers(0, 9)) == 0:  # damage one cell
            row[draw(st.integers(0, len(row) - 1))] = draw(cell_text)
        rows.append(row)
    return rows


@settings(max_examples=400, deadline=None)
@given(tables())
def test_fast_reader_agrees_with_row_checks(rows):
    checked, problems = _read_checked(rows, COL, xlsx=False)
    fast = clean_columns(list(zip(*rows)), COL)
    if problems:
        assert fast is None  # a table with problems never takes the fast path
    elif fast is not None:
        assert fast.rubrics() == checked


def test_fast_reader_is_taken_for_a_clean_table():
    rows = [["P1", "A", "T01", "C1", "5", "checkpoint", "correctness", "pass", "", ""],
            ["P1", "A", "T01", "C2", "-3", "checkpoint", "usability", "0", "", "C1"],
            ["P1", "B", "T01", "C1", "5", "checkpoint", "correctness", "", "", ""],
            ["P1", "A", "T02", "C1", "2", "checkpoint", "correctness", "yes", "", ""]]
    fast = clean_columns(list(zip(*rows)), COL)
    assert fast is not None and fast.rubrics() == _read_checked(rows, COL, xlsx=False)[0]
    assert fast.rubrics()["P1"]["A"]["T01"].requires == ((), ("C1",))
    assert fast.keys == [("P1", "A", "T01"), ("P1", "B", "T01"), ("P1", "A", "T02")]


csv_field = st.text(alphabet=st.sampled_from(list("ab ,;\"\r\n1-\t\x0b\xa0")), max_size=5)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.lists(csv_field, min_size=1, max_size=4), min_size=1, max_size=6),
       terminator=st.sampled_from(["\n", "\r\n"]))
def test_quick_csv_split_matches_csv_module(rows, terminator, tmp_path_factory):
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator=terminator).writerows(rows)
    path: Path = tmp_path_factory.mktemp("csv") / "t.csv"
    path.write_bytes(buffer.getvalue().encode("utf-8"))
    expected = list(csv.reader(io.StringIO(buffer.getvalue(), newline="")))
    assert read_rows(path) == expected
    columns = read_columns(path)
    if columns is not None:  # only for a plain CSV whose rows all have the same width
        header, body, trimmed = columns
        assert [header, *map(list, zip(*body))] == expected
        if trimmed:  # the reader's promise that stripping would change nothing
            assert all(cell == cell.strip() for row in expected for cell in row)
