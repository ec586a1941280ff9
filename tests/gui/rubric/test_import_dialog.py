"""The rubric import dialog: an edited sheet shown as a reviewable diff, applied as one undoable
step (one undo gives back the bytes); bad cells listed with their cells and nothing applied;
export through the file dialog."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from openpyxl import load_workbook
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog

from studio.editing.session import ProjectSession
from studio.gui.base.project_context import ProjectContext
from studio.gui.base.tasks import TaskRunner
from studio.gui.rubric.import_dialog import ImportDiffModel, RubricImportDialog, export_rubrics_dialog
from studio.sheets import export_rubrics, read_rubric_sheet
from studio.store.workspace import sample_project

T01 = "subtasks/T01/rubric.yaml"


@pytest.fixture
def context(tmp_path: Path) -> ProjectContext:
    root = Path(shutil.copytree(sample_project(), tmp_path / "kestrel"))
    return ProjectContext(ProjectSession(root))


def _edited_sheet(context: ProjectContext, tmp_path: Path, weight: object = -7) -> Path:
    path = tmp_path / "rubrics.xlsx"
    export_rubrics(context.session.root, path)
    workbook = load_workbook(path)
    sheet = workbook["Rubrics"]
    rows = {sheet[f"B{row}"].value: row for row in range(2, sheet.max_row + 1)}
    sheet[f"G{rows['T01-C02']}"] = weight
    sheet.delete_rows(rows["T01-C06"])
    workbook.save(path)
    return path


def test_accepting_the_diff_pushes_one_step_and_one_undo_restores_the_bytes(qtbot, context, tmp_path):
    before = (context.session.root / T01).read_bytes()
    dialog = RubricImportDialog(context, _edited_sheet(context, tmp_path))
    qtbot.addWidget(dialog)
    dialog.show()
    view = dialog.findChild(type(dialog.view), "importDiffView")
    assert dialog.objectName() == "rubricImportDialog" and view is dialog.view
    model = view.model()
    shown = [[model.index(row, column).data() for column in range(7)] for row in range(model.rowCount())]
    # A removed row shows what the criterion required, so the reviewer sees what goes.
    removed_text = next(c.text for c in context.session.loaded.project.checkpoint_rubrics["T01"].criteria
                        if c.id == "T01-C06")
    assert shown == [["changed", "T01", "T01-C02", "weight", "-6", "-7", "Rubrics!G3"],
                     ["removed", "T01", "T01-C06", "", removed_text, "", ""]]
    assert model.index(1, 0).data(Qt.ItemDataRole.BackgroundRole) is not None  # removed rows are coloured
    assert dialog.apply_button.isEnabled()

    changes = []
    context.changed.connect(changes.append)
    qtbot.mouseClick(dialog.apply_button, Qt.MouseButton.LeftButton)
    assert dialog.result() == dialog.DialogCode.Accepted
    assert context.undo_stack.count() == 1 and context.undo_stack.undoText() == "Import rubrics.xlsx"
    assert len(changes) == 1 and {"T01-C02", "T01-C06"} <= changes[0].ids
    context.save()
    text = (context.session.root / T01).read_text(encoding="utf-8")
    assert "weight: -7" in text and "T01-C06" not in text

    context.undo_stack.undo()
    context.save()
    assert (context.session.root / T01).read_bytes() == before
    context.undo_stack.redo()
    context.save()
    assert (context.session.root / T01).read_text(encoding="utf-8") == text


def test_bad_cells_are_listed_with_their_cells_and_nothing_can_be_applied(qtbot, context, tmp_path):
    before = (context.session.root / T01).read_bytes()
    dialog = RubricImportDialog(context, _edited_sheet(context, tmp_path, weight="eleven"))
    qtbot.addWidget(dialog)
    errors = dialog.error_view.model()
    assert errors.rowCount() == 1
    assert errors.index(0, 0).data().startswith("Rubrics!G3: 'eleven' is not a whole number")
    assert not dialog.apply_button.isEnabled()
    qtbot.mouseClick(dialog.apply_button, Qt.MouseButton.LeftButton)
    assert context.undo_stack.count() == 0 and not context.session.modified
    assert (context.session.root / T01).read_bytes() == before


def test_with_the_apps_runner_the_sheet_is_read_in_the_background(qtbot, context, tmp_path):
    runner = TaskRunner()
    path = _edited_sheet(context, tmp_path)
    dialog = RubricImportDialog(context, path, runner=runner)
    qtbot.addWidget(dialog)
    # the result comes back through the event loop, so nothing is shown before it runs
    assert dialog.summary.text() == "Reading rubrics.xlsx..." and not dialog.apply_button.isEnabled()
    with qtbot.waitSignal(dialog.sheet_read, timeout=10000):
        pass
    assert dialog.model.rowCount() == 2 and dialog.apply_button.isEnabled()
    qtbot.mouseClick(dialog.apply_button, Qt.MouseButton.LeftButton)
    assert context.undo_stack.count() == 1 and context.session.modified


def test_the_diff_model_passes_the_model_tester(qtmodeltester, context, tmp_path):
    model = ImportDiffModel(read_rubric_sheet(context.session.root, _edited_sheet(context, tmp_path)))
    qtmodeltester.check(model)
    assert model.rowCount() == 2


def test_export_writes_the_file_the_expert_names(qtbot, context, tmp_path, monkeypatch):
    target = tmp_path / "for-marta"  # no suffix typed: .xlsx is added
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *args, **kwargs: (str(target), "xlsx"))
    written = export_rubrics_dialog(context)
    assert written == tmp_path / "for-marta.xlsx"
    sheet = load_workbook(written)["Rubrics"]
    assert sheet.max_row == 100  # the header and the sample's 99 criteria
    assert not read_rubric_sheet(context.session.root, written)
