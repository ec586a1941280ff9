"""Reading rating tables (CSV and xlsx): labels, missing verdicts, and errors that name the row
and column (and the cell in a workbook) — with nothing computed when any row is bad."""

from __future__ import annotations

import re
from pathlib import Path

import openpyxl
import pytest

from studio.agreement import RatingTableError, analyse, normalise_label, read_rating_table
from studio.agreement import reader as reader_module


def write_csv(path: Path, rows: list[list[str]]) -> Path:
    path.write_text("".join(",".join(row) + "\n" for row in rows), encoding="utf-8")
    return path


def write_xlsx(path: Path, rows: list[list[object]]) -> Path:
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    for row in rows:
        sheet.append(row)
    workbook.save(path)
    return path


def write(tmp_path: Path, kind: str, rows: list[list[object]]) -> Path:
    if kind == "csv":
        return write_csv(tmp_path / "ratings.csv", [["" if v is None else str(v) for v in row] for row in rows])
    return write_xlsx(tmp_path / "ratings.xlsx", rows)


def problems(path: Path) -> list[str]:
    with pytest.raises(RatingTableError) as caught:
        read_rating_table(path)
    assert caught.value.problems and str(path) in str(caught.value)
    return caught.value.problems


def verdicts(ratings) -> dict[tuple[str, str, str], str | None]:
    out = {}
    for d, criterion in enumerate(ratings.criteria):
        item = ratings.item_names[ratings.items[d]]
        for r, rater in enumerate(ratings.raters):
            code = int(ratings.codes[d, r])
            out[(criterion, item, rater)] = ratings.categories[code] if code >= 0 else None
    return out


# -- labels -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, label", [
    ("pass", "pass"), ("PASS", "pass"), (" Pass ", "pass"), ("yes", "pass"), ("Yes", "pass"), ("TRUE", "pass"),
    ("true", "pass"), ("1", "pass"), ("fail", "fail"), ("FAIL", "fail"), ("no", "fail"), ("No", "fail"),
    ("FALSE", "fail"), ("0", "fail"), ("", None), ("   ", None), ("n/a", "n/a"), ("Partial", "Partial"),
])
def test_normalise_label(text, label):
    assert normalise_label(text) == label


HEADER = ["verdict", "rater", "item", "criterion"]  # any order
BODY = [
    ["Yes", "A", "i1", "c1"],
    ["no", "B", "i1", "c1"],
    ["TRUE", "A", "i2", "c1"],
    ["1", "B", "i2", "c1"],
    ["0", "A", "i1", "c2"],
    ["PASS", "B", "i1", "c2"],
    ["n/a", "A", "i2", "c2"],
    ["", "B", "i2", "c2"],
    ["partial", "A", "i3", "c1"],
]
EXPECTED = {
    ("c1", "i1", "A"): "pass", ("c1", "i1", "B"): "fail",
    ("c1", "i2", "A"): "pass", ("c1", "i2", "B"): "pass",
    ("c2", "i1", "A"): "fail", ("c2", "i1", "B"): "pass",
    ("c2", "i2", "A"): "n/a", ("c2", "i2", "B"): None,
    ("c1", "i3", "A"): "partial", ("c1", "i3", "B"): None,
}


@pytest.mark.parametrize("kind", ["csv", "xlsx"])
def test_columns_in_any_order_synonyms_other_labels_and_missing(tmp_path, kind):
    ratings = read_rating_table(write(tmp_path, kind, [HEADER, *BODY]))
    assert ratings.raters == ["A", "B"]
    assert ratings.categories == ["pass", "fail", "n/a", "partial"]  # pass, fail first, other labels kept
    assert ratings.n_decisions == 5 and ratings.item_names == ["i1", "i2", "i3"]
    assert verdicts(ratings) == EXPECTED
    pooled = analyse(ratings).pooled
    assert pooled["n"] == 3  # (c2, i2) and (c1, i3) have one verdict each


def test_xlsx_native_booleans_and_numbers(tmp_path):
    rows = [["criterion", "item", "rater", "verdict"],
            ["c", "i1", "A", True], ["c", "i1", "B", 1],
            ["c", "i2", "A", False], ["c", "i2", "B", 0],
            ["c", "i3", "A", 1.0], ["c", "i3", "B", None]]
    ratings = read_rating_table(write_xlsx(tmp_path / "t.xlsx", rows))
    assert verdicts(ratings) == {("c", "i1", "A"): "pass", ("c", "i1", "B"): "pass",
                                 ("c", "i2", "A"): "fail", ("c", "i2", "B"): "fail",
                                 ("c", "i3", "A"): "pass", ("c", "i3", "B"): None}
    assert ratings.categories == ["pass", "fail"]


def test_header_case_and_spaces_optional_columns_and_blank_lines(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(" Criterion ,ITEM,Rater,Verdict,Target,project\n"
                    "c1,i1,A,pass,t1,p\n"
                    "\n"
                    "c1,i1,B,fail,,p\n"
                    "c1,i2,A,pass,t2,\n", encoding="utf-8")
    ratings = read_rating_table(path)
    assert ratings.attributes == {"target": ["t1", "t2"], "project": ["p", None]}
    report = analyse(ratings)
    assert set(report.by_target) == {"t1", "t2"} and set(report.by_project) == {"p"}
    assert report.by_dimension == {}


def test_quoted_csv_fields(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text('criterion,item,rater,verdict\n"cites, sources",i1,A,pass\n"cites, sources",i1,B,"fail"\n',
                    encoding="utf-8")
    ratings = read_rating_table(path)
    assert ratings.criteria == ["cites, sources"]
    assert verdicts(ratings) == {("cites, sources", "i1", "A"): "pass", ("cites, sources", "i1", "B"): "fail"}


# -- errors -------------------------------------------------------------------------------------------

CSV_HEADER = ["criterion", "item", "rater", "verdict", "target"]


@pytest.mark.parametrize("kind", ["csv", "xlsx"])
def test_two_verdicts_from_one_rater_names_row_and_column(tmp_path, kind):
    path = write(tmp_path, kind, [CSV_HEADER,
                                  ["c1", "i1", "A", "pass", ""],
                                  ["c1", "i1", "B", "pass", ""],
                                  ["c1", "i2", "A", "fail", ""],
                                  ["c1", "i1", "A", "fail", ""]])  # row 5: A again on (c1, i1)
    found = problems(path)
    assert len(found) == 1
    assert found[0].startswith("row 5, column 'rater'")
    assert "'A'" in found[0] and "(c1, i1)" in found[0]
    if kind == "xlsx":
        assert "(cell C5)" in found[0]  # rater is the third column
    else:
        assert "cell" not in found[0]


@pytest.mark.parametrize("kind", ["csv", "xlsx"])
def test_a_second_verdict_conflicts_even_when_the_first_was_empty(tmp_path, kind):
    path = write(tmp_path, kind, [CSV_HEADER, ["c1", "i1", "A", "", ""], ["c1", "i1", "A", "pass", ""]])
    assert problems(path)[0].startswith("row 3, column 'rater'")


@pytest.mark.parametrize("kind", ["csv", "xlsx"])
@pytest.mark.parametrize("column, index, letter", [("rater", 2, "C"), ("criterion", 0, "A"), ("item", 1, "B")])
def test_an_empty_key_field_names_row_and_column(tmp_path, kind, column, index, letter):
    bad = ["c1", "i2", "B", "pass", ""]
    bad[index] = ""
    path = write(tmp_path, kind, [CSV_HEADER, ["c1", "i1", "A", "pass", ""], bad])
    found = problems(path)
    assert len(found) == 1
    assert found[0].startswith(f"row 3, column '{column}'")
    assert (f"(cell {letter}3)" in found[0]) == (kind == "xlsx")


@pytest.mark.parametrize("kind", ["csv", "xlsx"])
def test_attribute_conflict_names_row_and_column(tmp_path, kind):
    path = write(tmp_path, kind, [CSV_HEADER,
                                  ["c1", "i1", "A", "pass", "alpha"],
                                  ["c1", "i1", "B", "pass", ""],       # no target: fine
                                  ["c1", "i1", "C", "fail", "beta"]])  # row 4 contradicts row 2
    found = problems(path)
    assert len(found) == 1
    assert found[0].startswith("row 4, column 'target'")
    assert "'alpha'" in found[0] and "'beta'" in found[0]
    assert ("(cell E4)" in found[0]) == (kind == "xlsx")


def test_every_bad_row_is_reported_and_nothing_is_computed(tmp_path, monkeypatch):
    """All problems are collected in one error; no Ratings is built when any row is bad."""
    built = []
    original = reader_module.RatingsBuilder.build
    monkeypatch.setattr(reader_module.RatingsBuilder, "build", lambda self: built.append(1) or original(self))
    path = write_csv(tmp_path / "t.csv", [CSV_HEADER,
                                          ["c1", "i1", "A", "pass", ""],
                                          ["c1", "i1", "", "pass", ""],
                                          ["c1", "i2", "B", "pass", ""],
                                          ["c1", "i1", "A", "fail", ""],
                                          ["", "i3", "A", "fail", ""]])
    found = problems(path)
    assert [re.match(r"row (\d+), column '(\w+)'", p).groups() for p in found] == \
        [("3", "rater"), ("5", "rater"), ("6", "criterion")]
    assert built == []
    # the same table without its bad rows is read normally (column-wise), and built by the row reader
    good = write_csv(tmp_path / "good.csv", [CSV_HEADER, ["c1", "i1", "A", "pass", ""], ["c1", "i2", "B", "pass", ""]])
    assert read_rating_table(good).n_decisions == 2 and built == []
    assert reader_module.read_rows_checked(good).n_decisions == 2 and built == [1]


def test_too_many_errors_are_capped(tmp_path):
    rows = [CSV_HEADER] + [["c", f"i{k}", "", "pass", ""] for k in range(80)]
    found = problems(write_csv(tmp_path / "t.csv", rows))
    assert len(found) == reader_module.MAX_ERRORS
    assert found[0].startswith("row 2, column 'rater'")


@pytest.mark.parametrize("kind", ["csv", "xlsx"])
def test_missing_header_columns(tmp_path, kind):
    found = problems(write(tmp_path, kind, [["criterion", "Item", "judge", "verdict"], ["c", "i", "A", "pass"]]))
    assert len(found) == 1
    assert found[0].startswith("row 1: header lacks column(s) rater;")
    found = problems(write(tmp_path, kind, [["item", "notes"], ["i", "x"]]))
    assert "criterion, rater, verdict" in found[0]


def test_empty_file_header_only_and_missing_file(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("", encoding="utf-8")
    assert "empty" in problems(empty)[0]
    header_only = write_csv(tmp_path / "header.csv", [["criterion", "item", "rater", "verdict"]])
    assert problems(header_only) == ["the table has a header but no ratings"]
    assert problems(tmp_path / "absent.csv") == ["no such file"]


def test_a_file_that_is_not_a_workbook(tmp_path):
    path = tmp_path / "fake.xlsx"
    path.write_text("criterion,item,rater,verdict\n", encoding="utf-8")
    assert problems(path)[0].startswith("row 1: not a readable table")
