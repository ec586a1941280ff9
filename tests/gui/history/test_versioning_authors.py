"""The Versions panel says who changed each field of the subtask or criterion it follows last, as
`dbstudio blame` does, from two authors' commits in a real repository."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtWidgets import QTableView

from studio.editing.session import ProjectSession
from studio.gui.base.project_context import ProjectContext
from studio.gui.base.tasks import TaskRunner
from studio.gui.history.versioning import VersioningPanel
from studio.store.workspace import sample_project
from tests.helpers import git, replace_in

RUBRIC = "subtasks/T01/rubric.yaml"


def _commit_as(root: Path, name: str, message: str) -> None:
    git(root, "-c", f"user.name={name}", "-c", "user.email=x@example.com", "commit", "-q", "-am", message)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "kestrel"
    shutil.copytree(sample_project(), root)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    _commit_as(root, "Ann Auditor", "the sample")
    replace_in(root, RUBRIC, "weight: 8", "weight: 7")
    _commit_as(root, "Bob Banker", "T01-C01 weighs less")
    return root


@pytest.fixture
def panel(qtbot, project: Path) -> VersioningPanel:
    runner = TaskRunner()
    widget = VersioningPanel(ProjectContext(ProjectSession(project)), runner)
    qtbot.addWidget(widget)
    widget.resize(900, 900)
    widget.show()
    yield widget
    runner.wait()


def _authors(panel: VersioningPanel) -> dict[str, str]:
    model = panel.findChild(QTableView, "fieldAuthorsView").model()
    return {model.index(row, 0).data(): model.index(row, 1).data() for row in range(model.rowCount())}


def test_the_panel_names_each_fields_last_author(qtbot, panel, qtmodeltester):
    view = panel.findChild(QTableView, "fieldAuthorsView")
    qtbot.waitUntil(lambda: panel.findChild(QTableView, "historyView").model().rowCount() == 2, timeout=10000)
    assert not view.isVisibleTo(panel)  # the whole project: no field authors
    panel.show_object("criterion", "T01-C01")
    qtbot.waitUntil(lambda: view.model().rowCount() > 0, timeout=10000)
    assert view.isVisibleTo(panel)
    authors = _authors(panel)
    assert authors["weight"] == "Bob Banker" and authors["text"] == "Ann Auditor"
    qtmodeltester.check(view.model())
    panel.show_object("subtask", "T01")
    qtbot.waitUntil(lambda: "rubric.T01-C01.weight" in _authors(panel), timeout=10000)
    assert _authors(panel)["rubric.T01-C01.weight"] == "Bob Banker"
    assert _authors(panel)["title"] == "Ann Auditor"
