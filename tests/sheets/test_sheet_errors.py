"""Each kind of bad cell gives its `Rubrics!CELL: message and fix` error, from the core and from
`dbstudio rubric import` (exit 1), and leaves every file of the project byte-identical."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from openpyxl import Workbook, load_workbook
from openpyxl.worksheet.worksheet import Worksheet

from studio.cli.main import main
from studio.sheets import SheetError, SheetFileError, read_rubric_sheet
from tests.sheets.conftest import LETTER, cell, edit_sheet, file_hashes, put, put_row, row_of

GOOD_ROW = {"rubric": "T01", "id": "T01-C90", "text": "The baseline names its sources.",
            "covers": "T01:outputs/net_debt_baseline.xlsx", "target": "checkpoint", "dimension": "usability",
            "weight": 2, "status": "draft"}


def _set(rubric: str, key: str, header: str, value: object) -> Callable[[Worksheet], str]:
    def edit(sheet: Worksheet) -> str:
        ref = cell(sheet, rubric, key, header)
        put(sheet, ref, value)
        return ref
    return edit


def _new_row(header: str, **values: object) -> Callable[[Worksheet], str]:
    def edit(sheet: Worksheet) -> str:
        row = sheet.max_row + 1
        put_row(sheet, row, {**GOOD_ROW, **values})
        return f"{LETTER[header]}{row}"
    return edit


def _new_reuse(rubric: str, reuse_of: str, covers: str) -> Callable[[Worksheet], str]:
    """A reused criterion's row as an expert writes it: only rubric, reuse_of and covers."""
    def edit(sheet: Worksheet) -> str:
        row = sheet.max_row + 1
        put_row(sheet, row, {"rubric": rubric, "reuse_of": reuse_of, "covers": covers})
        return f"{LETTER['reuse_of']}{row}"
    return edit


def _formula(sheet: Worksheet) -> str:
    ref = cell(sheet, "T01", "T01-C03", "text")
    sheet[ref] = "=SUM(A1)"  # openpyxl, like Excel, makes this a formula
    assert sheet[ref].data_type == "f"
    return ref


def _cycle(sheet: Worksheet) -> str:
    put(sheet, cell(sheet, "T01", "T01-C02", "requires"), "T01-C01")
    ref = cell(sheet, "T01", "T01-C01", "requires")
    put(sheet, ref, "T01-C02")
    return ref


def _required_row_deleted(sheet: Worksheet) -> str:
    sheet.delete_rows(row_of(sheet, "T05", "T05-C02"))
    return cell(sheet, "T05", "T05-C06", "requires")


def _duplicate(sheet: Worksheet) -> str:
    return _new_row("id", id="T02-C01")(sheet)


CASES = {
    "weight is a word": (_set("T01", "T01-C02", "weight", "eleven"), "'eleven' is not a whole number"),
    "weight is a fraction": (_set("T01", "T01-C02", "weight", 5.5), "'5.5' is not a whole number"),
    "weight out of range": (_set("T01", "T01-C02", "weight", 11), "weight 11 is out of range"),
    "weight 0 without a gate": (_set("T01", "T01-C01", "weight", 0), "weight 0 is only for a fatal gate"),
    "gate with a weight": (_set("T01", "T01-C01", "gate", "yes"), "a fatal gate has weight 0, this one has 8"),
    "gate is neither yes nor no": (_set("T01", "T01-C01", "gate", "maybe"), "'maybe' is not yes or no"),
    "unknown target": (_set("T01", "T01-C01", "target", "checkpoints"), "'checkpoints' is not a target"),
    "target of the other kind of rubric": (_set("T01", "T01-C01", "target", "artifact"),
                                           "criteria of subtask T01 have target checkpoint"),
    "unknown dimension": (_set("T01", "T01-C01", "dimension", "taste"), "'taste' is not a dimension"),
    "unknown status": (_set("T01", "T01-C01", "status", "done"), "'done' is not a status"),
    "duplicate id": (_duplicate, "id T02-C01 is also on row"),
    "malformed id": (_new_row("id", id="T01 C90"), "'T01 C90' is not a valid id"),
    "row without an id": (_new_row("id", id=None), "a criterion needs an id"),
    "new row without text": (_new_row("text", text=None), "a criterion needs a text"),
    "requires names nothing": (_set("T01", "T01-C04", "requires", "T01-C99"),
                               "requires T01-C99, which is no criterion of rubric T01"),
    "requires a criterion of another rubric": (_set("T01", "T01-C04", "requires", "T02-C01"),
                                               "requires T02-C01, which is no criterion of rubric T01"),
    "requires itself": (_set("T01", "T01-C04", "requires", "T01-C04"), "T01-C04 cannot require itself"),
    "requires a deleted row": (_required_row_deleted, "requires T05-C02, whose row was deleted"),
    "requires in a cycle": (_cycle, "requires makes a cycle"),
    "unknown rubric": (_set("T01", "T01-C01", "rubric", "T77"), "'T77' is not a rubric of this project"),
    "covers no output of the subtask": (_set("T01", "T01-C01", "covers", "T01:outputs/other.xlsx"),
                                        "not an output of T01"),
    "propagates no material": (_set("T01", "T01-C01", "propagates", "M99"), "M99 is no material of this project"),
    "reused row edited": (_set("final", "T06-C02", "text", "A text of its own."),
                          "this grey cell shows T06-C02, which the row reuses, and is not imported: edit T06-C02 on row"),
    "reuse in a checkpoint rubric": (_new_reuse("T01", "T01-C01", "T01:outputs/net_debt_baseline.xlsx"),
                                     "only the final rubric reuses checkpoint criteria"),
    "reuse of nothing": (_new_reuse("final", "T99-C01", "F1"),
                         "'T99-C01' is no checkpoint criterion in this sheet"),
    "a formula": (_formula, "the cell holds a formula (=SUM(A1))"),
}


@pytest.mark.parametrize("kind", list(CASES))
def test_each_bad_cell_is_reported_at_its_cell_and_no_file_changes(kind: str, sample: Path, exported: Path,
                                                                     capsys: pytest.CaptureFixture[str]):
    edit, message = CASES[kind]
    refs: list[str] = []
    edit_sheet(exported, lambda sheet: refs.append(edit(sheet)))
    before = file_hashes(sample)

    with pytest.raises(SheetError) as raised:
        read_rubric_sheet(sample, exported)
    assert [error.render().split(": ", 1)[0] for error in raised.value.errors] == [f"Rubrics!{refs[0]}"]
    assert message in raised.value.errors[0].message

    assert main(["rubric", "import", str(sample), str(exported)]) == 1
    err = capsys.readouterr().err
    assert f"Rubrics!{refs[0]}: " in err and message in err
    assert "1 bad cell; no file was changed" in err
    assert "Traceback" not in err
    assert file_hashes(sample) == before


def test_every_bad_cell_is_reported_at_once_in_sheet_order(sample: Path, exported: Path):
    def edit(sheet: Worksheet) -> None:
        put(sheet, cell(sheet, "T02", "T02-C01", "dimension"), "taste")
        put(sheet, cell(sheet, "T01", "T01-C02", "weight"), "eleven")
        put(sheet, cell(sheet, "T01", "T01-C01", "status"), "done")

    edit_sheet(exported, edit)
    with pytest.raises(SheetError) as raised:
        read_rubric_sheet(sample, exported)
    sheet = load_workbook(exported)["Rubrics"]
    assert [error.cell for error in raised.value.errors] == [
        cell(sheet, "T01", "T01-C01", "status"), cell(sheet, "T01", "T01-C02", "weight"),
        cell(sheet, "T02", "T02-C01", "dimension")]
    assert str(raised.value).count("\n") == 2


def test_a_missing_column_names_the_header(sample: Path, exported: Path):
    edit_sheet(exported, lambda sheet: sheet.delete_cols(7))  # weight
    with pytest.raises(SheetError, match=r"^Rubrics!A1: the header row has no column weight"):
        read_rubric_sheet(sample, exported)


def test_a_workbook_without_the_rubric_sheet_or_no_workbook_is_refused(sample: Path, tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]):
    other = tmp_path / "other.xlsx"
    Workbook().save(other)
    with pytest.raises(SheetFileError, match="no sheet named 'Rubrics'"):
        read_rubric_sheet(sample, other)
    text = tmp_path / "notes.xlsx"
    text.write_text("not a workbook", encoding="utf-8")
    before = file_hashes(sample)
    assert main(["rubric", "import", str(sample), str(text)]) == 2
    assert "not an Excel workbook (.xlsx)" in capsys.readouterr().err
    assert file_hashes(sample) == before
