"""The scores view on two runs of the blank template judged in the verdict store (no Docker): the
numbers it shows against the hand computation of tests/judging/scored_runs.py, the judge picker,
live updates when the store changes, the charts and their PNG export, the table export."""

from __future__ import annotations

import io
from pathlib import Path

import openpyxl
import pytest
from PIL import Image
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QFileDialog, QPushButton, QTableView

from studio.editing.session import ProjectSession
from studio.gui.base.project_context import ProjectContext
from studio.gui.base.tasks import TaskRunner
from studio.gui.judging.scores_view import EVERY_JUDGE, ScoresView
from tests.judging.scored_runs import JUDGE, JUDGED_A, RUN_A, RUN_B, SYSTEM_A, SYSTEM_B, put, scored_project


def out_of_blind_mode(context: ProjectContext) -> ProjectContext:
    """A maintainer looking at every verdict (blind review hides them from a rater: test_blind_review.py)."""
    context.rater_identity().set_blind(False)
    return context



@pytest.fixture
def project(tmp_path: Path) -> Path:
    return scored_project(tmp_path / "blank")


def open_view(qtbot, root: Path) -> ScoresView:
    runner = TaskRunner()
    view = ScoresView(out_of_blind_mode(ProjectContext(ProjectSession(root))), runner)
    view.runner_ref = runner  # kept alive with the view
    qtbot.addWidget(view)
    view.resize(1300, 900)
    view.show()
    qtbot.waitUntil(lambda: view.sheet is not None and not runner.busy, timeout=30000)
    return view


def shown(view: ScoresView) -> dict[str, dict[str, str]]:
    """Run -> column -> the text the table shows."""
    table = view.findChild(QTableView, "scoresTable")
    model = table.model()
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    return {model.index(r, 0).data(): {headers[c]: str(model.index(r, c).data()) for c in range(1, len(headers))}
            for r in range(model.rowCount())}


def recompute(qtbot, view: ScoresView) -> None:
    with qtbot.waitSignal(view.computed, timeout=30000):
        assert view.watcher.check()


def test_the_table_shows_the_hand_computed_scores_and_ranges_never_0(qtbot, project: Path):
    view = open_view(qtbot, project)
    assert shown(view) == {
        # run-a: T01 5/5; T02 (6 + 4 - 2)/10; process the mean; final (5 + 6 + 5)/20
        SYSTEM_A: {"T01": "100.00", "T02": "80.00", "Process": "90.00", "Final": "80.00", "Missing": "0"},
        # run-b: T02-C02 and PKG-01 missing: T02 in 6/10..10/10, final in 10/20..15/20, process (0+60)/2..(0+100)/2
        SYSTEM_B: {"T01": "0.00", "T02": "60.0–100.0", "Process": "30.0–50.0", "Final": "50.0–75.0", "Missing": "2"},
    }
    model = view.model
    cell = model.index(1, 2)
    assert cell.data(Qt.ItemDataRole.FontRole).italic()
    assert "between 60.00 and 100.00" in cell.data(Qt.ItemDataRole.ToolTipRole)
    assert model.index(0, 2).data(Qt.ItemDataRole.FontRole) is None  # a known score: no italics
    assert "2 verdict(s) missing" in view.status.text()


def test_a_rubric_without_verdicts_is_not_judged_and_a_new_verdict_updates_the_view(qtbot, project: Path):
    # a handed-over folder judged on the final rubric only
    put(project, "folder-c", JUDGE, {("final", "T01-C01"): "pass", ("final", "T02-C01"): "fail",
                                     ("final", "A-01"): "pass", ("final", "PKG-01"): "pass"})
    view = open_view(qtbot, project)
    assert shown(view)["folder-c"] == {"T01": "not judged", "T02": "not judged", "Process": "not judged",
                                       "Final": "70.00", "Missing": "5"}  # (5 + 4 + 5) / 20
    reset: list[bool] = []
    view.model.modelReset.connect(lambda: reset.append(True))
    put(project, RUN_B, JUDGE, {("T02", "T02-C02"): "pass"})  # the judge resolves run-b's T02-C02
    recompute(qtbot, view)
    row = shown(view)[SYSTEM_B]
    assert (row["T02"], row["Process"], row["Missing"]) == ("100.00", "50.00", "1")  # 10/10; (0 + 100) / 2
    assert reset == []  # the same runs and rubrics: cells change, the table is not rebuilt


def test_the_judge_picker_chooses_whose_verdicts_count(qtbot, project: Path):
    put(project, RUN_A, "judge:m2", {key: "fail" for key in JUDGED_A})
    view = open_view(qtbot, project)
    picker = view.judge_box
    assert [picker.itemText(i) for i in range(picker.count())] == [EVERY_JUDGE, JUDGE, "judge:m2"]
    # every judge: run-a's judges differ everywhere but on T02-G01 and final A-01 (both fail): all else missing
    assert shown(view)[SYSTEM_A]["Missing"] == "7"
    with qtbot.waitSignal(view.computed, timeout=30000):
        picker.setCurrentIndex(picker.findData("judge:m2"))
    assert shown(view)[SYSTEM_A] == {"T01": "0.00", "T02": "0.00", "Process": "0.00", "Final": "0.00", "Missing": "0"}


def test_charts_are_real_pngs_and_export_as_shown(qtbot, project: Path, tmp_path: Path, monkeypatch):
    view = open_view(qtbot, project)
    for name in ("trajectoryChart", "profileChart"):
        chart = view.findChild(type(view.trajectory), name)
        image = QImage.fromData(chart.png, "PNG")
        assert not image.isNull() and image.width() >= 1200 and image.height() >= 700, name
        assert not chart.pixmap().isNull()  # shown, scaled to the view
        assert chart.pixmap().width() <= chart.width()
    out = tmp_path / "out" / "trajectory.png"
    out.parent.mkdir()
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *args: (str(out), "PNG image (*.png)"))
    view.findChild(QPushButton, "exportTrajectoryButton").click()
    assert out.read_bytes() == view.trajectory.png
    with Image.open(io.BytesIO(out.read_bytes())) as image:
        assert image.format == "PNG" and image.size[0] >= 1200
    assert str(out) in view.status.text()


def test_the_table_exports_as_xlsx(qtbot, project: Path, tmp_path: Path, monkeypatch):
    view = open_view(qtbot, project)
    out = tmp_path / "scores.xlsx"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *args: (str(out), "Excel workbook (*.xlsx)"))
    view.findChild(QPushButton, "exportScoresTableButton").click()
    rows = list(openpyxl.load_workbook(out).active.iter_rows(values_only=True))
    assert rows[0] == ("system", "submission", "T01", "T02", "process", "final", "missing")
    assert rows[1] == (SYSTEM_A, RUN_A, "100.00", "80.00", "90.00", "80.00", 0)
    assert rows[2] == (SYSTEM_B, RUN_B, "0.00", "60.0–100.0", "30.0–50.0", "50.0–75.0", 2)


def test_a_store_without_verdicts_says_what_to_do(qtbot, tmp_path: Path):
    root = scored_project(tmp_path / "blank", judged=False)
    runner = TaskRunner()
    view = ScoresView(out_of_blind_mode(ProjectContext(ProjectSession(root))), runner)
    qtbot.addWidget(view)
    with qtbot.waitSignal(view.failed, timeout=30000) as failed:
        pass
    assert "no verdicts yet" in failed.args[0] and "dbstudio judge" in failed.args[0]
    assert view.model.rowCount() == 0
    assert not view.findChild(QPushButton, "exportTrajectoryButton").isEnabled()
    runner.wait()


def test_the_judging_menu_opens_the_views_as_tabs_of_the_window(qtbot, tmp_path: Path, monkeypatch):
    from PySide6.QtGui import QAction

    from studio.gui.judging.agreement_view import AgreementView
    from tests.gui.shell_support import open_window

    root = scored_project(tmp_path / "blank")
    window = open_window(qtbot, root)
    out_of_blind_mode(window.context)
    window.findChild(QAction, "scoresAction").trigger()
    view = window.editor_tabs.currentWidget()
    assert isinstance(view, ScoresView) and view.objectName() == "scoresView"
    assert window.editor_tabs.tabText(window.editor_tabs.currentIndex()) == "Scores"
    qtbot.waitUntil(lambda: view.sheet is not None, timeout=30000)
    assert shown(view)[SYSTEM_A]["Final"] == "80.00"
    window.findChild(QAction, "agreementAction").trigger()
    assert isinstance(window.editor_tabs.currentWidget(), AgreementView)
    window.findChild(QAction, "scoresAction").trigger()  # the open view again, not a second one
    assert window.editor_tabs.currentWidget() is view and window.editor_tabs.count() == 2
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=30000)


def test_a_hidden_view_computes_again_only_once_shown(qtbot, project: Path):
    view = open_view(qtbot, project)
    view.hide()
    put(project, RUN_B, JUDGE, {("T02", "T02-C02"): "pass"})
    assert view.watcher.check()
    assert not view.runner.busy and shown(view)[SYSTEM_B]["T02"] == "60.0–100.0"  # nothing queued while hidden
    with qtbot.waitSignal(view.computed, timeout=30000):
        view.show()
    assert shown(view)[SYSTEM_B]["T02"] == "100.00"


def test_the_table_is_shown_before_the_charts_are_drawn_and_a_closed_view_takes_no_late_charts(qtbot, project: Path):
    runner = TaskRunner()
    view = ScoresView(out_of_blind_mode(ProjectContext(ProjectSession(project))), runner)
    # not handed to qtbot: the test deletes the view itself
    drawn: list[bool] = []
    view.charts_drawn.connect(lambda: drawn.append(True))
    with qtbot.waitSignal(view.computed, timeout=30000):
        view.show()
    # the scores are in the table while matplotlib is still to draw (a task of its own behind it)
    assert view.model.rowCount() == 2 and view.trajectory.png is None and drawn == [] and runner.busy
    assert view.busy.isVisibleTo(view)
    with qtbot.waitSignal(view.charts_drawn, timeout=30000):
        pass
    assert view.trajectory.png is not None and view.profile.png is not None and not view.busy.isVisibleTo(view)

    # a view closed while its charts are drawn: their late answer is dropped, nothing is raised
    crashes: list[str] = []
    runner.crashed.connect(lambda label, trace: crashes.append(trace))
    with qtbot.waitSignal(view.computed, timeout=30000):
        view.refresh()
    assert runner.busy
    view.close()
    view.deleteLater()
    qtbot.waitUntil(lambda: not runner.busy, timeout=30000)
    qtbot.wait(50)
    assert crashes == []
