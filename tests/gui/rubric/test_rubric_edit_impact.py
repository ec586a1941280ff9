"""The rubric editor's Edit impact panel, driven by typing into the table: the blank template with
run-a and run-b judged (tests/judging/scored_runs.py). By hand, as saved: run-a final 80, process 90;
run-b final 50–75 and process 30–50 (T02-C02 and PKG-01 missing), so run-a ranks over run-b on both.

Rewording T02-C01 (weight 6, reused by the final rubric) stales its verdicts in T02 and in the final
rubric of both runs. After: run-a final (5 + {6} + 5) / 20 = 50–80, T02 0–80 (T02-C02 needs
T02-C01; T02-N01 deducts 2), process 50–90; run-b final (4 + {6} + {5}) / 20 = 20–75, T02 0–100,
process 0–50. So run-b can reach run-a's final (75 >= 50), and on the process only tie it (50 = 50).
Undo: nothing changes any more."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLabel, QLineEdit, QTableView, QTabWidget, QWidget

from studio.editing.session import ProjectSession
from studio.gui.base.project_context import ProjectContext
from studio.gui.base.tasks import TaskRunner
from studio.gui.rubric.editor import RubricEditor
from studio.gui.rubric.model import COLUMN
from tests.gui.rubric.test_rubric_editor import press
from tests.judging.scored_runs import SYSTEM_A, SYSTEM_B, scored_project


@pytest.fixture
def editor(qtbot, tmp_path: Path) -> RubricEditor:
    runner = TaskRunner()
    context = ProjectContext(ProjectSession(scored_project(tmp_path / "blank")))
    context.rater_identity().set_blind(False)  # a maintainer who sees every verdict
    widget = RubricEditor(context, None, runner)
    widget.runner_ref = runner
    qtbot.addWidget(widget)
    widget.resize(1600, 800)
    widget.show()
    qtbot.waitExposed(widget)
    widget.findChild(QTabWidget, "rubricSideTabs").setCurrentWidget(widget.findChild(QWidget, "editImpactView"))
    wait_for_impact(qtbot, widget)
    return widget


def wait_for_impact(qtbot, editor: RubricEditor) -> None:
    view = editor.edit_impact
    assert view is not None
    qtbot.waitUntil(lambda: not view._timer.isActive() and not editor.runner_ref.busy
                    and not label(editor, "editImpactStatus").startswith("Working out"), timeout=30000)


def rows(editor: RubricEditor) -> dict[tuple[str, str], tuple[str, str, str]]:
    """(submission, score) -> (before, after, stale), as the panel's table shows them."""
    table = editor.findChild(QTableView, "editImpactTable")
    model = table.model()
    found = {}
    submission = ""
    for row in range(model.rowCount()):
        cells = [model.index(row, column).data() for column in range(model.columnCount())]
        submission = cells[0] or submission
        found[(submission, cells[1])] = (cells[2], cells[3], cells[4])
    return found


def label(editor: RubricEditor, name: str) -> str:
    return editor.findChild(QLabel, name).text()


def type_text(editor: RubricEditor, scope: str, criterion: str, text: str) -> None:
    row = editor.model.row_of(scope, criterion)
    assert row is not None
    view = editor.findChild(QTableView, "rubricTable")
    view.setCurrentIndex(editor.proxy.mapFromSource(editor.model.index(row, COLUMN["text"])))
    view.setFocus()
    QTest.keyClick(view, Qt.Key.Key_F2)
    line = view.findChild(QLineEdit, "rubricEditor_text")
    assert line is not None
    line.selectAll()
    QTest.keyClicks(line, text)
    press(line, Qt.Key.Key_Return)


def test_the_panel_is_beside_the_table_with_its_names(editor: RubricEditor):
    tabs = editor.findChild(QTabWidget, "rubricSideTabs")
    assert [tabs.tabText(n) for n in range(tabs.count())] == ["Comments", "Edit impact"]
    for name in ("editImpactStatus", "editImpactFlips", "editImpactRejudge"):
        assert editor.findChild(QLabel, name) is not None
    assert label(editor, "editImpactStatus") == "No unsaved edit changes what a score reads."
    assert rows(editor)[(SYSTEM_A, "final")] == ("80.00", "80.00", "0")
    assert rows(editor)[(SYSTEM_B, "process")] == ("30.00–50.00", "30.00–50.00", "0")
    assert label(editor, "editImpactFlips").startswith("Orders the edit can change: none")


def test_rewording_a_criterion_stales_its_verdicts_and_shows_the_flips_undo_clears_them(qtbot, editor: RubricEditor):
    type_text(editor, "T02", "T02-C01", "The revised report uses the corrected M02 figure wherever it appears.")
    assert editor.context.undo_stack.count() == 1
    wait_for_impact(qtbot, editor)
    qtbot.waitUntil(lambda: "verdict(s) stop counting" in label(editor, "editImpactStatus"), timeout=30000)
    shown = rows(editor)
    assert shown[(SYSTEM_A, "final")] == ("80.00", "50.00–80.00", "1")
    assert shown[(SYSTEM_A, "process")] == ("90.00", "50.00–90.00", "1")
    assert shown[(SYSTEM_A, "T02")] == ("80.00", "0.00–80.00", "1")
    assert shown[(SYSTEM_B, "final")] == ("50.00–75.00", "20.00–75.00", "1")
    assert shown[(SYSTEM_B, "T02")] == ("60.00–100.00", "0.00–100.00", "1")
    assert (SYSTEM_A, "T01") not in shown  # unchanged checkpoints are not listed
    status = label(editor, "editImpactStatus")
    assert status.startswith("2 of 2 judged submission(s) change; 4 verdict(s) stop counting.")
    assert "T02/T02-C01 text (its verdicts stop counting)" in status
    assert "final/T02-C01 text (its verdicts stop counting)" in status
    flips = label(editor, "editImpactFlips").splitlines()
    assert flips[0] == "Orders the edit can change (2):"
    assert flips[1] == (f"final: {SYSTEM_A} (80.00) was above {SYSTEM_B} (50.00–75.00); after the edit 50.00–80.00 "
                        f"against 20.00–75.00: {SYSTEM_B} can rank level or above it")
    assert flips[2].startswith(f"process: {SYSTEM_A} (90.00) was above {SYSTEM_B} (30.00–50.00)")
    assert flips[2].endswith(f"{SYSTEM_B} can tie it, no more")
    assert label(editor, "editImpactRejudge").startswith(
        "To judge again: 4 decision(s) in about 4 judge request(s) at 8 criteria a request")

    editor.context.undo_stack.undo()
    wait_for_impact(qtbot, editor)
    qtbot.waitUntil(lambda: label(editor, "editImpactStatus") == "No unsaved edit changes what a score reads.",
                    timeout=30000)
    assert rows(editor)[(SYSTEM_A, "final")] == ("80.00", "80.00", "0")
    assert label(editor, "editImpactFlips").startswith("Orders the edit can change: none")
    assert label(editor, "editImpactRejudge") == "To judge again: nothing"


def test_an_edit_that_leaves_a_rubric_without_credit_is_named_not_a_crash(qtbot, editor: RubricEditor):
    # T01's only criterion becomes a deduction: the rubric has no positive weight after the edit
    row = editor.model.row_of("T01", "T01-C01")
    assert row is not None
    assert editor.model.setData(editor.model.index(row, COLUMN["weight"]), -5)
    wait_for_impact(qtbot, editor)
    qtbot.waitUntil(lambda: label(editor, "editImpactStatus").startswith("Edit impact unavailable"), timeout=30000)
    assert "no positive weight" in label(editor, "editImpactStatus")
    assert editor.findChild(QTableView, "editImpactTable").model().rowCount() == 0


def test_project_edit_impact_opens_the_rubric_editor_with_the_panel_in_front(qtbot, tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch):
    from studio.gui.base.actions import ActionId, MenuId
    from tests.gui.shell_support import open_window, sample_copy

    window = open_window(qtbot, sample_copy(tmp_path, monkeypatch))
    action = window.registry[ActionId.EDIT_IMPACT]
    assert action.objectName() == "actionEditImpact" and action in window.registry.menu(MenuId.PROJECT).actions()
    action.trigger()
    editor = window.editor_tabs.currentWidget()
    assert editor.objectName() == "rubricEditor"
    assert editor.findChild(QTabWidget, "rubricSideTabs").currentWidget().objectName() == "editImpactView"
    qtbot.waitUntil(lambda: label(editor, "editImpactStatus") == "No judged submissions yet: no score to change.",
                    timeout=30000)


def test_the_impact_model_passes_the_qt_model_tester(qtbot, qtmodeltester, editor: RubricEditor):
    type_text(editor, "T02", "T02-C01", "Reworded for the model tester.")
    wait_for_impact(qtbot, editor)
    qtbot.waitUntil(lambda: "stop counting" in label(editor, "editImpactStatus"), timeout=30000)
    model = editor.findChild(QTableView, "editImpactTable").model()
    assert model.rowCount() > 0
    qtmodeltester.check(model)
