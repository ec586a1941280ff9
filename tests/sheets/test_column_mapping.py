"""A rubric workbook of the expert's own layout (Task, Criterion, Points, Category) imported through a
column mapping: new criteria with ids of their rubric, the expert's words turned into ours, the same
cell-by-cell checks at the expert's own cells, nothing the workbook does not list removed; on the command
line the mapping is asked for, then remembered for the next workbook of the same layout."""

from __future__ import annotations

from pathlib import Path

import pytest
from openpyxl import Workbook

from studio.editing.session import ProjectSession
from studio.sheets import SheetError, diff_to_command, read_rubric_sheet
from studio.sheets.mapping import ColumnMapping
from studio.store.loader import load_project
from studio.validation.validate import validate_project
from tests.helpers import run_cli

HEADERS = ["Task", "Criterion", "Points", "Category", "Notes"]
GOOD = [
    ["T02", "The findings give the owned-fleet OLV of EUR 71.6m as the chargeable value.", 5, "Accuracy", "keep"],
    [None, None, None, None, None],
    ["T03", "The register lists the Venlo works estimate of EUR 1.8m.", 3, "Completeness", ""],
]
MAPPING = ColumnMapping("Criteria", {"rubric": "Task", "text": "Criterion", "weight": "Points",
                                     "dimension": "Category"}, {"target": "checkpoint"},
                        {"dimension": {"Accuracy": "correctness", "Completeness": "completeness"}})


def workbook(path: Path, rows: list[list]) -> Path:
    book = Workbook()
    sheet = book.active
    sheet.title = "Criteria"
    sheet.append(HEADERS)
    for row in rows:
        sheet.append(row)
    book.create_sheet("Read me").append(["How we mark"])
    book.save(path)
    return path


def test_rows_become_new_criteria_and_nothing_else_changes(sample: Path, tmp_path: Path) -> None:
    before = {scope: [c.key for c in r.criteria] for scope, r in load_project(sample).project.checkpoint_rubrics.items()}
    session = ProjectSession(sample)
    diff = read_rubric_sheet(session.documents, workbook(tmp_path / "ours.xlsx", GOOD), MAPPING)
    assert not diff.removed and not diff.changed
    assert [(a.rubric, a.criterion) for a in diff.added] == [("T02", "T02-C07"), ("T03", "T03-C07")]
    session.apply(diff_to_command(session.documents, diff, "Import ours.xlsx"))
    session.save()
    assert validate_project(sample) == []
    project = load_project(sample).project
    added = project.checkpoint_rubrics["T02"].criteria[-1]
    assert (added.key, added.weight, added.dimension.value, added.target.value, added.review.status.value) == (
        "T02-C07", 5, "correctness", "checkpoint", "draft")
    after = {scope: [c.key for c in r.criteria] for scope, r in project.checkpoint_rubrics.items()}
    assert after["T02"] == [*before["T02"], "T02-C07"] and after["T01"] == before["T01"]


def test_bad_cells_are_named_at_the_experts_own_cells(sample: Path, tmp_path: Path) -> None:
    rows = [*GOOD, ["T02", "Weight in words.", "lots", "Vibes", ""], ["T77", "No such task.", 2, "Accuracy", ""]]
    with pytest.raises(SheetError) as caught:
        read_rubric_sheet(sample, workbook(tmp_path / "bad.xlsx", rows), MAPPING)
    rendered = [error.render() for error in caught.value.errors]
    assert any(r.startswith("Criteria!C5: ") for r in rendered), rendered
    assert any(r.startswith("Criteria!D5: ") and "correctness" in r for r in rendered), rendered
    assert any(r.startswith("Criteria!A6: ") and "'T77' is not a rubric of this project" in r for r in rendered)


def test_a_mapped_header_the_sheet_lacks_is_named(sample: Path, tmp_path: Path) -> None:
    mapping = ColumnMapping("Criteria", {"text": "Requirement", "rubric": "Task"}, {"target": "checkpoint"})
    with pytest.raises(SheetError, match=r"Criteria!A1: no column 'Requirement' for text: map one of its headers "
                                         r"\(Task, Criterion, Points, Category, Notes\)"):
        read_rubric_sheet(sample, workbook(tmp_path / "w.xlsx", GOOD), mapping)


def test_the_command_line_asks_for_the_mapping_then_remembers_it(sample: Path, tmp_path: Path, capsys,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DBSTUDIO_CONFIG_DIR", str(tmp_path / "config"))
    first = workbook(tmp_path / "first.xlsx", GOOD)
    code, _, err = run_cli(capsys, "rubric", "import", str(sample), str(first))
    assert code == 2 and "no sheet named 'Rubrics'" in err and "Criteria: Task, Criterion, Points, Category" in err
    flags = ["--sheet", "Criteria", "--map", "rubric=Task", "--map", "text=Criterion", "--map", "weight=Points",
             "--map", "dimension=Category", "--set", "target=checkpoint", "--word", "dimension:Accuracy=correctness",
             "--word", "dimension:Completeness=completeness"]
    code, out, err = run_cli(capsys, "rubric", "import", str(sample), str(first), *flags)
    assert code == 0, err
    assert "T02-C07" in out
    second = workbook(tmp_path / "second.xlsx", [["T04", "The proposal states the EUR 130m term loan.", 4,
                                                   "Accuracy", ""]])
    code, out, err = run_cli(capsys, "rubric", "import", str(sample), str(second))
    assert code == 0 and "column mapping remembered for this layout" in err
    assert load_project(sample).project.checkpoint_rubrics["T04"].criteria[-1].dimension.value == "correctness"
    code, _, err = run_cli(capsys, "rubric", "import", str(sample), str(second), "--map", "text=Criterion")
    assert code == 2 and "need --sheet" in err
