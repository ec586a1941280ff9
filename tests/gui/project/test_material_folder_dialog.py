"""Import a Folder of Materials: every file proposed in one table, corrected there (kind, release, a file
left out), imported as one undo step."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QFileDialog, QLineEdit

from studio.gui.widgets.material_folder import KEEP, KIND, RELEASE, MaterialFolderDialog
from tests.gui.shell_support import open_window, sample_copy


def test_a_folder_is_proposed_corrected_and_imported_in_one_step(qtbot, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch):
    window = open_window(qtbot, sample_copy(tmp_path, monkeypatch))
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for name in ("2026-05-02_lender-comments.md", "board-minutes.md", "T09-checklist-template.md"):
        (inbox / name).write_text(f"# {name}\n", encoding="utf-8")
    documents = window.context.session.documents
    before = documents.read_bytes("materials.yaml")
    window.findChild(QAction, "actionImportMaterialFolder").trigger()
    picker = window.findChild(QFileDialog, "importMaterialFolderDialog")
    edit = picker.findChild(QLineEdit, "fileNameEdit")
    edit.setText(str(inbox))
    QTest.keyClick(edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.findChild(MaterialFolderDialog, "materialFolderDialog") is not None, timeout=5000)
    dialog = window.findChild(MaterialFolderDialog, "materialFolderDialog")
    table = dialog.table
    assert table.rowCount() == 3 and dialog.focusWidget() is table
    names = [table.item(r, 2).text() for r in range(3)]
    assert names == ["2026-05-02_lender-comments.md", "board-minutes.md", "T09-checklist-template.md"]
    assert table.cellWidget(0, KIND).currentText() == "client_feedback"
    assert table.cellWidget(2, RELEASE).currentText() == "before T09"
    table.cellWidget(1, KIND).setCurrentText("new_evidence")  # the expert corrects a guess
    table.cellWidget(1, RELEASE).setCurrentText("before T03")
    table.item(0, KEEP).setCheckState(Qt.CheckState.Unchecked)  # and leaves one file out
    dialog.accept()
    project = window.context.session.loaded.project
    kept = [m for m in project.materials.materials if m.id in ("M19", "M20", "M21")]
    assert [(m.id, m.file, m.kind.value, m.release.subtask) for m in kept] == [
        ("M20", "board-minutes.md", "new_evidence", "T03"), ("M21", "T09-checklist-template.md", "template", "T09")]
    window.findChild(QAction, "actionUndo").trigger()  # one step
    assert documents.read_bytes("materials.yaml") == before
