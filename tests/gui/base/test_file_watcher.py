"""A project file changed on disk by another program is noticed, offered for reload, never overwritten."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMessageBox, QPushButton

from studio.editing.fields import set_field
from studio.gui.base.watcher import ProjectWatcher
from tests.gui.shell_support import idle, open_window, sample_copy


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
    # Keep mine: the bar goes; a later save is still refused
    window.findChild(QPushButton, "keepMineButton").click()
    assert not window.reload_bar.isVisible()
    assert not window.save()
    assert (root / "stages.yaml").read_text() == theirs


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
