"""The main window opens a project in the background and shows its explorer, findings and git state."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QDockWidget, QMessageBox, QTableView, QTreeView

from studio.gui.app import resolve_project
from studio.gui.main_window import MainWindow
from studio.gui.project.explorer_model import ID_ROLE, KIND_ROLE
from studio.gui.widgets.dialogs import CrashDialog
from studio.store.workspace import sample_project
from tests.gui.shell_support import open_window, sample_copy


def test_window_opens_the_sample(qtbot):
    window = open_window(qtbot, sample_project())
    assert window.windowTitle().startswith("Kestrel Freight Group, refinancing readiness")
    assert not window.isWindowModified()
    explorer = window.findChild(QTreeView, "projectExplorer")
    model = explorer.model()
    project = model.index(0, 0, QModelIndex())
    assert project.data(KIND_ROLE) == "project"
    stage = model.index(0, 0, project)
    assert stage.data().startswith("S1")
    assert model.index(0, 0, stage).data().startswith("T01")
    # the sample has review warnings but no errors; the counts are in the status bar
    findings = window.findChild(QTableView, "findingsView")
    assert findings.model().rowCount() > 0
    assert window.status.findings_label.text().startswith("0 error(s)")
    for name in ("explorerDock", "findingsDock", "versioningDock"):
        assert window.findChild(QDockWidget, name) is not None
    assert window.findChild(QDockWidget, "versioningDock").widget().objectName() == "versioningPanel"


def test_enter_on_an_explorer_item_opens_its_editor_and_a_rubric_opens_the_rubric_editor(qtbot):
    window = open_window(qtbot, sample_project())
    index = window.explorer_model.find("subtask", "T02")
    window.explorer.setFocus()
    window.explorer.setCurrentIndex(index)
    QTest.keyClick(window.explorer, Qt.Key.Key_Return)
    assert window.editor_tabs.currentWidget().objectName() == "subtaskEditor"
    assert window.editor_tabs.tabText(window.editor_tabs.currentIndex()) == "Subtask T02"
    rubric = window.explorer_model.find("rubric", "T02")
    window.explorer.setCurrentIndex(rubric)
    QTest.keyClick(window.explorer, Qt.Key.Key_Return)
    assert window.editor_tabs.currentWidget().objectName() == "rubricEditor"
    # the same object again: its tab is brought forward, not opened twice
    window.explorer.setCurrentIndex(index)
    QTest.keyClick(window.explorer, Qt.Key.Key_Return)
    assert window.editor_tabs.count() == 2
    assert rubric.data(ID_ROLE) == "T02"


def test_git_state_and_branch_in_the_status_bar(qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    window = open_window(qtbot, sample_copy(tmp_path, monkeypatch))
    assert window.git_label.text() == "git: saved"
    assert window.status.branch_label.text() == "⎇ main"


def test_a_folder_that_is_not_a_project_gives_a_message(qtbot, tmp_path: Path):
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    window.open_project(tmp_path)
    qtbot.waitUntil(lambda: window.findChild(QMessageBox, "errorMessage") is not None)
    box = window.findChild(QMessageBox, "errorMessage")
    assert "not a project folder" in box.text() and "project.yaml" in box.text()
    assert window.context is None


def test_default_project_is_a_workspace_copy_of_the_sample(tmp_path: Path):
    folder = resolve_project(None)
    assert folder == tmp_path / "workspace" / "kestrel-refinancing"
    assert (folder / ".git").is_dir()


def test_no_display_gives_a_message_not_a_crash(monkeypatch):
    from studio.gui.app import no_display_reason, run_app

    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    assert "no display" in no_display_reason()
    assert run_app(None) == 2
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    assert no_display_reason() is None


def test_layout_is_remembered(qtbot):
    first = MainWindow()
    qtbot.addWidget(first)
    first.show()
    first.findings_dock.hide()
    first.close()
    second = MainWindow()
    qtbot.addWidget(second)
    second.show()
    assert second.findings_dock.isHidden()
    assert not second.explorer_dock.isHidden()


def test_an_unexpected_error_shows_a_crash_dialog_with_its_log(qtbot, tmp_path: Path, monkeypatch):
    monkeypatch.setenv("DBSTUDIO_LOG_DIR", str(tmp_path / "logs"))
    window = MainWindow()
    qtbot.addWidget(window)

    def broken() -> None:
        raise RuntimeError("the disk fell off")
    with qtbot.waitSignal(window.runner.crashed):
        window.runner.run("Testing", broken, lambda _r: None)
    dialog = window.findChild(CrashDialog, "crashDialog")
    assert dialog is not None and dialog.log is not None
    assert dialog.log.parent == tmp_path / "logs"
    assert "RuntimeError: the disk fell off" in dialog.log.read_text()




def test_a_bug_in_a_slot_gets_the_crash_dialog(qtbot, tmp_path: Path, monkeypatch):
    import sys

    from studio.gui.app import install_crash_hook

    monkeypatch.setenv("DBSTUDIO_LOG_DIR", str(tmp_path / "logs"))
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # restored after the test
    window = MainWindow()
    qtbot.addWidget(window)
    install_crash_hook(window)
    try:
        raise KeyError("no such row")
    except KeyError as error:
        sys.excepthook(KeyError, error, error.__traceback__)
    dialog = window.findChild(CrashDialog, "crashDialog")
    assert dialog is not None and "KeyError" in dialog.log.read_text()


def test_the_versioning_dock_follows_the_explorer_selection(qtbot, monkeypatch):
    shown: list[tuple[str, ...]] = []
    monkeypatch.setattr("studio.gui.history.versioning.VersioningPanel.show_file",
                        lambda _panel, rel: shown.append(("file", str(rel))))
    monkeypatch.setattr("studio.gui.history.versioning.VersioningPanel.show_object",
                        lambda _panel, kind, object_id: shown.append((kind, object_id)))
    window = open_window(qtbot, sample_project())
    shown.clear()
    for kind, object_id in (("subtask", "T04"), ("rubric", "T04"), ("rubric", "final"), ("material", "M02"),
                            ("stage", "S3")):
        assert window.select_in_explorer(kind, object_id)
    assert shown == [("subtask", "T04"), ("file", "subtasks/T04/rubric.yaml"), ("file", "final/rubric.yaml"),
                     ("file", "materials/management-accounts-fy2023-fy2025.xlsx"), ("file", "stages.yaml")]
