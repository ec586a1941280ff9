"""Judging > Defect Lineage: the matrix of a judged run, as `dbstudio lineage` gives it."""

from __future__ import annotations

import shutil
from pathlib import Path

from studio.editing.session import ProjectSession
from studio.gui.base.project_context import ProjectContext
from studio.gui.base.tasks import TaskRunner
from studio.gui.judging.lineage_view import LineageView
from studio.model.vocabulary import FINAL_SCOPE
from studio.store.workspace import sample_project
from tests.scoring.test_lineage import write_run


def test_the_matrix_of_a_run_and_a_defects_details(qtbot, tmp_path: Path) -> None:
    root = Path(shutil.copytree(sample_project(), tmp_path / "kestrel"))
    write_run(root, "run-a", {("T01", "T01-C03"): "fail", ("T03", "T03-C02"): "fail"})
    write_run(root, "run-b", {("T06", "T06-C02"): "fail", (FINAL_SCOPE, "T06-C02"): "fail"}, skip={"T05"})
    runner = TaskRunner()
    context = ProjectContext(ProjectSession(root))
    context.rater_identity().set_blind(False)  # the lead reads the judge's verdicts
    view = LineageView(context, runner)
    qtbot.addWidget(view)
    view.resize(1366, 700)
    view.show()
    qtbot.waitUntil(lambda: view.lineage is not None and not runner.busy, timeout=30000)
    assert view.focusWidget() is view.picker
    assert view.lineage.submission == "run-a"
    model = view.model
    rows = {model.index(r, 0).data(): r for r in range(model.rowCount())}
    row = rows["T01/T01-C03"]
    assert model.index(row, 1).data() == "propagated"
    t03 = model.HEADERS.index("T03")
    assert model.index(row, t03).data() == "1 downstream"
    assert "failing downstream: T03-C02" in model.index(row, t03).data(0x0003)  # ToolTipRole
    view.table.setCurrentIndex(model.index(row, 0))
    assert "Failures downstream: T03/T03-C02." in view.details.toPlainText()
    view.picker.setCurrentText("run-b")
    qtbot.waitUntil(lambda: view.lineage.submission == "run-b" and not runner.busy, timeout=30000)
    assert "2 persisted" in view.summary.text() and "not judged: T05" in view.summary.text()
    final = model.HEADERS.index(FINAL_SCOPE)
    assert model.index(0, final).data() == "fails again"
    assert model.index(0, model.HEADERS.index("T05")).data() is None  # before T06: no later scope of its defect


def test_a_blind_rater_follows_only_the_verdicts_they_gave(qtbot, tmp_path: Path) -> None:
    root = Path(shutil.copytree(sample_project(), tmp_path / "kestrel"))
    write_run(root, "run-a", {("T01", "T01-C03"): "fail", ("T03", "T03-C02"): "fail"})
    context = ProjectContext(ProjectSession(root))
    context.rater_identity().set_name("Hanna Verbeek")
    context.rater_identity().set_blind(True)
    runner = TaskRunner()
    view = LineageView(context, runner)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitUntil(lambda: view.lineage is not None and not runner.busy, timeout=30000)
    assert view.lineage.defects == [] and view.lineage.judged == []  # the judge's verdicts stay hidden
    context.rater_identity().set_blind(False)
    qtbot.waitUntil(lambda: view.lineage is not None and len(view.lineage.defects) == 2 and not runner.busy,
                    timeout=30000)
