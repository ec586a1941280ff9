"""Renames in the window show every change first (the rename preview) and undo in one step: a material
renamed from the explorer reaches the instructions that name it; an output path edited in the subtask
form updates every reference and text; Cancel changes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QInputDialog, QWidget

from studio.gui.widgets.rename_preview import RenamePreviewDialog
from tests.gui.shell_support import open_window, sample_copy

OLD = "outputs/open_issues_register.md"
NEW = "outputs/issues_register.md"


def _texts(window) -> dict[str, str]:
    documents = window.context.session.documents
    return {rel: (documents.read_bytes(rel) or b"").decode() for rel in ("subtasks/T06/instruction.md", "subtasks/T04/instruction.md",
                                                 "subtasks/T03/subtask.yaml", "dependencies.yaml", "materials.yaml")}


def _rename_material(window, new: str) -> RenamePreviewDialog:
    window.select_in_explorer("material", "M12")
    window.findChild(QAction, "actionRename").trigger()
    question = window.findChild(QInputDialog, "renameDialog")
    question.setTextValue(new)
    question.accept()
    preview = window.findChild(RenamePreviewDialog, "renamePreviewDialog")
    assert preview is not None and preview.isVisible()
    return preview


def test_a_material_rename_is_previewed_then_applied_and_undone_in_one_step(qtbot, tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch):
    window = open_window(qtbot, sample_copy(tmp_path, monkeypatch))
    before = _texts(window)
    preview = _rename_material(window, "M12R")
    table = preview.table
    rows = [[table.item(r, c).text() for c in range(4)] for r in range(table.rowCount())]
    assert ["materials.yaml", "materials.11.id", "M12", "M12R"] in rows
    lines = [r for r in rows if r[0] == "subtasks/T06/instruction.md"]
    assert lines and lines[0][1].startswith("line ") and "M12R" in lines[0][3]
    assert "in the instructions or the brief" in preview.findChild(QWidget, "renamePreviewSummary").text()
    assert preview.focusWidget() is table
    assert _texts(window) == before  # nothing changed yet
    preview.accept()
    assert "M12R" in _texts(window)["subtasks/T06/instruction.md"]
    assert window.explorer_model.find("material", "M12R").isValid()
    window.findChild(QAction, "actionUndo").trigger()  # one step takes the YAML and the texts back
    assert _texts(window) == before


def test_cancel_changes_nothing(qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    window = open_window(qtbot, sample_copy(tmp_path, monkeypatch))
    before = _texts(window)
    _rename_material(window, "M12R").reject()
    assert _texts(window) == before and not window.context.modified


def test_an_output_path_edited_in_the_subtask_form_follows_everywhere(qtbot, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch):
    window = open_window(qtbot, sample_copy(tmp_path, monkeypatch))
    before = _texts(window)
    window.open_object("subtask", "T03")
    editor = window.findChild(QWidget, "subtaskEditor")
    table = editor.outputs.table
    row = next(r for r in range(table.rowCount()) if table.item(r, 0).text() == OLD)
    table.item(row, 0).setText(NEW)
    preview = window.findChild(RenamePreviewDialog, "renamePreviewDialog")
    assert preview is not None and preview.isVisible()
    assert preview.windowTitle() == f"Rename output T03:{OLD} to {NEW}"
    preview.accept()
    after = _texts(window)
    assert NEW in after["subtasks/T04/instruction.md"] and OLD not in after["dependencies.yaml"]
    assert f"T03:{NEW}" in after["dependencies.yaml"]
    window.findChild(QAction, "actionUndo").trigger()
    assert _texts(window) == before
    # an edit cancelled in the preview puts the cell back
    table.item(row, 0).setText(NEW)
    window.findChild(RenamePreviewDialog, "renamePreviewDialog").reject()
    qtbot.waitUntil(lambda: table.item(row, 0).text() == OLD, timeout=5000)
    assert _texts(window) == before
