"""The agreement dashboard on the judge and one expert (Anna) over two runs of the blank template:
the statistics it shows against a hand computation, by target too; the chart as a real PNG, its
export; the busy bar while the bootstrap runs in the background.

Judge vs Anna, decisions rated by both (16; tests/judging/scored_runs.py):
  pass/pass 8, fail/fail 5, judge pass - Anna fail 2 (T02-C01 of both runs), judge fail - Anna pass 1
  (final A-01 of run-a). Agreement 13/16 = 81.25%.
  Cohen's kappa: pe = (10 x 9 + 6 x 7) / 256 = 0.515625; (0.8125 - pe) / (1 - pe) = 0.612903.
  Gwet's AC1: pi = (10 + 9) / 32; pe = 2 pi (1 - pi) = 0.482422; (0.8125 - pe) / (1 - pe) = 0.637736.
  By target: checkpoint 7 of 9 agree (77.8%), artifact 5 of 6 (83.3%), package 1 of 1 (100.0%).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image
from PySide6.QtWidgets import QFileDialog, QPushButton, QTableView

from studio.editing.session import ProjectSession
from studio.gui.base.project_context import ProjectContext
from studio.gui.base.tasks import TaskRunner
from studio.gui.judging.agreement_view import AgreementView
from tests.judging.scored_runs import JUDGED_A, JUDGED_B, RUN_A, RUN_B, put, scored_project


def out_of_blind_mode(context: ProjectContext) -> ProjectContext:
    """A maintainer looking at every verdict (blind review hides them from a rater: test_blind_review.py)."""
    context.rater_identity().set_blind(False)
    return context



@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = scored_project(tmp_path / "blank")
    put(root, RUN_A, "Anna", {**JUDGED_A, ("T02", "T02-C01"): "fail", ("final", "A-01"): "pass"})
    put(root, RUN_B, "Anna", {**{k: v for k, v in JUDGED_B.items() if v != "missing"}, ("T02", "T02-C01"): "fail"})
    return root


def open_view(qtbot, root: Path, resamples: int = 0) -> AgreementView:
    runner = TaskRunner()
    view = AgreementView(out_of_blind_mode(ProjectContext(ProjectSession(root))), runner, resamples=resamples)
    view.runner_ref = runner
    qtbot.addWidget(view)
    view.resize(1400, 900)
    view.show()
    qtbot.waitUntil(lambda: view.result is not None and not runner.busy, timeout=60000)
    return view


def rows(view: AgreementView) -> dict[str, list[str]]:
    model = view.findChild(QTableView, "agreementTable").model()
    return {model.index(r, 0).data(): [model.index(r, c).data() for c in range(1, model.columnCount())]
            for r in range(model.rowCount())}


def test_the_statistics_match_the_hand_computation(qtbot, project: Path):
    view = open_view(qtbot, project)
    shown = rows(view)
    decisions, percent, _interval, pair_mean, kappa, ac1, _ac1_interval, _alpha = shown["pooled"]
    assert (decisions, percent, kappa, ac1) == ("16", "81.2%", "0.613", "0.638")
    assert pair_mean == percent  # two raters: one pair
    assert shown["target checkpoint"][:2] == ["9", "77.8%"]
    assert shown["target artifact"][:2] == ["6", "83.3%"]
    assert shown["target package"][:2] == ["1", "100.0%"]
    assert {"dimension completeness", "dimension correctness", "dimension consistency"} <= set(shown)
    assert view.result is not None and view.result.judge == "judge:m1"
    # 18 decisions in the ratings: run-b's T02-C02 and PKG-01 have only the judge's missing verdict
    assert "18 decisions on 6 items (16 rated by two raters or more)" in view.status.text() and "no bootstrap" in view.status.text()


def test_the_bootstrap_runs_in_the_background_and_gives_intervals(qtbot, project: Path):
    view = open_view(qtbot, project)
    view.resamples.setValue(400)
    view.seed.setValue(7)
    with qtbot.waitSignal(view.computed, timeout=60000):
        view.findChild(QPushButton, "agreementComputeButton").click()
        # the analysis is on the worker thread: the window shows it is busy and cannot start another
        assert view.busy.isVisible() and not view.compute_button.isEnabled()
    assert not view.busy.isVisible()
    interval = rows(view)["pooled"][6]
    low, high = (float(x) for x in interval.split(" to "))
    assert low <= 0.638 <= high and low < high
    assert view.result is not None and view.result.report.bootstrap == {"resamples": 400, "seed": 7, "unit": "item"}


def test_the_chart_is_a_real_png_and_exports(qtbot, project: Path, tmp_path: Path, monkeypatch):
    view = open_view(qtbot, project)
    assert view.chart.png is not None and not view.chart.pixmap().isNull()
    out = tmp_path / "agreement.png"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *args: (str(out), "PNG image (*.png)"))
    view.findChild(QPushButton, "exportAgreementChartButton").click()
    with Image.open(out) as image:
        assert image.format == "PNG" and image.size[0] >= 1500 and image.size[1] >= 700


def test_one_rater_alone_is_explained(qtbot, tmp_path: Path):
    root = scored_project(tmp_path / "blank")
    runner = TaskRunner()
    view = AgreementView(out_of_blind_mode(ProjectContext(ProjectSession(root))), runner, resamples=0)
    qtbot.addWidget(view)
    qtbot.waitUntil(lambda: not runner.busy, timeout=30000)
    assert "two raters" in view.status.text() and "expert" in view.status.text()
    assert view.model.rowCount() == 0 and not view.export_chart_button.isEnabled()


def test_the_report_exports_as_json_and_an_unwritable_place_is_a_message(qtbot, project: Path, tmp_path: Path,
                                                                        monkeypatch):
    import json

    view = open_view(qtbot, project)
    out = tmp_path / "agreement.json"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *args: (str(out), "JSON (*.json)"))
    view.findChild(QPushButton, "exportAgreementReportButton").click()
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["pooled"]["n"] == 16 and data["pooled"]["agree"] == 13 and data["judge"] == "judge:m1"
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *args: (str(blocked / "chart.png"), "PNG image (*.png)"))
    view.findChild(QPushButton, "exportAgreementChartButton").click()
    assert "cannot write it" in view.status.text() and str(blocked / "chart.png") in view.status.text()
