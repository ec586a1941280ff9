"""The placeholder main window opens a project and shows its tree and findings."""

from __future__ import annotations

import shutil
from pathlib import Path

from PySide6.QtCore import QModelIndex, Qt

from studio.gui.app import resolve_project
from studio.gui.findings_model import FindingsModel
from studio.gui.main_window import MainWindow
from studio.gui.project_tree_model import ProjectTreeModel
from studio.store.loader import load_project
from studio.store.workspace import TEMPLATES_DIR, sample_project
from studio.validation.validate import validate_loaded


def test_tree_model_passes_qt_model_tester(qtmodeltester):
    model = ProjectTreeModel()
    model.set_project(load_project(sample_project()).project)
    qtmodeltester.check(model)
    assert model.rowCount() >= 4  # three or more stages, then the final rubric


def test_findings_model_passes_qt_model_tester(qtmodeltester, tmp_path: Path):
    project = tmp_path / "p"
    shutil.copytree(TEMPLATES_DIR / "blank", project)
    (project / "stages.yaml").write_text("stages:\n  - id: S1\n    title: x\n    subtasks:\n      - T09\n")
    model = FindingsModel()
    model.set_findings(validate_loaded(load_project(project)))
    qtmodeltester.check(model)
    assert model.rowCount() >= 1
    assert model.index(0, 0).data() == "stages.yaml"


def test_window_opens_the_sample_clean(qtbot):
    window = MainWindow()
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.project_opened, timeout=5000):
        window.open_project(sample_project())
    window.show()
    assert "Kestrel" in window.windowTitle()
    assert "validates clean" in window.statusBar().currentMessage()
    model = window.tree_model
    stage = model.index(0, 0, QModelIndex())
    subtask = model.index(0, 0, stage)
    assert subtask.data(Qt.ItemDataRole.DisplayRole).startswith("T01")
    assert window.findings_model.rowCount() == 0


def test_default_project_is_a_workspace_copy_of_the_sample(tmp_path: Path):
    folder = resolve_project(None)
    assert folder == tmp_path / "workspace" / "kestrel-refinancing"
    assert (folder / ".git").is_dir()


def test_no_display_gives_a_message_not_a_crash(monkeypatch):
    from studio.gui.app import no_display_reason, run_app

    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    assert "no display" in no_display_reason()
    assert run_app(None) == 2
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    assert no_display_reason() is None
