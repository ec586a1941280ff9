"""Autosave and recovery in the window's base (studio/gui/base/recovery.py): the journal follows
the unsaved edits, goes when nothing is unsaved, and a journal found on open is offered back."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget

from studio.editing import journal as edit_journal
from studio.editing.rubric import add_criterion, edit_criterion
from studio.editing.session import ProjectSession
from studio.gui.base.project_context import ProjectContext
from studio.gui.base.recovery import ProjectRecovery
from studio.store.workspace import create_project
from tests.helpers import SCAFFOLD

CRITERION = {"id": "T01-C09", "text": "The memo names the lender's covenant.", "covers": ["T01:outputs/T01.md"],
             "target": "checkpoint", "dimension": "correctness", "weight": 3, "review": {"status": "draft"}}
RUBRIC = "subtasks/T01/rubric.yaml"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "audit"
    create_project(root, "audit", "Revenue audit", template=SCAFFOLD)
    return root


@pytest.fixture
def window(qtbot) -> QWidget:
    widget = QWidget()
    qtbot.addWidget(widget)
    widget.resize(600, 400)
    widget.show()
    qtbot.waitExposed(widget)
    widget.activateWindow()
    return widget


def opened(root: Path) -> tuple[ProjectContext, ProjectRecovery]:
    context = ProjectContext(ProjectSession(root))
    return context, ProjectRecovery(context)


def test_the_journal_follows_each_edit_and_goes_on_undo_and_on_save(project: Path, qtbot):
    context, recovery = opened(project)
    path = edit_journal.journal_path(project)
    with qtbot.waitSignal(recovery.journaled, timeout=5000):
        context.push(add_criterion(context.session.documents, "T01", CRITERION))
    assert "T01-C09" in path.read_text(encoding="utf-8")
    with qtbot.waitSignal(recovery.journaled, timeout=5000):
        context.push(edit_criterion(context.session.documents, "T01", "T01-C09", {"weight": 7}))
    journal = edit_journal.read_journal(project)
    assert journal is not None and journal.steps[-1] == context.undo_stack.text(1)
    assert b"weight: 7" in dict((f.rel, f.content) for f in journal.files)[RUBRIC]
    with qtbot.waitSignal(recovery.cleared, timeout=5000):
        context.undo_stack.undo()
        context.undo_stack.undo()  # back to the saved state: nothing to recover
    assert not path.exists()
    with qtbot.waitSignal(recovery.journaled, timeout=5000):
        context.undo_stack.redo()
    with qtbot.waitSignal(recovery.cleared, timeout=5000):
        context.save()
    assert not path.exists()
    recovery.wait()


def journal_left_by_a_crash(project: Path) -> ProjectSession:
    session = ProjectSession(project)
    session.apply(add_criterion(session.documents, "T01", CRITERION))
    edit_journal.write_journal(project, edit_journal.capture(session.documents, ["Add criterion T01-C09"]))
    return session


def test_a_journal_found_on_open_is_offered_with_the_focus_on_recover_and_comes_back_unsaved(
        project: Path, window: QWidget, qtbot):
    crashed = journal_left_by_a_crash(project)
    context, recovery = opened(project)
    dialog = recovery.offer(window)
    assert dialog is not None and dialog.objectName() == "recoveryDialog"
    qtbot.waitUntil(lambda: QApplication.focusWidget() is dialog.recover_button)
    assert "Add criterion T01-C09" in dialog.steps.text() and RUBRIC in dialog.message.text()
    # A new edit while the offer is open does not replace the journal being offered.
    with qtbot.waitSignal(recovery.answered) as answer:
        QTest.keyClick(dialog.recover_button, Qt.Key.Key_Space)
    assert answer.args == ["recovered"]
    assert context.modified and context.undo_stack.count() == 1
    assert context.undo_stack.text(0) == edit_journal.RECOVER_LABEL
    assert context.session.documents.text(RUBRIC) == crashed.documents.text(RUBRIC)
    assert context.session.loaded.project.rubric("T01").criteria[-1].key == "T01-C09"
    recovery.wait()


def test_discard_removes_the_journal_and_a_project_without_one_offers_nothing(project: Path, window, qtbot):
    journal_left_by_a_crash(project)
    context, recovery = opened(project)
    dialog = recovery.offer(window)
    with qtbot.waitSignal(recovery.answered) as answer:
        dialog.discard_button.click()
    assert answer.args == ["discarded"] and not edit_journal.journal_path(project).exists()
    assert not context.modified
    again = opened(project)[1]
    assert again.offer(window) is None
    recovery.wait()


def test_a_journal_that_no_longer_fits_the_disk_is_explained_and_can_only_be_set_aside_or_discarded(
        project: Path, window, qtbot):
    journal_left_by_a_crash(project)
    rubric = project / RUBRIC
    rubric.write_text(rubric.read_text(encoding="utf-8") + "# changed by git checkout\n", encoding="utf-8")
    context, recovery = opened(project)
    dialog = recovery.offer(window)
    assert not dialog.recover_button.isVisibleTo(dialog)
    assert RUBRIC in dialog.message.text() and "cannot be applied" in dialog.message.text()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is dialog.set_aside_button)
    with qtbot.waitSignal(recovery.answered):
        dialog.set_aside_button.click()
    kept = list(edit_journal.journal_path(project).parent.glob("edits-set-aside-*.json"))
    assert len(kept) == 1 and "T01-C09" in kept[0].read_text(encoding="utf-8")
    assert not edit_journal.journal_path(project).exists() and not context.modified
    assert str(kept[0]) in dialog.note
    recovery.wait()


def test_a_damaged_journal_is_named_in_the_offer_not_raised(project: Path, window):
    path = edit_journal.journal_path(project)
    path.parent.mkdir(parents=True)
    path.write_text("{half a journ", encoding="utf-8")
    dialog = opened(project)[1].offer(window)
    assert dialog is not None and str(path) in dialog.message.text() and "damaged" in dialog.message.text()
    assert not dialog.recover_button.isEnabled()


def test_closing_the_project_with_edits_unsaved_keeps_their_journal(project: Path, qtbot):
    """The context deletes its undo stack first, which then reports itself clean: that is no save."""
    context, recovery = opened(project)
    with qtbot.waitSignal(recovery.journaled, timeout=5000):
        context.push(add_criterion(context.session.documents, "T01", CRITERION))
    recovery.wait()
    with qtbot.waitSignal(context.destroyed):
        context.deleteLater()
    QApplication.processEvents()
    journal = edit_journal.read_journal(project)
    assert journal is not None and [f.rel for f in journal.files] == [RUBRIC]


def test_closing_the_offer_with_escape_sets_the_journal_aside_and_journals_new_edits(project: Path, window, qtbot):
    journal_left_by_a_crash(project)
    context, recovery = opened(project)
    dialog = recovery.offer(window)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is dialog.recover_button)
    with qtbot.waitSignal(recovery.answered) as answer:
        QTest.keyClick(dialog.recover_button, Qt.Key.Key_Escape)
    assert answer.args == ["set aside"] and not context.modified
    folder = edit_journal.journal_path(project).parent
    assert len(list(folder.glob("edits-set-aside-*.json"))) == 1
    with qtbot.waitSignal(recovery.journaled, timeout=5000):
        context.push(edit_criterion(context.session.documents, "T01", "T01-C01", {"weight": 2}))
    assert b"weight: 2" in edit_journal.read_journal(project).files[0].content
    recovery.wait()
