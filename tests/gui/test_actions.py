"""The window's actions driven like a user: shortcuts, dialogs, drops; real files and real git."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QAction
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QDialogButtonBox, QInputDialog, QMenu, QMessageBox

from studio.gui.main_window import MainWindow
from studio.gui.widgets.dialogs import CommitDialog, HandoffDialog, MaterialImportDialog, NewProjectDialog
from studio.gui.widgets.rename_preview import RenamePreviewDialog
from studio.store.loader import load_project
from studio.validation.validate import validate_project
from tests.gui.shell_support import drag_and_drop, git, git_identity, idle, open_window, sample_copy

SHORTCUTS = {"actionNewProject": "Ctrl+N", "actionOpenProject": "Ctrl+O", "actionSave": "Ctrl+S",
             "actionCommit": "Ctrl+Shift+S", "actionUndo": "Ctrl+Z", "actionRedo": "Ctrl+Y",
             "actionCloseProject": "Ctrl+W", "actionQuit": "Ctrl+Q", "actionRename": "F2", "actionRemove": "Del",
             "actionAddSubtask": "Ctrl+T", "actionImportMaterial": "Ctrl+I", "actionReview": "F5",
             "actionOpenRubric": "Ctrl+R", "reviewAction": "Ctrl+Shift+V", "adjudicationAction": "Ctrl+Shift+J"}


def _ok(dialog) -> None:
    dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok).click()


def _answer(window: MainWindow, name: str, text: str) -> None:
    dialog = window.findChild(QInputDialog, name)
    assert dialog is not None and dialog.isVisible()
    dialog.setTextValue(text)
    dialog.accept()


def test_actions_carry_their_names_and_shortcuts(qtbot):
    window = MainWindow()
    qtbot.addWidget(window)
    for name, shortcut in SHORTCUTS.items():
        action = window.findChild(QAction, name)
        assert action is not None, name
        assert shortcut in [s.toString() for s in action.shortcuts()], name
    for name in ("actionAddStage", "actionAddHandoff", "actionAddDeliverable", "actionAddReference", "actionReload"):
        assert window.findChild(QAction, name) is not None
    assert not window.action_save.isEnabled()  # nothing open yet
    menus = [action.text() for action in window.menuBar().actions()]
    assert menus == ["&File", "&Edit", "&Project", "R&uns", "&Judging", "&View"]
    judging = window.findChild(QMenu, "menuJudging")
    assert [a.objectName() for a in judging.actions() if a.objectName()][-5:] == [
        "scoresAction", "agreementAction", "judgeErrorAction", "lineageAction", "mutationAction"]
    assert not window.findChild(QAction, "scoresAction").isEnabled()  # nothing open yet


def test_add_stage_and_subtask_undo_redo_save_and_commit(qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    root = sample_copy(tmp_path, monkeypatch)
    window = open_window(qtbot, root)
    window.action_add_stage = window.findChild(QAction, "actionAddStage")
    window.action_add_stage.trigger()
    _answer(window, "addStageDialog", "Closing")
    assert window.current_object() == ("stage", "S5")
    assert window.isWindowModified()
    QTest.keyClick(window, Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier)  # add a subtask to the stage
    _answer(window, "addSubtaskDialog", "Closing memo")
    assert window.current_object() == ("subtask", "T11")
    QTest.keyClick(window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert not window.explorer_model.find("subtask", "T11").isValid()
    QTest.keyClick(window, Qt.Key.Key_Y, Qt.KeyboardModifier.ControlModifier)
    assert window.explorer_model.find("subtask", "T11").isValid()

    QTest.keyClick(window, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert not window.isWindowModified()
    assert (root / "subtasks" / "T11" / "subtask.yaml").is_file()
    assert "Closing memo" in (root / "subtasks" / "T11" / "subtask.yaml").read_text()
    dialog = window.findChild(CommitDialog)
    QTest.keyClicks(dialog.message_edit, "Add the closing stage")
    with qtbot.waitSignal(window.committed, timeout=20000):
        _ok(dialog)
    assert git(root, "log", "-1", "--format=%s").strip() == "Add the closing stage"
    assert "subtasks/T11/subtask.yaml" in git(root, "show", "--name-only", "--format=", "HEAD")
    idle(qtbot, window)
    assert window.git_label.text() == "git: saved"
    assert validate_project(root) == []


def test_new_project_from_the_template(qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    git_identity(monkeypatch)
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    window.findChild(QAction, "actionNewProject").trigger()
    dialog = window.findChild(NewProjectDialog)
    QTest.keyClicks(dialog.title_edit, "Acme IT audit")
    assert dialog.id_edit.text() == "acme-it-audit"
    assert dialog.folder_edit.text() == str(tmp_path / "workspace" / "acme-it-audit")
    assert dialog.template_box.currentText() == "blank"
    with qtbot.waitSignal(window.project_opened, timeout=20000):
        _ok(dialog)
    folder = tmp_path / "workspace" / "acme-it-audit"
    info = load_project(folder).project.info
    assert info is not None and (info.id, info.title) == ("acme-it-audit", "Acme IT audit")
    assert window.windowTitle().startswith("Acme IT audit")
    assert "Create project acme-it-audit" in git(folder, "log", "--format=%s")
    assert window.recent_projects()[0] == str(folder)


def test_a_file_dropped_on_a_subtask_is_imported_released_before_it(qtbot, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch):
    root = sample_copy(tmp_path, monkeypatch)
    window = open_window(qtbot, root)
    source = tmp_path / "rate_sheet.csv"
    source.write_text("date,rate\n2026-04-20,2.31\n")
    target = window.explorer_model.find("subtask", "T03")
    window.explorer.scrollTo(target)
    drop = drag_and_drop(window.explorer.viewport(), window.explorer.visualRect(target).center(), [source])
    assert drop.isAccepted()
    dialog = window.findChild(MaterialImportDialog)
    assert dialog.id_edit.text() == "M19"
    assert dialog.title_edit.text() == "Rate sheet"
    assert dialog.before_subtask == "T03"
    dialog.provenance_box.setCurrentIndex(dialog.provenance_box.findData("scenario_assumption"))
    _ok(dialog)
    material = window.explorer_model.find("material", "M19")
    assert material.parent().data() == "Before T03"
    assert window.current_object() == ("material", "M19")
    window.action_save.trigger()
    assert (root / "materials" / "rate_sheet.csv").read_bytes() == source.read_bytes()
    assert "id: M19" in (root / "materials.yaml").read_text()
    # a drop on the window itself imports too (released at the start unless chosen otherwise)
    other = tmp_path / "notes.md"
    other.write_text("# notes\n")
    assert drag_and_drop(window.editor_tabs, QPoint(20, 20), [other]).isAccepted()
    second = [d for d in window.findChildren(MaterialImportDialog) if d.isVisible()]
    assert len(second) == 1 and second[0].before_subtask is None and second[0].id_edit.text() == "M20"


def test_handoff_rename_and_remove_from_the_explorer(qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    root = sample_copy(tmp_path, monkeypatch)
    window = open_window(qtbot, root)
    window.findChild(QAction, "actionAddHandoff").trigger()
    dialog = window.findChild(HandoffDialog)
    dialog.source_box.setCurrentText("T02:outputs/fleet_and_permit_findings.md")
    dialog.to_box.setCurrentText("T09")
    dialog.carries_edit.setText("The Venlo permit condition")
    _ok(dialog)
    handoff = window.explorer_model.find("handoff", "T02:outputs/fleet_and_permit_findings.md>T09")
    assert handoff.isValid() and window.current_object()[0] == "handoff"

    window.select_in_explorer("material", "M13")
    window.explorer.setFocus()
    QTest.keyClick(window.explorer, Qt.Key.Key_F2)
    _answer(window, "renameDialog", "M13b")
    preview = window.findChild(RenamePreviewDialog, "renamePreviewDialog")
    assert preview is not None and preview.isVisible()  # every change shown first
    preview.accept()
    assert window.explorer_model.find("material", "M13b").isValid()
    assert not window.explorer_model.find("material", "M13").isValid()

    window.select_in_explorer("handoff", "T02:outputs/fleet_and_permit_findings.md>T09")
    QTest.keyClick(window.explorer, Qt.Key.Key_Delete)
    assert not window.explorer_model.find("handoff", "T02:outputs/fleet_and_permit_findings.md>T09").isValid()
    # a removal the project refuses (the material is still an input) is a message, nothing changes
    window.select_in_explorer("material", "M01")
    QTest.keyClick(window.explorer, Qt.Key.Key_Delete)
    box = window.findChild(QMessageBox, "errorMessage")
    assert box is not None and "M01" in box.text()
    assert window.explorer_model.find("material", "M01").isValid()


def test_quit_with_unsaved_edits_asks_first(qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    root = sample_copy(tmp_path, monkeypatch)
    window = open_window(qtbot, root)
    window.findChild(QAction, "actionAddStage").trigger()
    _answer(window, "addStageDialog", "Closing")
    window.findChild(QAction, "actionQuit").trigger()
    box = window.findChild(QMessageBox, "unsavedEditsDialog")
    assert box is not None and window.isVisible()
    box.button(QMessageBox.StandardButton.Cancel).click()
    assert window.isVisible() and window.isWindowModified()
    window.close()
    boxes = [b for b in window.findChildren(QMessageBox, "unsavedEditsDialog") if b.isVisible()]
    boxes[0].button(QMessageBox.StandardButton.Save).click()
    assert not window.isVisible()
    assert "Closing" in (root / "stages.yaml").read_text()


def test_stages_and_subtasks_move_along_the_timeline_with_alt_arrows(qtbot, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch):
    root = sample_copy(tmp_path, monkeypatch)
    window = open_window(qtbot, root)
    before = (root / "stages.yaml").read_bytes()

    def listing() -> dict[str, list[str]]:
        return {s.id: list(s.subtasks) for s in window.context.session.loaded.project.stages.stages}

    assert listing()["S1"] == ["T01", "T02", "T03"] and listing()["S2"] == ["T04", "T05", "T06"]
    window.select_in_explorer("subtask", "T02")
    window.explorer.setFocus()
    QTest.keyClick(window.explorer, Qt.Key.Key_Down, Qt.KeyboardModifier.AltModifier)
    assert listing()["S1"] == ["T01", "T03", "T02"]
    assert window.current_object() == ("subtask", "T02")  # the moved row stays selected
    # at the end of its stage, a subtask moves on into the next stage
    QTest.keyClick(window.explorer, Qt.Key.Key_Down, Qt.KeyboardModifier.AltModifier)
    assert listing()["S1"] == ["T01", "T03"] and listing()["S2"] == ["T02", "T04", "T05", "T06"]
    window.select_in_explorer("stage", "S2")
    QTest.keyClick(window.explorer, Qt.Key.Key_Up, Qt.KeyboardModifier.AltModifier)
    assert list(listing()) == ["S2", "S1", "S3", "S4"]
    for _ in range(3):
        window.findChild(QAction, "actionUndo").trigger()
    assert window.context.session.documents.text("stages.yaml").encode() == before
