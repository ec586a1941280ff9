"""The two halves of the SIGKILL walk (issue 21), each a pytest-qt test that test_recovery_walk.py
runs in its own pytest subprocess on the project named by $RECOVERY_WALK_PROJECT. Not collected
with the suite (no `test_` prefix): the first half never ends, it waits to be killed.

1. `test_first_half_then_wait_to_be_killed`: the window opens a project made from the template,
   builds half of a 4-subtask project through the window's edit path (ProjectActions.push, the
   rubric editor's Delete key), nothing saved; once the journal holds every edit it writes what
   the edits should give to $RECOVERY_WALK_EXPECTED, prints JOURNALED and waits.
2. `test_second_half_recovers_finishes_and_commits`: the window opens the project again, the
   recovery is offered and accepted with the keyboard, every edit is checked back, the project
   is finished and committed through the window's Save and Commit."""

from __future__ import annotations

import json
import os
from pathlib import Path

from PySide6.QtCore import QEventLoop, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from studio.editing import journal as edit_journal
from studio.editing.files import set_text
from studio.editing.rubric import add_criterion, edit_criterion
from studio.editing.timeline import add_stage, add_subtask
from studio.gui.main_window import MainWindow
from studio.gui.rubric.model import COLUMN
from studio.gui.widgets.dialogs import CommitDialog

T03_INSTRUCTION = "subtasks/T03/instruction.md"
T03_TEXT = "# Reconcile revenue\n\nTie the revenue in the draft statements to the general ledger.\n"


def criterion(key: str, subtask: str, output: str, text: str, weight: int) -> dict[str, object]:
    return {"id": key, "text": text, "covers": [f"{subtask}:{output}"], "target": "checkpoint",
            "dimension": "correctness", "weight": weight, "review": {"status": "draft"}}


def opened_window(qtbot) -> MainWindow:
    window = MainWindow()
    qtbot.addWidget(window)
    window.resize(1366, 768)
    window.show()
    qtbot.waitExposed(window)
    with qtbot.waitSignal(window.project_opened, timeout=60000):
        window.open_project(Path(os.environ["RECOVERY_WALK_PROJECT"]))
    return window


def test_first_half_then_wait_to_be_killed(qtbot):
    window = opened_window(qtbot)
    assert window.recovery is not None and window.recovery.dialog is None  # a clean start: nothing offered
    push = window.edits.push
    assert push(lambda docs: add_subtask(docs, "S2", "T03", "Reconcile revenue to the ledger"))
    for key, text, weight in (("T03-C01", "The reconciliation ties revenue to the ledger.", 4),
                              ("T03-C02", "The reconciliation names its source ledger.", 2),
                              ("T03-C03", "The reconciliation explains every difference.", 3)):
        assert push(lambda docs, key=key, text=text, weight=weight: add_criterion(docs, "T03", criterion(
            key, "T03", "outputs/T03.md", text, weight)))
    # The first two rows of T03 go with the rubric editor's Delete key (the crash of defect 1).
    editor = window.open_rubric("T03")
    assert editor is not None
    view = editor.table
    view.setFocus()
    view.setCurrentIndex(view.model().index(0, COLUMN["text"]))
    QTest.keyClick(view, Qt.Key.Key_Down, Qt.KeyboardModifier.ShiftModifier)
    with qtbot.waitSignal(editor.model.rowsRemoved):
        QTest.keyClick(view, Qt.Key.Key_Delete)
    assert editor.model.keys("T03") == ["T03-C03"]
    assert push(lambda docs: add_criterion(docs, "T01", criterion(
        "T01-C02", "T01", "outputs/report.md", "The report names the engagement's materiality.", 2)))
    assert push(lambda docs: edit_criterion(docs, "T01", "T01-C02", {"weight": 6}))
    with qtbot.waitSignal(window.recovery.journaled, timeout=10000):
        assert push(lambda docs: set_text(docs, T03_INSTRUCTION, T03_TEXT))
    root = window.context.session.root
    journal = edit_journal.read_journal(root)
    assert journal is not None and len(journal.steps) == window.context.undo_stack.index() == 8
    unsaved = window.context.session.documents.unsaved()
    assert {f.rel: f.content for f in journal.files} == unsaved
    expected = {rel: None if data is None else data.decode("utf-8") for rel, data in unsaved.items()}
    Path(os.environ["RECOVERY_WALK_EXPECTED"]).write_text(json.dumps(expected), encoding="utf-8")
    print("JOURNALED", edit_journal.journal_path(root), flush=True)
    QEventLoop().exec()  # the window stays open, unsaved, until the walk kills this process


def test_second_half_recovers_finishes_and_commits(qtbot):
    expected = json.loads(Path(os.environ["RECOVERY_WALK_EXPECTED"]).read_text(encoding="utf-8"))
    window = opened_window(qtbot)
    recovery = window.recovery
    assert recovery is not None and recovery.dialog is not None
    dialog = recovery.dialog
    assert "Add subtask T03" in dialog.steps.text() and "subtasks/T03/rubric.yaml" in dialog.message.text()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is dialog.recover_button)
    with qtbot.waitSignal(recovery.answered) as answer:
        QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Return)
    assert answer.args == ["recovered"]
    context = window.context
    assert context is not None and window.isWindowModified()
    recovered = {rel: None if data is None else data.decode("utf-8")
                 for rel, data in context.session.documents.unsaved().items()}
    assert recovered == expected  # every edit of the first half, byte for byte
    project = context.session.loaded.project
    assert project.timeline() == ["T01", "T02", "T03"]
    assert [c.key for c in project.rubric("T03").criteria] == ["T03-C03"]
    assert [(c.key, c.weight) for c in project.rubric("T01").criteria] == [("T01-C01", 5), ("T01-C02", 6)]

    push = window.edits.push
    assert push(lambda docs: add_stage(docs, "S3", "Closing"))
    assert push(lambda docs: add_subtask(docs, "S3", "T04", "Draft the audit opinion"))
    assert push(lambda docs: add_criterion(docs, "T04", criterion(
        "T04-C01", "T04", "outputs/T04.md", "The opinion follows from the reconciliation.", 5)))
    assert push(lambda docs: edit_criterion(docs, "T03", "T03-C03",
                                            {"text": "The reconciliation ties every revenue stream to the ledger."}))
    window.commit()  # saves, then asks for the message
    commit_dialog = QApplication.activeModalWidget()
    assert isinstance(commit_dialog, CommitDialog)
    QTest.keyClicks(commit_dialog.message_edit, "Four subtasks: revenue reconciliation and the audit opinion")
    with qtbot.waitSignal(window.committed, timeout=60000):
        commit_dialog.accept()
    journal = edit_journal.journal_path(context.session.root)
    qtbot.waitUntil(lambda: not journal.exists())  # saved: nothing left to recover
    assert not window.isWindowModified()
    recovery.wait()
