"""The column-wise reader of plain-CSV rating tables gives exactly the row reader's Ratings; it
declines every table with a problem (the row reader then names the rows), and takes clean ones."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from studio.agreement.columns import read_plain_ratings
from studio.agreement.ratings import Ratings
from studio.agreement.reader import RatingTableError, read_rating_table, read_rows_checked

HEADER = ["criterion", "item", "rater", "verdict", "target", "dimension", "project"]
SLOW = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow]


def as_tuple(ratings: Ratings) -> tuple:
    return (ratings.raters, ratings.categories, ratings.codes.tolist(), ratings.codes.dtype, ratings.items.tolist(),
            ratings.items.dtype, ratings.item_names, ratings.criteria, ratings.attributes)


def row_reader(path: Path):
    try:
        return as_tuple(read_rows_checked(path))
    except RatingTableError:
        return RatingTableError


@st.composite
def clean_tables(draw):
    criteria = draw(st.lists(st.sampled_from(["C1", "C2", "c10", "Prüf-3", "x"]), min_size=1, max_size=4, unique=True))
    items = draw(st.lists(st.sampled_from(["memo.docx", "a", "b.xlsx", "item-9", "Münze"]), min_size=1, max_size=4,
                          unique=True))
    raters = draw(st.lists(st.sampled_from(["judge", "expert-A", "expert-B", "Zed"]), min_size=1, max_size=3,
                           unique=True))
    rows = []
    for criterion in criteria:
        for item in items:
            groups = [draw(st.sampled_from(["artifact", "package", "checkpoint"])),
                      draw(st.sampled_from(["correctness", "usability"])), draw(st.sampled_from(["P1", "P2"]))]
            for rater in draw(st.lists(st.sampled_from(raters), min_size=1, unique=True)):
                verdict = draw(st.sampled_from(["pass", "fail", "1", "0", "", "Yes", "no", "partial", " n/a "]))
                shown = [value if draw(st.booleans()) else draw(st.sampled_from(["", value, f" {value}"]))
                         for value in groups]
                rows.append([criterion, item, rater, verdict, *shown])
    return draw(st.permutations(rows)) if draw(st.booleans()) else rows


@settings(max_examples=250, deadline=None, suppress_health_check=SLOW)
@given(rows=clean_tables(), order=st.permutations(range(len(HEADER))), newline=st.sampled_from(["\n", "\r\n"]),
       bom=st.booleans(), final_newline=st.booleans())
def test_clean_tables_are_read_column_wise_exactly_as_row_by_row(rows, order, newline, bom, final_newline,
                                                                  tmp_path_factory):
    header = [HEADER[k] for k in order]
    lines = [",".join(header)] + [",".join(row[k] for k in order) for row in rows]
    text = newline.join(lines) + (newline if final_newline else "")
    path = tmp_path_factory.mktemp("t") / "r.csv"
    path.write_bytes(("\ufeff" if bom else "").encode() + text.encode("utf-8"))
    fast = read_plain_ratings(path)
    assert fast is not None
    assert as_tuple(fast) == row_reader(path)


cell_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=5)


@st.composite
def damaged_tables(draw):
    rows = [list(row) for row in draw(clean_tables())]
    for _ in range(draw(st.integers(1, 3))):
        row = draw(st.integers(0, len(rows) - 1))
        kind = draw(st.sampled_from(["cell", "duplicate", "group", "blank id", "short"]))
        column = draw(st.integers(0, len(HEADER) - 1))
        if kind == "cell" and column < len(rows[row]):
            rows[row][column] = draw(cell_text)
        elif kind == "duplicate":
            rows.insert(draw(st.integers(0, len(rows))), list(rows[row]))
        elif kind == "group":
            rows.append(rows[row][:2] + ["another-rater", "pass", "elsewhere", "", ""])
        elif kind == "blank id" and column < min(3, len(rows[row])):
            rows[row][column] = draw(st.sampled_from(["", " ", "a ", "\tb"]))
        elif kind == "short":
            rows[row] = rows[row][:column]
    return rows


@settings(max_examples=300, deadline=None, suppress_health_check=SLOW)
@given(rows=damaged_tables(), newline=st.sampled_from(["\n", "\r\n"]))
def test_any_table_reads_alike_or_the_column_reader_declines(rows, newline, tmp_path_factory):
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator=newline).writerows([HEADER, *rows])  # quotes cells that need them
    path = tmp_path_factory.mktemp("t") / "r.csv"
    path.write_bytes(buffer.getvalue().encode("utf-8"))
    expected = row_reader(path)
    fast = read_plain_ratings(path)
    if expected is RatingTableError:
        assert fast is None  # a table with a problem never takes the column reader
        with pytest.raises(RatingTableError):
            read_rating_table(path)
    else:
        assert fast is None or as_tuple(fast) == expected
        assert as_tuple(read_rating_table(path)) == expected


@pytest.mark.parametrize("change, reason", [
    (lambda t: t.replace("c2,i1,expert", "c2,i1,judge"), "a rater twice on one decision"),
    (lambda t: t.replace("c1,i1,expert,0,artifact", "c1,i1,expert,0,package"), "two targets for one decision"),
    (lambda t: t.replace("c1,i2,judge", "c1,i2 ,judge"), "a blank around an id"),
    (lambda t: t.replace("c1,i2,judge", ",i2,judge"), "an empty criterion"),
    (lambda t: t.replace("c1,i2,judge", '"c1",i2,judge'), "quotes"),
    (lambda t: t.replace("criterion,item", "criterion,rater"), "a column named twice"),
])
def test_the_column_reader_declines_what_it_cannot_read_exactly(tmp_path: Path, change, reason):
    rows = [[c, i, r, v, "artifact", "", ""] for c in ("c1", "c2") for i in ("i1", "i2")
            for r, v in (("judge", "pass"), ("expert", "0"))]
    clean = tmp_path / "clean.csv"
    clean.write_text("\n".join(",".join(row) for row in [HEADER, *rows]) + "\n")
    assert read_plain_ratings(clean) is not None
    damaged = tmp_path / "damaged.csv"
    damaged.write_text(change(clean.read_text()))
    assert damaged.read_text() != clean.read_text(), reason
    assert read_plain_ratings(damaged) is None, reason
    expected = row_reader(damaged)
    if expected is RatingTableError:
        with pytest.raises(RatingTableError):
            read_rating_table(damaged)
    else:
        assert as_tuple(read_rating_table(damaged)) == expected


def test_a_ten_megabyte_id_cell_is_left_to_the_row_reader(tmp_path: Path):
    """Packing a column into words costs rows x its longest cell: one huge cell declines."""
    rows = [[f"c{k}", "i1", "judge", "pass", "", "", ""] for k in range(2000)]
    rows[7][0] = "x" * 10_000_000
    path = tmp_path / "long.csv"
    path.write_text("\n".join(",".join(row) for row in [HEADER, *rows]) + "\n")
    assert read_plain_ratings(path) is None
    assert read_rating_table(path).n_decisions == 2000
    assert np.array_equal(read_rating_table(path).codes, read_rows_checked(path).codes)
