"""Every form the window opens takes the keyboard in its first field, so a user who types at once
types into the form (issue 21, defect 2: the commit dialog opened on Cancel and a space cancelled it)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QDialog, QLineEdit, QMainWindow, QWidget

from studio.gui.widgets.dialogs import (
    CommitDialog,
    DeliverableDialog,
    HandoffDialog,
    MaterialImportDialog,
    NewProjectDialog,
)
from studio.store.workspace import project_templates
from tests.gui.shell_support import git, open_window, sample_copy, shown_dialog

FORMS: dict[str, tuple[Callable[[QWidget], QDialog], str]] = {
    "new project": (lambda parent: NewProjectDialog(Path("/tmp/workspace"), project_templates(), parent),
                    "newProjectTitle"),
    "material": (lambda parent: MaterialImportDialog(Path("/tmp/engagement-letter.pdf"), "M07",
                                                     [("T01", "Scoping")], None, parent), "materialId"),
    "commit": (lambda parent: CommitDialog(["rubrics/T01.yaml"], parent), "commitMessage"),
    "handoff": (lambda parent: HandoffDialog(["T01:out/plan.md"], ["T02"], parent), "handoffFrom"),
    "deliverable": (lambda parent: DeliverableDialog("F03", ["T02:out/memo.docx"], parent), "deliverableId"),
}


@pytest.mark.parametrize("form", list(FORMS))
def test_each_form_opens_with_the_focus_in_its_first_field(qtbot, form: str):
    make, first_field = FORMS[form]
    window = QMainWindow()
    qtbot.addWidget(window)
    window.show()
    dialog = make(window)
    with qtbot.waitExposed(dialog):
        dialog.open()
    qtbot.waitUntil(lambda: dialog.focusWidget() is not None)
    assert dialog.focusWidget().objectName() == first_field
    assert not dialog.buttons.button(dialog.buttons.StandardButton.Cancel).isDefault()
    dialog.reject()


def test_commit_dialog_takes_a_typed_message_and_enter_commits_it(qtbot, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch):
    """Ctrl+Shift+S, type, Enter: that message is committed (before: the space cancelled the dialog)."""
    root = sample_copy(tmp_path, monkeypatch)
    window = open_window(qtbot, root)
    window.edits.action_add_stage.trigger()
    stage = shown_dialog(qtbot, "addStageDialog")
    assert isinstance(stage.focusWidget(), QLineEdit)  # the one-line questions too
    QTest.keyClicks(stage.focusWidget(), "Closing")
    QTest.keyClick(stage.focusWidget(), Qt.Key.Key_Return)
    qtbot.waitUntil(window.isWindowModified)
    window.edits.action_add_subtask.trigger()  # a stage needs a subtask: the commit's check refuses one without
    subtask = shown_dialog(qtbot, "addSubtaskDialog")
    QTest.keyClicks(subtask.focusWidget(), "Closing memo")
    QTest.keyClick(subtask.focusWidget(), Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.current_object() is not None and window.current_object()[0] == "subtask")
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)

    QTest.keyClick(window, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    shown_dialog(qtbot, "commitDialog")
    typing_into = QApplication.focusWidget()
    assert typing_into is not None and typing_into.objectName() == "commitMessage"
    with qtbot.waitSignal(window.committed, timeout=20000):
        QTest.keyClicks(typing_into, "fix the weights")
        QTest.keyClick(typing_into, Qt.Key.Key_Return)
    assert git(root, "log", "-1", "--format=%s").strip() == "fix the weights"


def test_shift_enter_starts_a_new_line_of_the_commit_message(qtbot):
    window = QMainWindow()
    qtbot.addWidget(window)
    window.show()
    dialog = CommitDialog([], window)
    with qtbot.waitExposed(dialog):
        dialog.open()
    edit = dialog.message_edit
    QTest.keyClicks(edit, "Reweigh T02")
    QTest.keyClick(edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    QTest.keyClicks(edit, "The client's feedback moved the weights.")
    assert dialog.isVisible()
    assert dialog.message == "Reweigh T02\nThe client's feedback moved the weights."
    with qtbot.waitSignal(dialog.accepted):
        QTest.keyClick(edit, Qt.Key.Key_Return)


def test_enter_on_an_empty_commit_message_does_nothing(qtbot):
    window = QMainWindow()
    qtbot.addWidget(window)
    window.show()
    dialog = CommitDialog([], window)
    with qtbot.waitExposed(dialog):
        dialog.open()
    QTest.keyClick(dialog.message_edit, Qt.Key.Key_Return)
    assert dialog.isVisible() and dialog.message == ""
    dialog.reject()

