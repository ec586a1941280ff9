"""Text that starts with '=', '+', '-' or '@' goes to the sheet as text, never as a formula, and
comes back as the same text, whether it was in the project or typed into the sheet."""

from __future__ import annotations

import zipfile
from pathlib import Path

from openpyxl import load_workbook
from openpyxl.worksheet.worksheet import Worksheet

from studio.editing.commands import Compound
from studio.editing.rubric import set_criterion_field
from studio.editing.session import ProjectSession
from studio.sheets import diff_to_command, export_rubrics, read_rubric_sheet
from studio.store.loader import load_project
from tests.sheets.conftest import cell, edit_sheet, file_hashes, put

FORMULA_LIKE = {"T01-C01": "=SUM(A1)", "T01-C02": "+1", "T01-C03": "-x", "T01-C04": "@home"}


def _sheet_xml(path: Path) -> str:
    with zipfile.ZipFile(path) as archive:
        return "".join(archive.read(name).decode("utf-8") for name in archive.namelist()
                       if name.startswith("xl/worksheets/"))


def _texts(root: Path) -> dict[str, str | None]:
    rubric = load_project(root).project.checkpoint_rubrics["T01"]
    return {c.key: c.text for c in rubric.criteria}


def test_formula_like_text_in_the_project_is_exported_as_text_and_imports_as_no_change(sample: Path, tmp_path: Path):
    session = ProjectSession(sample)
    session.apply(Compound("formula-like texts", [set_criterion_field(session.documents, "T01", key, "text", text)
                                                  for key, text in FORMULA_LIKE.items()]))
    session.save()
    assert {key: _texts(sample)[key] for key in FORMULA_LIKE} == FORMULA_LIKE
    out = tmp_path / "rubrics.xlsx"
    export_rubrics(sample, out)

    sheet = load_workbook(out)["Rubrics"]
    for key, text in FORMULA_LIKE.items():
        written = sheet[cell(sheet, "T01", key, "text")]
        assert (written.value, written.data_type, written.quotePrefix) == (text, "s", True)
    xml = _sheet_xml(out)
    assert "<f>" not in xml and "<f " not in xml
    assert "=SUM(A1)" in xml

    before = file_hashes(sample)
    assert not read_rubric_sheet(sample, out)
    edit_sheet(out, lambda sheet: None)  # saved again as a spreadsheet program would
    assert "<f>" not in _sheet_xml(out) and "<f " not in _sheet_xml(out)
    assert not read_rubric_sheet(sample, out)
    assert file_hashes(sample) == before


def test_formula_like_text_typed_into_the_sheet_reaches_the_yaml_as_that_text(sample: Path, exported: Path):
    typed = {"T01-C05": "=SUM(B2:B9) must equal the total", "T01-C06": "+2.5% margin step-up",
             "T01-C07": "-5 points if the date is missing", "T01-C03": "@lender: confirm"}

    def edit(sheet: Worksheet) -> None:
        for key, text in typed.items():
            put(sheet, cell(sheet, "T01", key, "text"), text)
        put(sheet, cell(sheet, "T01", "T01-C01", "note"), "=A1 was checked")

    edit_sheet(exported, edit)
    session = ProjectSession(sample)
    diff = read_rubric_sheet(session.documents, exported)
    assert {c.criterion: c.new for c in diff.changed if c.field == "text"} == typed
    session.apply(diff_to_command(session.documents, diff))
    session.save()
    texts = _texts(sample)
    assert {key: texts[key] for key in typed} == typed
    note = load_project(sample).project.checkpoint_rubrics["T01"].criteria[0].review.note
    assert note == "=A1 was checked"
    # and the next export writes them as text again
    export_rubrics(sample, exported)
    assert "<f>" not in _sheet_xml(exported) and not read_rubric_sheet(sample, exported)
