"""The window's project-sized item models pass Qt's model tester on a 5,000-criterion project, not
only on the small sample: the explorer (every branch fetched) and the findings of a full review.
(The rubric table, its filter and totals are checked at this size in test_rubric_model.py.)"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QModelIndex

from bench.review_bench import LARGE_CRITERIA, expected_large_counts, make_large_project
from studio.gui.project.explorer_model import ExplorerModel
from studio.gui.project.findings_model import FindingsModel
from studio.review.runner import review_loaded
from studio.store.loader import load_project


def _fetch_all(model: ExplorerModel, parent: QModelIndex = QModelIndex()) -> int:
    if model.canFetchMore(parent):
        model.fetchMore(parent)
    return sum(1 + _fetch_all(model, model.index(row, 0, parent)) for row in range(model.rowCount(parent)))


def test_explorer_and_findings_models_at_5000_criteria(qtmodeltester, tmp_path: Path):
    make_large_project(tmp_path / "large")
    loaded = load_project(tmp_path / "large")
    assert len(loaded.project.checkpoint_rubrics["T01"].criteria) == LARGE_CRITERIA

    explorer = ExplorerModel()
    explorer.set_project(loaded.project)
    assert _fetch_all(explorer) > 10
    assert explorer.find("subtask", "T01").isValid()
    qtmodeltester.check(explorer)

    findings = FindingsModel()
    report = review_loaded(loaded)
    findings.set_findings(report.findings)
    # The bench seeds this project with known findings; the model shows each of them.
    assert findings.rowCount() == len(report.findings) == sum(expected_large_counts().values())
    qtmodeltester.check(findings)
