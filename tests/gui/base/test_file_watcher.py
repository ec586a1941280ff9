"""A project file changed on disk by another program is noticed, offered for reload, never overwritten."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QMessageBox, QPushButton, QTableView

from studio.editing.fields import set_field
from studio.gui.base.watcher import ProjectWatcher
from tests.gui.shell_support import idle, open_window, sample_copy, shown_dialog, visible_rows


def _retitle_on_disk(root: Path, old: str, new: str) -> str:
    path = root / "stages.yaml"
    text = path.read_text().replace(old, new)
    path.write_text(text)
    return text


def test_a_file_changed_on_disk_is_offered_for_reload(qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    root = sample_copy(tmp_path, monkeypatch)
    window = open_window(qtbot, root)
    stage = window.explorer_model.find("stage", "S1")
    assert stage.data() == "S1  Diligence and baseline"
    with qtbot.waitSignal(window.watcher.files_changed, timeout=10000) as changed:
        _retitle_on_disk(root, "Diligence and baseline", "Due diligence")
    assert changed.args == [["stages.yaml"]]
    assert window.reload_bar.isVisible() and "stages.yaml" in window.reload_label.text()
    with qtbot.waitSignal(window.context.reloaded, timeout=10000):
        QTest.mouseClick(window.findChild(QPushButton, "reloadButton"), Qt.MouseButton.LeftButton)
    assert not window.reload_bar.isVisible()
    assert window.explorer_model.find("stage", "S1").data() == "S1  Due diligence"
    assert window.context.session.loaded.project.stages.stages[0].title == "Due diligence"


def test_with_unsaved_edits_the_save_is_refused_and_the_disk_keeps_theirs(qtbot, tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch):
    root = sample_copy(tmp_path, monkeypatch)
    window = open_window(qtbot, root)
    context = window.context
    context.push(set_field(context.session.documents, "stage", "S2", "title", "Structure"))
    assert window.isWindowModified()
    theirs = _retitle_on_disk(root, "Diligence and baseline", "Their title")
    assert window.watcher.check() == ["stages.yaml"]
    assert "unsaved edits to stages.yaml" in window.reload_label.text()
    QTest.keyClick(window, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: window.findChild(QMessageBox, "errorMessage") is not None)
    assert "changed outside DeliverBench Studio" in window.findChild(QMessageBox, "errorMessage").text()
    assert (root / "stages.yaml").read_text() == theirs
    assert window.isWindowModified()  # the edit is still in the window, unsaved
    # Keep mine: a choice per differing field (the disk's S1 title, my S2 title), then the merge saves
    window.findChild(QPushButton, "keepMineButton").click()
    dialog = shown_dialog(qtbot, "keepMineDialog")
    table = dialog.findChild(QTableView, "conflictTable")
    assert QApplication.focusWidget() is table  # the first field has the focus
    rows = visible_rows(table, {"field": 0, "mine": 1, "theirs": 2})
    assert rows == [{"field": "stages.yaml: stages.S1.title", "mine": "Diligence and baseline", "theirs": "Their title"},
                    {"field": "stages.yaml: stages.S2.title", "mine": "Structure",
                     "theirs": "Financing structure and model"}]
    QTest.keyClick(table, Qt.Key.Key_Space)  # the current row's "take the disk's": S1
    dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok).click()
    assert not window.reload_bar.isVisible()
    assert window.isWindowModified()  # the merged version is in the window, to be saved
    assert window.save()
    text = (root / "stages.yaml").read_text()
    assert "title: Their title" in text and "title: Structure" in text
    assert window.watcher.check() == []
    assert [s.title for s in window.context.session.loaded.project.stages.stages[:2]] == ["Their title", "Structure"]
    stack = window.context.undo_stack
    assert stack.text(stack.index() - 1) == "Keep mine, merged with the version on disk"
    stack.undo()  # the merge is one undoable step
    assert window.context.session.documents.node("stages.yaml", ("stages", 0, "title")) == "Diligence and baseline"


def test_the_apps_own_save_is_not_reported(qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    root = sample_copy(tmp_path, monkeypatch)
    window = open_window(qtbot, root)
    context = window.context
    reported: list[list[str]] = []
    window.watcher.files_changed.connect(reported.append)
    context.push(set_field(context.session.documents, "stage", "S2", "title", "Structure"))
    window.action_save.trigger()
    assert "title: Structure" in (root / "stages.yaml").read_text()
    assert not window.isWindowModified()
    assert window.watcher.check() == []
    idle(qtbot, window)
    assert reported == [] and not window.reload_bar.isVisible()


def test_watcher_reports_each_new_content_once_and_new_files(qtbot, tmp_path: Path, monkeypatch):
    root = sample_copy(tmp_path, monkeypatch)
    watcher = ProjectWatcher(root)
    try:
        assert watcher.check() == []
        (root / "materials.yaml").write_text((root / "materials.yaml").read_text() + "\n# note\n")
        assert watcher.check() == ["materials.yaml"]
        assert watcher.check() == []  # reported once
        folder = root / "subtasks" / "T11"
        folder.mkdir()
        (folder / "subtask.yaml").write_text("id: T11\n")
        assert watcher.check() == ["subtasks/T11/subtask.yaml"]
        (root / "final" / "rubric.yaml").unlink()
        assert watcher.check() == ["final/rubric.yaml"]
    finally:
        watcher.stop()


def test_an_instruction_open_in_a_form_and_changed_on_disk_is_offered_too(qtbot, tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch):
    root = sample_copy(tmp_path, monkeypatch)
    window = open_window(qtbot, root)
    window.open_object("subtask", "T02")  # the form reads T02's instruction
    rel = "subtasks/T02/instruction.md"
    assert rel in window.context.session.documents.editor.known_files()
    assert window.watcher.check() == []  # read after opening is not a change
    with qtbot.waitSignal(window.watcher.files_changed, timeout=10000) as changed:
        (root / rel).write_text((root / rel).read_text() + "\nA paragraph added in another editor.\n")
    assert changed.args == [[rel]]
    assert window.reload_bar.isVisible() and rel in window.reload_label.text()
