"""What the exported workbook holds and how it reads in Excel: one row per criterion in file
order, drop-downs, frozen header, widths, wrapped text, grey reused rows, the instructions sheet."""

from __future__ import annotations

from pathlib import Path

from openpyxl import load_workbook

from studio.model.vocabulary import Dimension, Target
from studio.sheets.columns import COLUMNS
from studio.store.loader import load_project
from tests.sheets.conftest import LETTER, row_of


def test_one_row_per_criterion_checkpoint_rubrics_then_final_in_file_order(sample: Path, exported: Path):
    project = load_project(sample).project
    expected = [(subtask, c.key) for subtask, rubric in project.checkpoint_rubrics.items() for c in rubric.criteria]
    expected += [("final", c.key) for c in project.final_rubric.criteria]
    sheet = load_workbook(exported)["Rubrics"]
    assert [cell.value for cell in sheet[1]] == [column.header for column in COLUMNS]
    rows = [(sheet[f"A{row}"].value, sheet[f"B{row}"].value) for row in range(2, sheet.max_row + 1)]
    assert rows == expected and len(rows) == 99
    c02 = row_of(sheet, "T01", "T01-C02")
    assert [sheet[f"{LETTER[h]}{c02}"].value for h in ("weight", "gate", "status", "reviewer")] == \
        [-6, "no", "approved", "Marta Lindqvist"]
    assert sheet[f"D{row_of(sheet, 'T05', 'T05-C05')}"].value == \
        "T05:outputs/financing_model.xlsx\nT05:outputs/assumptions_memo.md"


def test_drop_downs_frozen_header_widths_and_wrapped_text(exported: Path):
    sheet = load_workbook(exported)["Rubrics"]
    assert sheet.freeze_panes == "C2"
    assert sheet.column_dimensions["C"].width == 60 and sheet.column_dimensions["G"].width < 12
    assert sheet["C2"].alignment.wrap_text and sheet["C2"].alignment.vertical == "top"
    lists = {str(v.sqref).split(":")[0][0]: v.formula1 for v in sheet.data_validations.dataValidation
             if v.type == "list"}
    assert lists["E"] == '"' + ",".join(t.value for t in Target) + '"'
    assert lists["F"] == '"' + ",".join(d.value for d in Dimension) + '"'
    assert lists["L"] == '"draft,reviewed,approved"'
    assert lists["H"] == '"yes,no"'
    assert lists["A"].startswith('"T01,T02') and lists["A"].endswith(',final"')
    weight = next(v for v in sheet.data_validations.dataValidation if v.type == "whole")
    assert (weight.formula1, weight.formula2) == ("-10", "10")


def test_a_reused_criterion_shows_its_original_in_grey_cells_that_refuse_typing(exported: Path, sample: Path):
    sheet = load_workbook(exported)["Rubrics"]
    row = row_of(sheet, "final", "T06-C02")
    original = row_of(sheet, "T06", "T06-C02")
    assert sheet[f"K{row}"].value == "T06-C02" and sheet[f"D{row}"].value == "F1"
    assert sheet[f"C{row}"].value == sheet[f"C{original}"].value
    assert sheet[f"E{row}"].value == "artifact"
    assert sheet[f"C{row}"].font.color.rgb.endswith("808080") and not sheet[f"D{row}"].font.italic
    locks = [v for v in sheet.data_validations.dataValidation if v.type == "custom"]
    assert len(locks) == 1 and locks[0].formula1 == "FALSE"
    assert f"C{row}" in locks[0].sqref and f"D{row}" not in locks[0].sqref
    target_list = next(v for v in sheet.data_validations.dataValidation if v.formula1.startswith('"checkpoint'))
    assert f"E{row}" not in target_list.sqref and f"E{original}" in target_list.sqref  # ranges never overlap


def test_the_instructions_sheet_holds_each_subtask_in_timeline_order(sample: Path, exported: Path):
    sheet = load_workbook(exported)["Instructions"]
    assert [cell.value for cell in sheet[1]] == ["subtask", "stage", "title", "instruction"]
    rows = list(sheet.iter_rows(min_row=2, values_only=True))
    assert [row[0] for row in rows] == [f"T{n:02d}" for n in range(1, 11)]
    project = load_project(sample).project
    assert rows[0][1] == "S1" and rows[0][2] == project.subtasks["T01"].title
    assert rows[4][3] == (sample / "subtasks/T05/instruction.md").read_text(encoding="utf-8")
    assert sheet.protection.sheet
