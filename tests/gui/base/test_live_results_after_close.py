"""Defect 5 of issue 21: a Review or Scores tab closed, then a rubric criterion edited, gives no
internal error: the closed view's rubric-edit timer and store connections go with it."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QEvent
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication

from studio.editing.rubric import set_criterion_field
from studio.gui.judging.scores_view import ScoresView
from studio.gui.widgets.dialogs import CrashDialog
from tests.gui.shell_support import idle, open_window
from tests.judging.scored_runs import JUDGE, RUN_B, put, scored_project


@pytest.mark.parametrize("action", ["scoresAction", "reviewAction"])
def test_editing_a_rubric_after_its_view_was_closed_gives_no_error(qtbot, tmp_path: Path, action: str):
    window = open_window(qtbot, scored_project(tmp_path / "blank"))
    window.findChild(QAction, action).trigger()
    qtbot.waitUntil(lambda: window.editor_tabs.count() == 1, timeout=30000)
    idle(qtbot, window)
    view = window.editor_tabs.currentWidget()
    if isinstance(view, ScoresView):
        qtbot.waitUntil(lambda: view.sheet is not None, timeout=30000)
    gone: list[bool] = []
    view.destroyed.connect(lambda *_: gone.append(True))
    window.editor_tabs.tabCloseRequested.emit(0)  # the tab's close button
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert gone == [True] and window.editor_tabs.count() == 0
    context = window.context
    errors: list[str] = []
    window.runner.crashed.connect(lambda label, _trace: errors.append(label))
    for text in ("Revised requirement", "Revised again"):  # each edit restarts the pause
        context.push(set_criterion_field(context.session.documents, "T01", "T01-C01", "text", text))
    put(window.context.session.root, RUN_B, JUDGE, {("T02", "T02-C02"): "pass"})  # the store changes too
    window.context.verdict_watcher().check()
    idle(qtbot, window)
    assert errors == [] and window.findChild(CrashDialog) is None
    assert "Revised again" in (context.session.documents.read_bytes("subtasks/T01/rubric.yaml") or b"").decode()
