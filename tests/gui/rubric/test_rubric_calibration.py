"""Judge calibration in the rubric editor: two runs judged by the judge and two experts (tests/
judging/scored_runs.py add_experts), thresholds min_agreement 0.4, min_decisions 2 in
verdicts/calibration.yaml. By hand, per criterion (judge against the experts' agreed verdict):
  T01-C01: run-a pass/pass, run-b fail/fail: 2 decisions, agreement 100%;
  T02-C01: run-a pass/fail, run-b pass/fail: 2 of 2 differ, agreement 0%: flagged;
  final A-01: run-a fail/pass (Anna alone), run-b pass/pass: 1 of 2 differ, 50%: not flagged."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QTableView

from studio.editing.session import ProjectSession
from studio.gui.base.project_context import ProjectContext
from studio.gui.base.tasks import TaskRunner
from studio.gui.rubric.editor import RubricEditor
from studio.gui.rubric.model import COLUMN, FLAGGED_ROLE
from tests.helpers import write
from tests.judging.scored_runs import RUN_A, RUN_B, add_experts, put, scored_project


def out_of_blind_mode(context: ProjectContext) -> ProjectContext:
    """A maintainer looking at every verdict (blind review hides them from a rater: test_blind_review.py)."""
    context.rater_identity().set_blind(False)
    return context



@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = scored_project(tmp_path / "blank")
    add_experts(root)
    write(root, "verdicts/calibration.yaml", "min_agreement: 0.4\nmin_decisions: 2\n")
    return root


@pytest.fixture
def editor(qtbot, project: Path) -> RubricEditor:
    runner = TaskRunner()
    widget = RubricEditor(out_of_blind_mode(ProjectContext(ProjectSession(project))), None, runner)
    widget.runner_ref = runner
    qtbot.addWidget(widget)
    widget.resize(1600, 700)
    widget.show()
    qtbot.waitExposed(widget)
    qtbot.waitUntil(lambda: bool(widget.model.calibration) and not runner.busy, timeout=30000)
    return widget


def judge_cell(editor: RubricEditor, scope: str, key: str) -> QModelIndex:
    row = editor.model.row_of(scope, key)
    assert row is not None
    return editor.proxy.mapFromSource(editor.model.index(row, COLUMN["judge"]))


def test_the_flag_is_on_the_low_agreement_criterion_only(editor: RubricEditor):
    model = editor.model
    flagged = [(model.shown(row).scope, model.shown(row).key) for row in range(model.rowCount())
               if model.index(row, COLUMN["judge"]).data(FLAGGED_ROLE)]
    assert flagged == [("T02", "T02-C01")]
    cell = judge_cell(editor, "T02", "T02-C01")
    assert cell.data() == "0% (2/2 differ)"
    assert cell.data(Qt.ItemDataRole.ToolTipRole).startswith(
        "judge and experts disagree on 2 of 2 decisions (agreement 0%)")
    assert not cell.data(Qt.ItemDataRole.DecorationRole).isNull()  # the warning icon
    a01 = judge_cell(editor, "final", "A-01")
    assert a01.data() == "50% (1/2 differ)" and a01.data(Qt.ItemDataRole.DecorationRole) is None
    assert judge_cell(editor, "T01", "T01-C01").data() == "100% (0/2 differ)"
    assert judge_cell(editor, "T02", "T02-N01").data() == "100% (0/2 differ)"
    assert model.headerData(COLUMN["judge"], Qt.Orientation.Horizontal) == "Judge agreement"


def test_a_click_on_the_flag_asks_for_the_disagreeing_decisions(qtbot, editor: RubricEditor):
    table = editor.findChild(QTableView, "rubricTable")
    cell = judge_cell(editor, "T02", "T02-C01")
    table.scrollTo(cell)
    with qtbot.waitSignal(editor.disagreementsRequested, timeout=2000) as asked:
        QTest.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=table.visualRect(cell).center())
    assert asked.args == ["T02", "T02-C01"]
    # keyboard: Enter on the cell does the same; a criterion without disagreements asks nothing
    with qtbot.assertNotEmitted(editor.disagreementsRequested):
        other = judge_cell(editor, "T01", "T01-C01")
        table.scrollTo(other)
        QTest.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=table.visualRect(other).center())
    table.setCurrentIndex(judge_cell(editor, "final", "A-01"))
    table.setFocus()
    with qtbot.waitSignal(editor.disagreementsRequested, timeout=2000) as asked:
        QTest.keyClick(table, Qt.Key.Key_Return)
    assert asked.args == ["final", "A-01"]


def test_an_adjudication_in_the_store_clears_the_flag_without_a_reset(qtbot, editor: RubricEditor, project: Path):
    model = editor.model
    resets: list[bool] = []
    changed: list[tuple[int, int]] = []
    model.modelReset.connect(lambda: resets.append(True))
    model.dataChanged.connect(lambda first, last, *_: changed.append((first.column(), last.column())))
    # the people settle T02-C01 as the judge read it: pass on both runs
    put(project, RUN_A, "adjudicated", {("T02", "T02-C01"): "pass"})
    put(project, RUN_B, "adjudicated", {("T02", "T02-C01"): "pass"})
    assert editor.calibration is not None and editor.calibration.watcher.check()
    qtbot.waitUntil(lambda: judge_cell(editor, "T02", "T02-C01").data() == "100% (0/2 differ)", timeout=30000)
    assert not judge_cell(editor, "T02", "T02-C01").data(FLAGGED_ROLE)
    assert resets == [] and changed and all(c == (COLUMN["judge"], COLUMN["judge"]) for c in changed)


def test_rewriting_a_criterion_starts_its_calibration_afresh(qtbot, editor: RubricEditor):
    row = editor.model.row_of("T02", "T02-C01")
    assert row is not None
    editor.model.setData(editor.model.index(row, COLUMN["text"]), "The net debt figure is restated correctly.")
    # the experts' and the judge's verdicts were given on the old text: no comparison is left
    qtbot.waitUntil(lambda: judge_cell(editor, "T02", "T02-C01").data() is None, timeout=30000)


def test_in_the_window_the_flag_opens_the_review_on_the_disagreeing_decisions(qtbot, project: Path):
    from PySide6.QtWidgets import QTabWidget

    from tests.gui.shell_support import idle, open_window

    window = open_window(qtbot, project)
    out_of_blind_mode(window.context)
    editor = window.open_rubric(None)
    assert editor is not None
    qtbot.waitUntil(lambda: bool(editor.model.calibration) and not window.runner.busy, timeout=30000)
    table = editor.findChild(QTableView, "rubricTable")
    cell = judge_cell(editor, "T02", "T02-C01")
    table.scrollTo(cell)
    QTest.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=table.visualRect(cell).center())
    qtbot.waitUntil(lambda: window.review.review_view is not None, timeout=20000)
    view = window.review.review_view
    tabs = window.findChild(QTabWidget, "editorTabs")
    qtbot.waitUntil(lambda: tabs.currentWidget() is view and view.proxy.rowCount() == 2, timeout=20000)
    shown = {view.model.decision(view.proxy.mapToSource(view.proxy.index(row, 0)).row()).key
             for row in range(view.proxy.rowCount())}
    # by hand (the module's docstring): the judge and the experts differ on T02-C01 in both runs
    assert shown == {(RUN_A, "T02", "T02-C01"), (RUN_B, "T02", "T02-C01")}
    idle(qtbot, window)
