"""Programmatic checks on real files: a file exists, a text or a cell contains (or not) a figure matched as a
number, a cell equals a value; the check's shape in a rubric and its validation against the project."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from studio.judging.checks import CheckResult, as_number, check_text, numbers_in, run_check
from studio.model.checks import CheckKind, CheckUse, CriterionCheck
from studio.model.rubric import Criterion
from studio.store.workspace import sample_project
from studio.validation import validate_project
from tests.helpers import line_of, replace_in
from tests.judging.evidence_files import damage, write_docx, write_pdf, write_png, write_pptx, write_workbook


def check(**fields: Any) -> CriterionCheck:
    return CriterionCheck.model_validate(fields)


def run(folder: Path, **fields: Any) -> CheckResult:
    return run_check(folder, check(**fields))


# ---- numbers as numbers ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("written", ["4471", "4,471", "4 471", "4\u00a0471", "4\u202f471", "4471.0", "4,471.00",
                                     "EUR 4,471m", "(4,471)", "-4471", "total: 4471."])
@pytest.mark.parametrize("value", [4471, "4,471", "4 471", 4471.0, "4471.0"])
def test_a_figure_is_found_however_it_is_written(tmp_path: Path, written: str, value: Any) -> None:
    (tmp_path / "memo.md").write_text(f"# Memo\n\nNet debt is {written} after the refinancing.\n")
    result = run(tmp_path, kind="contains", path="memo.md", value=value)
    assert result == CheckResult(True, f"{value!r} (as a number) found in memo.md#L3", ("memo.md#L3",))


@pytest.mark.parametrize("written", ["14,471", "4,471.5", "44710", "4.471", "1.4471", "4,4710", "447"])
def test_other_figures_do_not_match(tmp_path: Path, written: str) -> None:
    (tmp_path / "memo.md").write_text(f"Net debt is {written}.\n")
    result = run(tmp_path, kind="contains", path="memo.md", value=4471)
    assert not result.passed and result.detail == "4471 (as a number) is nowhere in memo.md"


def test_numbers_in_and_as_number() -> None:
    assert list(numbers_in("FY2025 EBITDA 812, debt 4,471, rate 5.25%; 2025,4471")) == [
        2025, 812, 4471, 5.25, 2025, 4471]
    assert [as_number(v) for v in (4471, "4,471", " 4 471 ", "(4,471)", "EUR 4471", True, "4471%")] == [
        4471, 4471, 4471, -4471, None, None, None]


def test_a_text_value_is_matched_case_and_spacing_insensitively(tmp_path: Path) -> None:
    (tmp_path / "memo.md").write_text("The facility is a Senior  Term\nLoan B.\n")
    assert run(tmp_path, kind="contains", path="memo.md", value="senior term loan b").refs == ("memo.md#L1-L2",)
    assert run(tmp_path, kind="contains", path="memo.md", value="loan b").refs == ("memo.md#L2",)
    assert not run(tmp_path, kind="contains", path="memo.md", value="unitranche").passed
    assert run(tmp_path, kind="not_contains", path="memo.md", value="unitranche").passed


# ---- workbooks: the superseded figure ---------------------------------------------------------------------------

def _model(folder: Path, summary_net_debt: Any) -> Path:
    """Debt holds the restated 4,417; Summary is the operative table that must follow it."""
    return write_workbook(folder / "outputs" / "model.xlsx", {
        "Debt": {"A4": "Net debt (restated)", "B4": 4417, "B5": "=B4*1.0", "B4471": 3},
        "Summary": {"B7": "Net debt", "C7": summary_net_debt, "C8": "=SUM(Debt!B1:B4471)", "C9": "=C7/2"},
    }, saved={"Debt!B5": 4417, "Summary!C8": 4420, "Summary!C9": 2208.5})


@pytest.mark.parametrize("left", [4471, 4471.0, "4,471", "=4471", "=Debt!B4+54"])
def test_a_superseded_figure_left_in_the_operative_table_fails_not_contains(tmp_path: Path, left: Any) -> None:
    _model(tmp_path, left)
    saved_value = {"=4471": None, "=Debt!B4+54": None}
    result = run(tmp_path, kind="not_contains", path="outputs/model.xlsx", value=4471, sheet="Summary")
    if left in saved_value:  # a formula: the constant 4471 inside it is the figure; Debt!B4+54 holds none
        assert result.passed is (left == "=Debt!B4+54")
        return
    assert result == CheckResult(False, "4471 (as a number) found in outputs/model.xlsx!Summary!C7",
                                 ("outputs/model.xlsx!Summary!C7",))


def test_the_corrected_table_passes_and_a_row_number_in_a_reference_is_no_figure(tmp_path: Path) -> None:
    _model(tmp_path, "=Debt!B4")  # C8 sums down to row 4471: a reference, not the figure
    result = run(tmp_path, kind="not_contains", path="outputs/model.xlsx", value="4,471", sheet="Summary")
    assert result == CheckResult(True, "'4,471' (as a number) is nowhere in outputs/model.xlsx (sheet 'Summary')",
                                 ("outputs/model.xlsx",))
    everywhere = run(tmp_path, kind="contains", path="outputs/model.xlsx", value=4417)
    assert everywhere.refs == ("outputs/model.xlsx!Debt!B4", "outputs/model.xlsx!Debt!B5")
    one_cell = run(tmp_path, kind="contains", path="outputs/model.xlsx", value=4417, cell="Debt!B5")
    assert one_cell.refs == ("outputs/model.xlsx!Debt!B5",) and one_cell.passed


def test_a_text_value_in_cells_and_formulas(tmp_path: Path) -> None:
    _model(tmp_path, 4417)
    assert run(tmp_path, kind="contains", path="outputs/model.xlsx", value="net debt (RESTATED)").refs == (
        "outputs/model.xlsx!Debt!A4",)
    assert run(tmp_path, kind="contains", path="outputs/model.xlsx", value="sum(").refs == (
        "outputs/model.xlsx!Summary!C8",)


# ---- cell_equals --------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("cell", "value", "passed", "detail"), [
    ("Debt!B4", 4417, True, "outputs/model.xlsx!Debt!B4 = 4417, equal to 4417"),
    ("Debt!$B$4", "4,417", True, "outputs/model.xlsx!Debt!B4 = 4417, equal to '4,417'"),
    ("Debt!B4", 4417.0000000001, True, "outputs/model.xlsx!Debt!B4 = 4417, equal to 4417.0000000001"),
    ("Debt!B5", 4417, True, "outputs/model.xlsx!Debt!B5 = 4417 (formula =B4*1.0), equal to 4417"),
    ("Debt!B4", 4471, False, "outputs/model.xlsx!Debt!B4 = 4417, not 4471"),
    ("Debt!A4", "net debt (restated)", True, "outputs/model.xlsx!Debt!A4 = Net debt (restated), equal to "
                                             "'net debt (restated)'"),
    ("Debt!A4", 4417, False, "outputs/model.xlsx!Debt!A4 = Net debt (restated), not 4417"),
    ("Debt!C4", 4417, False, "outputs/model.xlsx!Debt!C4 is empty (expected 4417)"),
    ("Summary!C7", 4417, False, "outputs/model.xlsx!Summary!C7 holds the formula =Debt!B4 with no computed value "
                                "saved in the file (it was saved without calculating: open and save it in Excel or "
                                "LibreOffice)"),
    ("Cash!A1", 1, False, "outputs/model.xlsx cannot be checked: has no sheet 'Cash' (it has 'Debt', 'Summary')"),
])
def test_cell_equals_compares_numbers_as_numbers(tmp_path: Path, cell: str, value: Any, passed: bool,
                                                 detail: str) -> None:
    _model(tmp_path, "=Debt!B4")
    result = run(tmp_path, kind="cell_equals", path="outputs/model.xlsx", cell=cell, value=value)
    assert (result.passed, result.detail) == (passed, detail)


def test_cell_equals_in_a_sheet_whose_name_is_quoted(tmp_path: Path) -> None:
    write_workbook(tmp_path / "m.xlsx", {"Cash Flow": {"B4": 12.5, "B5": True}})
    assert run(tmp_path, kind="cell_equals", path="m.xlsx", cell="'Cash Flow'!B4", value=12.5).refs == (
        "m.xlsx!'Cash Flow'!B4",)
    assert run(tmp_path, kind="cell_equals", path="m.xlsx", cell="'Cash Flow'!B5", value=True).passed
    assert not run(tmp_path, kind="cell_equals", path="m.xlsx", cell="'Cash Flow'!B5", value=1).passed


# ---- other files, missing and broken ones ----------------------------------------------------------------------

def test_checks_read_pdf_docx_pptx_csv_and_json_text(tmp_path: Path) -> None:
    write_pdf(tmp_path / "memo.pdf", ["Overview", "Net debt 4,471 (superseded)"])
    write_docx(tmp_path / "memo.docx")
    write_pptx(tmp_path / "deck.pptx")
    (tmp_path / "t.csv").write_text("year,net_debt\n2025,4471\n")
    (tmp_path / "a.json").write_text('{"net_debt": 4471.0}')
    for path, ref in [("memo.pdf", "memo.pdf#page=2"), ("memo.docx", "memo.docx#p=1-2"), ("t.csv", "t.csv#L2"),
                      ("a.json", "a.json#L1")]:
        result = run(tmp_path, kind="not_contains", path=path, value=4471)
        assert (result.passed, result.refs) == (False, (ref,)), path
    assert run(tmp_path, kind="contains", path="deck.pptx", value="4 417").refs == ("deck.pptx#slide=2",)
    assert run(tmp_path, kind="contains", path="memo.docx", value=1.42).refs == ("memo.docx#table=1",)


def test_a_check_on_text_beyond_the_judges_evidence_limit_still_sees_it(tmp_path: Path) -> None:
    (tmp_path / "log.txt").write_text("filler line\n" * 20_000 + "closing net debt 4,471\n")
    result = run(tmp_path, kind="contains", path="log.txt", value=4471)
    assert result.passed and result.refs == ("log.txt#L20001",)


def test_file_exists(tmp_path: Path) -> None:
    (tmp_path / "outputs").mkdir()
    (tmp_path / "outputs" / "memo.md").write_text("x" * 1234)
    assert run(tmp_path, kind="file_exists", path="outputs/memo.md") == CheckResult(
        True, "outputs/memo.md exists (1,234 bytes)", ("outputs/memo.md",))
    assert run(tmp_path, kind="file_exists", path="outputs/model.xlsx") == CheckResult(
        False, "outputs/model.xlsx does not exist in the submission", ())
    assert not run(tmp_path, kind="file_exists", path="outputs").passed


def test_a_check_never_follows_a_link_out_of_the_submission(tmp_path: Path) -> None:
    (tmp_path / "host.txt").write_text("4471\n")
    (tmp_path / "submission").mkdir()
    (tmp_path / "submission" / "memo.md").symlink_to(tmp_path / "host.txt")
    for kind in ("contains", "not_contains"):
        result = run(tmp_path / "submission", kind=kind, path="memo.md", value=4471)
        assert result == CheckResult(
            False, "memo.md is a link to a file outside the submission: not read: nothing to check", ())
    assert not run(tmp_path / "submission", kind="file_exists", path="memo.md").passed


@pytest.mark.parametrize("kind", ["contains", "not_contains"])
def test_a_missing_or_broken_file_fails_every_check_with_the_reason(tmp_path: Path, kind: str) -> None:
    _model(tmp_path, 4417)
    damage(tmp_path / "outputs" / "model.xlsx")
    write_pdf(tmp_path / "memo.pdf", ["a"])
    (tmp_path / "memo.pdf").write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 4)
    write_png(tmp_path / "chart.png")
    cases = {
        "outputs/model.xlsx": "outputs/model.xlsx cannot be checked: the workbook is damaged: ",
        "memo.pdf": "memo.pdf cannot be checked: the PDF is damaged: ",
        "chart.png": "chart.png cannot be checked: is an image whose text can be checked",
        "gone.md": "gone.md does not exist in the submission: nothing to check",
    }
    for path, detail in cases.items():
        result = run(tmp_path, kind=kind, path=path, value=4471)
        assert not result.passed and result.detail.startswith(detail), result.detail
    assert not run(tmp_path, kind="cell_equals", path="outputs/model.xlsx", cell="Debt!B4", value=4417).passed


def test_check_text_is_the_line_the_judge_reads(tmp_path: Path) -> None:
    (tmp_path / "memo.md").write_text("Net debt 4,471\n")
    the_check = check(kind="not_contains", path="memo.md", value=4471, **{"as": "evidence"})
    assert the_check.use is CheckUse.EVIDENCE
    assert check_text(the_check, run_check(tmp_path, the_check)) == (
        "[check] memo.md does not contain 4471: FAILED - 4471 (as a number) found in memo.md#L1")
    assert check_text(check(kind="file_exists", path="memo.md"), run(tmp_path, kind="file_exists", path="memo.md")) == (
        "[check] memo.md exists: PASSED - memo.md exists (15 bytes)")


# ---- the check in a rubric ----------------------------------------------------------------------------------

CRITERION = {"id": "C1", "text": "The summary shows the restated net debt.", "target": "checkpoint",
             "dimension": "correctness", "weight": 5}


def test_a_criterion_carries_a_check_and_the_default_use_is_the_verdict() -> None:
    criterion = Criterion.model_validate(
        {**CRITERION, "check": {"kind": "cell_equals", "path": "outputs/model.xlsx", "cell": "Debt!B4", "value": 4417}})
    assert criterion.check is not None and criterion.check.kind is CheckKind.CELL_EQUALS
    assert criterion.check.use is CheckUse.CRITERION
    assert Criterion.model_validate(CRITERION).check is None


@pytest.mark.parametrize(("shape", "message"), [
    ({"kind": "regex", "path": "a.md"}, "Input should be 'file_exists', 'contains', 'not_contains' or 'cell_equals'"),
    ({"kind": "contains", "path": "a.md"}, "a contains check needs a 'value'"),
    ({"kind": "not_contains", "path": "a.md", "value": " "}, "a not_contains check needs a 'value'"),
    ({"kind": "cell_equals", "path": "a.xlsx", "value": 1}, "a cell_equals check needs a 'cell'"),
    ({"kind": "cell_equals", "path": "a.xlsx", "value": 1, "cell": "B4"}, "String should match pattern"),
    ({"kind": "cell_equals", "path": "a.xlsx", "value": 1, "cell": "S!B4", "sheet": "S"}, "remove 'sheet'"),
    ({"kind": "contains", "path": "a.md", "value": 1, "sheet": "S"}, "'sheet' is for a workbook"),
    ({"kind": "contains", "path": "a.xlsx", "value": 1, "sheet": "S", "cell": "S!A1"}, "not both"),
    ({"kind": "file_exists", "path": "a.md", "value": 1}, "a file_exists check takes only 'path'"),
    ({"kind": "file_exists", "path": "../a.md"}, "String should match pattern"),
    ({"kind": "file_exists", "path": "a.md", "as": "hint"}, "Input should be 'criterion' or 'evidence'"),
    ({"kind": "file_exists", "path": "a.md", "where": 1}, "Extra inputs are not permitted"),
])
def test_a_bad_check_is_a_schema_error(shape: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError) as raised:
        Criterion.model_validate({**CRITERION, "check": shape})
    assert message in str(raised.value)


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    return Path(shutil.copytree(sample_project(), tmp_path / "kestrel"))


def _add_check(sample: Path, rubric: str, criterion: str, check_yaml: str) -> str:
    return replace_in(sample, rubric, f"  - id: {criterion}\n", f"  - id: {criterion}\n    check: {check_yaml}\n")


def test_validation_accepts_checks_on_files_the_scope_has(sample: Path) -> None:
    _add_check(sample, "subtasks/T05/rubric.yaml", "T05-C02",
               "{kind: contains, path: outputs/financing_model.xlsx, value: 4.75, as: evidence}")
    _add_check(sample, "subtasks/T05/rubric.yaml", "T05-C03",  # an earlier subtask's output is in the workspace
               "{kind: file_exists, path: outputs/net_debt_baseline.xlsx}")
    final = (sample / "final" / "rubric.yaml").read_text()
    first_final = final.split("  - id: ", 1)[1].split("\n", 1)[0]
    _add_check(sample, "final/rubric.yaml", first_final, "{kind: file_exists, path: final/financing_model.xlsx}")
    replace_in(sample, "final/rubric.yaml", "  - reuse_of: T06-C04\n",
               "  - reuse_of: T06-C04\n    check: {kind: file_exists, path: final/assumptions_memo.md}\n")
    assert validate_project(sample) == []


@pytest.mark.parametrize(("rubric", "criterion", "path", "message"), [
    ("subtasks/T05/rubric.yaml", "T05-C02", "outputs/lender_presentation.md",
     "criterion T05-C02: the check's path 'outputs/lender_presentation.md' is not an output of T05 or of an "
     "earlier subtask"),
    ("subtasks/T05/rubric.yaml", "T05-C02", "outputs/financing_modle.xlsx",
     "criterion T05-C02: the check's path 'outputs/financing_modle.xlsx' is not an output of T05 or of an "
     "earlier subtask"),
])
def test_validation_refuses_a_check_on_a_file_the_scope_does_not_have(sample: Path, rubric: str, criterion: str,
                                                                      path: str, message: str) -> None:
    text = _add_check(sample, rubric, criterion, f"{{kind: file_exists, path: {path}}}")
    found = [(f.file, f.line, f.message) for f in validate_project(sample)]
    assert found == [(rubric, line_of(text, f"path: {path}"), message)]


def test_validation_refuses_a_final_check_outside_the_final_package(sample: Path) -> None:
    final = (sample / "final" / "rubric.yaml").read_text()
    first_final = final.split("  - id: ", 1)[1].split("\n", 1)[0]
    text = _add_check(sample, "final/rubric.yaml", first_final,
                      "{kind: file_exists, path: outputs/financing_model.xlsx}")
    found = [(f.file, f.line, f.message) for f in validate_project(sample)]
    assert found == [("final/rubric.yaml", line_of(text, "path: outputs/financing_model.xlsx"),
                      f"criterion {first_final}: the check's path 'outputs/financing_model.xlsx' is not the path "
                      "of a final deliverable")]


def test_validation_names_the_line_of_a_check_without_its_value(sample: Path) -> None:
    text = _add_check(sample, "subtasks/T05/rubric.yaml", "T05-C02",
                      "{kind: contains, path: outputs/financing_model.xlsx}")
    found = [(f.file, f.line, f.message) for f in validate_project(sample)]
    assert len(found) == 1 and found[0][0] == "subtasks/T05/rubric.yaml"
    assert found[0][1] == line_of(text, "check: {kind: contains")
    assert "a contains check needs a 'value'" in found[0][2]
