"""The Judge Certification view (Judging > Judge Certification) over the store of
tests/agreement/test_certification.py: 20 runs, 40 decisions the expert Anna settled, three judges.
What it shows is checked against hand-computed Wilson bounds and corrected scores, against what the
command line prints for the same store, and under blind review.

judge:lenient: sensitivity 18/20, specificity 14/20; judge:good 20/20 and 20/20. At 0.8 a class
needs 16 decisions (0.8 x 1.96^2 / 0.2 = 15.4); the Wilson lower bound of 20/20 is
20 / (20 + 1.96^2) = 0.839 (certified at 0.8, and short of decisions at 0.85: 22 needed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtWidgets import QTableView

from studio.editing.session import ProjectSession
from studio.gui.base.project_context import ProjectContext
from studio.gui.base.tasks import TaskRunner
from studio.gui.judging.judge_error_view import JudgeErrorView
from tests.agreement.test_certification import GOOD, LENIENT, certified_project, wilson_by_hand
from tests.helpers import run_cli


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return certified_project(tmp_path / "blank")


def open_view(qtbot, root: Path, blind: bool = False, name: str = "") -> tuple[JudgeErrorView, TaskRunner]:
    runner = TaskRunner()
    context = ProjectContext(ProjectSession(root))
    context.rater_identity().set_name(name)
    context.rater_identity().set_blind(blind)
    view = JudgeErrorView(context, runner)
    qtbot.addWidget(view)
    view.resize(1366, 700)
    view.show()
    qtbot.waitUntil(lambda: not runner.busy and not view.busy.isVisible(), timeout=60000)
    return view, runner


def rows(view: JudgeErrorView, name: str) -> list[list[str]]:
    model = view.findChild(QTableView, name).model()
    return [[model.index(r, c).data() for c in range(model.columnCount())] for r in range(model.rowCount())]


def recompute(qtbot, view: JudgeErrorView, runner: TaskRunner) -> None:
    with qtbot.waitSignal(view.computed, timeout=60000):
        view.compute_button.click()
    qtbot.waitUntil(lambda: not runner.busy, timeout=60000)


def bounds(k: int, n: int) -> str:
    low, high = wilson_by_hand(k, n)
    return f"{k}/{n} {k / n:.2f} [{low:.2f}, {high:.2f}]"


def test_certificates_match_the_hand_computation(qtbot, project: Path):
    view, runner = open_view(qtbot, project)
    shown = {(r[0], r[1]): r for r in rows(view, "judgeCertificatesTable")}
    lenient = next(r for (j, scope), r in shown.items() if j == LENIENT and scope.startswith("project "))
    assert lenient[2:5] == ["40", bounds(18, 20), bounds(14, 20)]
    assert lenient[5] == "80.0%" and lenient[7] == "not certified"
    good = next(r for (j, scope), r in shown.items() if j == GOOD and scope.startswith("project "))
    assert good[3:5] == [bounds(20, 20), bounds(20, 20)] and good[7] == "certified"
    # three judges: each side by side on the decisions all of them judged (the 40 settled ones)
    side = [r for r in rows(view, "judgeCertificatesTable") if r[1] == "same 40 decisions"]
    assert [r[0] for r in side] == ["judge:coin", GOOD, LENIENT]
    assert "certified at 0.8" in view.status.text()

    view.threshold.setValue(0.85)
    recompute(qtbot, view, runner)
    good = next(r for r in rows(view, "judgeCertificatesTable") if r[0] == GOOD and r[1].startswith("project "))
    assert good[7] == "not enough expert verdicts"


def test_corrected_scores_match_the_hand_computation_and_the_command_line(qtbot, capsys, project: Path):
    view, runner = open_view(qtbot, project)
    view.judge_box.setCurrentIndex(view.judge_box.findData(LENIENT))
    qtbot.waitUntil(lambda: view.result is not None and view.result.judge == LENIENT and not runner.busy,
                    timeout=60000)
    shown = {(r[0], r[1]): r for r in rows(view, "correctedScoresTable")}
    # run-x final: raw 70; corrected (4 + (10 - 0.3 x 16) / 0.6) / 20 x 100 = 63.33 (test_certification.py)
    final = next(r for (system, scope), r in shown.items() if system.startswith("run-x") and scope == "final")
    assert final[2:4] == ["70.00", "63.33"]
    # the same scores as `dbstudio score --corrected` gives
    code, out, err = run_cli(capsys, "score", "--project", str(project), "--corrected", "--judge", LENIENT,
                             "--format", "json")
    assert code == 0, err
    (found,) = json.loads(out)["corrected"]["projects"]
    given = sorted([s["system"], s["scope"], "—" if s["raw"] is None else f"{s['raw']:.2f}",
                    "—" if s["corrected"] is None else f"{s['corrected']:.2f}"] for s in found["scores"])
    assert len(given) == len(shown) > 40
    assert given == sorted(r[:4] for r in shown.values())


@pytest.mark.parametrize("rater, expected", [("", "rated none yet"), ("Bob", "Bob rated none yet")])
def test_a_blind_rater_who_rated_nothing_sees_no_judge_figures(qtbot, project: Path, rater: str, expected: str):
    view, _ = open_view(qtbot, project, blind=True, name=rater)
    assert rows(view, "judgeCertificatesTable") == [] and rows(view, "correctedScoresTable") == []
    assert expected in view.status.text()
    assert view.blind_note.isVisible()


def test_a_blind_rater_sees_the_decisions_they_rated(qtbot, project: Path):
    view, _ = open_view(qtbot, project, blind=True, name="Anna")  # Anna rated all 40 checked decisions
    lenient = next(r for r in rows(view, "judgeCertificatesTable") if r[0] == LENIENT and r[1].startswith("project "))
    assert lenient[2:5] == ["40", bounds(18, 20), bounds(14, 20)]


def test_the_judging_menu_opens_the_view_once(qtbot, project: Path):
    from PySide6.QtGui import QAction

    from tests.gui.shell_support import open_window

    window = open_window(qtbot, project)
    window.context.rater_identity().set_blind(False)
    window.findChild(QAction, "judgeErrorAction").trigger()
    view = window.editor_tabs.currentWidget()
    assert isinstance(view, JudgeErrorView) and view.objectName() == "judgeErrorView"
    assert window.editor_tabs.tabText(window.editor_tabs.currentIndex()) == "Judge Certification"
    qtbot.waitUntil(lambda: view.result is not None, timeout=30000)
    assert view.result.judges == ["judge:coin", GOOD, LENIENT]
    count = window.editor_tabs.count()
    window.findChild(QAction, "judgeErrorAction").trigger()  # the open view again, not a second one
    assert window.editor_tabs.currentWidget() is view and window.editor_tabs.count() == count
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=30000)
